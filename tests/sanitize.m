## sanitize.m - every GPU kernel of gd at least once, on small inputs, for
## `make sanitize` (compute-sanitizer's memcheck, racecheck, synccheck and
## initcheck each run this script; any report fails the target). Each
## result is checked against the host's, so that a kernel the tools watch
## also did its work.
1;
function ok (c, what)
  if (! c)
    error ("sanitize: %s differs from the host's", what);
  endif
endfunction
addpath (fullfile (fileparts (mfilename ("fullpath")), "..", "octave"));
if (! gd_info ().available && isempty (getenv ("GD_SANITIZE_ANYWHERE")))
  error ("sanitize: no CUDA GPU: %s", gd_info ().reason);
endif

## min-plus: every variant, single and double, with the witness; integers
for c = {"single", "double"}
  A = cast (rand (150, 70) * 100, c{1}); B = cast (rand (70, 130) * 100, c{1});
  [E, F] = gd_minplus (A, B, "Variant", "cpu");
  for v = {"v0", "v1", "v2", "v3", "v4", "v5"}
    ok (isequal (gd_minplus (A, B, "Variant", v{1}), E), ["minplus " v{1} " " c{1}]);
  endfor
  for v = {"v0", "v1", "v5"}
    [R, K] = gd_minplus (A, B, "Variant", v{1});
    ok (isequal (R, E) && isequal (K, F), ["minplus witness " v{1} " " c{1}]);
  endfor
  ok (isequal (gd_minplus (-A, B), gd_minplus (-A, B, "Variant", "cpu")), "minplus signed");
endfor
for c = {"int8", "uint16", "int32", "int64"}
  A = cast (randi (50, 90, 40), c{1}); B = cast (randi (50, 40, 70), c{1});
  ok (isequal (gd_minplus (A, B), gd_minplus (A, B, "Variant", "cpu")), ["minplus " c{1}]);
endfor

## sgemm: a kernel of each rung, the tuned kernel, cuBLAS
A = single (randi (5, 130, 70)); B = single (randi (5, 70, 90));
for v = {"k1-32", "k2-64", "k3-32-i2", "k4-128-j4-k4", "k5", "tuned", "cublas"}
  ok (isequal (gd_sgemm (A, B, "Variant", v{1}), A * B), ["sgemm " v{1}]);
endfor
ok (isequal (gather (gdArray (double (A)) * double (B)), double (A) * double (B)), "dgemm");
G = gdArray (randn (70, 33, "single")); H = gdArray (randn (70, 33, "single"));
ok (isequaln (gather (arrayfun (@(x, y) max (x, 0) .* exp (-y .^ 2 / 2) + (x > y) .* x - mod (x, 0.3), G, H)),
              gather (max (G, 0) .* exp (-H .^ 2 / 2) + (G > H) .* G - mod (G, 0.3))), "arrayfun fused");

## distances: every pdist variant and metric family, pdist2, the neighbours
X = randi (9, 200, 7); Y = randi (9, 60, 7);
for c = {"single", "double"}
  Xc = cast (X, c{1}); Yc = cast (Y, c{1});
  for v = {"naive", "tiled", "tuned"}
    ok (isequal (gd_pdist (Xc, "squaredeuclidean", "Variant", v{1}), ...
                 gd_pdist (Xc, "squaredeuclidean", "Variant", "cpu")), ["pdist " v{1}]);
  endfor
  for m = {"cityblock", "chebychev", "cosine", "hamming", "jaccard", "correlation", "seuclidean"}
    D = gd_pdist (Xc, m{1});
    ok (isequal (size (D), [1 200*199/2]), ["pdist " m{1}]);
  endfor
  for v = {"naive", "tuned"}
    ok (isequal (gd_pdist2 (Xc, Yc, "squaredeuclidean", "Variant", v{1}), ...
                 gd_pdist2 (Xc, Yc, "squaredeuclidean", "Variant", "cpu")), ["pdist2 " v{1}]);
  endfor
  if (strcmp (c{1}, "single") && str2double (gd_info ().compute_capability) >= 9)
    ## dmma: integer rows, so every pair is exact (a duplicate and a NaN
    ## row take the double sum)
    Xd = Xc; Xd(7, :) = Xd(3, :); Xd(9, 2) = NaN;
    for m = {"euclidean", "squaredeuclidean"}
      ok (isequaln (gd_pdist (Xd, m{1}, "Variant", "dmma"), gd_pdist (Xd, m{1}, "Variant", "cpu")), ["pdist dmma " m{1}]);
      ok (isequaln (gd_pdist2 (Xd, Yc, m{1}, "Variant", "dmma"), gd_pdist2 (Xd, Yc, m{1}, "Variant", "cpu")), ["pdist2 dmma " m{1}]);
    endfor
  endif
  for m = {"cityblock", "cosine", "hamming"}
    D = gd_pdist2 (Xc, Yc, m{1}, "Variant", "tuned");
    ok (isequal (size (D), [200 60]), ["pdist2 " m{1}]);
  endfor
  [D, I] = gd_pdist2 (Xc, Yc, "squaredeuclidean", "Smallest", 5, "Variant", "fused");
  [E, J] = gd_pdist2 (Xc, Yc, "squaredeuclidean", "Smallest", 5, "Variant", "cpu");
  ok (isequal (D, E) && isequal (I, J), ["knn fused " c{1}]);
