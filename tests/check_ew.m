## check_ew - gdArray's element-wise +, -, .*, ./, .\, unary - and abs, and
## its conversions (double, single, int8 ... uint64),
## against Octave's own operators on the host copies, bit for bit (isequal
## with NaN equal, and the class): random values and special ones (NaN,
## +-Inf, -0, denormals, intmin and intmax, halves), every class pair that
## Octave allows, scalars and broadcasting shapes, empty arrays; the pairs
## Octave refuses refused with its message, nonconformant sizes with its
## identifier. Runs on the GPU where there is one, else on the host's copy
## of the same arithmetic. Prints "element-wise exact".
function check_ew ()
  floats = {"double", "single"};
  ints = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"};
  ops = {@plus, @minus, @times, @rdivide, @ldivide};
  names = {"+", "-", ".*", "./", ".\\"};
  shapes = {[5 7], [5 7]; [1 7], [5 7]; [5 1], [5 7]; [5 7], [1 1]; [1 1], [5 7]; [1 7], [5 1]; [0 7], [1 7]; [3 0], [3 1]};
  for c1 = [floats, ints]
    for c2 = [floats, ints]
      for o = 1:numel (ops)
        for sh = 1:rows (shapes)
          A = sample (c1{1}, shapes{sh,1});
          B = sample (c2{1}, shapes{sh,2});
          [E, refused] = octaves (ops{o}, A, B);
          if (refused)
            continue;
          endif
          if (any (strcmp (class (E), {"int64", "uint64"})) && ! (isinteger (A) && isinteger (B)))
            expect_error ("gd:gather", "not computed on the GPU yet", ops{o}, gdArray (A), B);
            continue;
          endif
          ## the three forms (gdArray with a matrix, a matrix with a
          ## gdArray, two gdArrays) on the first shape, one a shape after
          for form = merge (sh == 1, 1:3, 1 + mod (sh, 3))
            switch (form)
              case 1, R = ops{o} (gdArray (A), B);
              case 2, R = ops{o} (A, gdArray (B));
              otherwise, R = ops{o} (gdArray (A), gdArray (B));
            endswitch
            assert (isa (R, "gdArray"));
            G = gather (R);
            if (! (strcmp (class (G), class (E)) && isequaln (G, E) && signs (G, E)))
              bad = find (! (G == E | (isnan (double (G)) & isnan (double (E)))), 1);
              error ("check_ew: %s %s %s (%dx%d, %dx%d, form %d): %s, element %d is %s, Octave's %s",
                     c1{1}, names{o}, c2{1}, size (A), size (B), form, class (G), bad,
                     num2str (double (G(bad)), 17), num2str (double (E(bad)), 17));
            endif
          endfor
        endfor
      endfor
    endfor
  endfor
  ## logical and char operands read as double
  G = gdArray (single ([1.5 -2 3]));
  assert (isequal (gather (G + [true false true]), single ([1.5 -2 3]) + [true false true]));
  assert (isequal (gather (G .* "ab" (1)), single ([1.5 -2 3]) .* "a"));
  ## unary minus, abs, floor, ceil, round, fix, sign and sqrt, every class
  for c = [floats, ints]
    A = sample (c{1}, [4 9]);
    assert (isequaln (gather (-gdArray (A)), -A) && isequaln (gather (abs (gdArray (A))), abs (A)));
    assert (signs (gather (-gdArray (A)), -A));
    assert (isequaln (gather (+gdArray (A)), A));
    for f = {@floor, @ceil, @round, @fix, @sign}
      same (f{1} (gdArray (A)), f{1} (A), func2str (f{1}), c{1}, size (A));
      assert (signs (gather (f{1} (gdArray (A))), f{1} (A)));
    endfor
    P = abs (A);
    same (sqrt (gdArray (P)), sqrt (P), "sqrt", c{1}, size (P));
  endfor
  expect_error ("gd:gather", "sqrt of a negative element", @sqrt, gdArray ([4 -1]));
  ## exp, log, ...: Octave's (the C library's) on the host; on the GPU
  ## CUDA's, within 3 ulp (its documented 1-2 ulp of the exact value, and the
  ## C library's own error)
  for c = [floats, {"int16"}]
    A = abs (sample (c{1}, [6 9]));
    A(1) = 0; A(2) = Inf;
    for f = {@exp, @log, @log2, @log1p, @expm1, @sin, @cos, @tanh}
      E = f{1} (A);
      G = f{1} (gdArray (A));
      R = gather (G);
      assert (strcmp (class (R), class (E)) && isequal (size (R), size (E)));
      if (existsOnGPU (G))
        u = eps (cast (abs (E), class (E)));
        bad = ! (R == E | (isnan (R) & isnan (E)) | abs (double (R) - double (E)) <= 3 * double (u));
        assert (! any (bad(:)), sprintf ("%s of %s: beyond 3 ulp", func2str (f{1}), c{1}));
      else
        same (G, E, func2str (f{1}), c{1}, size (A));
      endif
    endfor
  endfor
  expect_error ("gd:gather", "log of an element below 0", @log, gdArray ([1 -1]));
  expect_error ("gd:gather", "log1p of an element below -1", @log1p, gdArray ([1 -2]));
  shapes_and_classes (floats, ints);
  reductions (floats, ints);
  logic (floats, ints);
  long_lines ();
  printf ("element-wise exact\n");
