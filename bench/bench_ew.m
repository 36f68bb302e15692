## bench_ew.m - bench.m's section "ew": gdArray arithmetic against a copy's bandwidth. Sourced by bench.m
## (its workspace: md, quick, pick, the device and the helpers).

md{end+1} = sprintf ("\n## gdArray arithmetic\n\nOn gdArrays (nothing moves but the result's handle), single, medians of 5 after a warm-up, wall clock around the call: each row's bytes (read and written) over its time, against a copy of the same array in the same run (`reshape (G, n, [])`, a kernel that reads and writes each element once). The chain's rows count one read and one write an element: unfused, each of its four array operations makes a pass; `arrayfun` runs it in one (ops/ew/fuse.cu). Results checked against the host's first.\n\n| operation | size | ms | GB/s | of the copy |\n|---|---|---:|---:|---:|\n");
n = pick (quick, 2^20, 2^28);
m = pick (quick, 1024, 16384);
G = gdArray (rand (n / 16, 16, "single")); H = gdArray (rand (n / 16, 16, "single"));
S = gdArray (rand (m, "single"));
rows_ew = {"copy (reshape)", sprintf("2^%d", log2 (n)), @() reshape (G, n / 8, []), 8 * n;
           "G + 1", sprintf("2^%d", log2 (n)), @() G + 1, 8 * n;
           "G .* H", sprintf("2^%d", log2 (n)), @() G .* H, 12 * n;
           "sum (G, 1)", sprintf("%d^2", m), @() sum (S, 1), 4 * m^2;
           "max (G, [], 2)", sprintf("%d^2", m), @() max (S, [], 2), 4 * m^2;
           "exp (-G .^ 2 / (2 * s ^ 2)), unfused", sprintf("%d^2", m), @() exp (-S .^ 2 / (2 * 0.7 ^ 2)), 8 * m^2;
           "arrayfun (@(d) exp (-d .^ 2 / (2 * s ^ 2)), G)", sprintf("%d^2", m), @() arrayfun (@(d) exp (-d .^ 2 / (2 * 0.7 ^ 2)), S), 8 * m^2};
assert (isequal (gather (G + 1), gather (G) + 1) && isequal (gather (sum (S, 1)), sum (gather (S), 1)));
assert (isequal (gather (arrayfun (@(d) exp (-d .^ 2 / (2 * 0.7 ^ 2)), S)), gather (exp (-S .^ 2 / (2 * 0.7 ^ 2)))));
copy_bw = 0;
for r = 1:rows (rows_ew)
  f = rows_ew{r, 3};
  R = f ();
  t = zeros (1, 5);
  for k = 1:5
    clear R;
    t0 = tic (); R = f (); t(k) = toc (t0);
  endfor
  bw = rows_ew{r, 4} / median (t) / 1e9;
  if (r == 1)
    copy_bw = bw;
  endif
  md{end+1} = sprintf ("| %s | %s | %.3f | %.0f | %.2f |\n", rows_ew{r, 1}, rows_ew{r, 2}, 1e3 * median (t), bw, bw / copy_bw);
  printf ("%s", md{end});
endfor
clear G H S R;
