function check_sgemm (variant, sizes)
  ## check_sgemm (VARIANT [, SIZES]): gd_sgemm with VARIANT, with both Edges
  ## modes, against double(A)*double(B): for random operands the error's
  ## Frobenius norm below 4*k*eps('single') times that of |A|*|B| (the
  ## classic bound of a sum of k products: relative to the result itself it
  ## is unbounded where the sum cancels, as one dot product of 200 terms
  ## can), exact for small integers
  ## (|a|, |b| <= 8: every partial sum is an integer below 2^24). SIZES
  ## (rows m k n) defaults to the shapes below. Fresh inputs each run;
  ## GD_POISON makes an unwritten element show.
  warning ("off", "gd:nogpu");
  setenv ("GD_POISON", "1");
  if (nargin < 2)
    sizes = [1 1 1; 15 15 15; 16 16 16; 17 17 17; 127 127 127; 128 128 128;
             129 129 129; 1000 3 1000; 3 1000 3; 1 200 1; 200 1 1; 33 17 9;
             4097 65 129; 65 4097 33; 1000 3000 500; 17 0 5];
  endif
  ncase = 0;
  for edges = {"pad", "guard"}
    for s = 1:rows (sizes)
      m = sizes(s,1); k = sizes(s,2); n = sizes(s,3);
      for kind = {"random", "integers"}
        if (strcmp (kind{1}, "random"))
          A = rand (m, k, "single") - 0.5; B = rand (k, n, "single") - 0.5;
        else
          A = single (randi ([-8 8], m, k)); B = single (randi ([-8 8], k, n));
        endif
        Ain = A; Bin = B;
        [C, info] = gd_sgemm (A, B, "Variant", variant, "Edges", edges{1});
        E = double (A) * double (B);
        name = sprintf ("%s %s %s %dx%dx%d", variant, edges{1}, kind{1}, m, k, n);
        if (! strcmp (class (C), "single") || ! isequal (size (C), [m n]))
          error ("check_sgemm: %s: got %s %dx%d", name, class (C), rows (C), columns (C));
        endif
        if (strcmp (kind{1}, "integers"))
          if (! isequal (double (C), E))
            bad = find (double (C) != E, 1);
            error ("check_sgemm: %s: C(%d) = %.9g, exact %.9g (%d differ)", name,
                   bad, C(bad), E(bad), nnz (double (C) != E));
          endif
        else
          scale = norm (abs (double (A)) * abs (double (B)), "fro");
          err = norm (double (C) - E, "fro") / max (scale, realmin);
          if (! (err < 4 * max (k, 1) * eps ("single")))
            error ("check_sgemm: %s: relative error %.3g over %.3g", name, err,
                   4 * k * eps ("single"));
          endif
        endif
        if (! isequal (A, Ain) || ! isequal (B, Bin))
          error ("check_sgemm: %s: an input was modified", name);
        endif
        ## a 1x1 operand multiplies element by element, whatever the variant
        scalar = k == 1 && (m == 1 || n == 1);
        expected = ifelse_variant (scalar, variant);
        if (m * n > 0 && ! strcmp (variant, "auto") && ! strcmp (info.variant, expected))
          error ("check_sgemm: %s: ran %s", name, info.variant);
        endif
        ncase++;
      endfor
    endfor
  endfor
  printf ("%s: %d cases within bounds\n", variant, ncase);
endfunction

function v = ifelse_variant (scalar, variant)
  v = variant;
  if (scalar)
    v = "elementwise";
  endif
endfunction
