## -*- texinfo -*-
## @deftypefn {} {@var{R} =} __gd_cmp__ (@var{op}, @var{a}, @var{b})
## gdArray's comparisons and logical operators (internal): @var{a}
## @var{op} @var{b} for @var{op} one of @qcode{"=="}, @qcode{"!="},
## @qcode{"<"}, @qcode{"<="}, @qcode{">"}, @qcode{">="}, @qcode{"&"},
## @qcode{"|"}, where @var{a} or @var{b} is a gdArray and the other a
## gdArray, an Octave array or a scalar: a logical gdArray, Octave's
## broadcasting. Compared as Octave compares: single beside double in
## single, an integer class beside a floating one exactly, two integer
## classes by value; @code{&} and @code{|} take each operand's truth (a
## NaN has none: Octave's error). Octave's own refusal for a pair it does
## not compare.
## @end deftypefn

function R = __gd_cmp__ (op, a, b)
  fns = {"==", @eq; "!=", @ne; "<", @lt; "<=", @le; ">", @gt; ">=", @ge; "&", @and; "|", @or};
  k = find (strcmp (fns(:,1), op));
  fn = fns{k,2};
  ## Octave's own error for an operand it does not compare
  fn (sample (a), sample (b));
  __gd_conform__ (op, a, b);
  a = host_operand (a);
  b = host_operand (b);
  if (k >= 7)                           # & and |: each operand's truth
    ca = __gd_class__ (a);                  # (a double beside a single as
    cb = __gd_class__ (b);                  # single first, as Octave takes it)
    if (strcmp (ca, "double") && strcmp (cb, "single"))
      a = single (a);
    elseif (strcmp (ca, "single") && strcmp (cb, "double"))
      b = single (b);
    endif
    a = truth (a);
    b = truth (b);
  else
    ca = __gd_class__ (a);
    cb = __gd_class__ (b);
    ints = @(c) ! any (strcmp (c, {"single", "double"}));
    if (! strcmp (ca, cb) && ints (ca) && ints (cb))
      ## two integer classes (logical among them): by value, in double
      ## where both fit in it, else on the host
      wide = @(c) any (strcmp (c, {"int64", "uint64"}));
      if (wide (ca) || wide (cb))
        R = gdArray (fn (gather (a), gather (b)), "Device", home (a, b));
        return;
      endif
      a = double (a);
      b = double (b);
    endif
  endif
  R = __gd__ ("cmp", k - 1, a, b);
endfunction

## a sample of x's class for Octave's own check: a scalar, or a 1 x 2
## matrix (Octave's messages tell them apart)
function z = sample (x)
  w = 1 + (numel (x) != 1);
  if (isa (x, "gdArray"))
    z = cast (zeros (1, w), classUnderlying (x));
  elseif (isnumeric (x) || islogical (x) || ischar (x))
    z = repmat (cast (0, class (x)), 1, w);
  else
    z = x;
  endif
endfunction

## an Octave operand as the gateway takes it: char as double; sparse and
## complex refused
function x = host_operand (x)
  if (isa (x, "gdArray"))
    return;
  endif
  if (issparse (x) || iscomplex (x))
    error ("gd:input", "gdArray: comparison with a %s operand is not offered (full, real operands)",
           merge (issparse (x), "sparse", "complex"));
  endif
  if (ischar (x))
    x = double (x);
  endif
endfunction


## x's truth: a logical gdArray (NaN refused), or an Octave logical
function x = truth (x)
  if (isa (x, "gdArray"))
    if (! islogical (x))
      x = __gd__ ("test", 3, x);
    endif
  elseif (! islogical (x))
    x = logical (x);
  endif
endfunction

## the device of the first gdArray of a and b
function d = home (a, b)
  if (! isa (a, "gdArray"))
    a = b;
  endif
  d = device (a)(1);
endfunction
