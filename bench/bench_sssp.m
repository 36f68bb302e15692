## bench_sssp.m - bench.m's section "sssp": 'Sources' on sparse graphs, beside scipy's dijkstra. Sourced by bench.m
## (its workspace: md, quick, pick, the device and the helpers).

md{end+1} = sprintf ("\n## shortest paths from sources\n\n`[D, P] = gd_apsp (S, 'Sources', s, 'Variant', v)` on sparse graphs (double weights, P asked): a grid (each vertex to its four neighbours, weights randi (100)), a kNN graph of points in the unit square (K = 10, the Euclidean lengths), a random graph (5 edges out of each vertex, weights randi (100)). h2h: tic/toc from Octave's sparse matrix to Octave's D and P (to D and P kept on the GPU as gdArrays where s is a gdArray: 'kept'), median of 3 for gpu (each call's D and P made fresh: the last call's cleared before it), one call for cpu (OpenMP, a source a thread; the grid alone) and for scipy's `csgraph.dijkstra (S, indices = s - 1, return_predecessors = True)` on this machine's CPU (the grid alone; bench/scipy_sssp.py; 'differ': its lengths that are not gd's, bit for bit). method: the one the GPU took (near-far, or Bellman-Ford rounds where its probe's sources settle within 40 rounds); iterations, levels: its iterations or rounds and its trees' levels (0: the trees from unique tight predecessors, no levels).\n\n| graph | vertices | edges | sources | variant | method | iterations, levels | h2h ms | x scipy | differ |\n|---|---:|---:|---:|---|---|---|---:|---:|---:|\n");
m = pick (quick, 100, 1000);
cases = {"grid", m * m, 64; "knn", pick(quick, 10^4, 10^6), 1024; "random", pick(quick, 10^5, 10^7), 16};
## GD_BENCH_SSSP="grid random": those graphs alone
if (! isempty (getenv ("GD_BENCH_SSSP")))
  cases = cases(ismember (cases(:,1), strsplit (getenv ("GD_BENCH_SSSP"))), :);
