## check_ranks_gpu - device data between the ranks of a job by NCCL
## (mpi.bats: two ranks, a GPU each; four on four GPUs, a 2 x 2 grid too): gdArrays broadcast and put together
## from GPU to GPU, SUMMA on gdArray parts (1 x n and n x 1 grids, the
## witness too) and the neighbours of resident shards, every rank checking
## against one process's results on the whole, bit for bit
function check_ranks_gpu ()
  rank_check ("begin");
  r = gd_spmdIndex ();
  n = gd_spmdSize ();
  ## each rank's GPUs its own (rank l of L: the GPUs j with j mod L = l)
  dev = gd_info ().devices;
  bus = zeros (numel (dev), 64);
  for i = 1:numel (dev)
    bus(i, 1:numel (dev(i).pci)) = double (dev(i).pci);
  endfor
  bus = gd_spmdCat (bus, 1);
  rank_check (numel (dev) >= 1 && rows (unique (bus, "rows")) == rows (bus), "each rank sees GPUs of its own");
  for c = {"single", "double", "int8", "uint16", "int32", "int64"}
    V = cast (randi (100, 7, 5) - 50, c{1});
    for src = 1:n
      X = [];
      if (r == src)
        X = gdArray (V + src);
      endif
      G = gd_spmdBroadcast (src, X);
      rank_check (isa (G, "gdArray") && existsOnGPU (G) && strcmp (classUnderlying (G), c{1})
                  && isequal (gather (G), V + src), ["broadcast of " c{1}]);
    endfor
    ## ragged parts (rank 1's empty along dim), every rank's made by each
    for dim = 1:2
      parts = arrayfun (@(q) part (q, dim, c{1}), 1:n, "UniformOutput", false);
      whole = cat (dim, parts{:});
      H = gd_spmdCat (gdArray (parts{r}), dim);
      rank_check (isa (H, "gdArray") && existsOnGPU (H) && isequal (gather (H), whole),
                  sprintf ("cat of %s along %d", c{1}, dim));
    endfor
  endfor
  ## SUMMA on gdArray parts (NCCL): R and the witness one process's
  grids = {[1 n], [n 1]};
  if (n == 4)
    grids{end+1} = [2 2];
  endif
  for grid = grids
    g = grid{1};
    gi = floor ((r - 1) / g(2));
    gj = mod (r - 1, g(2));
    for c = {"single", "double", "int32"}
      [m, k, nn, b] = deal (70, 45, 33, 8);
      A = cast (randi (9, m, k), c{1});     # small integers: many ties
      B = cast (randi (9, k, nn), c{1});
      if (! strcmp (c{1}, "int32"))
        A(rand (m, k) < 0.1) = Inf;
      endif
      [E, F] = gd_minplus (A, B);
      Ad = gdCodistributed (gdArray (A(part_blocks (m, b, gi, g(1)), part_blocks (k, b, gj, g(2)))),
                            "2dbc", g, b, [m k]);
      Bd = gdCodistributed (gdArray (B(part_blocks (k, b, gi, g(1)), part_blocks (nn, b, gj, g(2)))),
                            "2dbc", g, b, [k nn]);
      [R, K] = gd_minplus (Ad, Bd);
      what = sprintf ("SUMMA %s on %dx%d", c{1}, g);
      rank_check (isa (getLocalPart (R), "gdArray") && existsOnGPU (getLocalPart (R)), [what " stays on the GPU"]);
      rank_check (isequal (gather (R), E) && isequal (gather (K), F), what);
      rank_check (isequal (gather (gd_minplus (Ad, Bd)), E), [what " without the witness"]);
    endfor
  endfor
  ## gd_apsp on gdArray parts: the rounds across the ranks' GPUs
  for grid = grids
    check_apsp_gpu (grid{1}, r);
  endfor
  ## the neighbours of resident shards
  X = single (randn (5003, 16));
  Y = single (randn (300, 16));
  cut = round (linspace (0, rows (X), n + 1));
  Xd = gdCodistributed (gdArray (X(cut(r)+1:cut(r+1), :)), "1d");
  [I, D] = gd_knnsearch (Xd, gdArray (Y), "K", 10);
  [I0, D0] = gd_knnsearch (X, Y, "K", 10);
  rank_check (isequal (gather (I), I0) && isequal (gather (D), D0), "knnsearch of resident shards");
  rank_check ("end", "gpu ranks");
