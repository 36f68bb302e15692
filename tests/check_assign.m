## check_assign - gdArray's indexed assignment and deletion, triu, tril,
## diag, norm, .^ and ^, and zeros/ones/eye/rand (..., "like", G), against
## Octave's own on the host copies (random values each run; norm within
## the ulps its help states; Octave's errors and their identifiers).
## Runs on the GPU where there is one, else on the host's copy of the
## same code. Prints "assignment ok".
function check_assign ()
  A = randi ([-50 50], 4, 4) + 0.5; G = gdArray (A);
  G(2,3) = 100; A(2,3) = 100; assert(isequal(gather(G), A));
  G(:, 1) = [9;8;7;6]; A(:,1) = [9;8;7;6]; assert(isequal(gather(G), A));
  G(A > 10) = -1; A(A > 10) = -1; assert(isequal(gather(G), A));
  m = gdArray(A < 0); G(m) = 5; A(A < 0) = 5; assert(isequal(gather(G), A));
  G(5, 6) = 1; A(5, 6) = 1; assert(isequal(gather(G), A));
  G(:, 2) = []; A(:, 2) = []; assert(isequal(gather(G), A));
  G([1 3], :) = []; A([1 3], :) = []; assert(isequal(gather(G), A));
  G([1 2]) = []; A([1 2]) = []; assert(isequal(gather(G), A));
  v = gdArray([1 2 3]); v(6) = 4; assert(isequal(gather(v), [1 2 3 0 0 4]));
  v([1 1]) = [7 8]; assert(gather(v)(1) == 8);
  I = gdArray(int8([1 2 3])); I(2) = 300; assert(isequal(gather(I), int8([1 127 3])));
  x = gdArray(single([1 2])); x(1) = 0.1; assert(isequal(gather(x), single([0.1 2])));
  expect_error ("Octave:nonconformant-args", "op1 is 2x2, op2 is 1x3", @(G) subsasgn (G, substruct ("()", {1:2, 1:2}), [1 2 3]), G);
  expect_error ("Octave:invalid-resize", "Invalid resizing", @(M) subsasgn (M, substruct ("()", {20}), 1), gdArray (magic (3)));
  expect_error ("Octave:nonconformant-args", "one non-colon index", @(M) subsasgn (M, substruct ("()", {1, 2}), []), gdArray (magic (3)));
  assert(isequal(gather(triu(gdArray(magic(4)), 1)), triu(magic(4), 1)));
  assert(isequal(gather(tril(gdArray(magic(4)), -1)), tril(magic(4), -1)));
  assert(isequal(gather(diag(gdArray(magic(4)))), diag(magic(4))));
  assert(isequal(gather(diag(gdArray(magic(4)), 2)), diag(magic(4), 2)));
  assert(isequal(gather(diag(gdArray([1 2 3]), -1)), diag([1 2 3], -1)));
  Z = zeros(2, 3, "like", gdArray(single(1))); assert(isa(Z, "gdArray") && isequal(gather(Z), zeros(2,3,"single")));
  assert(isequal(gather(ones(3, "like", gdArray(int8(1)))), ones(3, "int8")));
  assert(isequal(gather(eye(3, 4, "like", gdArray(1))), eye(3, 4)));
  R = rand (4, "like", gdArray (single (1))); assert (strcmp (classUnderlying (R), "single") && all (gather (R)(:) < 1));
  v = randn(1, 100); assert(abs(norm(gdArray(v)) - norm(v)) <= 4 * eps(norm(v)));
  assert(abs(norm(gdArray(v), 1) - norm(v, 1)) <= 100*eps(norm(v,1)));
  assert(norm(gdArray(v), Inf) == norm(v, Inf));
  M = randn(5, 7); assert(abs(norm(gdArray(M), "fro") - norm(M, "fro")) <= 4*eps(norm(M,"fro")));
  assert(norm(gdArray(M), 1) == norm(M, 1) || abs(norm(gdArray(M), 1) - norm(M, 1)) < 1e-13);
  assert(norm(gdArray([1e200 1e200])) == norm([1e200 1e200]));
  B = randn(3, 4); assert(pow_near(gdArray(B) .^ 2, B .^ 2));
  assert(pow_near(gdArray(abs(B)) .^ 0.5, abs(B) .^ 0.5));
  assert(pow_near(gdArray(single(abs(B))) .^ 3, single(abs(B)) .^ 3));
  assert(isequal(gather(gdArray(int8([2 -3 5])) .^ 3), int8([2 -3 5]) .^ 3));
  assert(isequal(gather(gdArray(int8([2 -3 5])) .^ 2.5), int8([2 -3 5]) .^ 2.5));
  assert(isequal(gather(2 .^ gdArray(int16([1 5 20]))), 2 .^ int16([1 5 20])));
  assert(isequal(gather(gdArray(int16([-1 2 3])) .^ int16([-3 -1 4])), int16([-1 2 3]) .^ int16([-3 -1 4])));
  expect_error ("gd:gather", "complex result", @power, gdArray ([-8 2]), 1/3);
  assert(isequal(gather(gdArray(3) ^ 2), 9));
  L = gdArray(true(2)); L(1) = false; assert(islogical(L) && isequal(gather(L), [false true; true true]));
  ## the matrix product of single matrices (gd_sgemm) and of double ones
  ## (cuBLAS's dgemm; Octave's BLAS without a GPU): exact on small
  ## integers, else within their rounding; logical as double
  Ai = single (randi (9, 40, 30)); Bi = single (randi (9, 30, 20));
  P = gdArray (Ai) * Bi;
  assert (isa (P, "gdArray") && isequal (gather (P), Ai * Bi));
  A = single (randn (40, 30)); B = single (randn (30, 20));
  assert (max (max (abs (gather (gdArray (A) * gdArray (B)) - A * B))) <= 1e-4 * norm (A, 1) * norm (B, 1));
  Ad = randi (9, 40, 30); Bd = randi (9, 30, 20); L = rand (30, 20) > 0.5;
  P = gdArray (Ad) * Bd;
  assert (isa (P, "gdArray") && strcmp (classUnderlying (P), "double") && isequal (gather (P), Ad * Bd));
  assert (isequal (gather (Ad * gdArray (L)), Ad * L) && isequal (gather (gdArray (L') * gdArray (L)), L' * L));
  A = randn (40, 30); B = randn (30, 20);
  assert (max (max (abs (gather (gdArray (A) * gdArray (B)) - A * B))) <= 1e-13 * norm (A, 1) * norm (B, 1));
  assert (isequal (size (gather (gdArray (zeros (3, 0)) * zeros (0, 4))), [3 4]));
  expect_error ("gd:gather", "int8 by int8", @mtimes, gdArray (int8 (Ad)), int8 (Bd));
  A = single (A);
  expect_error ("Octave:nonconformant-args", "op1 is 40x30, op2 is 40x30", @mtimes, gdArray (A), gdArray (A));
  ## deletion's shapes: a column, a row kept, the last element of a matrix
  for sub = {[1 2], [1 5], 9, ":"}
    M = magic (3); H = gdArray (M);
    M(sub{1}) = []; H(sub{1}) = [];
    assert (isequal (size (H), size (M)) && isequal (gather (H), M));
  endfor
  printf ("assignment ok\n");
endfunction

## a floating .^ as Octave's: the C library's pow on the host, bit for bit;
## on the GPU CUDA's, within 2 ulp
function tf = pow_near (R, E)
  G = gather (R);
  tf = strcmp (class (G), class (E)) && isequal (size (G), size (E));
  if (tf && existsOnGPU (R))
    tf = all (abs (double (G(:)) - double (E(:))) <= 2 * double (eps (E(:))));
  elseif (tf)
    tf = isequal (G, E);
  endif
endfunction
