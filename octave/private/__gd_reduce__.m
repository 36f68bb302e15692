## -*- texinfo -*-
## @deftypefn {} {[@var{R}, @var{I}] =} __gd_reduce__ (@var{what}, @var{G}, @var{args}, @var{nout})
## gdArray's sum, prod, max, min, mean, any and all (internal), as Octave's: along
## the first dimension that is not 1, or the one given; sums and products
## in order, in single for single and in double for the other classes;
## max and min in G's class with the place of the first extreme (where
## @var{nout} asks for it), NaN skipped unless every element is NaN, or of
## two arrays element-wise; mean the sum over the count; any and all
## logical (NaN true for all, false for any, as Octave's), an Octave logical where the answer is one value
## (Octave takes @code{if} on a classdef object as false without asking
## the class: @code{if any (G(:))} must see a logical).
## @end deftypefn

function [R, I] = __gd_reduce__ (what, G, args, nout = 1)
  codes = struct ("sum", 0, "prod", 1, "max", 2, "min", 3, "mean", 0, "cumsum", 0, "cumprod", 1,
                  "any", 5, "all", 6);
  if (any (strcmp (what, {"cumsum", "cumprod"})))
    [R, I] = cumulative (codes.(what), G, args);
    return;
  endif
  extreme = any (strcmp (what, {"max", "min"}));
  I = [];
  if (extreme && numel (args) && ! isempty (args{1}))  # two arrays, element-wise
    if (numel (args) > 1 || nout > 1)
      __gd_refuse__ (sprintf ("%s (A, B, dim) or [m, i] = %s (A, B)", what, what));
    endif
    R = __gd_ew__ (what, G, args{1});
    return;
  elseif (extreme)
    args = args(2:end);
  endif
  if (! extreme && isequal (size (G), [0 0]))  # Octave's sum, prod and mean
    G = reshape (G, 0, 1);                        # take [] as 0 x 1
  endif
  sz = size (G);
  dim = dim_of (what, sz, args);
  truth = any (strcmp (what, {"any", "all"}));
  if (dim > 2)                          # one element a place: itself
    R = G;
    if (strcmp (what, "all"))
      R = __gd__ ("cmp", 1, G, 0);      # (G != 0: NaN is true for all,
    elseif (truth)                      # false for any, as Octave's)
      R = __gd__ ("cmp", 6, __gd__ ("cmp", 1, G, 0), __gd__ ("test", 4, __gd__ ("test", 0, G)));
    elseif (! extreme && ! strcmp (classUnderlying (G), "single"))
      R = double (G);
    endif
    if (truth && numel (R) == 1)
      R = gather (R);
    endif
    if (nout > 1)
      I = gdArray (ones (size (G)));
    endif
    return;
  endif
  if (extreme && (size (G, dim) == 0 || (islogical (G) && isempty (G))))
    if (! islogical (G))                # (Octave's max of an empty logical
      sz(dim) = 0;                      # array is that array)
    endif
    R = gdArray (cast (zeros (sz), classUnderlying (G)));
    if (nout > 1)
      I = gdArray (zeros (sz));
    endif
    return;
  endif
  if (extreme && nout > 1)
    [R, I] = __gd__ ("reduce", codes.(what), G, dim);
  else
    R = __gd__ ("reduce", codes.(what), G, dim);
  endif
  if (strcmp (what, "mean"))
    R = R ./ size (G, dim);
  elseif (truth && numel (R) == 1)
    R = gather (R);
  endif
endfunction

## cumsum and cumprod: G's size, in single for single and double otherwise
function [R, I] = cumulative (op, G, args)
  I = [];
  dim = dim_of ("cumsum and cumprod", size (G), args);
  if (dim > 2 || numel (G) == 0)
    R = G;
    if (! strcmp (classUnderlying (G), "single"))
      R = double (G);
    endif
    return;
  endif
  R = __gd__ ("scan", op, G, dim);
endfunction

## the dimension given, or Octave's: the first that is not 1 (mean.m's
## rule for mean: the first past 1)
function dim = dim_of (what, sz, args)
  if (isempty (args))
    if (strcmp (what, "mean"))
      dim = find (sz > 1, 1);
    else
      dim = find (sz != 1, 1);
    endif
    if (isempty (dim))
      dim = 1;
    endif
  else
    dim = args{1};
    if (numel (args) > 1 || ! (isnumeric (dim) && isscalar (dim) && dim >= 1 && dim == fix (dim)))
      __gd_refuse__ (sprintf ("%s with these options", what));
    endif
  endif
endfunction
