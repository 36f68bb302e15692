## check_ranks.m - gdCodistributed across the ranks of a job (every rank
## runs it; mpi.bats starts it in 2 and 3 ranks, and it runs in one rank
## outside a job): parts of fresh random data in uneven shares (a rank may
## hold none), gathered back; the nearest neighbours, pdist2's rows, the
## min-plus product (with witnesses) and gd_sgemm on the parts against one
## process's result on the whole, bit for bit. Each rank says "ranks ok
## N" or what differed (rank_check).

r = gd_spmdIndex ();
n = gd_spmdSize ();
rank_check ("begin");                   # one stream of data on every rank

## ---- '1d': points split by rows; lattice values (ties), a NaN row ----
N = 37 + randi (20);
d = 4;
for cls = {"single", "double"}
  X = cast (randi ([0 3], N, d), cls{1});
  X(randi (N), :) = NaN;
  Y = cast (randi ([0 3], 13, d), cls{1});
  cuts = sort (randi ([0 N], 1, n - 1));
  counts = diff ([0, cuts, N]);
  lo = sum (counts(1:r-1));
  G = gdCodistributed (X(lo+1:lo+counts(r), :), "1d");
  rank_check (isequaln (gather (G), X) && isequal (size (G), size (X)), "1d gather");
  A1 = gather (G, n);
  rank_check (isequaln (A1, merge (r == n, X, [])), "1d gather to one rank");
  rank_check (isequal (globalIndices (G, 1), lo + (1:counts(r))), "globalIndices");
  for K = [1 4 9]
    [I1, D1] = gd_knnsearch (X, Y, "K", K);
    [I2, D2] = gd_knnsearch (G, Y, "K", K);
    rank_check (isequal (I1, I2) && isequaln (D1, D2), sprintf ("knnsearch %s K %d", cls{1}, K));
    [I1, D1] = gd_knnsearch (X, Y, "K", K, "Distance", "cityblock", "IndexClass", "int32");
    [I2, D2] = gd_knnsearch (G, Y, "K", K, "Distance", "cityblock", "IndexClass", "int32");
    rank_check (isequal (I1, I2) && isequaln (D1, D2), sprintf ("knnsearch cityblock %s K %d", cls{1}, K));
    for dir = {"Smallest", "Largest"}
      for metric = {"euclidean", "cosine"}
        [D1, I1] = gd_pdist2 (X, Y, metric{1}, dir{1}, K);
        [D2, I2] = gd_pdist2 (G, Y, metric{1}, dir{1}, K);
        rank_check (isequal (I1, I2) && isequaln (D1, D2),
               sprintf ("pdist2 %s %s %s K %d", metric{1}, dir{1}, cls{1}, K));
      endfor
    endfor
  endfor
  ## a part kept as a gdArray (on the rank's GPU; without one, in host
  ## memory): the results gdArrays, the same values
  GG = gdCodistributed (gdArray (X(lo+1:lo+counts(r), :)), "1d");
  [I1, D1] = gd_knnsearch (X, Y, "K", 5);
  [I2, D2] = gd_knnsearch (GG, Y, "K", 5);
  rank_check (isa (I2, "gdArray") && isequal (I1, gather (I2)) && isequaln (D1, gather (D2)),
         "knnsearch on gdArray parts");
  for rad = [0 1.5 3]
    [I1, D1] = gd_rangesearch (X, Y, rad);
    [I2, D2] = gd_rangesearch (G, Y, rad);
    rank_check (isequal (I1, I2) && isequaln (D1, D2), sprintf ("rangesearch %s r %g", cls{1}, rad));
  endfor
  [I1, D1] = gd_rangesearch (X, Y, 2, "Distance", "cityblock", "SortIndices", false);
  [I2, D2] = gd_rangesearch (G, Y, 2, "Distance", "cityblock", "SortIndices", false);
  rank_check (isequal (I1, I2) && isequaln (D1, D2), "rangesearch cityblock in row order");
  for K = [1 3]
    [I1, D1] = gd_knnsearch (X, Y, "K", K, "IncludeTies", true, "IndexClass", "int32");
    [I2, D2] = gd_knnsearch (G, Y, "K", K, "IncludeTies", true, "IndexClass", "int32");
    rank_check (isequal (I1, I2) && isequaln (D1, D2), sprintf ("knnsearch IncludeTies %s K %d", cls{1}, K));
  endfor
  ## no queries; every point a neighbour; a radius that takes none
  Y0 = Y(1:0, :);
  [I1, D1] = gd_knnsearch (X, Y0, "K", 2);
  [I2, D2] = gd_knnsearch (G, Y0, "K", 2);
  rank_check (isequal (I1, I2) && isequal (D1, D2), "knnsearch without queries");
  [I1, D1] = gd_rangesearch (X, Y0, 1);
  [I2, D2] = gd_rangesearch (G, Y0, 1);
  rank_check (isequal (I1, I2) && isequal (D1, D2), "rangesearch without queries");
  [I1, D1] = gd_knnsearch (X, Y, "K", N);
  [I2, D2] = gd_knnsearch (G, Y, "K", N);
  rank_check (isequal (I1, I2) && isequaln (D1, D2), "knnsearch of every point");
  [I1, D1] = gd_rangesearch (X, Y + 100, 1);
  [I2, D2] = gd_rangesearch (G, Y + 100, 1);
  rank_check (isequal (I1, I2) && isequal (D1, D2), "rangesearch without a hit");
  S = 1 + rand (1, d);
  [I1, D1] = gd_knnsearch (X, Y, "K", 3, "Distance", "seuclidean", "Scale", S);
  [I2, D2] = gd_knnsearch (G, Y, "K", 3, "Distance", "seuclidean", "Scale", S);
  rank_check (isequal (I1, I2) && isequaln (D1, D2), "knnsearch seuclidean with its Scale");
  C = cov (randn (20, d)) + eye (d);
  [I1, D1] = gd_knnsearch (X, Y, "K", 3, "Distance", "mahalanobis", "Cov", C);
  [I2, D2] = gd_knnsearch (G, Y, "K", 3, "Distance", "mahalanobis", "Cov", C);
  rank_check (isequal (I1, I2) && isequaln (D1, D2), "knnsearch mahalanobis with its Cov");
  [D1, I1] = gd_pdist2 (X, Y, "seuclidean", S, "Largest", 2);
  [D2, I2] = gd_pdist2 (G, Y, "seuclidean", S, "Largest", 2);
  rank_check (isequal (I1, I2) && isequaln (D1, D2), "pdist2 seuclidean Largest");
  R = gd_pdist2 (G, Y, "minkowski", 3);
  rank_check (isequaln (gather (R), gd_pdist2 (X, Y, "minkowski", 3)), "pdist2 rows");
  R = gd_pdist2 (G, Y, "mahalanobis", C);
  rank_check (isequaln (gather (R), gd_pdist2 (X, Y, "mahalanobis", C)), "pdist2 rows mahalanobis");
  R = gd_pdist2 (Y, G, "cityblock");
  rank_check (isequaln (gather (R), gd_pdist2 (Y, X, "cityblock")) && layout (R).Dimension == 2, "pdist2 columns");
  for metric = {{"euclidean"}, {"cosine"}, {"cityblock"}, {"seuclidean"}, {"minkowski", 3}, {"correlation"}}
    D1 = gd_pdist (X, metric{1}{:});
    D2 = gd_pdist (G, metric{1}{:});
    rank_check (isequaln (gather (D2), D1) && layout (D2).Dimension == 2,
           sprintf ("pdist %s %s", metric{1}{1}, cls{1}));
  endfor
  rank_check (isequaln (gather (gd_pdist (GG)), gd_pdist (X)), "pdist on gdArray parts");
  try
    gd_knnsearch (G, Y, "Distance", "seuclidean");
    rank_check (false, "seuclidean's default scale refused");
  catch e
    rank_check (! isempty (strfind (e.message, "needs its scales")), e.message);
  end_try_catch
