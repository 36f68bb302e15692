## bench.m - time each operation's GPU variants, check each first, and
## write the tables to stdout and to bench/results/<device>.md.
##
##   make bench                                    (everything, about 15 minutes on an H100)
##   GD_BENCH_OPS=sgemm make bench                 (one operation, whose tables
##                                                 replace theirs in the results
##                                                 file, the others kept; "resident":
##                                                 the gdArray chains; "apsp":
##                                                 shortest paths, the witness;
##                                                 "knn": nearest neighbours;
##                                                 "int": min-plus on the
##                                                 integer classes; "metrics":
##                                                 pdist's other metrics;
##                                                 "knnmetrics": the
##                                                 neighbours of every metric;
##                                                 "range": gd_rangesearch;
##                                                 "sssp": 'Sources' on sparse
##                                                 graphs, beside scipy; "ew":
##                                                 gdArray arithmetic)
##   GD_BENCH_SIZES="1024 2048" make bench         (min-plus sizes)
##   GD_BENCH_QUICK=1 GD_BENCH_OUT=/tmp/b.md ...    (every size / 32: a smoke test)
##
## Each row: the median over several calls of the kernel alone (CUDA
## events), its rate and % of the device's ceiling (from its SM count and
## clock), the host-to-host time an Octave user waits (tic/toc around the
## call) and the copies'. No kernel is timed before its result is checked.

1;

source ("bench/bench_common.m");

## the Euclidean distances of X's rows to Y's on the host, in panels of 500
## queries (the brute force beside gd_rangesearch)
function F = pdist2_host (X, Y)
  F = zeros (rows (X), rows (Y));
  for j0 = 1:500:rows (Y)
    j = j0:min (rows (Y), j0 + 499);
    F(:,j) = sqrt (max (sumsq (X, 2) + sumsq (Y(j,:), 2)' - 2 * X * Y(j,:)', 0));
  endfor
endfunction


function s = resident_row (name, h, r, k)
  ## a row of the resident table: printed, and returned for the markdown
  printf ("%-44s %12.2f %12.2f %12.2f %10.3f\n", name, h, r, k, r / k);
  s = sprintf ("| %s | %.2f | %.2f | %.2f | %.3f |\n", name, h, r, k, r / k);
endfunction


dev = gd_info ();
if (! dev.available)
  error ("bench: no CUDA GPU: %s", dev.reason);
endif
ops = strsplit (strtrim (getenv ("GD_BENCH_OPS")));
if (isempty (ops{1}))
  ops = {"minplus", "sgemm", "pdist", "resident", "apsp", "knn", "range", "knnmetrics", "int", "metrics", "sssp", "ew"};
endif
quick = ! isempty (getenv ("GD_BENCH_QUICK"));
scale = @(x) pick (quick, max (1, round (x / 32)), x);
clock_hz = dev.clock_mhz * 1e6;
## min-plus: one FADD and one FMNMX per step; FMNMX issues at 64 per clock
## per SM, so 64 steps/clock/SM in single. In double v5 takes the min by a
## compare and a select (DADD, DSETP and two FSEL: tile.cuh's minplus_sel),
## which `make fp64mix` measures in the tile's own loop (the minplus_sel
## step row) at 18.56 steps/clock/SM on the H100: the double ceiling.
## fmin's DADD + DMNMX pair runs at 13.1 (kernels/NOTES.md).
## build/fp64_mix (make fp64mix), when built: the pipes' rates for the
## mixes and each distance step's rate in isolation, measured now
mix = struct ("pair", struct (), "single", struct (), "double", struct ());
[st, txt] = system ("build/fp64_mix 2>/dev/null");
if (st == 0)
  for L = strsplit (txt, "\n")
    tok = regexp (L{1}, '^(\S+)\s+(single|double)\s+[\d.]+\s+([\d.]+)\s', "tokens", "once");
    if (! isempty (tok))
      mix.(tok{2}).(tok{1}) = str2double (tok{3});
      continue;
    endif
    tok = regexp (L{1}, '^(\S+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s', "tokens", "once");
    if (! isempty (tok))
      mix.pair.(strrep (tok{1}, "+", "_")) = str2double (tok{2});
    endif
  endfor
endif
ceiling.minplus.single = 64 * dev.sms * clock_hz;
if (isfield (mix.double, "minplus_sel"))
  dsel = mix.double.minplus_sel;
  dmin_src = "as build/fp64_mix measures the step in the tile's loop in this run";
else
  dsel = 18.56;
  dmin_src = "as build/fp64_mix measured the step in the tile's loop on the H100 (not built here)";
endif
ceiling.minplus.double = dsel * dev.sms * clock_hz;
## FP32 FMA: 128 lanes per SM, 2 flops each
ceiling.sgemm = 256 * dev.sms * clock_hz;
## pdist: FSUB + FFMA per (i,j,k) triple, like min-plus's pair; double
## DSUB + DFMA on the 64-lane FP64 pipe
ceiling.pdist = 64 * dev.sms * clock_hz;
ceiling.pdist_double = 32 * dev.sms * clock_hz;
md = {};