endfunction

## gd_apsp on a g(1) x g(2) grid of gdArray parts (blocks of 128, n not
## a multiple of them): integer weights (exact sums: D and P are 'cpu''s,
## D 'fw''s), with negative edges (integer potentials), real weights (D
## 'fw''s bit for bit), a cycle of weight 0 (the host's rounds, 'cpu''s
## bits), a negative cycle refused on every rank
function check_apsp_gpu (g, r)
  gi = floor ((r - 1) / g(2));
  gj = mod (r - 1, g(2));
  [n, b] = deal (300, 128);
  parts = @(M) gdCodistributed (gdArray (M(part_blocks (n, b, gi, g(1)), part_blocks (n, b, gj, g(2)))),
                                "2dbc", g, b, [n n]);
  for c = {"single", "double"}
    h = randi (20, n, 1);
    W = randi (100, n, n);
    W(rand (n) < 0.7) = Inf;
    for neg = [false, true]
      V = cast (W + neg * (h - h'), c{1});
      what = sprintf ("gd_apsp %s%s on %dx%d", c{1}, ifelse (neg, " (negative edges)", ""), g);
      [D, P, info] = gd_apsp (parts (V));
      [D1, P1] = gd_apsp (V, "Variant", "fw");
      rank_check (isa (getLocalPart (D), "gdArray") && ! isempty (strfind (info.kernel, "GPUs")), [what " on the GPUs"]);
      rank_check (isequal (gather (D), D1) && isequal (gather (P), P1), [what ": fw's D and P"]);
      rank_check (isequal (D1, gd_apsp (V, "Variant", "cpu")), [what ": cpu's D"]);
      rank_check (isequal (gather (gd_apsp (parts (V))), D1), [what ", D alone"]);
      [~, P] = gd_apsp (parts (V), "IndexClass", "int32");
      rank_check (isequal (gather (P), int32 (P1)), [what ", P int32"]);
    endfor
    V = cast (rand (n) * 10, c{1});
    V(rand (n) < 0.5) = Inf;
    [D, P] = gd_apsp (parts (V));
    [D1, P1] = gd_apsp (V, "Variant", "fw");
    rank_check (isequal (gather (D), D1) && isequal (gather (P), P1),
                sprintf ("gd_apsp %s, real weights on %dx%d: fw's D and P", c{1}, g));
    V = cast (W, c{1});
    V(5, 9) = 0;
    V(9, 5) = 0;
    [D, P] = gd_apsp (parts (V));
    [D, P] = deal (gather (D), gather (P));
    rank_check (isequal (D, gd_apsp (V, "Variant", "cpu")) && tight (D, P, V),
                sprintf ("gd_apsp %s, a cycle of weight 0 on %dx%d", c{1}, g));
    V(7, 3) = -1000;
    V(3, 7) = 1;
    try
      gd_apsp (parts (V));
      rank_check (false, "a negative cycle refused");
    catch e
      rank_check (strcmp (e.identifier, "gd:negcycle"), ["a negative cycle refused: " e.message]);
    end_try_catch
  endfor
endfunction

## every predecessor the last edge of a shortest path (exact sums):
## D(i,P(i,j)) + W(P(i,j),j) == D(i,j), P 0 on the diagonal and where no
## path is
function ok = tight (D, P, W)
  n = rows (D);
  [i, j] = find (P);
  q = P(P != 0);
  ok = (all (D(i + n * (q - 1)) + W(q + n * (j - 1)) == D(i + n * (j - 1)))
        && all (P(1:n+1:end) == 0) && isequal (P == 0, D == Inf | eye (n)));
endfunction

function t = ifelse (c, a, b)
  t = b;
  if (c)
    t = a;
  endif
endfunction

## rank q's part: q - 1 rows (dim 1) or columns (dim 2) beside 3
function P = part (q, dim, c)
  sz = [3, 3];
  sz(dim) = q - 1;
  P = cast (q * 10 + reshape (1:prod (sz), sz), c);
endfunction
