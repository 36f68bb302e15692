function check_pdist (variant, cls)
  ## check_pdist (VARIANT, CLS): gd_pdist and gd_pdist2 with VARIANT on CLS
  ## inputs against the plain Octave formula (and the statistics package's
  ## pdist): relative error below 1e-5 (single) or 1e-12 (double), exact on
  ## small integers; shapes n = 1, 2, 3, 31, 32, 33, 65, 129, 1000 and
  ## d = 1, 3, 8, 300.
  warning ("off", "all");
  pkg load statistics
  warning ("on", "all"); warning ("off", "gd:nogpu");
  setenv ("GD_POISON", "1");
  tol = 1e-5 * strcmp (cls, "single") + 1e-12 * strcmp (cls, "double");
  v2 = {gd_pdist2("variants").name};
  ncase = 0;
  ## (auto without a GPU is the cpu variant)
  on_cpu = strcmp (variant, "cpu") || (strcmp (variant, "auto") && ! gd_info ().available);
  for n = [1 2 3 31 32 33 65 129 1000]
    for d = [1 3 8 300]
      if (n == 1000 && d == 300 && on_cpu)
        continue;               # the reference loop dominates the run
      endif
      for kind = {"integers", "random"}
        if (strcmp (kind{1}, "integers"))
          X = cast (randi ([-9 9], n, d), cls);
        else
          X = rand (n, d, cls);
        endif
        Xin = X;
        E = reference (X, X, true);     # squared, condensed
        for metric = {"squaredeuclidean", "euclidean"}
          D = gd_pdist (X, metric{1}, "Variant", variant);
          want = E;
          if (strcmp (metric{1}, "euclidean"))
            want = sqrt (E);
          endif
          name = sprintf ("pdist %s %s %s %s %dx%d", variant, cls, kind{1}, metric{1}, n, d);
          compare (D, want, kind{1}, tol, name, cls);
          if (n > 1 && strcmp (kind{1}, "random") && d > 1)
            S = pdist (double (X), metric{1});
            if (norm (double (D) - S) > 10 * tol * norm (S))
              error ("check_pdist: %s: differs from the statistics package's pdist", name);
            endif
          endif
          ncase++;
        endfor
        if (! isequal (X, Xin))
          error ("check_pdist: X was modified");
        endif
        if (any (strcmp (v2, variant)) && n <= 129)
          Y = X(end:-1:1, :);
          Y = [Y; X(1:min (n, 5), :)];
          E2 = reference (X, Y, false);
          D2 = gd_pdist2 (X, Y, "euclidean", "Variant", variant);
          compare (D2, sqrt (E2), kind{1}, tol, sprintf ("pdist2 %s %s %dx%d", variant, cls, n, d), cls);
          D2 = gd_pdist2 (X, X, "squaredeuclidean", "Variant", variant);
          if (any (diag (D2) != 0))
            error ("check_pdist: pdist2 %s: X against itself has a non-zero diagonal", variant);
          endif
          ncase += 2;
        endif
      endfor
    endfor
  endfor
  ## cancellation: the expanded form would give 0
  D = gd_pdist (single ([512695; 512804]), "squaredeuclidean", "Variant", variant);
  if (D != single (11881))
    error ("check_pdist: %s: [512695; 512804] gives %g, not 11881", variant, D);
  endif
  ## NaN rows give NaN, identical rows exactly 0
  X = cast ([1 2 3; NaN 0 0; 1 2 3; 4 5 6], cls);
  D = gd_pdist (X, "Variant", variant);
  if (! isequal (isnan (D), logical ([1 0 0 1 1 0])) || D(2) != 0)
    error ("check_pdist: %s: NaN or identical rows wrong: %s", variant, mat2str (D));
  endif
  printf ("%s %s: %d cases within bounds\n", variant, cls, ncase + 2);
endfunction

function compare (D, want, kind, tol, name, cls)
  if (! strcmp (class (D), cls) || ! isequal (size (D), size (want)))
    error ("check_pdist: %s: got %s %dx%d", name, class (D), rows (D), columns (D));
  endif
  if (any (D(:) < 0))
    error ("check_pdist: %s: a negative distance", name);
  endif
  if (strcmp (kind, "integers"))
    if (! isequal (D, cast (want, cls)))
      bad = find (D != want, 1);
      error ("check_pdist: %s: D(%d) = %.9g, want %.9g", name, bad, D(bad), want(bad));
    endif
  elseif (norm (double (D(:)) - want(:)) > tol * norm (want(:)))
    error ("check_pdist: %s: relative error %.3g", name,
           norm (double (D(:)) - want(:)) / norm (want(:)));
  endif
endfunction

function E = reference (X, Y, condensed)
  ## squared distances in double, as sum ((x - y).^2) column by column
  X = double (X); Y = double (Y);
  E = zeros (rows (X), rows (Y));
  for j = 1:rows (Y)
    E(:,j) = sumsq (X - Y(j,:), 2);
  endfor
  if (condensed)
    E = E(tril (true (rows (X)), -1)).';
    if (isempty (E))
      E = zeros (1, 0);
    endif
  endif
endfunction
