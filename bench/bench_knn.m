## bench_knn.m - bench.m's section "knn": the nearest neighbours' table (fused, gemm, PyTorch's cdist + topk). Sourced by bench.m
## (its workspace: md, quick, pick, the device and the helpers).

## nearest neighbours: gd_pdist2 (X, Y, 'Smallest', K), randn data,
## d = 128, euclidean, beside the full distance matrix of the same
## sizes (pdist2 'tuned', kept on the GPU) in the same run. Checked
## first: 256 queries (32 against 10^6 points) against the stable sort
## of their full columns.
printf ("\nnearest neighbours\n%-30s %-6s %6s %10s %10s %10s %8s\n", "queries x points", "class",
        "K", "kernel ms", "h2h ms", "full ms", "/ full");
md{end+1} = sprintf ("\n## nearest neighbours\n\n`[D, I] = gd_pdist2 (X, Y, 'euclidean', 'Smallest', K, 'Variant', v)` (and one case with 'cosine', named so), randn data, d = 128: 'fused' (distance tiles selected as they are computed) and, for K up to 256, 'gemm' (candidates from the tensor cores, certified, re-ranked exactly: fused's D and I bit for bit, checked here on every call's first run), beside `torch.cdist` + `torch.topk` on the same GPU where the machine has PyTorch (bench/torch_knn.py: its kernel column the time with X and Y on the GPU, CUDA events; its h2h from host tensors to host tensors; medians of 3). kernel: the fused kernels (CUDA events); h2h: `tic; [D, I] = gd_pdist2 (X, Y, ...); toc` from Octave matrices (the 10,000 x 1,000,000 rows from gdArrays, results kept, but for the row marked `host`; X from the host is uploaded in up to three pieces of whole splits, each piece's splits starting when it has arrived: the `GD_KNN_UNITS=1` row is the same call with X in one piece); full: the kernel time of the whole distance matrix of the same sizes (pdist2 'tuned', kept on the GPU; in panels of queries where it would fill more than half the GPU's memory, the panels' times summed), the work the selection rides on. Medians of 21 calls (3 at 10,000 x 1,000,000; 1 for K >= 1024).\n\n| queries x points | class | K | kernel ms | h2h ms | full distances ms | kernel / full | splits |\n|---|---|---:|---:|---:|---:|---:|---|\n");
cases = {8192, 65536, "single", [10 100], false, "euclidean";
         10000, 1000000, "single", [1 10 100 1024 4096], true, "euclidean";
         10000, 1000000, "single", [100], false, "euclidean";
         10000, 1000000, "double", [100], true, "euclidean";
         10000, 1000000, "single", [100], true, "cosine"};
