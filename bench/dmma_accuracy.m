## dmma_accuracy.m - the accuracy of single-precision Euclidean distances,
## measured on the host against the correctly rounded reference
## (tests/exact_dist.m), for the expanded form on the FP64 tensor cores
## that gd_pdist does not take yet, against today's unexpanded sum:
##
##   today     gd_pdist2 (X, Y, 'Variant', 'cpu'): sum ((x - y).^2) in single
##   expanded  |x|^2 + |y|^2 - 2 x.y with every product of singles exact in
##             double and the sums in double in order (what DMMA's
##             double accumulation computes, up to the order of its sums),
##             the square root in double, one rounding to single
##   certified the expanded form where a bound per pair proves it the
##             correctly rounded single, else today's value
##   double    sum ((x - y).^2) in double (differences of singles exact),
##             the square root in double, one rounding to single
##   cert+dbl  the expanded form where certified, else the double sum
##   centered  cert+dbl on x - c and y - c, c the columns' means rounded to
##             single (each difference exact in double: the products are
##             then rounded, a u more a term in the bound); distances do
##             not move, the norms shrink to the data's spread
##
## The bound: each of |x|^2, |y|^2 and x.y sums d exact products in
## double, so its error is at most (d - 1) u times its sum of |terms|
## (u = 2^-53), and |x.y|'s terms sum to at most (|x|^2 + |y|^2) / 2; two
## more roundings form D2. So |D2 - exact| <= E = (2 d + 4) u (|x|^2 +
## |y|^2), and sqrt moves it by at most E / (sqrt (D2) + sqrt (D2 - E)),
## plus the square root's own half ulp. A pair is certified where that
## interval around the double result holds no midpoint between singles.
##
##   octave bench/dmma_accuracy.m          (GD_ACC_N rows a side, default 256)
## Prints a table (and writes it as markdown to GD_ACC_OUT where set, kept
## in bench/results/accuracy/, apart from the devices' results): for
## each data set and d, the % of pairs correctly rounded and the largest
## error in single ulps, for each form. On a GPU that has gd_pdist2's
## 'dmma' variant it measures the GPU's instead: 'tuned' (today's
## unexpanded single sum) against 'dmma' (accuracy/<gpu>.md).

1;
addpath (fileparts (mfilename ("fullpath")));     # dmma_setup, dmma_sets
N = dmma_setup ();

## the error of F in single ulps of the reference R (ulp: the spacing above
## the smaller of the two)
function u = ulps (F, R)
  F = double (F); R = double (R);
  sp = double (eps (single (min (abs (F), abs (R)))));
  u = abs (F - R) ./ sp;
  u(F == R) = 0;
endfunction

function [D, ok] = expanded (X, Y, exact)
  X = double (X); Y = double (Y);
  d = columns (X);
  nx = zeros (rows (X), 1); ny = zeros (1, rows (Y)); dot = zeros (rows (X), rows (Y));
  for k = 1:d                           # in order, as a k loop would
    nx += X(:,k) .^ 2;
    ny += Y(:,k)' .^ 2;
    dot += X(:,k) * Y(:,k)';
  endfor
  D2 = (nx + ny) - 2 * dot;
  E = (2 * d + 4 + (! exact) * d) * 2^-53 * (nx + ny);
  Dd = sqrt (max (D2, 0));
  ED = E ./ (Dd + sqrt (max (D2 - E, 0))) + 2^-53 * Dd;
  D = single (Dd);
  ## the midpoints around D: certified where [Dd - ED, Dd + ED] holds none
  up = double (D) + double (eps (D)) / 2;
  p2 = 2 .^ floor (log2 (double (D)));
  below = double (eps (D)) / 2;
  below(double (D) == p2) /= 2;
  lo = double (D) - below;
  ok = D2 > E & Dd - ED > lo & Dd + ED < up;
endfunction

