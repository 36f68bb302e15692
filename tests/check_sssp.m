function check_sssp (variant)
  ## gd_apsp (W, 'Sources', s) against a plain Bellman-Ford written here
  ## (the lengths: the least of each walk's weights summed in order, in the
  ## class), every route of P walked edge by edge and summed to D exactly,
  ## P a tree of tight edges by levels (the smallest such predecessor), on
  ## random sparse graphs of several shapes: grids, kNN graphs, power-law
  ## degrees, disconnected parts, negative edges without negative cycles
  ## (weights plus potentials), zero-weight cycles, self loops; duplicate
  ## sources; planted negative cycles; errors. Where a python3 has scipy,
  ## each sparse graph's lengths also against its csgraph.shortest_path
  ## (tests/scipy_paths.py: Dijkstra, or Johnson's with negative edges), a
  ## second oracle written elsewhere. Prints "sources exact".
  warning ("off", "gd:nogpu");
  py = scipy_python ();
  agreed = 0;
  shapes = {"grid", "knn", "power", "parts", "potentials", "zeros"};
  for c = {"double", "single"}
    for sh = 1:numel (shapes)
      [i, j, v, n] = graph (shapes{sh});
      W = full_graph (i, j, v, n, c{1});
      S = [];
      if (! any (v == 0))              # (a sparse matrix stores no zero)
        S = sparse (i, j, v, n, n);
      endif
      s = [randi(n, 1, 3), 1, 1];
      for form = 1:2
        if (form == 1)
          [D, P, info] = gd_apsp (W, "Sources", s, "Variant", variant);
        elseif (strcmp (c{1}, "double") && ! isempty (S))
          [D, P, info] = gd_apsp (S, "Sources", s, "Variant", variant);
          agreed += ! isempty (py) && scipy_agrees (py, S, s, D, shapes{sh});
        else
          continue;
        endif
        assert (size (D), [numel(s) n]);
        assert (class (D), c{1});
        for k = 1:numel (s)
          ref = bellman_ford (W, s(k));
          if (! isequal (D(k,:), ref))
            error ("%s %s: source %d's lengths differ from Bellman-Ford's", c{1}, shapes{sh}, s(k));
          endif
          check_tree (W, D(k,:), P(k,:), s(k), c{1}, shapes{sh});
        endfor
        assert (isequal (D(end-1,:), D(end,:)) && isequaln (P(end-1,:), P(end,:)));
      endfor
      [D32, P32] = gd_apsp (W, "Sources", s, "Variant", variant, "IndexClass", "int32");
      assert (class (P32), "int32");
      Pd = double (P32); Pd(P32 == -1) = NaN;
      assert (isequaln (Pd, P) && isequal (D32, D));
    endfor
  endfor
  ## a planted negative cycle: raised where a source reaches it, not else
  W = Inf (6); W(1,2) = 1; W(2,3) = 2; W(3,4) = -1; W(4,2) = -2; W(5,6) = 1;
  try
    gd_apsp (W, "Sources", [5 1], "Variant", variant);
    error ("no negcycle");
  catch err
    assert (err.identifier, "gd:negcycle");
    assert (! isempty (regexp (err.message, "vertex [234] lies on it", "once")), err.message);
  end_try_catch
  [i, j] = find (isfinite (W));
  assert (isempty (py) || isempty (scipy_lengths (py, sparse (i, j, W(isfinite (W)), 6, 6), [5 1])),
          "check_sssp: scipy finds no negative cycle where gd does");
  D = gd_apsp (W, "Sources", [5 6], "Variant", variant);
  assert (D, [Inf Inf Inf Inf 0 1; Inf(1, 5) 0]);
  ## a negative self loop is a negative cycle; a positive one never helps
  W = [3 1; Inf -1];
  expect_error ("gd:negcycle", "negative cycle", @gd_apsp, W, "Sources", 1, "Variant", variant);
  [D, P] = gd_apsp ([3 1; Inf 2], "Sources", [1 2], "Variant", variant);
  assert (D, [0 1; Inf 0]);
  assert (isequaln (P, [0 1; NaN 0]));
  ## a stored edge of weight Inf reaches nothing: no tree edge, no route
  [D, P] = gd_apsp (sparse ([1 2], [2 3], [1 Inf], 3, 3), "Sources", [1 2], "Variant", variant);
  assert (D, [0 1 Inf; Inf 0 Inf]);
  assert (isequaln (P, [0 1 NaN; NaN 0 NaN]));
  ## errors
  W = [Inf 1; 1 Inf];
  expect_error ("gd:input", "vertex indices in 1..2", @gd_apsp, W, "Sources", 3);
  expect_error ("gd:input", "vertex indices in 1..2", @gd_apsp, W, "Sources", 0);
  expect_error ("gd:input", "vertex indices in 1..2", @gd_apsp, W, "Sources", 1.5);
  expect_error ("gd:input", "vector of vertex indices", @gd_apsp, W, "Sources", ones (2));
  expect_error ("gd:input", "needs a value", @gd_apsp, W, "Sources");
  expect_error ("gd:input", "NaN", @gd_apsp, [Inf NaN; 1 Inf], "Sources", 1);
  expect_error ("gd:input", "single or double", @gd_apsp, int32 (W), "Sources", 1);
  expect_error ("gd:size", "square", @gd_apsp, ones (2, 3), "Sources", 1);
  expect_error ("gd:variant", "unknown variant", @gd_apsp, W, "Sources", 1, "Variant", "fw");
  [D, P] = gd_apsp (W, "Sources", zeros (1, 0));
  assert (size (D), [0 2]); assert (size (P), [0 2]);
  if (isempty (py))
    printf ("scipy's shortest_path: no python3 here has scipy, not compared\n");
  else
    assert (agreed, numel (shapes) - 1);   # every shape but "zeros" (a sparse W stores no 0)
    printf ("scipy's shortest_path agrees on %d graphs\n", agreed);
  endif
  printf ("sources exact\n");