endfunction

## conversions (every class to every class), concatenation, reshape and
## repmat
function shapes_and_classes (floats, ints)
  ## conversions: every class to every class
  for c1 = [floats, ints]
    A = sample (c1{1}, [6 8]);
    for c2 = [floats, ints]
      E = feval (c2{1}, A);
      R = feval (c2{1}, gdArray (A));
      assert (isa (R, "gdArray"));
      G = gather (R);
      if (! (strcmp (class (G), c2{1}) && isequaln (G, E) && signs (G, E)))
        error ("check_ew: %s to %s differs from Octave's", c1{1}, c2{1});
      endif
    endfor
  endfor
  ## concatenation (classes as Octave gives them), reshape, repmat
  A = sample ("int16", [3 4]); B = sample ("double", [3 2]); C = sample ("single", [2 6]);
  assert (isequaln (gather ([gdArray(A), B]), [A, B]));
  assert (isequaln (gather ([gdArray(B), gdArray(A)]), [B, A]) && isa (gather ([gdArray(B), A]), "int16"));
  D = sample ("single", [2 4]);
  assert (isequaln (gather ([gdArray(single (B)), B; D]), [single(B), B; D]));
  assert (isequaln (gather (cat (1, gdArray (C), C)), cat (1, C, C)));
  assert (isequaln (gather ([gdArray(B), []]), B) && isequaln (gather ([[]; gdArray(C)]), C));
  assert (isequaln (gather ([gdArray(B), true(3, 1)]), [B, true(3, 1)]));
  expect_error ("Octave:nonconformant-args", "vertical dimensions mismatch \\(3x4 vs 3x2\\)", @vertcat, gdArray (A), B);
  expect_error ("Octave:nonconformant-args", "horizontal dimensions mismatch \\(3x4 vs 2x6\\)", @horzcat, gdArray (A), C);
  expect_error ("gd:gather", "concatenation giving char", @horzcat, gdArray (B), "abc");
  X = sample ("uint8", [4 6]);
  assert (isequal (gather (reshape (gdArray (X), 2, 12)), reshape (X, 2, 12)));
  assert (isequal (gather (reshape (gdArray (X), [], 3)), reshape (X, [], 3)));
  assert (isequal (gather (reshape (gdArray (X), [8 3])), reshape (X, [8 3])));
  expect_error ("Octave:invalid-input-type", "can't reshape 4x6 array to 5x5 array", @reshape, gdArray (X), 5, 5);
  expect_error ("Octave:invalid-input-type", "not divisible", @reshape, gdArray (X), [], 5);
  assert (isequal (gather (repmat (gdArray (X), 2, 3)), repmat (X, 2, 3)));
  assert (isequal (gather (repmat (gdArray (X), [3 1])), repmat (X, [3 1])));
  assert (isequal (size (gather (repmat (gdArray (X), 0, 2))), size (repmat (X, 0, 2))));
