function check_gpu_metrics ()
  ## check_gpu_metrics: every metric that gd_pdist's and gd_pdist2's tuned
  ## variant computes beside the Euclidean two, against the cpu variant:
  ## bit for bit (the same sums in the same order), minkowski to rounding
  ## (the GPU's powers, by multiplication for p = 3 and 4, are not the
  ## host's pow); both classes, awkward sizes, NaN,
  ## Inf, -Inf, a zero row, integer rows; gdArrays; results poisoned first.
  setenv ("GD_POISON", "1");
  metrics = {"cityblock", {}; "chebychev", {}; "cosine", {}; "correlation", {}; "spearman", {};
             "hamming", {}; "jaccard", {}; "minkowski", {3}; "minkowski", {4}; "minkowski", {1.5}};
  ncase = 0;
  for c = {"single", "double"}
    tol = 64 * eps (c{1});
    for r = 1:rows (metrics)
      m = metrics{r,1}; args = metrics{r,2};
      for s = {[1 3], [2 1], [129 7], [300 33], [1000 300]}
        if (s{1}(2) < 2 && any (strcmp (m, {"correlation", "spearman"})))
          continue;                  # they need two columns
        endif
        X = cast (randn (s{1}) * 10, c{1});
        X(randperm (numel (X), min (3, numel (X)))) = [NaN Inf -Inf](1:min (3, numel (X)));
        X(end,:) = 0; X(1,:) = round (X(1,:));
        Y = cast (randi ([-3 3], 77, s{1}(2)), c{1});
        what = sprintf ("%s %s %s", c{1}, m, mat2str (s{1}));
        [D, info] = gd_pdist (X, m, args{:}, "Variant", "tuned");
        same (D, gd_pdist (X, m, args{:}, "Variant", "cpu"), m, tol, ["pdist " what]);
        if (! strcmp (info.variant, "tuned") || ! strcmp (class (D), c{1}))
          error ("check_gpu_metrics: pdist %s ran %s, class %s", what, info.variant, class (D));
        endif
        D2 = gd_pdist2 (X, Y, m, args{:}, "Variant", "tuned");
        same (D2, gd_pdist2 (X, Y, m, args{:}, "Variant", "cpu"), m, tol, ["pdist2 " what]);
        P = gd_pdist2 (gdArray (X), gdArray (Y), m, args{:});
        if (! isa (P, "gdArray"))
          error ("check_gpu_metrics: pdist2 %s on gdArrays gave no gdArray", what);
        endif
        same (gather (P), D2, m, tol, ["pdist2 on gdArrays " what]);
        ncase++;
      endfor
    endfor
  endfor
  ## 'auto' takes tuned for them
  [~, i1] = gd_pdist (rand (300, 40), "chebychev");
  [~, ~, i2] = gd_pdist2 (rand (300, 40), rand (200, 40), "minkowski", 3);
  if (! strcmp (i1.variant, "tuned") || ! strcmp (i2.variant, "tuned"))
    error ("check_gpu_metrics: auto ran %s and %s", i1.variant, i2.variant);
  endif
  unsetenv ("GD_POISON");
  printf ("%d GPU metric cases agree\n", ncase);
endfunction

function same (D, E, m, tol, what)
  if (! strcmp (m, "minkowski"))
    if (! isequaln (D, E))
      error ("check_gpu_metrics: %s: differs from the cpu variant (%d elements)", what,
             nnz (! (D == E | (isnan (D) & isnan (E)))));
    endif
    return;
  endif
  if (! isequal (size (D), size (E)) || ! isequal (isnan (D), isnan (E)) || ! isequal (isinf (D), isinf (E)))
    error ("check_gpu_metrics: %s: sizes, NaN or Inf differ from the cpu variant", what);
  endif
  ok = isfinite (E);
  err = abs (double (D(ok)) - double (E(ok))) ./ max (realmin (class (E)), abs (double (E(ok))));
  if (any (err > tol))
    error ("check_gpu_metrics: %s: relative difference %.3g from the cpu variant", what, max (err));
  endif
endfunction