## the unexpanded sum in double, rounded once
function D = unexpanded_double (X, Y)
  X = double (X); Y = double (Y);
  D2 = zeros (rows (X), rows (Y));
  for k = 1:columns (X)
    D2 += (X(:,k) - Y(:,k)') .^ 2;
  endfor
  D = single (sqrt (D2));
endfunction

sets = {"uniform", "normal", "offset 1e4", "clustered"};
## the table as markdown into GD_ACC_OUT, where it is set
function write_table (head, md)
  out = getenv ("GD_ACC_OUT");
  if (! isempty (out))
    fid = fopen (out, "w");
    fputs (fid, head);
    fputs (fid, md);
    fclose (fid);
  endif
endfunction

## On a GPU with the 'dmma' variant: today's GPU kernel ('tuned') and
## 'dmma' side by side, each against the reference
gpu = gd_info ().available && any (strcmp ({gd_pdist2("variants").name}, "dmma"));
if (gpu)
  md = sprintf ("| data | d | tuned %% correctly rounded | tuned max ulp | dmma %% correctly rounded | dmma max ulp | dmma pairs summed in double |\n|---|---:|---:|---:|---:|---:|---:|\n");
  printf ("%-11s %4s | %-15s | %-15s | %s\n", "data", "d", "tuned % ok, max", "dmma % ok, max", "not certified");
  for s = 1:numel (sets)
    for d = [2 10 100 500 2000]
      [X, Y] = dmma_sets (sets{s}, N, d, 100 * s + d, "single");
      R = exact_dist (X, Y);
      T = gd_pdist2 (X, Y, "euclidean", "Variant", "tuned");
      [M, ~, info] = gd_pdist2 (X, Y, "euclidean", "Variant", "dmma");
      ut = ulps (T, R); um = ulps (M, R);
      k = 100 * sscanf (info.kernel, "%d") / numel (R);
      v = [100*mean(ut(:) == 0), max(ut(:)), 100*mean(um(:) == 0), max(um(:)), k];
      printf ("%-11s %4d | %6.2f %6.3g | %6.2f %6.3g | %6.3f%%\n", sets{s}, d, v);
      md = [md, sprintf("| %s | %d | %.2f | %.3g | %.2f | %.3g | %.3f%% |\n", sets{s}, d, v)];
    endfor
  endfor
  write_table (sprintf ("# Single-precision Euclidean distances on the GPU against the correctly rounded reference\n\nbench/dmma_accuracy.m on %s, %d x %d pairs a row: `gd_pdist2 (X, Y, 'Variant', v)` for today's tuned kernel and dmma; %% of pairs correctly rounded, the largest error in single ulps, and the share of pairs dmma's certificate left to its double sum.\n\n", gd_info ().name, N, N), md);
  return;
endif
md = sprintf ("| data | d | today %% ok | max ulp | expanded %% ok | max | certified %% | certified+today %% ok | max | double %% ok | max | certified+double %% ok | max | centered certified %% | centered+double %% ok | max |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
printf ("%-11s %4s | %-13s | %-13s | %-20s | %-13s | %-13s | %-20s\n", "data", "d", "today", "expanded", "certified+today", "double", "cert.+double", "centered: cert, ok");
for s = 1:numel (sets)
  for d = [2 10 100 500 2000]
    [X, Y] = dmma_sets (sets{s}, N, d, 100 * s + d, "single");
    R = exact_dist (X, Y);
    T = gd_pdist2 (X, Y, "euclidean", "Variant", "cpu");
    [Ex, ok] = expanded (X, Y, true);
    c = double (single (mean ([X; Y])));
    [Ec, okc] = expanded (double (X) - c, double (Y) - c, false);
    Cf = T;
    Cf(ok) = Ex(ok);
    U = unexpanded_double (X, Y);
    Cd = U;
    Cd(ok) = Ex(ok);
    Cc = U;
    Cc(okc) = Ec(okc);
    ut = ulps (T, R); ue = ulps (Ex, R); uc = ulps (Cf, R); ud = ulps (U, R); ucd = ulps (Cd, R); ucc = ulps (Cc, R);
    pc = @(u) 100 * mean (u(:) == 0);
    v = [pc(ut), max(ut(:)), pc(ue), max(ue(:)), 100 * mean(ok(:)), pc(uc), max(uc(:)), pc(ud), max(ud(:)), pc(ucd), max(ucd(:)), 100 * mean(okc(:)), pc(ucc), max(ucc(:))];
    printf ("%-11s %4d | %6.2f %6.3g | %6.2f %6.3g | %6.2f %6.2f %6.3g | %6.2f %6.3g | %6.2f %6.3g | %6.2f %6.2f %6.3g\n", sets{s}, d, v);
    md = [md, sprintf("| %s | %d | %.2f | %.3g | %.2f | %.3g | %.2f | %.2f | %.3g | %.2f | %.3g | %.2f | %.3g | %.2f | %.2f | %.3g |\n", sets{s}, d, v)];
    if (any (ulps (Ec(okc), R(okc)) != 0))
      printf ("  a certified centered pair is not correctly rounded: the bound is wrong\n");
    endif
    if (any (ue(ok) != 0))
      printf ("  a certified pair is not correctly rounded: the bound is wrong\n");
    endif
  endfor
endfor
write_table (sprintf ("# Single-precision Euclidean distances against the correctly rounded reference\n\nbench/dmma_accuracy.m, %d x %d pairs a row, on the host (today: the 'cpu' variant's single sum; the forms as its header says).\n\n", N, N), md);