if (any (strcmp (ops, "minplus")))
  sizes = str2num (getenv ("GD_BENCH_SIZES"));
  if (isempty (sizes))
    sizes = scale ([1024 4096 8192]);
  endif
  vs = gd_minplus ("variants");
  gpu_variants = {vs([vs.gpu]).name};
  printf ("\nmin-plus\n%-16s %-6s %5s %10s %10s %6s %9s %8s %8s %8s %7s %7s\n", "var",
          "class", "n", "kernel ms", "steps/s", "%ceil", "h2h ms", "copy ms",
          "GB/s", "zeros ms", "h2h/k+c", "h2h/max");
  md{end+1} = sprintf ("## min-plus\n\nCeilings: single %.3g steps/s (64/clock/SM: FMNMX), double %.3g steps/s (v5's compare-and-select step, DADD, DSETP and two FSEL, %s, %.1f a clock an SM; fmin's DADD + DMNMX pair runs at 13.1: DMNMX issues at a fifth of DADD's rate).\n\nInputs: `rand (n, class) * 100`, no negative element, so v5 in single runs its integer-min kernel (`v5 (integer min)`: two FADD and one three-input integer min per two steps). In single v5 runs twice more on signed inputs, where it takes the sign split (`integer max on t of T tiles, fminf on f`: the three-input integer max of the sums' bits, exact wherever a sum is negative, then fminf, FADD and FMNMX a step, on the tiles with an output that has no negative sum): `randn (n, class)`, whose every result is negative, and the `rand` inputs with one element made -1 (`one negative`), whose results are almost all non-negative: the tiles whose rows of A and columns of B hold no negative element take the integer min (`integer min on c tiles, then ...`), the tile row of the -1 the sign split. The ceiling is the FMNMX one for all.\n\nkernel: the product's kernels alone (CUDA events; a large product runs in blocks of 2048 or more a side, so that copies overlap kernels: the `GD_BLOCKS=1` row is the same call in one piece); h2h: host to host, what `tic; R = gd_minplus (A, B); toc` measures; copy: the engine time of the call's copies, host to device and back (CUDA events around each 32 MiB piece through the page-locked staging slots; `GD_STAGE=0`: the driver's pageable copies); GB/s: the three n x n matrices over that time; zeros: what `zeros (n, class)` costs in this Octave, for comparison (gd's result array is Octave's, unfilled; its pages are first touched by the parallel copy out of the staging slots); h2h / max: h2h over max(kernel, copy), the overlap bar (1.2).\n\n| variant | class | n | kernel ms | steps/s | %% of ceiling | h2h ms | copy ms | copy GB/s | zeros ms | h2h / (k+c) | h2h / max(k, c) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                       ceiling.minplus.single, ceiling.minplus.double, dmin_src,
                       ceiling.minplus.double / (dev.sms * clock_hz));
  nrows = 0;
  for n = sizes
    nrows += 2 * numel (gpu_variants) + 4 * (n == max (sizes)) + 2;
  endfor
  progress ("min-plus", nrows);
  for c = {"single", "double"}
    cls = c{1};
    for n = sizes
      A = rand (n, cls) * 100; B = rand (n, cls) * 100;
      t_new = new_array_ms (n, n, cls);
      ## check before timing: v1 against the Octave expression on a block
      ## of rows, every other variant against v1
      R1 = gd_minplus (A, B, "Variant", "v1");
      rb = 1:min (n, 64);
      E = Inf (numel (rb), n, cls);
      for j = 1:n
        E(:,j) = min (A(rb,:) + B(:,j)', [], 2);
      endfor
      if (! isequal (R1(rb,:), E))
        error ("bench: v1 disagrees with Octave at n = %d %s", n, cls);
      endif
      ## every variant as a user runs it; at the largest size v5 once more
      ## with GD_BLOCKS=1 (the product in one piece: its kernel time is the
      ## one the blocks are measured against) and v4 with GD_STAGE=0
      ## (pageable copies), for comparison in one run. A and B have no
      ## negative element, so v5 in single takes its integer-min kernel; in
      ## single v5 runs on randn inputs and on A with one element -1, which
      ## take the sign split. runs: variant; environment setting; inputs
      ## (1: A, B; 2: randn; 3: one negative)
      runs = [gpu_variants; repmat({""}, size (gpu_variants)); num2cell(ones (size (gpu_variants)))];
      if (n == max (sizes))
        runs(:,end+1) = {"v5"; "GD_BLOCKS=1"; 1};
        runs(:,end+1) = {"v4"; "GD_STAGE=0"; 1};
      endif
      inputs = {{A, B}};
      refs = {R1};
      if (strcmp (cls, "single"))
        runs(:,end+1) = {"v5"; ""; 2};
        runs(:,end+1) = {"v5"; ""; 3};
        inputs{2} = {randn(n, cls), randn(n, cls)};
        inputs{3} = {A, B};
        inputs{3}{1}(randi (n), randi (n)) = -1;
        for q = 2:3
          refs{q} = gd_minplus (inputs{q}{:}, "Variant", "v1");
        endfor
      endif
      for q = runs
        v = q(1);
        args = inputs{q{3}}; ref = refs{q{3}};
        env = strsplit (q{2}, "=");
        if (! isempty (q{2}))
          setenv (env{1}, env{2});
        endif
        if (! isequal (gd_minplus (args{:}, "Variant", v{1}), ref))
          error ("bench: %s %s disagrees with v1 at n = %d %s", v{1}, q{2}, n, cls);
        endif
        reps = 5 + 2 * (n <= 1024) + 2 * (n <= 4096);
        r = time_call (@gd_minplus, [args, {"Variant", v{1}}], reps);
        if (! isempty (q{2}))
          unsetenv (env{1});
        endif
        label = v{1};
        if (! isempty (r.info.kernel))
          label = sprintf ("%s (%s)", label, r.info.kernel);
        endif
        if (! isempty (q{2}))
          label = sprintf ("%s, %s", label, q{2});
        endif
        if (q{3} > 1)
          label = sprintf ("%s, %s", label, {"", "randn", "one negative"}{q{3}});
        endif
        v = {label};
        rate = r.ops / (r.kernel_ms * 1e-3);
        pct = 100 * rate / ceiling.minplus.(cls);
        gbs = 3 * n * n * (4 + 4 * strcmp (cls, "double")) / (r.copy_ms * 1e-3) / 1e9;
        hmax = r.h2h_ms / max (r.kernel_ms, r.copy_ms);
        printf ("%-16s %-6s %5d %10.2f %10.3g %6.1f %9.2f %8.2f %8.1f %8.1f %7.2f %7.2f\n",
                v{1}, cls, n, r.kernel_ms, rate, pct, r.h2h_ms, r.copy_ms, gbs, t_new,
                r.h2h_ms / (r.kernel_ms + r.copy_ms), hmax);
        md{end+1} = sprintf ("| %s | %s | %d | %.2f | %.3g | %.1f | %.2f | %.2f | %.1f | %.1f | %.2f | %.2f |\n",
                             v{1}, cls, n, r.kernel_ms, rate, pct, r.h2h_ms, r.copy_ms, gbs,
                             t_new, r.h2h_ms / (r.kernel_ms + r.copy_ms), hmax);
        fflush (stdout);
        progress ();
      endfor
    endfor
  endfor
endif

if (any (strcmp (ops, "sgemm")))
  ## rows: {m k n variant edges section}
  vs = gd_sgemm ("variants");
  kvars = {vs(strncmp ({vs.name}, "k", 1)).name};
  plan = {};
  for e = {"pad", "guard"}
    for v = [kvars, {"tuned", "cublas"}]
      plan(end+1,:) = {4096, 4096, 4096, v{1}, e{1}, "ladder"};
    endfor
  endfor
  for e = {"pad", "guard"}
    for v = {"k1-64", "k2-128", "k4-128-j4-k4", "k5", "tuned", "cublas"}
      plan(end+1,:) = {4000, 4000, 4000, v{1}, e{1}, "edges"};
    endfor
  endfor
  sweep = [256 256 256; 512 512 512; 1024 1024 1024; 2048 2048 2048;
           4096 4096 4096; 8192 8192 8192; 1000 1000 1000; 4097 4097 4097;
           1000 3000 500];
  for s = 1:rows (sweep)
    for v = {"tuned", "cublas"}
      plan(end+1,:) = {sweep(s,1), sweep(s,2), sweep(s,3), v{1}, "pad", "sweep"};
    endfor
  endfor
  printf ("\nsgemm\n%-7s %-13s %-5s %16s %10s %10s %6s %9s %9s %8s %8s\n", "section",
          "variant", "edges", "m x k x n", "kernel ms", "GFLOP/s", "%peak",
          "h2h GF/s", "h2h ms", "copy ms", "%cublas");
  md{end+1} = sprintf ("\n## sgemm\n\nPeak FP32: %.3g flop/s (128 FMA lanes/SM). GFLOP/s = 2mnk / time. %% cublas: kernel-only rate over cublas's at the same size and edges mode, measured in this run. Sections: ladder (the article's table at 4096), edges (padded zeros vs guarded loads at a size that is not a multiple of any tile), sweep (tuned vs cublas). Medians of 3 to 5 calls, of 51 for products of 2^31 steps or fewer.\n\n| section | variant | edges | m x k x n | kernel ms | GFLOP/s kernel | %% of peak | GFLOP/s host-to-host | h2h ms | copy ms | %% of cublas |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
                       ceiling.sgemm);
  plan(:,1:3) = cellfun (scale, plan(:,1:3), "UniformOutput", false);
  cublas_rate = containers.Map ();
  rows_out = {};
  last = "";
  for p = 1:rows (plan)
    [m, k, n, v, e, sec] = plan{p,:};
    key = sprintf ("%dx%dx%d", m, k, n);
    if (! strcmp (key, last))
      A = single (randi ([-8 8], m, k)); B = single (randi ([-8 8], k, n));
      ## exact reference on small integers (every partial sum < 2^24): a
      ## block of columns, in double
      cols = 1:min (n, 32);
      ref = double (A) * double (B(:, cols));
      last = key;
    endif
    C = gd_sgemm (A, B, "Variant", v, "Edges", e);
    if (! isequal (double (C(:, cols)), ref))
      error ("bench: sgemm %s %s at %s is not exact", v, e, key);
    endif
    clear C;
    ## (products of 2^31 steps or fewer run in tens of microseconds, where
    ## five calls' median moved by 10% between runs, cuBLAS's too: 51)
    reps = pick (m * n * k <= 2^31, 51, 3 + 2 * (m * n * k <= 2^33));
    r = time_call (@gd_sgemm, {A, B, "Variant", v, "Edges", e}, reps);
    rate = r.ops / (r.kernel_ms * 1e-3);
    ## cublas runs last among a section's rows of one size: the % of
    ## cublas column is filled in after the loop, from the same section
    if (strcmp (v, "cublas"))
      cublas_rate([sec key e]) = rate;
    endif
    pct_cublas = NaN;
    if (isKey (cublas_rate, [sec key e]))
      pct_cublas = 100 * rate / cublas_rate([sec key e]);
    endif
    rows_out{p} = {sec, v, e, key, r, rate};
    printf ("%-7s %-13s %-5s %16s %10.2f %10.0f %6.1f %9.0f %9.2f %8.2f %8s\n", sec, v, e,
            key, r.kernel_ms, rate / 1e9, 100 * rate / ceiling.sgemm,
            r.ops / (r.h2h_ms * 1e-3) / 1e9, r.h2h_ms, r.copy_ms,
            pick (isnan (pct_cublas), "", sprintf ("%.1f", pct_cublas)));
    fflush (stdout);
  endfor
  ## % of cublas for every row, now that every cublas rate is known
  for p = 1:numel (rows_out)
    [sec, v, e, key, r, rate] = rows_out{p}{:};
    pc = "";
    if (isKey (cublas_rate, [sec key e]))
      pc = sprintf ("%.1f", 100 * rate / cublas_rate([sec key e]));
    endif
    md{end+1} = sprintf ("| %s | %s | %s | %s | %.2f | %.0f | %.1f | %.0f | %.2f | %.2f | %s |\n",
                         sec, v, e, key, r.kernel_ms, rate / 1e9, 100 * rate / ceiling.sgemm,
                         r.ops / (r.h2h_ms * 1e-3) / 1e9, r.h2h_ms, r.copy_ms, pc);
  endfor
endif

if (any (strcmp (ops, "pdist")))
  printf ("\npdist\n%-6s %-6s %14s %10s %11s %6s %9s %9s %9s %9s %9s %9s\n", "var", "class",
          "n x d", "kernel ms", "triples/s", "%ceil", "h2h ms", "copy ms", "copy GB/s",
          "newD ms", "h2h/max", "GPU MiB");
  md{end+1} = sprintf ("\n## pdist\n\nCeilings: single %.3g (i,j,k) triples/s (an FSUB and an FFMA each, 64/clock/SM as for min-plus), double %.3g (a DSUB and a DFMA on the FP64 pipe: 32/clock/SM, which `make fp64mix` measures at 31.6 on the H100). kernel: the pdist kernels alone, summed over the panels; h2h: `tic; gd_pdist (X); toc`; copy: the engine time of the copies of X to the GPU and of D (n(n-1)/2 distances) panel by panel, through the page-locked staging slots (CUDA events); new D: what `zeros (1, n(n-1)/2, 'single')` alone costs in this Octave, for comparison (gd's D is Octave's, unfilled: its fresh pages are first touched by the host threads that copy each panel out of the staging slots, while later panels compute); h2h / max: h2h over max(kernel, copy), the overlap bar (1.2); GPU MiB: the device memory the call held (X, its padded copy for tuned, and D's panels).\n\n| variant | class | n x d | kernel ms | triples/s | %% of ceiling | h2h ms | copy ms | copy GB/s | new D ms | h2h / max(k, c) | GPU MiB |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                       ceiling.pdist, ceiling.pdist_double);
  vs = gd_pdist ("variants");
  ## every variant in single at 16384 x 300; tuned in double there and in
  ## single at 65536 x 64
  for sz = {scale(16384), scale(300), "single"; scale(16384), scale(300), "double";
            scale(65536), scale(64), "single"}'
    n = sz{1}; d = sz{2}; cls = sz{3};
    X = rand (n, d, cls);
    t_new = new_array_ms (1, n * (n - 1) / 2, cls, 1 + 2 * (n <= scale (16384)));
    if (n <= scale (16384))
      vars = pick (strcmp (cls, "single"), {vs([vs.gpu]).name}, {"tuned"});
      ## check before timing: every variant against the host's on a sample
      ## of pairs (the whole vector for the small run)
      E = gd_pdist (X, "Variant", "cpu");
    else
      vars = {"tuned"};
      E = [];
    endif
    for v = vars
      D = gd_pdist (X, "Variant", v{1});
      if (! isempty (E) && norm (D - E) > 1e-5 * norm (E))
        error ("bench: pdist %s disagrees with the cpu variant at %dx%d", v{1}, n, d);
      endif
      q = unique ([1, numel(D), randi(numel (D), 1, 50)]);
      for t = q
        j = floor (((2 * n - 1) - sqrt ((2 * n - 1)^2 - 8 * (t - 1))) / 2);
        while (j > 0 && j * (2 * n - j - 1) / 2 > t - 1), j--; endwhile
        while ((j + 1) * (2 * n - j - 2) / 2 <= t - 1), j++; endwhile
        i = t - 1 - j * (2 * n - j - 1) / 2 + j + 1;
        want = norm (double (X(i+1,:)) - double (X(j+1,:)));
        if (abs (D(t) - want) > 1e-5 * max (want, 1))
          error ("bench: pdist %s wrong at pair (%d,%d)", v{1}, i + 1, j + 1);
        endif
      endfor
      clear D;
      reps = 1 + 2 * (n <= scale (16384));
      r = time_call (@gd_pdist, {X, "Variant", v{1}}, reps);
      info = r.info;
      rate = r.ops / (r.kernel_ms * 1e-3);
      P = n * (n - 1) / 2;
      gbs = (P + n * d) * pick (strcmp (cls, "single"), 4, 8) / (r.copy_ms * 1e-3) / 1e9;
      hmax = r.h2h_ms / max (r.kernel_ms, r.copy_ms);
      ceil_c = pick (strcmp (cls, "single"), ceiling.pdist, ceiling.pdist_double);
      printf ("%-6s %-6s %14s %10.2f %11.3g %6.1f %9.1f %9.1f %9.1f %9.1f %9.2f %9.0f\n", v{1}, cls,
              sprintf ("%dx%d", n, d), r.kernel_ms, rate, 100 * rate / ceil_c,
              r.h2h_ms, r.copy_ms, gbs, t_new, hmax, info.gpu_bytes / 2^20);
      md{end+1} = sprintf ("| %s | %s | %dx%d | %.2f | %.3g | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.0f |\n",
                           v{1}, cls, n, d, r.kernel_ms, rate, 100 * rate / ceil_c,
                           r.h2h_ms, r.copy_ms, gbs, t_new, hmax, info.gpu_bytes / 2^20);
      fflush (stdout);
    endfor
    clear X E;
  endfor
  source ("bench/bench_dmma.m");
endif

if (any (strcmp (ops, "resident")))
  ## Chains of calls on gdArrays (data kept on the GPU) against the same
  ## calls on Octave matrices. Each chain is checked equal first; times are
  ## medians of 3 runs (wall clock around the whole chain), and "kernels"
  ## is the sum of the kernel times the calls report.
  printf ("\nresident chains (gdArray)\n%-44s %12s %12s %12s %10s\n", "chain", "host ms",
          "resident ms", "kernels ms", "res/kern");
  md{end+1} = sprintf ("\n## resident chains (gdArray)\n\nThe same calls on Octave matrices (every call uploads its operands and downloads its result) and on gdArrays (data stays on the GPU; uploads and the final gather are inside the resident time where the row says so). Medians of 3 runs of the whole chain, wall clock; kernels: the sum of the kernel times the calls report (resident run; for repeated squaring from a second run of the same calls, so that the timed loop is the plain `G = gd_minplus (G)`); res/kern: resident wall over kernels. The host's speed differs from one machine to the next (Octave's interpreter, classdef objects): the resident overhead per call is 0.15-0.6 ms.\n\n| chain | host-to-host ms | resident ms | kernels ms | resident / kernels |\n|---|---:|---:|---:|---:|\n");

  ## 1. shortest paths by repeated squaring, n = 4096 single: 12 products
  n = scale (4096); steps = ceil (log2 (n));
  W = single (randi (1000, n)); W(rand (n) < 0.5) = Inf; W(1:n+1:end) = 0;
  H = W; G = gdArray (W);
  for s = 1:steps, H = gd_minplus (H); G = gd_minplus (G); endfor
  if (! isequal (gather (G), H))
    error ("bench: resident repeated squaring differs from the host's");
  endif
  th = tr = tk = zeros (1, 3);
  for rep = 1:3
    H = W; t0 = tic ();
    for s = 1:steps, H = gd_minplus (H); endfor
    th(rep) = toc (t0) * 1e3;
    ## the loop as a user writes it, timed; then the same calls again with
    ## their info structs, for the kernel times (building 12 info structs
    ## would add to the loop's own time)
    G = gdArray (W); t0 = tic ();
    for s = 1:steps, G = gd_minplus (G); endfor
    tr(rep) = toc (t0) * 1e3;
    G = gdArray (W); k = 0;
    for s = 1:steps, [G, ~, info] = gd_minplus(G); k += info.kernel_ms; endfor
    tk(rep) = k;
  endfor
  md{end+1} = resident_row (sprintf ("repeated squaring n=%d single (%d products)", n, steps), median (th), median (tr), median (tk));
  clear W H G;

  ## 2. pdist -> squareform -> min-plus, X 4096 x 64 single, gathered once
  n = scale (4096); d = 64;
  X = single (randi ([-20 20], n, d));
  R = gd_minplus (gd_squareform (gd_pdist (X, "squaredeuclidean")));
  if (! isequal (gather (gd_minplus (gd_squareform (gd_pdist (gdArray (X), "squaredeuclidean")))), R))
    error ("bench: the resident chain differs from the host's");
  endif
  th = tr = tk = zeros (1, 3);
  for rep = 1:3
    t0 = tic (); R = gd_minplus (gd_squareform (gd_pdist (X))); th(rep) = toc (t0) * 1e3; clear R;
    t0 = tic ();
    [D, i1] = gd_pdist (gdArray (X)); S = gd_squareform (D); [M, ~, i2] = gd_minplus(S); R = gather (M);
    tr(rep) = toc (t0) * 1e3;
    tk(rep) = i1.kernel_ms + i2.kernel_ms;
    clear R D S M;
  endfor
  md{end+1} = resident_row (sprintf ("pdist > squareform > minplus %dx%d (upload, gather)", n, d), median (th), median (tr), median (tk));

  ## 3. pdist 16384 x 300 single, D kept on the GPU
  n = scale (16384); d = 300;
  X = rand (n, d, "single"); GX = gdArray (X);
  D = gd_pdist (GX);
  if (! isequal (gather (D), gd_pdist (X)))
    error ("bench: resident pdist differs from the host's");
  endif
  clear D;
  th = tr = tk = zeros (1, 3);
  for rep = 1:3
    t0 = tic (); D = gd_pdist (X); th(rep) = toc (t0) * 1e3; clear D;
    t0 = tic (); [D, info] = gd_pdist (GX); tr(rep) = toc (t0) * 1e3; tk(rep) = info.kernel_ms; clear D;
  endfor
  md{end+1} = resident_row (sprintf ("pdist %dx%d single, D kept", n, d), median (th), median (tr), median (tk));
  clear X GX;

  ## 4. the cost of a call: min-plus at n = 16 on a gdArray (the result
  ## object included) and on an Octave matrix; medians of 500 calls
  A = rand (16, "single"); G = gdArray (A);
  for i = 1:20, R = gd_minplus (G); R = gd_minplus (A); endfor
  th = tr = tk = zeros (1, 500);
  for i = 1:500
    t0 = tic (); R = gd_minplus (A, "Variant", "v1"); th(i) = toc (t0) * 1e3;
    t0 = tic (); R = gd_minplus (G); tr(i) = toc (t0) * 1e3;
  endfor
  [R, ~, info] = gd_minplus(G);
  md{end+1} = resident_row (sprintf ("one call, min-plus n=16 single (%s)", info.variant), median (th), median (tr), info.kernel_ms);
  clear R;
  fflush (stdout);

  ## 5. what a call costs beyond its kernels, each form timed in turns
  ## (medians of 500): an empty product (the gateway's path alone), a
  ## 16 x 16 product from the host and on a gdArray (the result object's
  ## making included), and gd_knnsearch against gd_pdist2's 'Smallest' on
  ## 64 points and 16 queries (gd_knnsearch's wrapper)
  E = zeros (0, "single"); X = rand (64, 8, "single"); Y = rand (16, 8, "single");
  forms = {"empty product, gd_minplus (zeros (0))", @() gd_minplus (E);
           "16 x 16 product from the host (v1)", @() gd_minplus (A, "Variant", "v1");
           "16 x 16 product on a gdArray", @() gd_minplus (G);
           "64 x 16 kNN, K = 4: gd_pdist2 'Smallest'", @() gd_pdist2 (X, Y, "euclidean", "Smallest", 4);
           "64 x 16 kNN, K = 4: gd_knnsearch", @() gd_knnsearch (X, Y, "K", 4)};
  for i = 1:20, for f = 1:rows (forms), forms{f,2} (); endfor, endfor
  t = zeros (rows (forms), 500);
  for i = 1:500
    for f = 1:rows (forms)
      t0 = tic (); forms{f,2} (); t(f,i) = toc (t0) * 1e3;
    endfor
  endfor
  printf ("\nthe cost of a call\n");
  md{end+1} = sprintf ("\n## the cost of a call\n\nWall clock of calls whose kernels take microseconds, each form timed in turns with the others (medians of 500 calls): what Octave, the wrapper and the gateway add to any call. A change to the call path shows here first.\n\n| call | ms |\n|---|---:|\n");
  for f = 1:rows (forms)
    printf ("%-44s %8.3f\n", forms{f,1}, median (t(f,:)));
    md{end+1} = sprintf ("| %s | %.3f |\n", forms{f,1}, median (t(f,:)));
  endfor
  clear A G E X Y;
  fflush (stdout);
endif

if (any (strcmp (ops, "apsp")))
  ## the witness: [R, K] against R alone, n = 8192 single (non-negative
  ## data: the integer min) and with negatives (fminf)
  n = scale (8192);
  printf ("\nmin-plus witness\n%-34s %10s %12s %10s\n", "product", "kernel ms", "steps/s", "/ R alone");
  md{end+1} = sprintf ("\n## min-plus witness\n\n`[R, K] = gd_minplus (A)` (K: the first k of each minimum) against `R = gd_minplus (A)`, v5, medians of 3 calls, kernel time.\n\n| product | kernel | R alone ms | [R, K] ms | [R, K] steps/s | [R, K] / R alone |\n|---|---|---:|---:|---:|---:|\n");
  for neg = [false true]
    A = rand (n, "single") * 100 - 50 * neg;
    [R0, K0] = gd_minplus (A, "Variant", "v5");
    [Re, Ke] = gd_minplus (A(1:min (n, 300), :), A(:, 1:7), "Variant", "cpu");
    [Rs, Ks] = gd_minplus (A(1:min (n, 300), :), A(:, 1:7), "Variant", "v5");
    if (! isequal (Ks, Ke) || ! isequal (R0, gd_minplus (A, "Variant", "v5")))
      error ("bench: the witness differs");
    endif
    t0 = t1 = zeros (1, 3);
    for r = 1:3
      [~, ~, i0] = gd_minplus (A, "Variant", "v5"); t0(r) = i0.kernel_ms;
      [~, ~, i1] = gd_minplus (A, "Variant", "v5"); [~, K, i1] = gd_minplus (A, "Variant", "v5"); t1(r) = i1.kernel_ms;
    endfor
    name = sprintf ("n=%d single, %s", n, pick (neg, "negatives", "non-negative"));
    printf ("%-34s %10.2f %12.3g %10.2f\n", name, median (t1), n^3 / (median (t1) * 1e-3), median (t1) / median (t0));
    md{end+1} = sprintf ("| %s | %s | %.2f | %.2f | %.3g | %.2f |\n", name, i1.kernel, median (t0), median (t1), n^3 / (median (t1) * 1e-3), median (t1) / median (t0));
    clear A R0 K0 K;
  endfor

  ## gd_apsp: every variant, with and without P, beside one min-plus
  ## product of the same n (v5) in the same run. Weights 1..1000 on half
  ## the edges (no cycle of weight 0). The cpu variant runs up to n = 4096.
  printf ("\nshortest paths (gd_apsp)\n%-7s %-6s %-9s %-3s %10s %8s %10s\n", "class", "n",
          "variant", "P", "kernel ms", "x prod", "h2h ms");
  md{end+1} = sprintf ("\n## shortest paths (gd_apsp)\n\nAll-pairs shortest paths of a graph with weights 1..1000 on half of the n^2 edges, against one min-plus product of the same n (v5, kernel) in the same run. kernel ms: the GPU's time (CUDA events: every round of Floyd-Warshall or every squaring, and the predecessors' product), or the CPU's; h2h: the whole call from Octave. Medians of 3 calls; every variant's D checked against fw's first.\n\n| class | n | variant | P | kernel ms | x one product | host-to-host ms | min-plus product ms |\n|---|---:|---|---|---:|---:|---:|---:|\n");
  ns = scale ([1024 4096 8192]);
  progress ("shortest paths", 2 * 2 * sum (2 + (ns <= scale (4096))));
  for c = {"single", "double"}
    for n = ns
      W = cast (randi (1000, n), c{1}); W(rand (n) < 0.5) = Inf;
      tm = zeros (1, 3);
      for r = 1:3, [~, ~, im] = gd_minplus (W, "Variant", "v5"); tm(r) = im.kernel_ms; endfor
      E = gd_apsp (W, "Variant", "fw");
      for v = {"fw", "squaring", "cpu"}
        if (strcmp (v{1}, "cpu") && n > scale (4096))
          continue;
        endif
        for wp = [false true]
          tk = th = zeros (1, 3);
          for r = 1:3
            t0 = tic ();
            if (wp)
              [D, P, info] = gd_apsp (W, "Variant", v{1});
            else
              [D, ~, info] = gd_apsp (W, "Variant", v{1});
            endif
            th(r) = toc (t0) * 1e3; tk(r) = info.kernel_ms;
            if (! isequal (D, E))
              error ("bench: gd_apsp %s differs from fw", v{1});
            endif
            if (strcmp (v{1}, "cpu"))
              break;    # one call: the host is slow
            endif
          endfor
          k = tk(1:r); h = th(1:r);
          printf ("%-7s %-6d %-9s %-3s %10.2f %8.2f %10.2f\n", c{1}, n, v{1}, pick (wp, "yes", "no"),
                  median (k), median (k) / median (tm), median (h));
          md{end+1} = sprintf ("| %s | %d | %s | %s | %.2f | %.2f | %.2f | %.2f |\n", c{1}, n, v{1},
                               pick (wp, "yes", "no"), median (k), median (k) / median (tm),
                               median (h), median (tm));
          clear D P;
          progress ();
        endfor
      endfor
      fflush (stdout);
    endfor
  endfor
  clear W E;

  ## gd_apsp on the integer classes ('fw'): W uploaded in its class, the
  ## rounds in single where 2 (n - 1) max |w| <= 2^24, else in double, D
  ## converted back on the GPU; beside the same graph given in double
  ## (Inf for intmax), what a user would otherwise convert to.
  printf ("\nshortest paths, integer classes\n%-7s %-6s %-10s %-3s %-22s %10s %10s %12s\n",
          "class", "n", "weights", "P", "kernel", "kernel ms", "h2h ms", "double h2h");
  md{end+1} = sprintf ("\n## shortest paths, integer classes\n\n`[D, P] = gd_apsp (W)` ('fw') on an integer W, weights 1..max on half of the n^2 edges (intmax elsewhere). W goes up in its class; the rounds run in single where 2 (n - 1) max |w| <= 2^24 (every sum exact), else in double; D comes back in the class, converted on the GPU. double h2h: the same graph given as double (Inf for no edge), the whole call. kernel: what ran (info.kernel). Medians of 3 calls; each D checked against the double graph's.\n\n| class | n | weights | P | kernel | kernel ms | host-to-host ms | double graph h2h ms |\n|---|---:|---|---|---|---:|---:|---:|\n");
  cases = {"uint8", 100; "int16", 1000; "int32", 1e6};
  progress ("integer shortest paths", 2 * rows (cases) * numel (scale ([4096 8192])));
  for n = scale ([4096 8192])
    for r = 1:rows (cases)
      [cls, mw] = cases{r, :};
      W = cast (randi (mw, n), cls);  W(rand (n) < 0.5) = intmax (cls);
      Wd = double (W);  Wd(W == intmax (cls)) = Inf;
      for wp = [false true]
        tk = th = td = zeros (1, 3);
        for t = 1:3
          t0 = tic ();
          if (wp)
            [D, P, info] = gd_apsp (W, "Variant", "fw");
          else
            [D, ~, info] = gd_apsp (W, "Variant", "fw");
          endif
          th(t) = toc (t0) * 1e3;  tk(t) = info.kernel_ms;
          clear P;
          t0 = tic ();
          if (wp)
            [E, P] = gd_apsp (Wd, "Variant", "fw");
          else
            E = gd_apsp (Wd, "Variant", "fw");
          endif
          td(t) = toc (t0) * 1e3;
          clear P;
          E(E > double (intmax (cls))) = double (intmax (cls));
          if (! isequal (double (D), E))
            error ("bench: gd_apsp on %s differs from the double graph's", cls);
          endif
          clear D E;
        endfor
        printf ("%-7s %-6d %-10s %-3s %-22s %10.2f %10.2f %12.2f\n", cls, n, sprintf ("1..%d", mw),
                pick (wp, "yes", "no"), info.kernel, median (tk), median (th), median (td));
        md{end+1} = sprintf ("| %s | %d | 1..%d | %s | %s | %.2f | %.2f | %.2f |\n", cls, n, mw,
                             pick (wp, "yes", "no"), info.kernel, median (tk), median (th),
                             median (td));
        fflush (stdout);
        progress ();
      endfor
    endfor
  endfor
  clear W Wd;
endif

if (any (strcmp (ops, "knn")))
  source ("bench/bench_knn.m");
endif

if (any (strcmp (ops, "range")))
  source ("bench/bench_range.m");
endif

if (any (strcmp (ops, "knnmetrics")))
  source ("bench/bench_knnmetrics.m");
endif

if (any (strcmp (ops, "metrics")))
  ## pdist 'tuned' with each metric its tile computes, n = 16384, d = 64
  ## and 300. Ceilings per (pair, feature) triple, from each step's
  ## instructions in the kernels' inner loop (cuobjdump, sm_90) and the
  ## pipes' rates (kernels/NOTES.md; make fp64mix measures the FP64 ones):
  ## single euclidean FADD + FFMA, cityblock two FADD, cosine FMUL + FADD
  ## (rounded apart, as the host's loop), hamming FSET + FADD: 64 a clock
  ## an SM; chebychev two FADD and an integer max, three issues: 42.7;
  ## jaccard three ALU instructions (a compare, two integer adds) on the
  ## 64-lane ALU pipe: 21.3; minkowski (p = 3: the cube by multiplication,
  ## FADD, FMUL, FFMA and the select of the exponent's factor, four
  ## issues) 32. double: two FP64 instructions on the 64-lane FP64 pipe,
  ## 32; chebychev's 64-bit integer max is four ALU instructions: 16;
  ## jaccard three DSETP and seven ALU instructions (selects and the 64-bit
  ## add): 9.1; minkowski DADD, DMUL and DFMA: 21.3.
  n = scale (16384);
  ceil_m = struct ("single", struct ("euclidean", 64, "cityblock", 64, "chebychev", 128 / 3,
                                     "cosine", 64, "hamming", 64, "jaccard", 64 / 3, "minkowski", 32),
                   "double", struct ("euclidean", 32, "cityblock", 32, "chebychev", 16,
                                     "cosine", 32, "hamming", 32, "jaccard", 64 / 7,
                                     "minkowski", 64 / 3));
  printf ("\npdist metrics (tuned)\n%-4s %-7s %-10s %10s %12s %7s %8s %7s %10s\n", "d", "class",
          "metric", "kernel ms", "triples/s", "%ceil", "step/clk", "%step", "h2h ms");
  md{end+1} = sprintf ("\n## pdist metrics\n\n`D = gd_pdist (X, metric)`, `tuned`, X = `rand (%d, d, class)`, d = 64 (the size the metrics are held to) and 300: the tile of min-plus v5 with each metric's step. Ceilings per (pair, feature) triple a clock an SM, from each step's instructions in the inner loop (cuobjdump, sm_90) and the pipes' rates: single euclidean (FADD + FFMA), cityblock (two FADD), cosine (FMUL + FADD, rounded apart as the host's loop) and hamming (FSET + FADD) 64, chebychev (two FADD + an integer max: three issues) 42.7, jaccard (a compare and two integer adds on the 64-lane ALU pipe) 21.3, minkowski (p = 3: the cube by multiplication, FADD, FMUL, FFMA and the select of the exponent's factor, four issues) 32; double 32 (two FP64 instructions a step on the FP64 pipe), chebychev 16 (its 64-bit integer max: four ALU instructions), jaccard 9.1 (three DSETP, seven ALU instructions), minkowski 21.3 (DADD, DMUL, DFMA). Cosine, hamming, jaccard and minkowski finish in the tile's store (no pass after it). %% of step: of the rate the metric's step itself runs at, its own code in a loop of eight independent chains with no loads, stores or barriers (build/fp64_mix, this run; steps a clock an SM in the column beside it): what the instruction mix allows, where the pipes' bound assumes more than the step's instructions can issue at. kernel: CUDA events, median of 3; each metric's first 1000 rows checked against the cpu variant first (bit for bit; euclidean and minkowski to rounding).\n\n| d | class | metric | kernel ms | triples/s | %% of ceiling | step /clock/SM | %% of step | host-to-host ms |\n|---:|---|---|---:|---:|---:|---:|---:|---:|\n", n);
  progress ("pdist metrics", 28);
  for d = [64 300]
  for c = {"single", "double"}
    X = rand (n, d, c{1});
    ## minkowski with p = 3 (by multiplication) and 1.5 (by powers: the
    ## row "minkowski 1.5", without a ceiling of the pipes, the step's own
    ## rate beside it)
    for m = {"euclidean", "cityblock", "chebychev", "cosine", "hamming", "jaccard", "minkowski", ...
             "minkowski 1.5"}
      q = min (n, 1000);
      row = m{1};
      args = pick (strcmp (m{1}, "minkowski"), {3}, {});
      if (strcmp (row, "minkowski 1.5"))
        m = {"minkowski"}; args = {1.5};
      endif
      G = gd_pdist (X(1:q,:), m{1}, args{:}, "Variant", "tuned");
      E = gd_pdist (X(1:q,:), m{1}, args{:}, "Variant", "cpu");
      ## the Euclidean kernel sums with FFMA, the host's loop need not, and
      ## minkowski's powers are the GPU's: to rounding there; the others
      ## bit for bit
      if (any (strcmp (m{1}, {"euclidean", "minkowski"})))
        ok = max (abs (G - E) ./ max (1, E)) < 20 * eps (c{1});
      else
        ok = isequal (G, E);
      endif
      if (! ok)
        error ("bench: pdist %s (%s) differs from the cpu variant", m{1}, c{1});
      endif
      tk = th = zeros (1, 3);
      for r = 1:3
        t0 = tic (); [D, info] = gd_pdist (X, m{1}, args{:}, "Variant", "tuned"); th(r) = toc (t0) * 1e3;
        tk(r) = info.kernel_ms; clear D;
      endfor
      rate = n * (n - 1) / 2 * d / (median (tk) * 1e-3);
      cl = ceil_m.(c{1}).(m{1}) * dev.sms * clock_hz;
      mk = pick (strcmp (row, "minkowski 1.5"), "minkowski_pow", m{1});
      if (isfield (mix.(c{1}), mk))
        sr = mix.(c{1}).(mk);
        step_s = sprintf ("%.2f", sr);
        pstep = sprintf ("%.1f", 100 * rate / (sr * dev.sms * clock_hz));
      else
        step_s = pstep = "";
      endif
      ## (the powers' step has no ceiling of the pipes: the multiplying
      ## step's would say nothing of it)
      pceil = pick (strcmp (row, "minkowski 1.5"), "-", sprintf ("%.1f", 100 * rate / cl));
      printf ("%-4d %-7s %-13s %10.2f %12.3g %7s %8s %7s %10.2f\n", d, c{1}, row, median (tk),
              rate, pceil, step_s, pstep, median (th));
      md{end+1} = sprintf ("| %d | %s | %s | %.2f | %.3g | %s | %s | %s | %.2f |\n", d, c{1}, row,
                           median (tk), rate, pceil, step_s, pstep, median (th));
      fflush (stdout);
      progress ();
    endfor
    clear X;
  endfor
  endfor
endif

if (any (strcmp (ops, "sssp")))
  source ("bench/bench_sssp.m");
endif

if (any (strcmp (ops, "ew")))
  source ("bench/bench_ew.m");
endif

if (any (strcmp (ops, "int")))
  ## min-plus on the integer classes (v5: DPX tiles), n = 4096 and 8192.
  ## Each class with small values (the ranges prove that no sum leaves the
  ## narrowest lanes) and int16 / int32 also with intmin and intmax (the
  ## wider lanes); then the witness ([R, K]) on int16 and int32. The
  ## ceiling: one DPX min(a + b, c) per step, 64 a clock an SM (the ALU
  ## pipe's rate for a 32-bit min); the 16x2 forms take two steps an
  ## instruction, the witness's keys one. The 64-bit forms have no DPX
  ## step: no ceiling is given for them.
  dpx = 64 * dev.sms * clock_hz;
  printf ("\nmin-plus, integer classes (v5)\n%-6s %-8s %-11s %-24s %10s %12s %7s %10s\n", "n",
          "class", "data", "form", "kernel ms", "steps/s", "%ceil", "h2h ms");
  md{end+1} = sprintf ("\n## min-plus, integer classes\n\n`R = gd_minplus (A)` (and `[R, K]`), v5 on integer lanes (kernels/ops/minplus_int.cu): Hopper's DPX min(a + b, c) a step on 32-bit lanes, two steps an instruction on 16-bit halves (int8 and uint8 widened to them), in the narrowest lanes the operands' ranges allow; else wider lanes or 64-bit sums (saturating where even those could leave the class). The witness: keys (a + b) << 16 | k on s32 / u32 lanes, one DPX min(a + b, c) a step, where the ranges prove that no sum saturates and each fits 16 bits; else 64-bit lanes, each sum saturated to the class before it is compared. Small data: `randi ([-40 40])` (unsigned: 0 ... 40); saturating data: `randi ([-1000 1000])` with a seventh of the elements intmin or intmax. Ceiling: one DPX instruction a step, 64 a clock an SM (%.3g steps/s), twice that for the 16x2 forms; none for the 64-bit lanes. kernel: CUDA events around everything on the GPU between the upload and the download (the range pass, the lanes, the tile, the saturation), median of 3; h2h: the whole call. Each result's first 64 rows (and K's) checked against the cpu variant first.\n\n| n | class | data | form | kernel ms | steps/s | %% of ceiling | host-to-host ms |\n|---:|---|---|---|---:|---:|---:|---:|\n", dpx);
  classes = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "int16", "int32", "int16", "int32"};
  saturating = [false(1, 8) true true false false];
  witness = [false(1, 10) true true];
  sizes = unique (scale ([4096 8192]));
  progress ("integer min-plus", numel (classes) * numel (sizes));
  for n = sizes
  for r = 1:numel (classes)
    cls = classes{r};
    if (saturating(r))
      A = cast (randi ([-1000 1000], n), cls);
      A(randperm (n * n, ceil (n * n / 7))) = intmax (cls);
      A(randperm (n * n, ceil (n * n / 7))) = intmin (cls);
    else
      A = cast (randi ([-40 40], n), cls);
    endif
    q = min (n, 64);
    if (witness(r))
      [R, K, info] = gd_minplus (A, "Variant", "v5");
      [RC, KC] = gd_minplus (A(1:q,:), A, "Variant", "cpu");
      ok = isequal (R(1:q,:), RC) && isequal (K(1:q,:), KC);
      clear K KC RC;
    else
      [R, ~, info] = gd_minplus (A, "Variant", "v5");
      ok = isequal (R(1:q,:), gd_minplus (A(1:q,:), A, "Variant", "cpu"));
    endif
    if (! ok)
      error ("bench: integer min-plus (%s) differs from the cpu variant", cls);
    endif
    clear R;
    tk = th = zeros (1, 3);
    for t = 1:3
      if (witness(r))
        t0 = tic (); [R, K, info] = gd_minplus (A, "Variant", "v5"); th(t) = toc (t0) * 1e3;
        clear K;
      else
        t0 = tic (); [R, ~, info] = gd_minplus (A, "Variant", "v5"); th(t) = toc (t0) * 1e3;
      endif
      tk(t) = info.kernel_ms; clear R;
    endfor
    rate = n^3 / (median (tk) * 1e-3);
    dpx_form = ! isempty (strfind (info.kernel, "dpx"));
    ceil_r = dpx * pick (isempty (strfind (info.kernel, "16x2")), 1, 2);
    pct = pick (dpx_form, sprintf ("%.1f", 100 * rate / ceil_r), "-");
    data = pick (saturating(r), "saturating", "small");
    if (witness(r))
      data = [data ", [R, K]"];
    endif
    printf ("%-6d %-8s %-11s %-24s %10.2f %12.3g %7s %10.2f\n", n, cls, data, info.kernel,
            median (tk), rate, pct, median (th));
    md{end+1} = sprintf ("| %d | %s | %s | %s | %.2f | %.3g | %s | %.2f |\n", n, cls, data,
                         info.kernel, median (tk), rate, pct, median (th));
    fflush (stdout);
    progress ();
    clear A;
  endfor
  endfor
endif

name = regexprep (dev.name, "[^A-Za-z0-9]+", "_");
[~, ~] = mkdir ("bench/results");
fn = getenv ("GD_BENCH_OUT");
if (isempty (fn))
  fn = sprintf ("bench/results/%s.md", name);
endif
head = [sprintf("# gd benchmarks: %s\n\n", dev.name), ...
        sprintf("Generated by `make bench` (bench/bench.m) on %s; do not edit.\n\n",
                datestr (now (), "yyyy-mm-dd")), ...
        sprintf("Device: %s, compute capability %s, %d SMs at %.0f MHz, %.0f GiB; driver %s, runtime %s. Times are medians of 3 to 9 calls after a warm-up call.\n\n",
                dev.name, dev.compute_capability, dev.sms, dev.clock_mhz,
                dev.memory_total / 2^30, dev.driver_version, dev.runtime_version), ...
        sprintf("Octave's BLAS (the cpu variants' and Octave's own products): %s.\n\n", dev.blas)];
## a run of some operations (GD_BENCH_OPS) keeps the file's other tables;
## a run of all of them writes it anew
old = "";
if (! isempty (strtrim (getenv ("GD_BENCH_OPS"))) && exist (fn, "file"))
  old = fileread (fn);
endif
f = fopen (fn, "w");
fprintf (f, "%s", merge_results (old, head, [md{:}]));
fclose (f);
printf ("\nwritten: %s\n", fn);