endfunction

## reductions along each dimension, max and min of two arrays, the sizes
## Octave refuses
function reductions (floats, ints)
  ## sum, prod, max and min (with the places), mean: along 1, 2, the first
  ## dimension that is not 1, and 3; rows, columns, empty arrays
  for c = [floats, ints]
    for sz = {[9 7], [1 11], [6 1], [0 4], [3 0], [0 0], [1 1]}
      A = sample (c{1}, sz{1});
      if (any (strcmp (c{1}, floats)) && numel (A) > 3)
        A(2) = NaN; A(:, end) = NaN;   # a column of NaN: max's NaN and first place
      endif
      G = gdArray (A);
      same (nnz (G), nnz (A), "nnz", c{1}, sz{1});
      for f = {@sum, @prod, @mean, @cumsum, @cumprod}
        same (f{1} (G), f{1} (A), func2str (f{1}), c{1}, sz{1});
        for d = 1:3
          same (f{1} (G, d), f{1} (A, d), func2str (f{1}), c{1}, sz{1});
        endfor
      endfor
      for f = {@max, @min}
        [m, i] = f{1} (G); [M, J] = f{1} (A);
        same (m, M, func2str (f{1}), c{1}, sz{1}); same (i, J, "place", c{1}, sz{1});
        for d = 1:3
          [m, i] = f{1} (G, [], d); [M, J] = f{1} (A, [], d);
          same (m, M, func2str (f{1}), c{1}, sz{1}); same (i, J, "place", c{1}, sz{1});
        endfor
      endfor
    endfor
  endfor
  ## max and min of two arrays, element-wise
  for c1 = [floats, ints]
    for c2 = [floats, ints]
      for shp = {[5 7], [1 7]; [1 1], [3 4]; [3 4], [1 1]; [1 1], [1 1]}'
      A = sample (c1{1}, shp{1}); B = sample (c2{1}, shp{2});
      if (numel (A) > 3 && numel (B) > 3)
        A(1:2) = [-0 0]; B(1:2) = [0 -0];  # ties of signed zeros
      endif
      for f = {@max, @min}
        [E, checked] = both_forms (f{1}, A, B, [c1{1} " " c2{1}]);
        if (! checked)
          continue;
        endif
        assert (signs (gather (f{1} (gdArray (A), B)), E),
                sprintf ("%s (%s %s, %s %s): the signs of zeros", func2str (f{1}), c1{1}, mat2str (size (A)), c2{1}, mat2str (size (B))));
      endfor
      endfor
    endfor
  endfor
  ## sizes Octave refuses, and what gd refuses
  expect_error ("Octave:nonconformant-args", "nonconformant arguments \\(op1 is 2x3, op2 is 3x2\\)",
                @plus, gdArray (ones (2, 3)), ones (3, 2));
  expect_error ("gd:input", "sparse operand", @plus, gdArray (ones (2)), sparse (ones (2)));
  expect_error ("gd:input", "complex operand", @times, gdArray (ones (2)), [1i 2; 3 4]);
endfunction

