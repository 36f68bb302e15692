function check_minplus (variant, cls, witness)
  ## check_minplus (VARIANT, CLS): gd_minplus with VARIANT on CLS inputs,
  ## against the Octave expression, exactly (isequaln), over every shape and
  ## kind of input below. Fresh random inputs each run. Raises an error at
  ## the first mismatch, naming the case. "random" and "nonneg" have no
  ## negative element (v5's integer min in single); "negtail" puts
  ## negatives in the last two columns of A or rows of B (the end of the
  ## prepared operands, so the scan that chooses the kernel must reach them:
  ## two negative terms per result, which the integer min would order
  ## wrongly).
  ## check_minplus (VARIANT, CLS, "witness"): [R, K] against Octave's
  ## [R, K] = min (...): K exactly, R exactly with the sign of each zero
  ## (the first attaining term's), K alternately double and int32. v5 in
  ## double (compare and select) keeps the sign of each zero without the
  ## witness too.
  warning ("off", "gd:nogpu");
  wit = nargin > 2 && strcmp (witness, "witness");
  setenv ("GD_POISON", "1");   # unwritten elements of R show as -4.3e8
  squares = [1 2 63 64 65 127 129 500];
  shapes = [squares' squares' squares';
            1 1 7; 7 1 1; 1 7 1; 1 100 1; 100 1 100; 1000 3 1; 1 3 1000;
            3 1000 3; 65 1 129; 2 300 1; 129 65 63; 63 129 65; 1000 3 1000;
            17 0 5; 0 4 3; 3 4 0];
  if (strcmp (variant, "auto") && ! gd_info ().available)
    ## (auto without a GPU is the cpu variant, checked in full beside it)
    shapes = shapes(max (shapes, [], 2) < 500, :);
  endif
  kinds = {"random", "integers", "specials", "nanrows", "nonneg", "negtail", "zeros"};
  ncase = 0;
  for s = 1:rows (shapes)
    m = shapes(s,1); k = shapes(s,2); n = shapes(s,3);
    for q = 1:numel (kinds)
      [A, B] = inputs (kinds{q}, m, k, n, cls, s);
      Ain = A; Bin = B;
      name = sprintf ("%s %s %s %dx%dx%d", variant, cls, kinds{q}, m, k, n);
      if (wit)
        kc = {"double", "int32"}{1 + mod (ncase, 2)};
        [R, K, info] = gd_minplus (A, B, "Variant", variant, "IndexClass", kc);
        [E, KE] = reference (A, B);
        if (! strcmp (class (K), kc) || ! isequal (size (K), [m n]))
          error ("check_minplus: %s: K is %s %dx%d", name, class (K), rows (K), columns (K));
        endif
        if (! isequal (double (K), KE))
          bad = find (double (K) != KE, 1);
          [i, j] = ind2sub ([m n], bad);
          error ("check_minplus: %s: K(%d,%d) = %d, Octave gives %d (%d of %d differ)",
                 name, i, j, K(bad), KE(bad), nnz (double (K) != KE), numel (KE));
        endif
        z = R == 0 & E == 0;
        if (! isequal (signbit (R(z)), signbit (E(z))))
          error ("check_minplus: %s: a zero of R has the other sign than Octave's", name);
        endif
      else
        [R, ~, info] = gd_minplus (A, B, "Variant", variant);
        E = reference (A, B);
        z = R == 0 & E == 0;
        if (strcmp (info.variant, "v5") && strcmp (cls, "double")
            && ! isequal (signbit (R(z)), signbit (E(z))))
          error ("check_minplus: %s: a zero of R has the other sign than Octave's", name);
        endif
      endif
      if (! strcmp (class (R), cls) || ! isequal (size (R), [m n]))
        error ("check_minplus: %s: got %s %dx%d", name, class (R), rows (R), columns (R));
      endif
      if (! isequaln (R, E))
        bad = find (! ((R == E) | (isnan (R) & isnan (E))), 1);
        [i, j] = ind2sub ([m n], bad);
        error ("check_minplus: %s: R(%d,%d) = %.9g, Octave gives %.9g (%d of %d differ)",
               name, i, j, R(bad), E(bad),
               nnz (! ((R == E) | (isnan (R) & isnan (E)))), numel (E));
      endif
      if (! isequaln (A, Ain) || ! isequaln (B, Bin))
        error ("check_minplus: %s: an input was modified", name);
      endif
      if (m * n > 0 && ! strcmp (variant, "auto") && ! strcmp (info.variant, variant))
        error ("check_minplus: %s: ran %s", name, info.variant);
      endif
      ## v5 in single: which of its kernels ran
      ## (without the witness, a negative operand runs the sign split)
      want = "";
      if (strcmp (info.variant, "v5") && strcmp (cls, "single") && m * n * k > 0)
        split = {"^fminf$", "^(integer min on \\d+ tiles, then )?integer max on \\d+ of \\d+ tiles, fminf on \\d+$"}{1 + ! wit};
        want = {"", "^integer min$", split}{1 + any (strcmp (kinds{q}, {"random", "nonneg"})) + 2 * strcmp (kinds{q}, "negtail")};
      endif
      if (! isempty (want) && isempty (regexp (info.kernel, want, "once")))
        error ("check_minplus: %s: kernel '%s', expected '%s'", name, info.kernel, want);
      endif
      ncase++;
    endfor
  endfor
  printf ("%s %s%s: %d cases exact\n", variant, cls, {"", " witness"}{1 + wit}, ncase);