endfunction

## the python3 on PATH, or Debian's, whichever has scipy; "" where none
function py = scipy_python ()
  py = "";
  for p = {"python3", "/usr/bin/python3"}
    if (system ([p{1} " -c 'import scipy.io, scipy.sparse.csgraph' >/dev/null 2>&1"]) == 0)
      py = p{1};
      return;
    endif
  endfor
endfunction

## scipy's lengths from the sources s (tests/scipy_paths.py, run by py);
## [] where it finds a negative cycle
function D = scipy_lengths (py, S, s)
  f = tempname ();
  unwind_protect
    save ("-v7", [f "-in.mat"], "S", "s");
    script = fullfile (fileparts (mfilename ("fullpath")), "scipy_paths.py");
    [st, out] = system (sprintf ("%s '%s' '%s-in.mat' '%s-out.mat' 2>&1", py, script, f, f));
    if (st != 0)
      error ("check_sssp: scipy's shortest_path failed: %s", out);
    endif
    r = load ([f "-out.mat"]);
    D = r.D;
    if (r.neg)
      D = [];
    endif
  unwind_protect_cleanup
    delete ([f "-in.mat"]);
    if (exist ([f "-out.mat"], "file"))
      delete ([f "-out.mat"]);
    endif
  end_unwind_protect
endfunction

## 1 where scipy's lengths are gd's: equal where the weights are integers
## (every sum exact), else within 4 ulps (its Dijkstra sums the path it
## settles on, gd the least over walks of the sums in order)
function ok = scipy_agrees (py, S, s, D, shape)
  E = scipy_lengths (py, S, s);
  if (! isequal (size (E), size (D)) || ! isequal (isinf (E), isinf (D)))
    error ("check_sssp: %s: scipy's lengths differ in shape or reach", shape);
  endif
  if (all (nonzeros (S) == round (2 * nonzeros (S)) / 2))
    ok = isequal (E, D);
  else
    f = isfinite (D);
    ok = all (abs (E(f) - D(f)) <= 4 * eps (D(f)));
  endif
  if (! ok)
    error ("check_sssp: %s: scipy's lengths differ from gd's", shape);
  endif
endfunction

