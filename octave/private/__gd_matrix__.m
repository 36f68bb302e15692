## -*- texinfo -*-
## @deftypefn {} {@var{R} =} __gd_matrix__ (@var{what}, @var{G}, @var{args})
## gdArray's diag, norm and power (internal), as Octave's:
## @code{diag (G, k)} the k-th diagonal of a matrix as a column, or of a
## vector the square matrix with it on that diagonal; @code{norm (G, p)}
## of a vector (p 2 by default, 1, Inf, -Inf, or any p > 0) or of a
## matrix (1, Inf, @qcode{"fro"}; the matrix 2-norm needs a singular value
## and is refused), an Octave double (one value, as Octave's if must see
## it); the 2-norm and Frobenius scaled by the largest magnitude first
## (no overflow), within a few ulp of Octave's own scaled sum;
## @code{a .^ b} (Octave's classes, a complex result refused).
## @end deftypefn

function R = __gd_matrix__ (what, G, args)
  switch (what)
    case "diag"
      R = diagonal (G, args{:});
    case "norm"
      R = norm_of (G, args{:});
    case "power"
      R = power_of (G, args{1});
  endswitch
endfunction

function R = diagonal (G, k = 0)
  if (! (isnumeric (k) && isscalar (k) && k == fix (k)))
    error ("gd:input", "diag: K must be an integer");
  endif
  [m, n] = size (G);
  if (m == 1 || n == 1)                 # a vector on the k-th diagonal
    v = numel (G);
    s = v + abs (k);
    R = __gd__ ("fill", classUnderlying (G), s, s, 0, device (G)(1));
    if (v)
      i = (1:v)' + max (0, -k);
      R = __gd__ ("assign", R, i + (i + k - 1) * s, G);
    endif
    return;
  endif
  i = (max (1, 1 - k):min (m, n - k))';
  if (isempty (i))
    R = __gd__ ("fill", classUnderlying (G), 0, 1, 0, device (G)(1));
  else
    R = __gd__ ("index", G, i + (i + k - 1) * m, [], numel (i), 1);
  endif
endfunction

function r = norm_of (G, p = 2)
  if (! isfloat (G))
    error ("gd:input", "norm: X must be a single or double matrix, not %s", classUnderlying (G));
  endif
  vector = any (size (G) == 1) || isempty (G);
  if (ischar (p) && ! strcmpi (p, "fro") && ! (ischar (p) && any (strcmpi (p, {"inf", "-inf"}))))
    error ("gd:input", "norm: unknown norm type '%s'", p);
  endif
  if (ischar (p) && ! strcmpi (p, "fro"))
    p = str2double (p);
  endif
  if (isempty (G))
    r = zeros (1, 1, classUnderlying (G));
    return;
  endif
  A = abs (G);
  if (strcmpi (p, "fro") || (vector && isequal (p, 2)))
    big = gather (max (A(:)));          # scaled: no overflow, no underflow
    if (big == 0 || ! isfinite (big))
      r = big;
      if (isnan (gather (sum (A(:)))))
        r = NaN (class (big));
      endif
      return;
    endif
    S = A ./ big;
    r = big * sqrt (gather (sum (S(:) .* S(:))));
  elseif (vector)
    if (p == Inf)
      r = gather (max (A(:)));
    elseif (p == -Inf)
      r = gather (min (A(:)));
    elseif (p == 1)
      r = gather (sum (A(:)));
    elseif (isnumeric (p) && isscalar (p) && p > 0)
      big = gather (max (A(:)));
      r = big;
      if (big > 0 && isfinite (big))
        r = big * gather (sum ((A(:) ./ big) .^ p)) ^ (1 / p);
      endif
    else
      __gd_refuse__ (sprintf ("norm with p = %s", num2str (p)));
    endif
  elseif (isequal (p, 1))
    r = gather (max (sum (A, 1)));
  elseif (isequal (p, Inf))
    r = gather (max (sum (A, 2)));
  else
    __gd_refuse__ ("the matrix 2-norm (a singular value)");
  endif
endfunction

## a .^ b: a negative base with an exponent that is not whole would give
## Octave a complex result: refused
function R = power_of (a, b)
  ints = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"};
  if (! any (ismember ({__gd_class__(a), __gd_class__(b)}, ints)))   # a floating result
    frac = b != fix (b);              # (asked before the power is computed)
    if ((isa (frac, "gdArray") || any (frac(:))) && any (any ((a < 0) & frac)))
      __gd_refuse__ ("'.^' of a negative base by an exponent that is not whole (a complex result)");
    endif
  endif
  R = __gd_ew__ (".^", a, b);
endfunction