endfunction

function [A, B] = inputs (kind, m, k, n, cls, s)
  switch (kind)
    case "random"
      A = rand (m, k, cls) * 100; B = rand (k, n, cls) * 100;
    case "integers"
      A = cast (randi ([-50 50], m, k), cls); B = cast (randi ([-50 50], k, n), cls);
    case {"specials", "nanrows"}
      A = cast (randi ([-9 9], m, k), cls); B = cast (randi ([-9 9], k, n), cls);
      vals = cast ([Inf -Inf NaN], cls);
      mask = rand (m, k) < 0.15;
      A(mask) = vals(randi (3, nnz (mask), 1));
      mask = rand (k, n) < 0.15;
      B(mask) = vals(randi (3, nnz (mask), 1));
      if (strcmp (kind, "nanrows"))
        A(1:3:m, :) = NaN;       # all-NaN rows of A
        B(:, 2:4:n) = NaN;       # all-NaN columns of B
        A(2:5:m, :) = Inf;       # rows of +Inf meet -Inf in B: NaN terms
      endif
    case "nonneg"
      A = cast (randi ([0 30], m, k), cls); B = cast (randi ([0 30], k, n), cls);
      vals = cast ([Inf NaN], cls);
      mask = rand (m, k) < 0.15;
      A(mask) = vals(randi (2, nnz (mask), 1));
      mask = rand (k, n) < 0.15;
      B(mask) = vals(randi (2, nnz (mask), 1));
      A(1:4:m, :) = NaN;         # all-NaN rows
      B(:, 3:5:n) = Inf;         # all-Inf columns
    case "zeros"                 # +0 and -0 tie: the first attaining term's sign
      A = cast (randi ([0 2], m, k), cls); B = cast (randi ([0 2], k, n), cls);
      A(A == 0 & rand (m, k) < 0.5) = -0;
      B(B == 0 & rand (k, n) < 0.5) = -0;
    case "negtail"
      A = rand (m, k, cls) * 100; B = rand (k, n, cls) * 100;
      if (mod (s, 2))
        A(:, max (1, k-1):k) = -rand (m, min (k, 2), cls) * 100;
      else
        B(max (1, k-1):k, :) = -rand (min (k, 2), n, cls) * 100;
      endif
  endswitch
endfunction

function [R, K] = reference (A, B)
  ## the definition: [R(i,j), K(i,j)] = min (A(i,:)' + B(:,j)), column by
  ## column (K: 0 where k is 0)
  [m, k] = size (A); n = columns (B);
  R = Inf (m, n, class (A));
  K = zeros (m, n);
  if (k > 0)
    for j = 1:n
      [R(:,j), K(:,j)] = min (A + B(:,j)', [], 2);
    endfor
  endif
endfunction
