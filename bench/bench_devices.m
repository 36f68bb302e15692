## bench_devices.m - every device of the host against one, in the same run:
## each operation that divides its work (min-plus, sgemm, pdist, pdist2,
## nearest neighbours, shortest paths' lengths) with 'Devices', 1 and with 'Devices', 1:N, the
## results compared bit for bit before anything is timed. Writes the table
## to stdout and to bench/results/<device>_x<N>-devices.md.
##
##   make bench-devices                 (a host with two GPUs or more)
##   GD_BENCH_QUICK=1 make bench-devices  (sizes / 8: a smoke test)
##
## Each row: medians of 3 calls of each, taken in turns (one device, then
## all); h2h is the whole call as Octave waits for it (tic/toc), kernel the
## longest device's kernel time (CUDA events), up and down the longest
## device's copies. A "distributed" row leaves the N-device result in
## pieces where each device computed them ('Distributed', true: gdArray's
## help), the one-device result on device 1; "then gathered" brings it to
## the host in the call (each device copying its piece at once).
## A "gdArrays" row starts from a gdArray on device 1
## and leaves the result there (the other devices copy the operands and
## their panels of the result peer to peer).

1;

source ("bench/bench_common.m");

function [th, tk, tu, td, tp] = timed (f, reps)
  ## medians of reps calls of f, which returns [R, info]
  th = tk = tu = td = tp = zeros (1, reps);
  for r = 1:reps
    R = [];
    t0 = tic ();
    [R, info] = f ();
    th(r) = toc (t0) * 1e3;
    tk(r) = info.kernel_ms;  tu(r) = info.upload_ms;  td(r) = info.download_ms;
    tp(r) = info.prep_ms;
  endfor
  th = median (th);  tk = median (tk);  tu = median (tu);  td = median (td);  tp = median (tp);
endfunction

function [R, info] = mp (varargin)
  [R, ~, info] = gd_minplus (varargin{:});
endfunction

function [D, info] = ap (varargin)
  [D, ~, info] = gd_apsp (varargin{:});
endfunction

function [R, info] = pd (varargin)
  [R, info] = gd_pdist (varargin{:});
endfunction

function [R, info] = pd_gather (varargin)
  ## the distances, then on the host (a distributed D: each device's piece
  ## at once)
  [R, info] = gd_pdist (varargin{:});
  R = gather (R);
endfunction

function [R, info] = p2 (varargin)
  ## gd_pdist2's D and its info (the third output)
  [R, ~, info] = gd_pdist2 (varargin{:});
endfunction

dev = gd_info ();
N = numel (dev.devices);
if (N < 2)
  error ("bench_devices: gd sees %d device: this needs a host with two GPUs or more", N);
endif
quick = ! isempty (getenv ("GD_BENCH_QUICK"));
sc = @(x) pick (quick, max (256, round (x / 8)), x);
all_ = 1:N;
cases = {
  "min-plus single", sprintf("n = %d", sc(16384)), ...
    @() rand(sc(16384), "single"), @(A, d) mp(A, "Devices", d);
  "min-plus single", sprintf("n = %d", sc(8192)), ...
    @() rand(sc(8192), "single"), @(A, d) mp(A, "Devices", d);
  "min-plus single", sprintf("n = %d", sc(4096)), ...
    @() rand(sc(4096), "single"), @(A, d) mp(A, "Devices", d);
  "min-plus double", sprintf("n = %d", sc(8192)), ...
    @() rand(sc(8192)), @(A, d) mp(A, "Devices", d);
  "min-plus single, gdArrays", sprintf("n = %d", sc(16384)), ...
    @() gdArray(rand(sc(16384), "single")), @(A, d) mp(A, "Devices", d);
  "min-plus single, gdArrays, distributed", sprintf("n = %d", sc(16384)), ...
    @() gdArray(rand(sc(16384), "single")), @(A, d) mp(A, "Devices", d, "Distributed", numel (d) > 1);
  "sgemm (cublas)", sprintf("n = %d", sc(16384)), ...
    @() randn(sc(16384), "single"), @(A, d) gd_sgemm(A, A, "Variant", "cublas", "Devices", d);
  "sgemm (tuned)", sprintf("n = %d", sc(16384)), ...
    @() randn(sc(16384), "single"), @(A, d) gd_sgemm(A, A, "Variant", "tuned", "Devices", d);
  "pdist euclidean single", sprintf("%d x 128", sc(65536)), ...
    @() randn(sc(65536), 128, "single"), @(X, d) gd_pdist(X, "Devices", d);
  "pdist euclidean single, gdArrays, distributed", sprintf("%d x 128", sc(65536)), ...
    @() gdArray(randn(sc(65536), 128, "single")), @(X, d) pd(X, "Devices", d, "Distributed", numel (d) > 1);
  "pdist euclidean single, gdArrays, distributed, then gathered", sprintf("%d x 128", sc(65536)), ...
    @() gdArray(randn(sc(65536), 128, "single")), @(X, d) pd_gather(X, "Devices", d, "Distributed", numel (d) > 1);
  "pdist2 euclidean single", sprintf("%d x %d x 128", sc(32768), sc(32768)), ...
    @() randn(sc(32768), 128, "single"), @(X, d) p2(X, X, "Devices", d);
  "kNN single, K = 100", sprintf("%d queries, %d points, d = 128", sc(10000), sc(1000000)), ...
    @() {randn(sc(1000000), 128, "single"), randn(sc(10000), 128, "single")}, ...
    @(XY, d) p2(XY{1}, XY{2}, "Smallest", 100, "Devices", d);
  "apsp single (D)", sprintf("n = %d", sc(16384)), ...
    @() rand(sc(16384), "single"), @(W, d) ap(W, "Devices", d);
  "apsp single (D)", sprintf("n = %d", sc(8192)), ...
    @() rand(sc(8192), "single"), @(W, d) ap(W, "Devices", d);
  "apsp double (D)", sprintf("n = %d", sc(8192)), ...
    @() rand(sc(8192)), @(W, d) ap(W, "Devices", d);
};
printf ("%d devices: %s\n", N, strjoin (arrayfun (@(d) sprintf ("%d %s", d.index, d.name), ...
        dev.devices, "UniformOutput", false), ", "));