## the comparisons, & | ~, isnan isinf isfinite, logical, any and all, and
## mod and rem: every class pair (logical among them), special values,
## scalars and broadcasting, logical gdArrays kept logical
function logic (floats, ints)
  cls = [floats, ints, {"logical"}];
  cmp = {@eq, @ne, @lt, @le, @gt, @ge, @and, @or, @mod, @rem};
  for c1 = cls
    for c2 = cls
      for shp = {[4 6], [4 6]; [1 6], [4 1]; [4 6], [1 1]}'
        A = sample (c1{1}, shp{1}); B = sample (c2{1}, shp{2});
        if (numel (A) > 4 && numel (B) > 4 && ! islogical (A) && ! islogical (B))
          A(1:4) = B(1:4);                 # equal pairs
        endif
        for f = cmp
          ## (& and | of NaN are Octave's error; mod and rem of logical too;
          ## Octave's own mod and rem of intmin by -1 trap (SIGFPE, over
          ## and over): no divisor that becomes -1 in an integer class)
          if (any (strcmp (func2str (f{1}), {"mod", "rem"})) && (isinteger (A) || isinteger (B)))
            B(round (double (B)) == -1) = 2;
          endif
          both_forms (f{1}, A, B, [c1{1} " " c2{1}]);
        endfor
      endfor
    endfor
    A = sample (c1{1}, [5 4]);
    for f = {@isnan, @isinf, @isfinite, @not, @logical}
      [E, refused] = octaves (@(x, y) f{1} (x), A, []);
      if (! refused)
        same (f{1} (gdArray (A)), E, func2str (f{1}), c1{1}, size (A));
      endif
    endfor
    for sz = {[6 5], [1 7], [0 3], [0 0]}
      X = sample (c1{1}, sz{1});
      if (numel (X) > 2 && ! islogical (X))
        X(:, 1) = 0;                       # a column of zeros
      endif
      for f = {@any, @all}
        same (f{1} (gdArray (X)), f{1} (X), func2str (f{1}), c1{1}, sz{1});
        same (f{1} (gdArray (X), 2), f{1} (X, 2), func2str (f{1}), c1{1}, sz{1});
      endfor
      assert (islogical (any (gdArray (X(:)))) && ! isa (any (gdArray (X(:))), "gdArray"));
      same (sum (gdArray (X)), sum (X), "sum", c1{1}, sz{1});
      same (max (gdArray (X), [], 2), max (X, [], 2), "max", c1{1}, sz{1});
    endfor
  endfor
  ## a logical gdArray: kept logical where Octave keeps it, read as double
  ## in arithmetic, refused by gd's other operations
  L = gdArray (rand (4, 5) > 0.5);
  l = gather (L);
  assert (islogical (L) && islogical (l) && ! isnumeric (L));
  assert (isa (L', "gdArray") && isequal (gather (L'), l'));
  assert (isequal (gather (L(2:3, :)), l(2:3, :)) && isequal (gather ([L; L]), [l; l]));
  assert (isequal (gather (reshape (L, 2, [])), reshape (l, 2, [])));
  assert (isequal (gather (L + 1), l + 1) && isequal (gather (-L), -l) && isequal (gather (L * 1), l * 1));
  assert (isequal (gather (~L), ~l) && isequal (gather (double (L)), double (l)));
  assert (! isempty (strfind (disp (L), "4x5 logical gdArray")));
  expect_error ("gd:input", "not a logical gdArray", @gd_minplus, gdArray (rand (4) > 0.5));
  assert (isequal (gather (gd_pdist (L)), gd_pdist (double (l))));   # (as the statistics package)
  ## intmin by -1: 0 (Octave's own traps), the remainder one size wider
  assert (isequal (gather (mod (gdArray (intmin ("int32")), int32 (-1))), int32 (0)));
  assert (isequal (gather (rem (gdArray (intmin ("int64")), int64 (-1))), int64 (0)));
  expect_error ("gd:input", "conversion from NaN to logical", @not, gdArray ([1 NaN]));
  expect_error ("gd:input", "conversion from NaN to logical", @and, gdArray ([1 NaN]), true);
  expect_error ("Octave:nonconformant-args", "nonconformant arguments \\(op1 is 2x3, op2 is 3x2\\)",
                @lt, gdArray (ones (2, 3)), ones (3, 2));
endfunction

## values of class c in shape sz: random ones and the class's special ones
function X = sample (c, sz)
  n = prod (sz);
  if (strcmp (c, "logical"))
    X = rand (sz) > 0.5;
    return;
  endif
  if (any (strcmp (c, {"double", "single"})))
    v = [randn(1, n) * 100, NaN, Inf, -Inf, -0, 0, realmin(c) / 4, -realmin(c) / 8, 0.5, -2.5, 1e30, -3e-30];
    v = v(randperm (numel (v)));
  else
    lo = double (intmin (c)); hi = double (intmax (c));
    v = [randi([max(lo, -1e9), min(hi, 1e9)], 1, n), lo, hi, 0, 1, -1, 2, 3, 7];
    v = v(randperm (numel (v)));
  endif
  X = cast (reshape (v(1:n), sz), c);
  if (any (strcmp (c, {"int64", "uint64"})) && n)
    X(1) = intmax (c); X(end) = intmin (c);
  endif
endfunction

function same (R, E, what, c, sz)
  G = gather (R);
  if (! (strcmp (class (G), class (E)) && isequal (size (G), size (E)) && isequaln (G, E)))
    error ("check_ew: %s of %s %dx%d: %s %s against Octave's %s %s", what, c, sz,
           class (G), mat2str (size (G)), class (E), mat2str (size (E)));
  endif
endfunction

## f (gdArray (A), B) and f (A, gdArray (B)) against Octave's f (A, B) = E
## (checked false where Octave refuses the pair, or gives int64 or uint64
## beside a floating operand, which is not computed)
function [E, checked] = both_forms (f, A, B, label)
  [E, refused] = octaves (f, A, B);
  checked = ! (refused || (any (strcmp (class (E), {"int64", "uint64"})) && ! (isinteger (A) && isinteger (B))));
  if (! checked)
    return;
  endif
  same (f (gdArray (A), B), E, func2str (f), label, size (A));
  same (f (A, gdArray (B)), E, func2str (f), label, size (A));
endfunction

## Octave's f (A, B); where Octave refuses the pair, the gdArray must too,
## with Octave's message (refused true)
function [E, refused] = octaves (f, A, B)
  E = [];
  refused = false;
  try
    E = f (A, B);
  catch err
    refused = true;
    try
      f (gdArray (A), B);
      error ("check_ew: %s (%s, %s): no error where Octave gives '%s'", func2str (f), class (A), class (B), err.message);
    catch err2                          # (gd's may name the function first)
      assert (! isempty (strfind (err2.message, err.message)), sprintf ("'%s' is not '%s'", err2.message, err.message));
    end_try_catch
  end_try_catch
endfunction

## the signs of two arrays' elements agree (zeros' included), NaN aside:
## a NaN's sign bit is the hardware's (x86 makes -NaN of Inf - Inf, a GPU
## +NaN), and Octave gives it no meaning
function tf = signs (R, E)
  R = double (R);
  E = double (E);
  keep = ! (isnan (R) | isnan (E));
  tf = isequal (size (R), size (E)) && isequal (signbit (R(keep)), signbit (E(keep)));
endfunction

## lines long enough for the device to take them in parts (max, min, nnz,
## any, all): the parts merged in order give Octave's answer, the first
## place among ties and NaN runs included
function long_lines ()
  for c = {"single", "double", "int16"}
    X = cast (randi (9, 6000, 3) - 5, c{1});          # many ties
    if (isfloat (X))
      X(1:2500, 2) = NaN;                              # a run of NaN first
      X(:, 3) = NaN;                                   # a line all NaN
    endif
    for d = 1:2
      A = X;
      if (d == 2)
        A = X.';
      endif
      G = gdArray (A);
      for f = {@max, @min}
        [m, i] = f{1} (G, [], d); [M, I] = f{1} (A, [], d);
        same (m, M, func2str (f{1}), c{1}, size (A));
        same (i, I, [func2str(f{1}) "'s places"], c{1}, size (A));
      endfor
      same (any (G, d), any (A, d), "any", c{1}, size (A));
      same (all (G != 0, d), all (A != 0, d), "all", c{1}, size (A));
    endfor
    assert (nnz (gdArray (X)) == nnz (X));
  endfor
endfunction
