function n = check_knn_gemm (family, sizes, v)
  ## n = check_knn_gemm (FAMILY, SIZES [, V]): the 'gemm' nearest neighbours
  ## against 'fused', bit for bit (D's NaN where fused's are), for single
  ## and double, each size {mx, my, d, K} of SIZES, four data sets of
  ## FAMILY ("euclidean": randn, integer ties, duplicates, two tight
  ## clusters; "cosine": randn, integer rows (parallel ones, ties), scaled
  ## copies, every direction close to every other), its two metrics
  ## (euclidean and squaredeuclidean; cosine and correlation) and both
  ## orders. Each search must be gemm's own ('certified candidates'),
  ## but correlation on the integer rows, where a constant row has no
  ## direction and every query runs fused. Errors at the first difference;
  ## prints each size's last info.kernel; returns how many searches ran.
  ## V: the two variants compared ({"fused", "gemm"}; {"cpu", "cpu"}
  ## checks this file without a GPU, its gemm assertion off).
  if (nargin < 3)
    v = {"fused", "gemm"};
  endif
  metrics = {"euclidean", "squaredeuclidean"};
  if (strcmp (family, "cosine"))
    metrics = {"cosine", "correlation"};
  endif
  n = 0;
  for cls = {"single", "double"}
    for s = 1:numel (sizes)
      [mx, my, d, K] = sizes{s}{:};
      for kind = 1:4
        [X, Y] = data_set (family, kind, mx, my, d, cls{1});
        for m = metrics
          for o = {"Smallest", "Largest"}
            [D0, I0] = gd_pdist2 (X, Y, m{1}, o{1}, K, "Variant", v{1});
            [D, I, info] = gd_pdist2 (X, Y, m{1}, o{1}, K, "Variant", v{2});
            if (! isequaln (D, D0) || ! isequal (I, I0))
              error ("gemm differs from fused: %s %s %s %d x %d x %d K = %d kind %d (%s)",
                     cls{1}, m{1}, o{1}, mx, my, d, K, kind, info.kernel);
            endif
            whole_fused = kind == 2 && strcmp (m{1}, "correlation");
            if (strcmp (v{2}, "gemm") && ! whole_fused)
              assert (strncmp (info.kernel, "certified candidates", 20), info.kernel);
            endif
            n += 1;
          endfor
        endfor
      endfor
      printf ("%s %d x %d x %d K = %d: %s\n", cls{1}, mx, my, d, K, info.kernel);
    endfor
  endfor
endfunction

function [X, Y] = data_set (family, kind, mx, my, d, c)
  switch (kind)
    case 1
      X = randn (mx, d, c); Y = randn (my, d, c);
    case 2                      # exact ties (cosine: parallel rows too)
      X = cast (randi (4, mx, d), c); Y = cast (randi (4, my, d), c);
    case 3
      if (strcmp (family, "cosine"))   # scaled copies: distance 0
        B = randn (ceil (mx / 3), d, c); X = [B; 2 * B; B / 3](1:mx, :);
        Y = 5 * X(randperm (mx, my), :);
      else                      # duplicates, zero distances
        X = repmat (randn (ceil (mx / 3), d, c), 3, 1)(1:mx, :); Y = X(randperm (mx, my), :);
      endif
    case 4
      if (strcmp (family, "cosine"))   # every direction close to every other
        X = 100 + randn (mx, d, c); Y = 100 + randn (my, d, c);
      else                      # two tight clusters
        X = randn (mx, d, c) * 1e-3 + 5 * (rand (mx, 1, c) > 0.5); Y = X(1:my, :) + 1e-4;
      endif
  endswitch
endfunction
