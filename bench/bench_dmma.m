## bench_dmma.m - bench.m's section "pdist", its tables of 'tuned' against
## 'dmma' in the same run: pdist2 (the Euclidean distance, resident), and
## gd_pdist's cosine and correlation. Sourced by bench.m (its workspace:
## md, scale, pick and the helpers).

## pdist2 at 16384 x 16384 x 128 single, X and Y resident, D kept:
## 'tuned' against 'dmma' in the same run (the kernels alone)
m = scale (16384); d = scale (128);
X = gdArray (rand (m, d, "single")); Y = gdArray (rand (m, d, "single"));
md{end+1} = sprintf ("\n`gd_pdist2 (X, Y)` single, %d x %d x %d, X, Y and D on the GPU: kernel ms (median of 3), triples/s; dmma: the pairs the certificate left (`info.kernel`).\n\n| variant | kernel ms | triples/s | vs tuned | info.kernel |\n|---|---:|---:|---:|---|\n", m, m, d);
kt = 0;
for v = intersect ({"tuned", "dmma"}, {gd_pdist2("variants").name}, "stable")
  k = zeros (1, 3);
  for rep = 1:3
    [D, ~, info] = gd_pdist2 (X, Y, "Variant", v{1}); k(rep) = info.kernel_ms; clear D;
  endfor
  kt = pick (strcmp (v{1}, "tuned"), median (k), kt);
  printf ("pdist2 %-6s %dx%dx%d %10.2f ms %11.3g\n", v{1}, m, m, d, median (k), m * m * d / median (k) / 1e-3);
  md{end+1} = sprintf ("| %s | %.2f | %.3g | %.2f | %s |\n", v{1}, median (k), m * m * d / (median (k) * 1e-3), kt / median (k), info.kernel);
endfor
clear X Y;
## cosine and correlation: gd_pdist single 16384 x 300, 'tuned' against
## 'dmma' in the same run
n = scale (16384); d = scale (300);
X = rand (n, d, "single");
md{end+1} = sprintf ("\n`gd_pdist (X, metric)` single, %d x %d: kernel ms (median of 3); dmma: the pairs the certificate left.\n\n| metric | variant | kernel ms | vs tuned | info.kernel |\n|---|---|---:|---:|---|\n", n, d);
for mt = {"cosine", "correlation"}
  kt = 0;
  for v = intersect ({"tuned", "dmma"}, {gd_pdist("variants").name}, "stable")
    k = zeros (1, 3);
    for rep = 1:3
      [D, info] = gd_pdist (X, mt{1}, "Variant", v{1}); k(rep) = info.kernel_ms; clear D;
    endfor
    kt = pick (strcmp (v{1}, "tuned"), median (k), kt);
    printf ("pdist %-11s %-6s %dx%d %10.2f ms  %.2fx\n", mt{1}, v{1}, n, d, median (k), kt / median (k));
    md{end+1} = sprintf ("| %s | %s | %.2f | %.2f | %s |\n", mt{1}, v{1}, median (k), kt / median (k), info.kernel);
  endfor
endfor
clear X;
