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

## rank q's part: q - 1 rows (dim 1) or columns (dim 2) beside 3
function P = part (q, dim, c)
  sz = [3, 3];
  sz(dim) = q - 1;
  P = cast (q * 10 + reshape (1:prod (sz), sz), c);
endfunction
