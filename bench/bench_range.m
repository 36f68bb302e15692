## bench_range.m - bench.m's section "range": the range search's table. Sourced by bench.m
## (its workspace: md, quick, pick, the device and the helpers).

## gd_rangesearch: 10,000 queries among 100,000 points, d = 16, randn,
## a radius that gives about 50 neighbours (the median 50th neighbour's
## distance of 200 queries), host to host, beside the statistics
## package's rangesearch where it is installed (on 200 queries, scaled
## to 10,000), else a brute force in Octave (pdist2's matrix a panel of
## queries, then find); each checked against the other on 200 queries
progress ("range search", 2);
mx = scale (100000); my = scale (10000); d = 16;
md{end+1} = sprintf ("\n## range search\n\n`[Idx, D] = gd_rangesearch (X, Y, r)`, randn data, %d points, %d queries, d = %d, euclidean, single and double; r: the median distance of 200 queries' 50th neighbour. gd: the range search (two passes of the distance tiles: counts, then the hits in their places; sorted and made cells on the host), and beside it, in the same run, the K-nearest searches it replaced (`'Devices', 1`: K = 64, then four times larger for the queries whose K-th is within r); host to host, medians of 3. Beside: the statistics package's `rangesearch` where installed, else a brute force in Octave (the distance matrix in panels of 500 queries, then `find`), timed on 200 queries and scaled to all; each checked against gd's lists on those 200.\n\n| class | gd's way | mean hits | searches | kernel ms | h2h ms | other | other ms (scaled) | gd's speed-up |\n|---|---|---:|---:|---:|---:|---|---:|---:|\n", mx, my, d);
printf ("\nrange search\n%-7s %-18s %10s %9s %10s %10s %-12s %12s %8s\n", "class", "way", "mean hits", "searches", "kernel ms", "h2h ms", "other", "other ms", "x");
have_stats = ! isempty (pkg ("list", "statistics"));
if (have_stats)
  pkg load statistics;
  have_stats = exist ("rangesearch") == 2;
endif
for cls = {"single", "double"}
  X = randn (mx, d, cls{1}); Y = randn (my, d, cls{1});
  q = 1:min (my, 200);
  [~, Dk] = gd_knnsearch (X, Y(q,:), "K", min (50, mx));
  r = double (median (Dk(:,end)));
  ways = {"range kernels", {}; "K-nearest searches", {"Devices", 1}};
  th = tk = zeros (2, 3); n = [0 0];
  for w = 1:2
    [Idx, D, info] = gd_rangesearch (X, Y, r, ways{w,2}{:});   # warm-up and the lists
    if (w == 1)
      Idx1 = Idx; D1 = D;
    elseif (! (isequal (Idx, Idx1) && isequal (D, D1)))
      error ("bench: gd_rangesearch's two ways differ");
    endif
    for rep = 1:3
      tic; [Idx, D, info] = gd_rangesearch (X, Y, r, ways{w,2}{:}); th(w,rep) = 1000 * toc;
      tk(w,rep) = info.kernel_ms;
    endfor
    n(w) = info.searches;
  endfor
  hits = mean (cellfun (@numel, Idx));
  tic;
  if (have_stats)
    other = "statistics rangesearch";
    [Io, Do] = rangesearch (double (X), double (Y(q,:)), r);
  else
    other = "brute force (Octave)";
    Io = cell (numel (q), 1);
    F = pdist2_host (double (X), double (Y(q,:)));
    for j = 1:numel (q)
      [s, k] = sort (F(:,j));
      Io{j} = k(s <= r)';
    endfor
  endif
  to = 1000 * toc * my / numel (q);
  ## the lists agree but for points at r to rounding (gd computes in
  ## the data's class, the other in double)
  for j = 1:numel (q)
    diff = setxor (Io{j}, Idx{j});
    dd = sqrt (sumsq (double (X(diff,:)) - double (Y(q(j),:)), 2));
    if (any (abs (dd - r) > 1e-4 * r))
      error ("bench: gd_rangesearch differs from %s on query %d", other, j);
    endif
  endfor
  for w = 1:2
    h = median (th(w,:));
    printf ("%-7s %-18s %10.1f %9d %10.2f %10.2f %-12s %12.1f %8.0f\n", cls{1}, ways{w,1}, hits, n(w), median (tk(w,:)), h, other, to, to / h);
    md{end+1} = sprintf ("| %s | %s | %.1f | %d | %.2f | %.2f | %s | %.1f | %.0f |\n", cls{1}, ways{w,1}, hits, n(w), median (tk(w,:)), h, other, to, to / h);
  endfor
  progress ();
  clear X Y Idx D;
endfor
