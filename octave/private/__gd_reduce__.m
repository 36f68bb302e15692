## -*- texinfo -*-
## @deftypefn {} {[@var{R}, @var{I}] =} __gd_reduce__ (@var{what}, @var{G}, @var{args})
## gdArray's sum, prod, max, min and mean (internal), as Octave's: along
## the first dimension that is not 1, or the one given; sums and products
## in order, in single for single and in double for the other classes;
## max and min in G's class with the place of the first extreme, NaN
## skipped unless every element is NaN; mean the sum over the count.
## @end deftypefn

function [R, I] = __gd_reduce__ (what, G, args)
  codes = struct ("sum", 0, "prod", 1, "max", 2, "min", 3, "mean", 0, "cumsum", 0, "cumprod", 1);
  if (any (strcmp (what, {"cumsum", "cumprod"})))
    [R, I] = cumulative (codes.(what), G, args);
    return;
  endif
  extreme = any (strcmp (what, {"max", "min"}));
  if (extreme)
    args = args(2:end);
  endif
  if (! extreme && isequal (size (G), [0 0]))  # Octave's sum, prod and mean
    G = reshape (G, 0, 1);                        # take [] as 0 x 1
  endif
  sz = size (G);
  dim = dim_of (what, sz, args);
  I = [];
  if (dim > 2)                          # one element a place: itself
    R = G;
    if (! extreme && ! strcmp (classUnderlying (G), "single"))
      R = double (G);
    endif
    I = gdArray (ones (size (G)));
    return;
  endif
  if (extreme && size (G, dim) == 0)
    sz(dim) = 0;
    R = gdArray (zeros (sz, classUnderlying (G)));
    I = gdArray (zeros (sz));
    return;
  endif
  if (extreme && nargout > 1)
    [R, I] = __gd__ ("reduce", codes.(what), G, dim);
  else
    R = __gd__ ("reduce", codes.(what), G, dim);
  endif
  if (strcmp (what, "mean"))
    R = R ./ size (G, dim);
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