endfor
P = randn (3000, 32, "single"); Q = randn (200, 32, "single");
[D, I] = gd_pdist2 (P, Q, "Smallest", 8, "Variant", "gemm");
[E, J] = gd_pdist2 (P, Q, "Smallest", 8, "Variant", "fused");
ok (isequal (D, E) && isequal (I, J), "knn gemm");

## shortest paths: fw (its chains, the trees' check and repair), squaring,
## a cycle of weight 0 (P tracked with the edge counts)
for c = {"single", "double"}
  W = cast (randi (20, 300), c{1}); W(rand (300) < 0.7) = Inf;
  [E, Q] = gd_apsp (W, "Variant", "cpu");
  for v = {"fw", "squaring"}
    [D, P] = gd_apsp (W, "Variant", v{1});
    ok (isequal (D, E), ["apsp " v{1} " " c{1}]);
  endfor
  ## the rounds across ranks (a job of one: the part is W), the chain of
  ## their rows and the trees on the GPU
  [D, P] = gd_apsp (gdCodistributed (gdArray (W), "2dbc", [1 1], 128, size (W)));
  [D1, P1] = gd_apsp (W, "Variant", "fw");
  ok (isequal (gather (D), D1) && isequal (gather (P), P1), ["apsp across ranks " c{1}]);
endfor
W = single ([0 1 Inf; -1+2^-30 0 Inf; Inf 2^30 0]);
[D, P] = gd_apsp (W, "Variant", "fw");
W = single (randi (9, 140)); W(rand (140) < 0.8) = Inf; W(2, 3) = 0; W(3, 2) = 0;
[D, P] = gd_apsp (W, "Variant", "fw");
ok (isequal (D, gd_apsp (W, "Variant", "cpu")), "apsp zero cycle");
D = gd_apsp (int16 (randi (9, 130)), "Variant", "fw");
## 'Sources' on the GPU: a sparse graph, negative edges, P in both classes,
## and a negative cycle
S = sprand (400, 400, 0.02); S(S > 0) = round (10 * S(S > 0)) - 2;
h = randi (5, 400, 1); [i, j, v] = find (S); S = sparse (i, j, abs (v) + h(i) - h(j) + 0.5, 400, 400);
s = [1 7 7 300];
[E, Q] = gd_apsp (S, "Sources", s, "Variant", "cpu");
[D, P] = gd_apsp (S, "Sources", s, "Variant", "gpu");
[D32, P32] = gd_apsp (single (full (S + Inf * (S == 0))), "Sources", s, "Variant", "gpu", "IndexClass", "int32");
ok (isequal (D, E) && isequaln (P, Q), "sources gpu");
## non-negative weights (near-far): a vertex of 150 out-edges (a warp's
## relaxation), narrow buckets (the far list split often), the sources in
## batches (a cap on the call's memory)
S = abs (S); S(5, randperm (400, 150)) = 3;
s = [5 1 7 7 300 randi(400, 1, 20)];
[E, Q] = gd_apsp (S, "Sources", s, "Variant", "cpu");
setenv ("GD_SSSP_DELTA", "5"); setenv ("GD_GPU_MEM_LIMIT", "600000");
[D, P, info] = gd_apsp (S, "Sources", s, "Variant", "nearfar");
unsetenv ("GD_SSSP_DELTA"); unsetenv ("GD_GPU_MEM_LIMIT");
ok (isequal (D, E) && isequaln (P, Q) && ! isempty (strfind (info.kernel, "near-far")), "sources near-far");
## real weights: the trees from unique tight predecessors (both methods)
R = sprand (400, 400, 0.02);
[ER, QR] = gd_apsp (R, "Sources", s, "Variant", "cpu");
for v = {"nearfar", "rounds"}
  [D, P, info] = gd_apsp (R, "Sources", s, "Variant", v{1});
  ok (isequal (D, ER) && isequaln (P, QR) && ! isempty (strfind (info.kernel, "unique")), ["sources unique trees " v{1}]);
endfor
## beside S (ties): S's tied cells by their chains
M = blkdiag (R, S); sm = [s, 400 + s];
[EM, QM] = gd_apsp (M, "Sources", sm, "Variant", "cpu");
[D, P, info] = gd_apsp (M, "Sources", sm, "Variant", "nearfar");
ok (isequal (D, EM) && isequaln (P, QM) && ! isempty (strfind (info.kernel, "chains")), "sources tied trees");
## a grid of unit weights (nearly every cell tied): the levels, for the
## tied sources alone beside R
m = 90; [x, y] = meshgrid (1:m); u = sub2ind ([m m], y(:), x(:));
r = u(x(:) < m); d = u(y(:) < m);
G = blkdiag (R, sparse ([r; r + m; d; d + 1], [r + m; r; d + 1; d], 1, m * m, m * m));
sg = [1 7 400 + randi(m * m, 1, 40)];
[EG, QG] = gd_apsp (G, "Sources", sg, "Variant", "cpu");
for v = {"nearfar", "rounds"}
  [D, P, info] = gd_apsp (G, "Sources", sg, "Variant", v{1});
  ok (isequal (D, EG) && isequaln (P, QG) && ! isempty (strfind (info.kernel, "levels")), ["sources levels " v{1}]);