printf ("%-24s %-34s %9s %9s %7s %9s %9s %8s %8s %8s %s\n", "operation", "size", "1 h2h", ...
        sprintf ("%d h2h", N), "x", "1 kern", sprintf ("%d kern", N), "prep", "up", "down", "same");
md = {};
for c = 1:rows (cases)
  data = cases{c,3} ();
  f = cases{c,4};
  [R1, i1] = f (data, 1);
  [Rn, in] = f (data, all_);
  R1 = gather (R1);  Rn = gather (Rn);
  if (! isequal (in.devices, all_))
    error ("bench_devices: %s ran on %s", cases{c,1}, mat2str (in.devices));
  endif
  same = isequal (class (R1), class (Rn)) && isequal (size (R1), size (Rn)) ...
         && isequal (typecast (R1(:), "uint8"), typecast (Rn(:), "uint8"));
  if (! same && isempty (strfind (cases{c,1}, "cublas")))
    error ("bench_devices: %s differs from the one-device result", cases{c,1});
  endif
  clear R1 Rn;
  h1 = hn = k1 = kn = un = dn = pn = zeros (1, 3);
  for r = 1:3
    [h1(r), k1(r)] = timed (@() f (data, 1), 1);
    [hn(r), kn(r), un(r), dn(r), pn(r)] = timed (@() f (data, all_), 1);
  endfor
  h1 = median (h1);  hn = median (hn);  k1 = median (k1);  kn = median (kn);
  un = median (un);  dn = median (dn);  pn = median (pn);
  same_s = pick (same, "yes", "no (cuBLAS picks its kernel by shape)");
  printf ("%-24s %-34s %9.1f %9.1f %7.2f %9.1f %9.1f %8.1f %8.1f %8.1f %s\n", cases{c,1}, cases{c,2}, ...
          h1, hn, h1 / hn, k1, kn, pn, un, dn, same_s);
  md{end+1} = sprintf ("| %s | %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n", ...
                       cases{c,1}, cases{c,2}, h1, hn, h1 / hn, k1, kn, pn, un, dn, same_s);
  fflush (stdout);
  clear data;
endfor

name = regexprep (dev.devices(1).name, "[^A-Za-z0-9]+", "_");
[~, ~] = mkdir ("bench/results");
fn = getenv ("GD_BENCH_OUT");
if (isempty (fn))
  fn = sprintf ("bench/results/%s_x%d-devices.md", name, N);
endif
fid = fopen (fn, "w");
fprintf (fid, "# gd benchmarks: %d x %s, all devices against one\n\n", N, dev.devices(1).name);
fprintf (fid, "Generated by `make bench-devices` (bench/bench_devices.m) on %s; do not edit.\n\n", ...
         datestr (now (), "yyyy-mm-dd"));
peers = pick (isempty (dev.devices(1).peers), "no peer access", ...
              sprintf ("device 1 reaches %s directly", mat2str (dev.devices(1).peers)));
fprintf (fid, "Devices: %s; %s. Driver %s, runtime %s. Each operation with `'Devices', 1` and with `'Devices', 1:%d`, in turns, in the same run; medians of 3. h2h: the whole call from Octave's matrices to Octave's result (tic/toc); kernel: the longest device's kernel time (CUDA events); prep, up and down: the longest device's layout preparation (with the merge of the lists, for kNN) and copies (the %d-device calls). same: the %d-device result equals the one-device result bit for bit (checked before timing).\n\n", ...
         strjoin (arrayfun (@(d) sprintf ("%d: %s (%s, %.0f GiB)", d.index, d.name, d.pci, ...
                  d.memory_total / 2^30), dev.devices, "UniformOutput", false), "; "), peers, ...
         dev.driver_version, dev.runtime_version, N, N, N);
fprintf (fid, "## devices\n\n");
fprintf (fid, "| operation | size | 1 device h2h ms | %d devices h2h ms | speed-up | 1 device kernel ms | %d devices kernel ms | prep ms | up ms | down ms | same |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n", N, N);
fprintf (fid, "%s", md{:});
fclose (fid);
printf ("\nwritten: %s\n", fn);
