## bench_knnmetrics.m - bench.m's section "knnmetrics": the neighbours of every metric. Sourced by bench.m
## (its workspace: md, quick, pick, the device and the helpers).

## nearest neighbours with every metric the fused kernel computes:
## 8192 queries among 65536 points, d = 64, K = 10, beside pdist2
## 'tuned''s full matrix of the same metric (kept on the GPU). Each
## metric's first 64 queries checked against the stable sort of their
## full columns first.
my = scale (8192); mx = scale (65536); d = 64; K = 10;
printf ("\nnearest neighbours, every metric (%d x %d, d = %d, K = %d)\n%-7s %-18s %10s %10s %10s %8s\n",
        my, mx, d, K, "class", "metric", "kernel ms", "h2h ms", "full ms", "/ full");
md{end+1} = sprintf ("\n## nearest neighbours, every metric\n\n`[D, I] = gd_pdist2 (X, Y, metric, 'Smallest', %d)` ('fused'), %d queries among %d points, d = %d, `rand` data (hamming and jaccard: `randi ([0 3])`). kernel: the fused kernels (CUDA events), median of 3; h2h: the whole call from Octave matrices; full: the kernel time of pdist2 'tuned''s whole matrix of the same metric (kept on the GPU). Correlation and spearman run as cosine, seuclidean and mahalanobis as euclidean, on rows prepared for them (the preparation is in h2h, not in kernel). Each metric's first 64 queries checked against the stable sort of their full columns first.\n\n| class | metric | kernel ms | h2h ms | full distances ms | kernel / full |\n|---|---|---:|---:|---:|---:|\n", K, my, mx, d);
metrics = {"euclidean", {}; "squaredeuclidean", {}; "cityblock", {}; "chebychev", {};
           "minkowski", {3}; "cosine", {}; "correlation", {}; "hamming", {}; "jaccard", {}};
progress ("kNN metrics", 2 * rows (metrics));
for c = {"single", "double"}
  X = rand (mx, d, c{1}); Y = rand (my, d, c{1});
  Xi = cast (randi ([0 3], mx, d), c{1}); Yi = cast (randi ([0 3], my, d), c{1});
  for r = 1:rows (metrics)
    m = metrics{r,1}; args = metrics{r,2};
    if (any (strcmp (m, {"hamming", "jaccard"})))
      A = Xi; B = Yi;
    else
      A = X; B = Y;
    endif
    q = 1:min (my, 64);
    F = gd_pdist2 (A, B(q,:), m, args{:}, "Variant", "tuned");
    [S, J] = sort (F, 1); clear F;
    [D, I, info] = gd_pdist2 (A, B, m, args{:}, "Smallest", K, "Variant", "fused");
    if (! isequaln (D(:,q), S(1:K,:)) || ! isequal (I(:,q), J(1:K,:)))
      error ("bench: kNN %s (%s) differs from the sorted full matrix", m, c{1});
    endif
    clear D I;
    tk = th = tf = zeros (1, 3);
    gA = gdArray (A); gB = gdArray (B);
    for t = 1:3
      t0 = tic (); [D, I, info] = gd_pdist2 (A, B, m, args{:}, "Smallest", K, "Variant", "fused");
      th(t) = toc (t0) * 1e3; tk(t) = info.kernel_ms; clear D I;
      [G, ~, info2] = gd_pdist2 (gA, gB, m, args{:}, "Variant", "tuned");
      tf(t) = info2.kernel_ms; clear G;
    endfor
    clear gA gB;
    printf ("%-7s %-18s %10.2f %10.2f %10.2f %8.2f\n", c{1}, m, median (tk), median (th),
            median (tf), median (tk) / median (tf));
    md{end+1} = sprintf ("| %s | %s | %.2f | %.2f | %.2f | %.2f |\n", c{1}, m, median (tk),
                         median (th), median (tf), median (tk) / median (tf));
    fflush (stdout);
    progress ();
  endfor
  clear X Y Xi Yi A B S J;
endfor
