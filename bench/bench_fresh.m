## bench_fresh.m - what a fresh result array costs, and with it the
## host-to-host time, in an Octave started one way. make bench runs it
## three times after bench.m, each time in a new Octave: as started
## plainly; with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc asks the
## kernel for transparent huge pages on its large allocations, so a new
## array is faulted in 2 MiB at a time instead of 4 KiB); and with
## glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184 (large
## arrays come from the heap, and what a freed one leaves is kept there:
## a call's result then lands in pages an earlier result already touched,
## instead of fresh ones the kernel must clear). Each run appends a row to
## the "## fresh arrays" table of bench/results/<device>.md.
##
## Rows: new R: `zeros (8192, 'single')` (256 MiB, the min-plus result);
## min-plus: gd_minplus (A) with 'auto' at n = 8192, single; pdist:
## gd_pdist (X) at 16384 x 300, single (a 537 MB result). Medians of 3 calls
## after a warm-up call (bench_common.m's time_call and new_array_ms).

1;

source ("bench/bench_common.m");

dev = gd_info ();
if (! dev.available)
  error ("bench_fresh: no CUDA GPU: %s", dev.reason);
endif
quick = ! isempty (getenv ("GD_BENCH_QUICK"));
n = 8192; np = 16384; d = 300;
if (quick)
  n = 256; np = 512;
endif
tun = getenv ("GLIBC_TUNABLES");
if (isempty (tun))
  tun = "(none)";
endif

t_new = new_array_ms (n, n, "single");

A = single (randi ([-9 9], n));
r = time_call (@gd_minplus, {A}, 3);
mp = r.h2h_ms; info = r.info;
copy = r.copy_ms;
clear A;
X = single (randi ([-9 9], np, d));
r = time_call (@gd_pdist, {X}, 3);
pd = r.h2h_ms; pinfo = r.info; pcopy = r.copy_ms;
clear X;

pmax = pd / max (pinfo.kernel_ms, pcopy);
printf ("fresh arrays, GLIBC_TUNABLES=%s: new R %.1f ms; min-plus %d h2h %.1f ms (kernel %.1f, copy %.1f, h2h/max %.2f); pdist %dx%d h2h %.1f ms (kernel %.2f, copy %.1f, h2h/max %.2f)\n",
        tun, t_new, n, mp, info.kernel_ms, copy, mp / max (info.kernel_ms, copy), np, d, pd,
        pinfo.kernel_ms, pcopy, pmax);

name = regexprep (dev.name, "[^A-Za-z0-9]+", "_");
fn = getenv ("GD_BENCH_OUT");
if (isempty (fn))
  fn = sprintf ("bench/results/%s.md", name);
endif
text = "";
if (exist (fn, "file"))
  text = fileread (fn);
endif
f = fopen (fn, "a");
if (isempty (strfind (text, "## fresh arrays")))
  fprintf (f, "\n## fresh arrays\n\nEach row is a new Octave process started with the GLIBC_TUNABLES shown. new R: `zeros (%d, 'single')`, the array a min-plus result lands in; min-plus: `gd_minplus (A)` ('auto', single, n = %d) host to host, with its kernel and copy times and h2h over max(kernel, copy); pdist: `gd_pdist (X)` at %d x %d single, host to host. Medians of 3 calls after a warm-up call (each call's result is cleared before the next).\n\n| GLIBC_TUNABLES | new R ms | min-plus h2h ms | kernel ms | copy ms | h2h / max(k, c) | pdist h2h ms | pdist kernel ms | pdist copy ms | pdist h2h / max(k, c) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", n, n, np, d);
endif
fprintf (f, "| %s | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f | %.2f | %.1f | %.2f |\n",
         tun, t_new, mp, info.kernel_ms, copy, mp / max (info.kernel_ms, copy), pd,
         pinfo.kernel_ms, pcopy, pmax);
fclose (f);