function [i, j, v, n] = graph (shape)
  switch (shape)
    case "grid"                        # 20 x 20, both ways, randi (100)
      m = 20; n = m * m;
      [x, y] = meshgrid (1:m); u = sub2ind ([m m], y(:), x(:));
      right = u(x(:) < m); down = u(y(:) < m);
      i = [right; right + m; down; down + 1]; j = [right + m; right; down + 1; down];
      v = randi (100, numel (i), 1);
    case "knn"                         # 400 points, K = 6, Euclidean lengths
      n = 400; X = rand (n, 2); F = sqrt ((X(:,1) - X(:,1)').^2 + (X(:,2) - X(:,2)').^2);
      [~, o] = sort (F, 2); j = o(:,2:7); i = repmat ((1:n)', 1, 6);
      i = i(:); j = j(:); v = F(sub2ind ([n n], i, j));
    case "power"                       # preferential attachment, 500 vertices
      n = 500; i = []; j = [];
      for u = 2:n
        t = unique (randi (u - 1, 1, 3)); i = [i, u * ones(1, numel (t)), t]; j = [j, t, u * ones(1, numel (t))];
      endfor
      v = randi (20, numel (i), 1);
    case "parts"                       # two parts no edge joins
      n = 300; [i, j] = find (sprand (n, n, 0.01));
      keep = (i <= 150) == (j <= 150); i = i(keep); j = j(keep); v = randi (10, numel (i), 1);
    case "potentials"                  # negative edges, no negative cycle
      n = 250; [i, j] = find (sprand (n, n, 0.03)); h = randi (8, n, 1);
      v = randi (10, numel (i), 1) + h(i) - h(j); v(v == 0) = 0.5;
    case "zeros"                       # zero-weight edges and cycles, self loops
      n = 200; [i, j] = find (sprand (n, n, 0.04)); v = randi ([0 3], numel (i), 1);
      i = [i; (1:n)']; j = [j; (1:n)']; v = [v; randi([0 3], n, 1)];
  endswitch
  [~, u] = unique ([i(:), j(:)], "rows");   # one edge a pair
  i = i(u); j = j(u); v = v(u);
endfunction

## W with Inf for "no edge"
function W = full_graph (i, j, v, n, cls)
  W = Inf (n, n, cls);
  W(sub2ind ([n n], i, j)) = v;
endfunction

## rounds of D(j) = min (D(j), D(q) + W(q,j)) in W's class until nothing falls
function d = bellman_ford (W, s)
  n = rows (W);
  d = Inf (1, n, class (W)); d(s) = 0;
  [i, j] = find (isfinite (W)); w = W(sub2ind ([n n], i, j));
  for r = 1:n
    cand = d(i)(:) + w(:);
    nd = d;
    for e = find (cand' < d(j))
      nd(j(e)) = min (nd(j(e)), cand(e));
    endfor
    if (isequal (nd, d))
      return;
    endif
    d = nd;
  endfor
endfunction

## P(j): of the tight edges into j from the vertices one level nearer s,
## the smallest; every route walked and summed in the class
function check_tree (W, d, p, s, cls, shape)
  n = numel (d);
  assert (p(s) == 0 && d(s) == 0);
  lvl = -ones (1, n); lvl(s) = 0; q = s;
  tight = isfinite (W) & (d(:) + W == d(:)') & ! eye (n);
  while (! isempty (q))
    nxt = find (any (tight(q,:), 1) & lvl < 0);
    lvl(nxt) = lvl(q(1)) + 1;
    q = nxt;
  endwhile
  R = cell (1, n);
  js = find (isfinite (d(:)') & (1:n) != s);
  if (isscalar (js))                  # (one call: 25000 routes a run; a
    R{js} = gd_path (p, 1, js);       # single target gives its route)
  elseif (! isempty (js))
    R(js) = gd_path (p, 1, js);
  endif
  for j = 1:n
    if (j == s)
      continue;
    elseif (isinf (d(j)))
      if (! isnan (p(j)))
        error ("%s %s: P of an unreachable vertex", cls, shape);
      endif
      continue;
    endif
    want = find (tight(:,j)' & lvl == lvl(j) - 1, 1);
    if (p(j) != want)
      error ("%s %s: P(%d) is %d, the rule gives %d", cls, shape, j, p(j), want);
    endif
    r = R{j};
    len = cast (0, cls);
    for e = 1:numel (r) - 1
      len = len + W(r(e), r(e+1));
    endfor
    if (r(1) != s || r(end) != j || len != d(j))
      error ("%s %s: the route to %d does not run from the source or add up to D", cls, shape, j);
    endif
  endfor
endfunction