endfor

## ---- '2dbc': min-plus by SUMMA on each grid of the ranks ----
pr = max (find (mod (n, 1:floor (sqrt (n))) == 0));   # and the squarest grid
grids = unique ([1 n; n 1; pr n/pr], "rows");
for g = 1:rows (grids)
  grid = grids(g,:);
  gi = floor ((r - 1) / grid(2));
  gj = mod (r - 1, grid(2));
  for cls = {"single", "double", "int32"}
    b = randi (4);
    m = randi (12); k = randi (12); nn = randi (12);
    if (strcmp (cls{1}, "int32"))
      A = int32 (randi ([-50 50], m, k));
      B = int32 (randi ([-50 50], k, nn));
    else
      A = cast (round (randn (m, k) * 4), cls{1});
      B = cast (round (randn (k, nn) * 4), cls{1});
      A(rand (m, k) < 0.1) = Inf;
      A(rand (m, k) < 0.05) = NaN;
      B(rand (k, nn) < 0.1) = -0;
      B(rand (k, nn) < 0.05) = NaN;
      A(1,:) = NaN;                     # every term NaN: the witness the first k
      A(end, 1:2:end) = NaN;            # NaN, then a value, block after block
    endif
    part = @(M) M(part_blocks (rows (M), b, gi, grid(1)), part_blocks (columns (M), b, gj, grid(2)));
    GA = gdCodistributed (part (A), "2dbc", grid, b, size (A));
    GB = gdCodistributed (part (B), "2dbc", grid, b, size (B));
    rank_check (isequaln (gather (GA), A), sprintf ("2dbc gather %s", cls{1}));
    [R1, K1] = gd_minplus (A, B);
    [R2, K2] = gd_minplus (GA, GB);
    rank_check (isequaln (gather (R2), R1) && isequal (gather (K2), K1),
           sprintf ("minplus %s grid %dx%d b %d (%dx%d by %dx%d)", cls{1}, grid, b, m, k, k, nn));
    rank_check (isequaln (gather (gd_minplus (GA, GB)), R1), sprintf ("minplus %s, R alone", cls{1}));
    GAg = gdCodistributed (gdArray (part (A)), "2dbc", grid, b, size (A));
    [R3, K3] = gd_minplus (GAg, GB);
    rank_check (isa (getLocalPart (R3), "gdArray") && isequaln (gather (R3), R1)
           && isequal (gather (K3), K1), sprintf ("minplus %s on gdArray parts", cls{1}));
    W = cast (randi ([0 9], m, m), cls{1});
    GW = gdCodistributed (part (W), "2dbc", grid, b, size (W));
    rank_check (isequal (gather (gd_minplus (GW)), gd_minplus (W)), sprintf ("squaring %s", cls{1}));
    if (strcmp (cls{1}, "single"))
      ## gd_sgemm: each part one sum over the whole inner dimension, in
      ## the BLAS's order for the part's shape (OpenBLAS's kernels for 4
      ## rows and for 8 sum otherwise: to rounding, not to the bit), and on
      ## small integers (every sum exact) one process's bits
      S = rand (m, k, "single") - 0.5;
      T = rand (k, nn, "single") - 0.5;
      GS = gdCodistributed (part (S), "2dbc", grid, b, size (S));
      GT = gdCodistributed (part (T), "2dbc", grid, b, size (T));
      [C2, info] = gd_sgemm (GS, GT, "Variant", "cpu");
      C1 = gd_sgemm (S, T, "Variant", "cpu");
      rank_check (isequal (size (gather (C2)), size (C1)) && info.ranks == n
             && max (abs (gather (C2)(:) - C1(:))) <= 2 * k * eps ("single") * max (1, max (abs (C1(:)))),
             sprintf ("sgemm grid %dx%d b %d (%dx%d by %dx%d)", grid, b, m, k, k, nn));
      S = single (randi ([-8 8], m, k));
      T = single (randi ([-8 8], k, nn));
      GS = gdCodistributed (part (S), "2dbc", grid, b, size (S));
      GT = gdCodistributed (part (T), "2dbc", grid, b, size (T));
      rank_check (isequal (gather (gd_sgemm (GS, GT, "Variant", "cpu")), gd_sgemm (S, T, "Variant", "cpu")),
             sprintf ("sgemm on integers, grid %dx%d b %d", grid, b));
      ## (small integers: every variant's sums exact, the GPU's too)
      S = single (randi ([-8 8], m, k));
      GSg = gdCodistributed (gdArray (part (S)), "2dbc", grid, b, size (S));
      T = single (randi ([-8 8], k, nn));
      GT = gdCodistributed (part (T), "2dbc", grid, b, size (T));
      C3 = gd_sgemm (GSg, GT);
      rank_check (isa (getLocalPart (C3), "gdArray") && isequal (gather (C3), double (S) * double (T)),
             "sgemm on gdArray parts");
    endif
  endfor
endfor

## ---- refusals: the same error on every rank ----
try
  gdCodistributed (ones (2, 1 + (r == n)), "1d");
  rank_check (n == 1, "columns that differ refused");
catch e
  rank_check (n > 1 && strcmp (e.identifier, "gd:size") && ! isempty (strfind (e.message, sprintf ("rank %d's part has", n))), ["the parts' columns: " e.message]);
end_try_catch

## a failure in one rank's own computation: every rank raises its error,
## naming it (here the last rank's queries have other columns)
if (n > 1)
  try
    gd_knnsearch (G, Y(:, 1:end - (r == n)), "K", 2);
    rank_check (false, "one rank's failure raised everywhere");
  catch e
    rank_check (strcmp (e.identifier, "gd:size") && ! isempty (strfind (e.message, sprintf ("(on rank %d)", n))),
           ["one rank's failure: " e.message]);
  end_try_catch
endif

rank_check ("end", "ranks");
