## check_sssp_gpu - gd_apsp (W, 'Sources', s) on the GPU ('gpu') against the
## host's ('cpu') on graphs larger than check_sssp's: D and P bit for bit
## (the lengths are every method's; the trees the same rule over them:
## from unique tight predecessors, tied cells by their chains, by levels), a
## sparse W and a dense one in single, a gdArray W in and D and P out,
## 'auto' on the GPU, negative edges, a zero-weight cycle, a planted
## negative cycle far from the source. Prints "sources on the GPU exact".
function check_sssp_gpu ()
  for shape = {"grid", "knn", "power"}
    [i, j, v, n] = graph (shape{1});
    S = sparse (i, j, v, n, n);
    s = [randi(n, 1, 40), 1, 1];
    [D, P] = gd_apsp (S, "Sources", s, "Variant", "cpu");
    ## the GPU's choice, and each of its two methods asked for
    for v = {"gpu", "nearfar", "rounds"}
      [Dg, Pg, info] = gd_apsp (S, "Sources", s, "Variant", v{1});
      if (! (isequal (Dg, D) && isequaln (Pg, P)))
        error ("%s, %s: the GPU's D or P differs from the host's (%d of %d lengths)", shape{1},
               v{1}, nnz (Dg != D), numel (D));
      endif
      assert (strcmp (info.variant, v{1}));
      near = ! isempty (strfind (info.kernel, "near-far"));
      if (strcmp (v{1}, "gpu"))
        ## the probe: the grid's and the kNN graph's shortest paths have
        ## hundreds of edges (near-far), the power-law graph's a few (the rounds)
        assert (near == ! strcmp (shape{1}, "power"), info.kernel);
        assert (! isempty (regexp (info.kernel, '; probe: (over )?\d+ rounds$', "once")), info.kernel);
      else
        assert (near == strcmp (v{1}, "nearfar"), info.kernel);
      endif
      ## the trees: the kNN graph's real weights give nearly every vertex
      ## one tight in-edge (two sums equal to the last bit are rare, yet
      ## 10^9 cells of a kNN graph meet hundreds: those few by their
      ## chains); the grid's integers give every source ties (by their
      ## chains where they are few enough, else by levels)
      if (strcmp (shape{1}, "grid"))
        every = sprintf ("; trees by levels for %d of %d sources", numel (s), numel (s));
        assert (! isempty (strfind (info.kernel, every))
                || ! isempty (strfind (info.kernel, "tied cells by their chains")), info.kernel);
      elseif (strcmp (shape{1}, "knn"))
        assert (! isempty (strfind (info.kernel, "; trees from unique predecessors")), info.kernel);
      endif
      ## near-far renumbers the kNN graph's vertices (points drawn at
      ## random: an edge's ends far apart in W's order), not the grid's
      if (near)
        assert (isempty (strfind (info.kernel, "the vertices renumbered")) == strcmp (shape{1}, "grid"), info.kernel);
      endif
    endfor
    setenv ("GD_SSSP_ORDER", "0");       # W's order kept: the same D and P
    unwind_protect
      [Dg, Pg, info] = gd_apsp (S, "Sources", s, "Variant", "nearfar");
    unwind_protect_cleanup
      unsetenv ("GD_SSSP_ORDER");
    end_unwind_protect
    assert (isequal (Dg, D) && isequaln (Pg, P) && isempty (strfind (info.kernel, "renumbered")));
    [D32, P32] = gd_apsp (S, "Sources", s, "Variant", "gpu", "IndexClass", "int32");
    Pd = double (P32); Pd(P32 == -1) = NaN;
    assert (isequal (D32, D) && isequaln (Pd, P) && isa (P32, "int32"));
  endfor
  ## ties, few and many: a grid of whole weights randi (100) (a cell in
  ## fifty or so tied, by their chains: ties of ties, paths of fewer edges
  ## among equal sums) and of unit weights, shuffled (nearly every cell:
  ## the levels, near-far's on the graph renumbered)
  for m = [40, 120]
    [x, y] = meshgrid (1:m); u = sub2ind ([m m], y(:), x(:));
    right = u(x(:) < m); down = u(y(:) < m);
    i = [right; right + m; down; down + 1]; j = [right + m; right; down + 1; down];
    S = sparse (i, j, merge (m == 40, randi (100, numel (i), 1), 1), m * m, m * m);
    if (m == 120)                       # its vertices shuffled: near-far renumbers them
      q = randperm (m * m); S = S(q, q);
    endif
    s = [randi(m * m, 1, 20), 1, 1];
    [D, P] = gd_apsp (S, "Sources", s, "Variant", "cpu");
    for v = {"nearfar", "rounds"}
      [Dg, Pg, info] = gd_apsp (S, "Sources", s, "Variant", v{1});
      assert (isequal (Dg, D) && isequaln (Pg, P), "grid %d, %s: D or P differs", m, v{1});
      chains = ! isempty (strfind (info.kernel, "tied cells by their chains"));
      levels = ! isempty (strfind (info.kernel, "; trees by levels for 22 of 22 sources"));
      assert (chains == (m == 40) && levels == (m == 120), info.kernel);
    endfor
  endfor
  ## a weight too small to change a sum: tight edges between equal
  ## lengths (both ways: a cycle of them), tied cells whose chains meet:
  ## two kNN graphs side by side, the first with such weights, 20 sources
  ## in each
  [i, j, v, n] = graph ("knn");
  tiny = find (i < j & ismember ([j, i], [i, j], "rows"));
  tiny = tiny(1:20:end);
  back = find (ismember ([i, j], [j(tiny), i(tiny)], "rows"));
  v([tiny; back]) = 1e-30;
  [i2, j2, v2] = graph ("knn");
  S = sparse ([i; i2 + n], [j; j2 + n], [v; v2], 2 * n, 2 * n);
  s = [randi(n, 1, 20), n + randi(n, 1, 20)](randperm (40));
  [D, P] = gd_apsp (S, "Sources", s, "Variant", "cpu");
  for v = {"nearfar", "rounds"}
    [Dg, Pg, info] = gd_apsp (S, "Sources", s, "Variant", v{1});
    assert (isequal (Dg, D) && isequaln (Pg, P), "tiny weights, %s: D or P differs", v{1});
    assert (! isempty (regexp (info.kernel, "trees from unique predecessors, \\d+ tied cells by their chains", "once")), info.kernel);
  endfor
  ## near-far in batches of sources (a cap on the call's memory), its
  ## kernel named; a stored Inf edge (it reaches nothing: vertex 2 has no
  ## other edge)
  [i, j, v, n] = graph ("knn");
  keep = i != 2 & j != 2;
  S = sparse ([i(keep); 1], [j(keep); 2], [v(keep); Inf], n, n);
  s = [1, randi(n, 1, 40), 1];
  [D, P] = gd_apsp (S, "Sources", s, "Variant", "cpu");
  assert (all (isinf (D(:,2))) && all (isnan (P(:,2))));
  setenv ("GD_GPU_MEM_LIMIT", "40000000");
  unwind_protect
    [Dg, Pg, info] = gd_apsp (S, "Sources", s, "Variant", "nearfar");
  unwind_protect_cleanup
    unsetenv ("GD_GPU_MEM_LIMIT");
  end_unwind_protect
  b = str2double (regexp (info.kernel, '^near-far, (\d+) sources? a batch', "tokens", "once"));
  assert (b >= 1 && b < numel (s), info.kernel);
  assert (isequal (Dg, D) && isequaln (Pg, P));
  ## single, from a dense W (its entries other than Inf), and on gdArrays
  [i, j, v, n] = graph ("knn", 2500);
  W = Inf (n, n, "single");
  W(sub2ind ([n n], i, j)) = v;
  s = randi (n, 1, 64);
  [D, P] = gd_apsp (W, "Sources", s, "Variant", "cpu");
  [Dg, Pg] = gd_apsp (W, "Sources", s, "Variant", "gpu");
  assert (isequal (Dg, D) && isequaln (Pg, P) && isa (Dg, "single"));
  [Da, Pa, info] = gd_apsp (gdArray (W), "Sources", s);
  assert (isa (Da, "gdArray") && isa (Pa, "gdArray") && strcmp (info.variant, "gpu"));
  assert (isequal (gather (Da), D) && isequaln (gather (Pa), P));
  ## negative edges (potentials), zero-weight cycles
  n = 3000;
  [i, j] = find (sprand (n, n, 4 / n));
  h = randi (8, n, 1);
  v = randi (10, numel (i), 1) + h(i) - h(j);
  v(v == 0) = 0.5;
  k = randperm (n, 50);
  i = [i; k(:)]; j = [j; circshift(k(:), 1)]; v = [v; zeros(50, 1) + h(k(:)) - h(circshift (k(:), 1))];
  [~, u] = unique ([i, j], "rows");
  S = sparse (i(u), j(u), v(u), n, n);
  s = [randi(n, 1, 20), k(1)];
  [D, P] = gd_apsp (S, "Sources", s, "Variant", "cpu");
  [Dg, Pg, info] = gd_apsp (S, "Sources", s, "Variant", "gpu");
  assert (isequal (Dg, D) && isequaln (Pg, P));
  assert (isempty (strfind (info.kernel, "probe")), info.kernel);   # the rounds, no probe
  [Dg, Pg] = gd_apsp (S, "Sources", s, "Variant", "rounds");
  assert (isequal (Dg, D) && isequaln (Pg, P));
  ## near-far takes no negative weight: refused, naming the way
  try
    gd_apsp (S, "Sources", s, "Variant", "nearfar");
    error ("nearfar took a negative weight");
  catch err
    assert (err.identifier, "gd:variant");
    assert (! isempty (strfind (err.message, "'nearfar' takes non-negative weights")), err.message);
  end_try_catch
  ## a negative cycle a long way from the source
  m = 500;
  S = sparse (1:m-1, 2:m, ones (1, m - 1), m, m);
  S(m-2, m-3) = -5;                     # m-3 -> m-2 -> m-3: 1 - 5
  try
    gd_apsp (S, "Sources", [m 1], "Variant", "gpu");
    error ("no negcycle");
  catch err
    assert (err.identifier, "gd:negcycle");
    assert (! isempty (regexp (err.message, sprintf ("vertex (%d|%d) lies on it", m - 3, m - 2), "once")), err.message);
  end_try_catch
  printf ("sources on the GPU exact\n");
endfunction

function [i, j, v, n] = graph (shape, n)
  switch (shape)
    case "grid"                        # 150 x 150, both ways: 600 levels
      m = 150; n = m * m;
      [x, y] = meshgrid (1:m); u = sub2ind ([m m], y(:), x(:));
      right = u(x(:) < m); down = u(y(:) < m);
      i = [right; right + m; down; down + 1]; j = [right + m; right; down + 1; down];
      v = randi (100, numel (i), 1);
    case "knn"                         # points in the plane, K = 8
      if (nargin < 2)
        n = 20000;
      endif
      X = rand (n, 2);
      [I, Dk] = gd_knnsearch (X, X, "K", 9);
      i = repmat ((1:n)', 1, 8); j = I(:,2:9);
      i = i(:); j = j(:); v = Dk(:,2:9)(:);
    case "power"                       # preferential attachment
      n = 20000; u = repmat ((2:n)', 1, 3);
      a = floor (rand (n - 1, 3) .* (u - 1)) + 1;
      i = [u(:); a(:)]; j = [a(:); u(:)];
      v = randi (20, numel (i), 1);
  endswitch
  [~, u] = unique ([i(:), j(:)], "rows");
  i = i(u); j = j(u); v = v(u);
endfunction
