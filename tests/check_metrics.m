function check_metrics (variant, cls)
  ## check_metrics (VARIANT, CLS): every metric of the statistics package in
  ## gd_pdist, gd_pdist2 and the nearest-neighbour form, VARIANT on CLS
  ## data, against the statistics package's pdist (pdist2: pdist of [X; Y],
  ## its cross block; seuclidean and mahalanobis with explicit S and C,
  ## against their formulas), relative error below 20 ulp of the class
  ## (exact for hamming, jaccard, cityblock and chebychev on integers);
  ## zero, constant and duplicate rows; NaN rows give NaN everywhere; the
  ## neighbours in the order of a stable sort of gd_pdist2's full matrix.
  warning ("off", "all");
  pkg load statistics
  tol = 20 * eps (cls);
  metrics = {"euclidean", "squaredeuclidean", "seuclidean", "mahalanobis", "cityblock", ...
             "minkowski", "chebychev", "cosine", "correlation", "spearman", "hamming", "jaccard"};
  ncase = 0;
  worst = 0;      # minkowski's largest relative difference, in eps of the class
  for n = [2 3 33 200]
    for d = [2 5 17]
      X = cast (randn (n, d), cls);
      Xi = cast (randi ([-2 2], n, d), cls);
      X(1,:) = 0;                               # a zero row
      if (n > 2)
        X(2,:) = 3;                             # a constant row
        X(3,:) = X(1 + (n > 3) * 3, :);         # a duplicate
      endif
      for m = metrics
        if (strcmp (m{1}, "mahalanobis") && n <= d + 1)
          continue;             # cov (X) singular: no Mahalanobis distance
        endif
        for data = {X, Xi}
          Z = data{1};
          if (any (strcmp (m{1}, {"seuclidean", "mahalanobis"})) && any (var (double (Z)) == 0))
            continue;           # a constant column: no standardised distance
          endif
          args = {};
          if (strcmp (m{1}, "minkowski"))  # by multiplication (3, 4) and by powers
            args = {[3 4 1.5 2.5](1 + mod (ncase, 4))};
          endif
          D = gd_pdist (Z, m{1}, args{:}, "Variant", variant);
          E = pdist (double (Z), m{1}, args{:});
          e = compare (D, E, tol, cls, sprintf ("pdist %s %s %s %dx%d", variant, cls, m{1}, n, d));
          if (strcmp (m{1}, "minkowski"))
            worst = max (worst, e);
          endif
          ncase++;
        endfor
      endfor
      ## pdist2 and the neighbours: Y of 7 rows
      Y = cast (randn (7, d), cls); Y(2,:) = 0;
      S = std (double (X)) + 1; C = cov (double ([X; Y])) + eye (d);
      for m = metrics
        args = {};
        switch (m{1})
          case "minkowski", args = {[1.5 3 4](1 + mod (ncase, 3))};
          case "seuclidean", args = {S};
          case "mahalanobis", args = {C};
        endswitch
        D = gd_pdist2 (X, Y, m{1}, args{:}, "Variant", variant);
        switch (m{1})
          case "seuclidean"
            E = zeros (n, 7);
            for j = 1:7, E(:,j) = sqrt (sum ((double (X) - double (Y(j,:))).^2 ./ S.^2, 2)); end
          case "mahalanobis"
            E = zeros (n, 7);
            for j = 1:7
              Dj = double (X) - double (Y(j,:)); E(:,j) = sqrt (sum ((Dj / C) .* Dj, 2));
            end
          otherwise
            E = squareform (pdist (double ([X; Y]), m{1}, args{:}))(1:n, n+1:end);
        endswitch
        e = compare (D, E, tol, cls, sprintf ("pdist2 %s %s %s %dx7x%d", variant, cls, m{1}, n, d));
        if (strcmp (m{1}, "minkowski"))
          worst = max (worst, e);
        endif
        ## the neighbours: the stable sort of gd_pdist2's own matrix
        kv = variant;
        if (any (strcmp (variant, {"naive", "tuned"})))
          kv = "fused";
        endif
        ## both orders; K past rows (X) gives rows (X) rows
        for K = unique ([1 3 n n+4])
          for largest = [false true]
            if (largest)
              [S2, J] = sort (D, 1, "descend"); opt = "Largest";
            else
              [S2, J] = sort (D, 1); opt = "Smallest";
            endif
            [Dk, Ik] = gd_pdist2 (X, Y, m{1}, args{:}, opt, K, "Variant", kv);
            k = min (K, n);
            if (! isequaln (Dk, S2(1:k,:)) || ! isequal (Ik, J(1:k,:)))
              error ("check_metrics: %s: the K = %d %s differ from the sorted matrix", m{1}, K, opt);
            endif
          endfor
        endfor
        ncase++;
      endfor
    endfor
  endfor
  ## NaN rows: NaN with every metric, nothing else touched
  X = cast (randn (6, 4), cls); X(2, 3) = NaN;
  for m = metrics
    args = {};
    if (strcmp (m{1}, "seuclidean")) args = {ones(1, 4)}; endif
    if (strcmp (m{1}, "mahalanobis")) args = {eye(4)}; endif
    S = squareform (gd_pdist (X, m{1}, args{:}, "Variant", variant));
    if (! all (isnan (S(2, [1 3:6]))) || any (isnan (S([1 3:6], [1 3:6])(:))))
      error ("check_metrics: %s: a NaN row's distances are not NaN, or others are", m{1});
    endif
  endfor
  printf ("%d cases within bounds (%s %s); minkowski's largest relative difference %.2f eps\n",
          ncase, variant, cls, worst / eps (cls));
endfunction

## the largest relative difference (to max (1, |E|))
function e = compare (D, E, tol, cls, name)
  if (! strcmp (class (D), cls))
    error ("check_metrics: %s: class %s", name, class (D));
  endif
  if (! isequal (size (D), size (E)))
    error ("check_metrics: %s: size %s, want %s", name, mat2str (size (D)), mat2str (size (E)));
  endif
  if (! isequal (isnan (D), isnan (E)))
    error ("check_metrics: %s: NaN in different places", name);
  endif
  ok = ! isnan (E);
  err = abs (double (D(ok)) - E(ok)) ./ max (1, abs (E(ok)));
  e = max ([0; err(:)]);
  if (any (err > tol))
    error ("check_metrics: %s: relative error %.3g", name, max (err));
  endif
  if (any (D(:) < 0))
    error ("check_metrics: %s: a negative distance", name);
  endif
endfunction
