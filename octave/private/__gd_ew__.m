## -*- texinfo -*-
## @deftypefn {} {@var{R} =} __gd_ew__ (@var{op}, @var{a}, @var{b})
## gdArray's element-wise arithmetic (internal): @var{a} @var{op} @var{b}
## for @var{op} one of @qcode{"+"}, @qcode{"-"}, @qcode{".*"},
## @qcode{"./"}, @qcode{".\\"}, @qcode{"max"}, @qcode{"min"}, @qcode{"mod"}, @qcode{"rem"}, @qcode{".^"}, where @var{a} or @var{b} is a gdArray and the other a
## gdArray, an Octave array or a scalar. The result's class, and the
## refusal of a class pair, are Octave's own (the operation on one element
## of each); the sizes broadcast as Octave's do; the arithmetic is
## kernels/ops/ew's, on the GPU where the gdArray is.
## @end deftypefn

function R = __gd_ew__ (op, a, b)
  fns = {"+", @plus, 0; "-", @minus, 1; ".*", @times, 2; "./", @rdivide, 3; ".\\", @ldivide, 3;
         "max", @max, 4; "min", @min, 5; "mod", @mod, 6; "rem", @rem, 7; ".^", @power, 8};
  k = find (strcmp (fns(:,1), op));
  fn = fns{k,2};
  [a, za] = operand (a);
  [b, zb] = operand (b);
  ## Octave's rule for the class (and its own error for a pair it refuses)
  rc = class (fn (za, zb));
  __gd_conform__ (op, a, b);
  if (any (strcmp (rc, {"int64", "uint64"})) && ! (isinteger (za) && isinteger (zb)))
    error ("gd:gather", "gdArray: operator %s on %s beside a floating-point operand is not computed on the GPU yet: gather it first (A = gather (G))", op, rc);
  endif
  if (strcmp (op, ".\\"))               # a .\ b is b ./ a
    [a, b] = deal (b, a);
  elseif (any (strcmp (op, {"max", "min"})))  # both in the result's class;
    a = in_class (a, rc);                       # a scalar first goes second,
    b = in_class (b, rc);                       # as Octave takes it (ties and
    if (numel (a) == 1)                         # NaN go by the order)
      [a, b] = deal (b, a);
    endif
  endif
  R = __gd__ ("ew2", fns{k,3}, a, b, rc);
endfunction

## an operand as the gateway takes it (logical and char as double, as
## Octave's arithmetic reads them), and a sample of its class for Octave's
## rule (a scalar or a 1 x 2 matrix, as Octave's messages tell them apart)
function [x, z] = operand (x)
  w = 1 + (numel (x) != 1);
  if (isa (x, "gdArray"))
    if (islogical (x))                  # (read as double, as Octave reads
      x = double (x);                   # a logical array)
      z = false (1, w);
    else
      z = zeros (1, w, classUnderlying (x));
    endif
    return;
  endif
  if (! (isnumeric (x) || islogical (x) || ischar (x)) || issparse (x) || iscomplex (x))
    z = x;                              # (Octave's own error, or gd's below)
    if (isnumeric (x) && (issparse (x) || iscomplex (x)))
      error ("gd:input", "gdArray: arithmetic with a %s operand is not offered (full, real operands)",
             merge (issparse (x), "sparse", "complex"));
    endif
    return;
  endif
  if (islogical (x))
    z = false (1, w);
  elseif (ischar (x))
    z = repmat ("a", 1, w);
  else
    z = zeros (1, w, class (x));
  endif
  if (islogical (x) || ischar (x))
    x = double (x);
  endif
endfunction

function x = in_class (x, c)
  if (isa (x, "gdArray"))
    if (! strcmp (classUnderlying (x), c))
      x = __gd__ ("convert", x, c);
    endif
  else
    x = cast (x, c);
  endif
endfunction