endif
for c = 1:rows (cases)
  [kind, n, ns] = cases{c, :};
  switch (kind)
    case "grid"
      [x, y] = meshgrid (1:m); u = sub2ind ([m m], y(:), x(:));
      r = u(x(:) < m); d = u(y(:) < m);
      S = sparse ([r; r + m; d; d + 1], [r + m; r; d + 1; d], randi (100, 2 * (numel (r) + numel (d)), 1), n, n);
    case "knn"
      X = rand (n, 2);
      [I, Dk] = gd_knnsearch (X, X, "K", 11);
      S = sparse (repmat ((1:n)', 10, 1), I(:,2:11)(:), Dk(:,2:11)(:), n, n);
      clear X I Dk;
    case "random"
      S = sparse (repmat ((1:n)', 5, 1), randi (n, 5 * n, 1), randi (100, 5 * n, 1), n, n);
  endswitch
  s = randi (n, 1, ns);
  edges = nnz (S);
  t = zeros (1, 3);
  for r = 1:3
    clear D P;  # (the last call's D and P freed outside the timing: 16 GB on the kNN graph)
    t0 = tic (); [D, P, info] = gd_apsp (S, "Sources", s, "Variant", "gpu"); t(r) = toc (t0);
  endfor
  rl = regexp (info.kernel, '(\d+) (?:rounds|iterations), (\d+) levels', "tokens", "once");
  sc = ""; xs = ""; differ = "";
  if (strcmp (kind, "grid"))
    f = [tempname() ".mat"];
    save ("-v7", f, "S", "s", "D");
    [st, out] = system (sprintf ("python3 bench/scipy_sssp.py %s 2>/dev/null", f));
    delete (f);
    tok = regexp (out, 'scipy ([\d.]+) (\d+)', "tokens", "once");
    if (st == 0 && ! isempty (tok))
      sc = str2double (tok{1}); xs = sprintf ("%.1f", sc / (1e3 * median (t))); differ = tok{2};
    endif
  endif
  md{end+1} = sprintf ("| %s | %d | %d | %d | gpu | %s | %s, %s | %.1f | %s | %s |\n", kind, n, edges, ns,
                       merge (strncmp (info.kernel, "near-far", 8), "near-far", "rounds"), rl{:},
                       1e3 * median (t), xs, differ);
  printf ("%s", md{end});
  ## s a gdArray: D and P kept on the GPU (gdArrays), no download
  for r = 1:3
    t0 = tic (); [Dg, Pg] = gd_apsp (S, "Sources", gdArray (s), "Variant", "gpu"); t(r) = toc (t0);
    clear Dg Pg;
  endfor
  md{end+1} = sprintf ("| %s | %d | %d | %d | gpu, D and P kept | | | %.1f | | |\n", kind, n, edges, ns, 1e3 * median (t));
  printf ("%s", md{end});
  if (strcmp (kind, "grid"))
    t0 = tic (); [Dc, Pc] = gd_apsp (S, "Sources", s, "Variant", "cpu"); tc = toc (t0);
    same = isequal (Dc, D) && isequaln (Pc, P);
    md{end+1} = sprintf ("| %s | %d | %d | %d | cpu | | %s | %.1f | %s | |\n", kind, n, edges, ns,
                         merge (same, "D and P the gpu's", "DIFFER"), 1e3 * tc,
                         merge (isempty (sc), "", sprintf ("%.1f", sc / (1e3 * tc))));
    printf ("%s", md{end});
  endif
  if (! isempty (sc))
    md{end+1} = sprintf ("| %s | %d | %d | %d | scipy dijkstra | | | %.1f | 1.0 | |\n", kind, n, edges, ns, sc);
    printf ("%s", md{end});
  endif
  clear S D P Dc Pc;
endfor

md{end+1} = sprintf ("\n## all pairs of a sparse graph\n\n`[D, P] = gd_apsp (S, 'Variant', v)`, double weights randi (100): a random sparse graph (8 edges out of each vertex), the same with negative edges (the weights plus h(i) - h(j), h randi (60): no negative cycle, about a tenth of the edges negative), a grid with those negative edges; fw the dense rounds (S filled into an n-by-n W), sources every vertex a source ('Sources' on the GPU), auto gd_apsp's choice; h2h median of 3. D equal: the same D as fw, bit for bit.\n\n| graph | vertices | edges | variant | h2h ms | of the faster | D equal |\n|---|---:|---:|---|---:|---:|---|\n");
n = pick (quick, 2048, 16384);
S = sparse (repmat ((1:n)', 8, 1), randi (n, 8 * n, 1), randi (100, 8 * n, 1), n, n);
m = round (sqrt (n)); [x, y] = meshgrid (1:m); u = sub2ind ([m m], y(:), x(:));
r = u(x(:) < m); d = u(y(:) < m);
G = sparse ([r; r + m; d; d + 1], [r + m; r; d + 1; d], randi (100, 2 * (numel (r) + numel (d)), 1), m * m, m * m);
h = randi (60, n, 1);
function S = lowered (S, h)            # the weights plus h(i) - h(j)
  [i, j, w] = find (S);
  S = sparse (i, j, w + h(i) - h(j), rows (S), columns (S));
endfunction
graphs = {"random", S; "random, negative edges", lowered(S, h); "grid, negative edges", lowered(G, h(1:m*m))};
for g = 1:rows (graphs)
  S = graphs{g, 2};
  ta = struct ();
  for v = {"fw", "sources", "auto"}
    t = zeros (1, 3);
    for r = 1:3
      clear D P;
      t0 = tic (); [D, P] = gd_apsp (S, "Variant", v{1}); t(r) = toc (t0);
    endfor
    ta.(v{1}) = median (t);
    if (strcmp (v{1}, "fw"))
      Dfw = D;
    endif
    eq.(v{1}) = isequal (D, Dfw);
  endfor
  for v = {"fw", "sources", "auto"}
    md{end+1} = sprintf ("| %s | %d | %d | %s | %.1f | %.2f | %s |\n", graphs{g, 1}, rows (S), nnz (S), v{1},
                         1e3 * ta.(v{1}), ta.(v{1}) / min (ta.fw, ta.sources), merge (eq.(v{1}), "yes", "NO"));
    printf ("%s", md{end});
  endfor
endfor
clear S G graphs D P Dfw;