progress ("nearest neighbours", 2 * sum (cellfun (@numel, cases(:,4))) + 1);
for c = 1:rows (cases)
  [my, mx, cls, Ks, resident, metric] = cases{c,:};
  ## X from the host among 10^6 points: also with X in one piece
  envs = pick (! resident && mx > 100000, {"", "GD_KNN_UNITS=1"}, {""});
  my = scale (my); mx = scale (mx);
  X = randn (mx, 128, cls); Y = randn (my, 128, cls);
  if (resident)
    X = gdArray (X); Y = gdArray (Y);
  endif
  q = 1:min (my, pick (mx > 100000, 32, 256));
  F = gd_pdist2 (gather (X), gather (Y)(q,:), metric, "Variant", "tuned");
  [S, J] = sort (F, 1); clear F;
  ## the full matrix in panels of queries where it does not fit in half
  ## the GPU's memory (10,000 x 1,000,000 double is 80 GB): the sum of
  ## the panels' kernel times
  es = pick (strcmp (cls, "double"), 8, 4);
  panels = max (1, ceil (mx * my * es / (dev.memory_total / 2)));
  edges = round (linspace (0, my, panels + 1));
  if (panels > 1)
    Yh = gather (Y);
  endif
  tf = zeros (1, 3);
  for r = 1:3
    for p = 1:panels
      if (panels == 1)
        ## (on gdArrays, kept there: a host matrix of gigabytes made and
        ## freed here would slow the host-to-host times timed after it)
        [G, ~, info] = gd_pdist2 (gdArray (X), gdArray (Y), metric, "Variant", "tuned");
      else
        [G, ~, info] = gd_pdist2 (X, gdArray (Yh(edges(p)+1:edges(p+1),:)), metric, "Variant", "tuned");
      endif
      tf(r) += info.kernel_ms; clear G;
    endfor
    if (! resident) break; endif
  endfor
  tf = median (tf(1:r));
  clear Yh;
  for K = Ks
   ## fused (with each setting), then gemm where it serves K
   runs = [cellfun(@(e) {"fused", e}, envs, "UniformOutput", false), pick(K <= 256, {{"gemm", ""}}, {})];
   for e = 1:numel (runs)
    [v, env] = runs{e}{:};
    if (! isempty (env))
      setenv (strtok (env, "="), env(index (env, "=")+1:end));
    endif
    [D, I] = gd_pdist2 (X, Y, metric, "Smallest", K, "Variant", v);
    if (! isequal (gather (D)(:,q), S(1:K,:)) || ! isequal (gather (I)(:,q), J(1:K,:)))
      error ("bench: kNN %s %dx%d K = %d %s differs from the sorted full matrix", v, my, mx, K, cls);
    endif
    if (strcmp (v, "gemm"))
      [D0, I0] = gd_pdist2 (X, Y, metric, "Smallest", K, "Variant", "fused");
      if (! isequal (gather (D), gather (D0)) || ! isequal (gather (I), gather (I0)))
        error ("bench: kNN gemm %dx%d K = %d %s differs from fused", my, mx, K, cls);
      endif
      clear D0 I0;
    endif
    reps = pick (K >= 1024, 1, pick (resident || mx > 100000, 3, 21));
    tk = th = zeros (1, reps);
    for r = 1:reps
      t0 = tic (); [D, I, info] = gd_pdist2 (X, Y, metric, "Smallest", K, "Variant", v); th(r) = toc (t0) * 1e3;
      tk(r) = info.kernel_ms; clear D I;
    endfor
    if (! isempty (env))
      unsetenv (strtok (env, "="));
    endif
    name = sprintf ("%d x %d%s, %s%s", my, mx, pick (! resident && mx > 100000, " (host)", ""),
                    pick (strcmp (metric, "euclidean"), "", [metric ", "]), v);
    printf ("%-30s %-6s %6d %10.2f %10.2f %10.2f %8.2f %s\n", name, cls, K, median (tk),
            median (th), tf, median (tk) / tf, env);
    md{end+1} = sprintf ("| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %s%s |\n", name, cls, K,
                         median (tk), median (th), tf, median (tk) / tf, info.kernel,
                         pick (isempty (env), "", [" (" env ")"]));
    fflush (stdout);
    progress ();
    ## the same search through gd_knnsearch (its rows a query), from the
    ## host, timed in turns with gd_pdist2's: its wrapper's cost
    if (strcmp (v, "gemm") && ! resident && mx <= 100000 && strcmp (metric, "euclidean"))
      [Ik, Dk] = gd_knnsearch (X, Y, "K", K, "Variant", v);
      if (! isequal (Dk, gather (gd_pdist2 (X, Y, "Smallest", K, "Variant", v)).') || ...
          ! isequal (Ik, gather (nthargout (2, @gd_pdist2, X, Y, "Smallest", K, "Variant", v)).'))
        error ("bench: gd_knnsearch differs from gd_pdist2's 'Smallest'");
      endif
      tq = tk = th = zeros (1, reps);
      for r = 1:reps
        t0 = tic (); [Ik, Dk, info] = gd_knnsearch (X, Y, "K", K, "Variant", v); tq(r) = toc (t0) * 1e3;
        tk(r) = info.kernel_ms; clear Ik Dk;
        t0 = tic (); [D, I] = gd_pdist2 (X, Y, metric, "Smallest", K, "Variant", v); th(r) = toc (t0) * 1e3;
        clear D I;
      endfor
      name = sprintf ("%d x %d, gemm via gd_knnsearch", my, mx);
      printf ("%-30s %-6s %6d %10.2f %10.2f %10.2f %8.2f (gd_pdist2 h2h %.2f in turns: %.3f)\n", name,
              cls, K, median (tk), median (tq), tf, median (tk) / tf, median (th), median (tq) / median (th));
      md{end+1} = sprintf ("| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %s; h2h %.3f x gd_pdist2's (%.2f ms, timed in turns) |\n",
                           name, cls, K, median (tk), median (tq), tf, median (tk) / tf, info.kernel,
                           median (tq) / median (th), median (th));
    endif
   endfor
   ## PyTorch on the same GPU (once a case and K, from the host only)
   if (K <= 256 && ! resident && strcmp (metric, "euclidean"))
     [st, out] = system (sprintf ("python3 bench/torch_knn.py %d %d 128 %d %s 2>/dev/null", my, mx, K, cls));
     tok = regexp (out, 'torch ([\d.]+) ([\d.]+)', "tokens", "once");
     if (st == 0 && ! isempty (tok))
       tt = str2double (tok);
       name = sprintf ("%d x %d, torch.cdist + topk", my, mx);
       printf ("%-30s %-6s %6d %10.2f %10.2f %10.2f %8.2f\n", name, cls, K, tt(1), tt(2), tf, tt(1) / tf);
       md{end+1} = sprintf ("| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | resident / host tensors |\n", name, cls, K, tt(1), tt(2), tf, tt(1) / tf);
     endif
   endif
  endfor
  clear X Y S J;
endfor