endfor
## the GPU's choice: the probe's rounds, then (a random graph: paths of
## few edges) the rounds on non-negative weights
[D, P, info] = gd_apsp (S, "Sources", s, "Variant", "gpu");
ok (isequal (D, E) && isequaln (P, Q) && ! isempty (strfind (info.kernel, "probe")), "sources probe");
try
  gd_apsp (sparse ([1 2 3], [2 3 2], [1 -3 1], 3, 3), "Sources", 1, "Variant", "gpu");
  ok (false, "sources negative cycle");
catch err
  ok (strcmp (err.identifier, "gd:negcycle"), "sources negative cycle");
end_try_catch

## gdArray arithmetic (ops/ew): every kernel, broadcasting, conversions,
## concatenation, reductions and cumulative sums, comparisons and tests,
## assignment and arrays made on the device
A = single (randn (70, 33)); B = randn (1, 33); K = int16 (randi (200, 70, 33) - 100);
G = gdArray (A); H = gdArray (K);
ok (isequal (gather (G + B), A + B) && isequal (gather (H ./ int16 (7)), K ./ int16 (7)), "ew two operands");
ok (isequal (gather (max (G, B)), max (A, B)) && isequal (gather (H .* 2.5), K .* 2.5), "ew max, int by double");
ok (isequal (gather (-H), -K) && isequal (gather (round (G)), round (A)) && isequal (gather (sqrt (abs (G))), sqrt (abs (A))), "ew one operand");
ok (isequal (gather (int8 (G)), int8 (A)) && isequal (gather ([G; G]), [A; A]) && isequal (gather (reshape (G, 33, 70)), reshape (A, 33, 70)), "ew convert, cat, reshape");
[m, i] = max (G, [], 2); [M, I] = max (A, [], 2);
ok (isequal (gather (sum (G)), sum (A)) && isequal (gather (m), M) && isequal (gather (i), I) && isequal (gather (cumsum (H, 2)), cumsum (K, 2)) && nnz (H) == nnz (K), "ew reductions");
ok (isequal (gather (sum (gdArray (K(:, 1:31)), 2)), sum (K(:, 1:31), 2)) && isequal (gather (any (G > 1)), any (A > 1)), "ew reductions past a tile, any");
L = [single(randn (3000, 2)), NaN(3000, 1, "single")]; [m, i] = max (gdArray (L)); [M, I] = max (L);
ok (isequaln (gather (m), M) && isequal (gather (i), I) && nnz (gdArray (L)) == nnz (L), "ew reductions in parts");
ok (isequal (gather (G >= B), A >= B) && isequal (gather ((G > 0) & (H < 0)), (A > 0) & (K < 0)) && isequal (gather (~isnan (G)), ~isnan (A)), "ew comparisons, tests");
ok (isequal (gather (mod (H, int16 (7))), mod (K, int16 (7))) && isequal (gather (H .^ 2), K .^ 2) && isequal (gather (triu (G, 3)), triu (A, 3)), "ew mod, power, triu");
X = G; X(3:9, [2 5]) = -1; Y = A; Y(3:9, [2 5]) = -1; X(:, 4) = []; Y(:, 4) = [];
ok (isequal (gather (X), Y) && isequal (gather (ones (5, 6, "like", H)), ones (5, 6, "int16")), "ew assign, delete, fill");

## the range search's two passes, a bound metric and one without, both
## classes (ties and a NaN row)
for cls = {"single", "double"}
  X = cast (randi ([-2 2], 300, 4), cls{1}); X(5,:) = NaN; Y = X(1:70,:);
  for m = {"euclidean", 1.5; "hamming", 0.5}.'
    [I1, D1] = gd_rangesearch (X, Y, m{2}, "Distance", m{1}, "Variant", "fused");
    [I2, D2] = gd_rangesearch (X, Y, m{2}, "Distance", m{1}, "Variant", "cpu");
    ok (isequal (I1, I2) && isequal (D1, D2), ["range " m{1} " " cls{1}]);
  endfor
endfor

## gdArrays: upload, indexing, transpose, a resident chain, gather
G = gdArray (single (rand (70, 50)));
H = G(3:40, [1 5 9]).';
ok (isequal (gather (H), gather (G)(3:40, [1 5 9]).'), "gdArray indexing");
S = gd_squareform (gd_pdist (G));
ok (isequal (gather (S), gd_squareform (gd_pdist (gather (G)))), "resident chain");
printf ("sanitize: every kernel ran and agreed with the host\n");
