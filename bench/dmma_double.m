## dmma_double.m - whether the expanded form on the FP64 tensor cores can
## serve double-precision Euclidean distances: its accuracy against the
## correctly rounded distances (tests/exact_dist.m, "double") beside the
## unexpanded sum gd_pdist2 computes in double, and how many pairs a bound
## could certify within that sum's own error.
##
##   today     gd_pdist2 (X, Y, 'Variant', v): sum ((x - y).^2) in double
##             (v: 'tuned' on a GPU, else 'cpu')
##   expanded  |x'|^2 + |y'|^2 - 2 x'.y' in double, x' = x - c (c the
##             columns' means): each product of doubles rounded, the sums
##             in order, as DMMA's double accumulation computes them up to
##             the order of its sums
##   bound     the expanded form's error bound, E = (3 d + 8) u (|x'|^2 +
##             |y'|^2) (u = 2^-53; the products now round too), in ulps of
##             the distance: the pairs it certifies within today's largest
##             error at that d
##
##   octave bench/dmma_double.m          (GD_ACC_N rows a side, default 256)
## Prints a table (markdown into GD_ACC_OUT where set; GD_ACC_N=0 leaves
## it out): for each data set
## and d, % correctly rounded and the largest error in ulps of double, for
## each form, and the share of pairs the bound certifies. On a GPU it also
## times the expanded form's products (cuBLAS DGEMM through gdArray's
## mtimes) against 'tuned''s whole kernel at 16384 x 16384 x 300.

1;
addpath (fileparts (mfilename ("fullpath")));     # dmma_setup, dmma_sets
N = dmma_setup ();
gpu = gd_info ().available;
today = merge (gpu, "tuned", "cpu");

## the error of F in ulps of double at the reference R
function u = ulps (F, R)
  u = abs (F - R) ./ eps (min (abs (F), abs (R)));
  u(F == R) = 0;
endfunction

function [D, E] = expanded (X, Y)
  c = mean ([X; Y]);
  X -= c; Y -= c;
  d = columns (X);
  nx = zeros (rows (X), 1); ny = zeros (1, rows (Y)); dot = zeros (rows (X), rows (Y));
  for k = 1:d
    nx += X(:,k) .^ 2;
    ny += Y(:,k)' .^ 2;
    dot += X(:,k) * Y(:,k)';
  endfor
  S = nx + ny;
  D2 = S - 2 * dot;
  D = sqrt (max (D2, 0));
  E = (3 * d + 8) * 2^-53 * S;          # on D2; on D about E / (2 D)
endfunction

md = "";
if (N > 0)                              # (GD_ACC_N=0: the timing alone)
md = sprintf ("| data | d | %s %% correctly rounded | max ulp | expanded %% correctly rounded | max ulp | median ulp | bound certifies within today's max |\n|---|---:|---:|---:|---:|---:|---:|---:|\n", today);
printf ("%-11s %4s | %-16s | %-24s | %s\n", "data", "d", [today " % ok, max"], "expanded % ok, max, med", "certified");
for s = {"uniform", "normal", "offset 1e4", "clustered"}
  for d = [2 10 100 500 2000]
    [X, Y] = dmma_sets (s{1}, N, d, d + numel (s{1}), "double");
    R = exact_dist (X, Y, "double");
    T = gd_pdist2 (X, Y, "euclidean", "Variant", today);
    [Ex, E] = expanded (X, Y);
    ut = ulps (T, R); ue = ulps (Ex, R);
    cert = 100 * mean ((E ./ (2 * Ex) ./ eps (Ex))(:) <= max (ut(:)));
    v = [100 * mean(ut(:) == 0), max(ut(:)), 100 * mean(ue(:) == 0), max(ue(:)), median(ue(:)), cert];
    printf ("%-11s %4d | %6.2f %8.3g | %6.2f %8.3g %8.3g | %6.2f%%\n", s{1}, d, v);
    md = [md, sprintf("| %s | %d | %.2f | %.3g | %.2f | %.3g | %.3g | %.2f%% |\n", s{1}, d, v)];
  endfor
endfor
endif
if (gpu)
  ## the expanded form's products alone against today's whole kernel
  X = rand (16384, 300); A = gdArray (X); B = gdArray (X');
  t = zeros (1, 5); k = zeros (1, 5);
  for r = 1:5
    t0 = tic (); C = A * B; c = gather (C(1, 1)); t(r) = toc (t0);
    clear C;
    [~, ~, info] = gd_pdist2 (A, A, "euclidean", "Variant", "tuned");
    k(r) = info.kernel_ms;
  endfor
  line = sprintf ("16384 x 16384 x 300, double: the products X * X' by cuBLAS DGEMM (gdArray) %.2f ms (call, median of 5); 'tuned''s pdist2 kernel %.2f ms.\n", 1e3 * median (t), median (k));
  printf ("%s", line);
  md = [md, "\n", line];
endif
out = getenv ("GD_ACC_OUT");
if (! isempty (out))
  fid = fopen (out, "w");
  fprintf (fid, "# Double-precision Euclidean distances: the expanded form against the correctly rounded reference\n\nbench/dmma_double.m on %s, %d x %d pairs a row: today's unexpanded sum ('%s') and the expanded form (emulated in Octave's double arithmetic, the columns' means taken off), %% of pairs correctly rounded and errors in ulps of double; the last column the share of pairs whose error bound lies within today's largest error at that d.\n\n", merge (gpu, gd_info ().name, "the host"), N, N, today);
  fputs (fid, md);
  fclose (fid);
endif
