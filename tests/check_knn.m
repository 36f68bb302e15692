function check_knn (variant, cls, metrics)
  ## check_knn (VARIANT, CLS): gd_pdist2's 'Smallest'/'Largest' forms with
  ## VARIANT on CLS inputs against the full matrix and a stable sort.
  ## check_knn (VARIANT, CLS, "all"): every other metric too, against the
  ## full matrix of the variant that computes the same distances.
  ## Integer-valued data (ties everywhere, distances exact in either
  ## class) against the Octave formula, bit for bit, D and I; real-valued
  ## data (with NaN rows and a row 1e30 away, whose sum of squares
  ## overflows in single) against gd_pdist2's own full matrix of the
  ## variant computing the same distances ('tuned' for 'fused', 'cpu' for
  ## 'cpu'; for 'auto', of the one it ran), bit for bit. rows (X) = 1, 31, 33, 300, 1000, 2049; K = 1,
  ## 10, rows (X), rows (X) + 5; both metrics; single and double.
  warning ("off", "all"); warning ("on", "all"); warning ("off", "gd:nogpu");
  setenv ("GD_POISON", "1");
  if (nargin < 3)
    metrics = {"squaredeuclidean", "euclidean"};
  else
    metrics = {"squaredeuclidean", "euclidean", "cityblock", "chebychev", {"minkowski", 3}, ...
               "cosine", "correlation", "spearman", "hamming", "jaccard", ...
               {"seuclidean", [1 2 3 1 2 3]}, {"mahalanobis", []}};
    if (! strcmp (variant, "cpu"))
      metrics{end+1} = {"minkowski", 1.5};  # the GPU's powers (the host's pow is p = 3's)
    endif
  endif
  ncase = 0;
  for mx = [1 31 33 300 1000 2049]
    for my = [1 7 130]
      d = 1 + mod (mx + my, 6);
      X = cast (randi ([-3 3], mx, d), cls);
      Y = cast (randi ([-3 3], my, d), cls);
      Xin = X; Yin = Y;
      E = zeros (mx, my, cls);
      for j = 1:my
        E(:,j) = sum ((X - Y(j,:)).^2, 2);
      endfor
      for metric = metrics
        m = metric{1};
        if (iscell (m))
          args = m(2:end); m = m{1};
        else
          args = {};
        endif
        if (strcmp (m, "seuclidean"))
          args = {args{1}(1:d)};
        elseif (strcmp (m, "mahalanobis"))
          args = {eye(d) + ones(d) / 4};
        endif
        if (any (strcmp (m, {"correlation", "spearman"})) && d < 2)
          continue;
        endif
        if (strcmp (m, "squaredeuclidean"))
          F = E;
        elseif (strcmp (m, "euclidean"))
          F = sqrt (E);
        else
          ## the matrices of the variants that compute the same distances
          F = struct ("cpu", gd_pdist2 (X, Y, m, args{:}, "Variant", "cpu"));
          if (! strcmp (variant, "cpu") && gd_info ().available)
            F.fused = gd_pdist2 (X, Y, m, args{:}, "Variant", "tuned");
          endif
        endif
        for K = unique ([1 10 mx mx+5])
          for largest = [false true]
            name = sprintf ("%s %s %s %dx%d K=%d%s", variant, cls, m, mx, my, K, ...
                            {"", " largest"}{largest + 1});
            one (X, Y, F, K, min (K, mx), {m, args{:}}, largest, variant, cls, name);
            ncase++;
          endfor
        endfor
      endfor
      if (! isequal (X, Xin) || ! isequal (Y, Yin))
        error ("check_knn: an operand was modified");
      endif
    endfor
  endfor
  ## real-valued data with NaN rows and a far row, against the full matrix
  for mx = [33 1000 2049]
    X = randn (mx, 20, cls); Y = randn (67, 20, cls);
    X(5, 3) = NaN; Y(2, 7) = NaN; X(9, :) = 1e30; X(mx, :) = X(3, :);
    F = struct ("cpu", gd_pdist2 (X, Y, "Variant", "cpu"));
    if (! strcmp (variant, "cpu") && gd_info ().available)
      F.fused = gd_pdist2 (X, Y, "Variant", "tuned");
    endif
    for K = [1 10 50]
      for largest = [false true]
        name = sprintf ("%s %s real %dx67 K=%d%s", variant, cls, mx, K, {"", " largest"}{largest + 1});
        one (X, Y, F, K, min (K, mx), {"euclidean"}, largest, variant, cls, name);
        ncase++;
      endfor
    endfor
  endfor
  printf ("%d cases within bounds (%s %s)\n", ncase, variant, cls);
endfunction

function one (X, Y, F, K, k, metric, largest, variant, cls, name)
  opt = {"Smallest", "Largest"}{largest + 1};
  if (! iscell (metric))
    metric = {metric};
  endif
  [D, I, info] = gd_pdist2 (X, Y, metric{:}, opt, K, "Variant", variant);
  if (isstruct (F))
    ## the full matrix of the variant that computed the same distances
    F = F.(info.variant);
  endif
  if (largest)
    [S, J] = sort (F, 1, "descend");
  else
    [S, J] = sort (F, 1);
  endif
  if (! strcmp (class (D), cls) || ! strcmp (class (I), "double"))
    error ("check_knn: %s: classes %s and %s", name, class (D), class (I));
  endif
  if (! isequal (size (D), [k rows(Y)]) || ! isequal (size (I), [k rows(Y)]))
    error ("check_knn: %s: D is %dx%d, I %dx%d", name, rows (D), columns (D), rows (I), columns (I));
  endif
  if (! isequaln (D, S(1:k,:)))
    [r, c] = find (! ((D == S(1:k,:)) | (isnan (D) & isnan (S(1:k,:)))), 1);
    error ("check_knn: %s: D(%d,%d) is %.9g, the sort gives %.9g", name, r, c, D(r,c), S(r,c));
  endif
  if (! isequal (I, J(1:k,:)))
    [r, c] = find (I != J(1:k,:), 1);
    error ("check_knn: %s: I(%d,%d) is %d, the stable sort gives %d", name, r, c, I(r,c), J(r,c));
  endif
endfunction
