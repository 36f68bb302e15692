## -*- texinfo -*-
## @deftypefn {} {[@var{I}, @var{J}, @var{r}, @var{c}] =} __gd_index__ (@var{sz}, @var{subs})
## Internal: the elements @code{G(subs@{:@})} of a gdArray of size @var{sz}
## as lists of 1-based indices, for the gather on the device: rows @var{I}
## and columns @var{J} (two subscripts), or the linear positions @var{I}
## with @var{J} empty (one subscript); the result is @var{r} x @var{c}.
## Octave's rules: ':', numbers, ranges, logical masks (a mask longer than
## the dimension only where its extra elements are false), the shape of a
## linear index (a vector of a vector takes the array's orientation, else
## the index's shape), and Octave's errors and identifiers, naming G.
## @end deftypefn

function [I, J, r, c] = __gd_index__ (sz, subs)
  m = sz(1);
  n = prod (sz(2:end));
  if (numel (subs) == 1)
    N = m * n;
    k = subs{1};
    J = [];
    if (ischar (k) && strcmp (k, ":"))
      I = (1:N)';
      r = N;
      c = 1;
      return;
    endif
    kk = checked (k, N, @(v) sprintf ("G(%s)", v), m, n);
    if ((m == 1 || n == 1) && N != 1 && isvector (kk))
      if (m == 1)
        r = 1;
        c = numel (kk);
      else
        r = numel (kk);
        c = 1;
      endif
    elseif (ndims (kk) > 2)
      error ("gd:input", "gdArray: a gdArray is 2-D: its linear index must be a vector or a matrix");
    else
      [r, c] = size (kk);
    endif
    I = kk(:);
  else
    I = along (subs{1}, m, @(v) sprintf ("G(%s,_)", v), m, n);
    J = along (subs{2}, n, @(v) sprintf ("G(_,%s)", v), m, n);
    r = numel (I);
    c = numel (J);
    ## G(i, j, 1, ...): a 2-D array's later dimensions have length 1
    for t = 3:numel (subs)
      name = @(v) sprintf ("G(%s%s)", repmat ("_,", 1, t - 1), v);
      if (numel (along (subs{t}, 1, name, m, n)) != 1)
        error ("gd:input", "gdArray: a gdArray is 2-D: its subscripts past the second must each be 1 or ':'");
      endif
    endfor
  endif
endfunction

## one subscript's positions along a dimension of length len, a column
function L = along (k, len, name, m, n)
  if (ischar (k) && strcmp (k, ":"))
    L = (1:len)';
  else
    L = checked (k, len, name, m, n);
    L = L(:);
  endif
endfunction

## k as 1-based positions up to bound (a mask as find gives them), or
## Octave's error naming G
function kk = checked (k, bound, name, m, n)
  if (islogical (k))
    if (numel (k) > bound)
      last = find (k(:), 1, "last");
      if (last > bound)
        error ("Octave:index-out-of-bounds", "%s: out of bound %d (dimensions are %dx%d)",
               name (value (last)), bound, m, n);
      endif
    endif
    kk = find (k);
  elseif ((isnumeric (k) || ischar (k)) && isreal (k))
    kk = full (double (k));     # (a sparse subscript: its values)
    bad = kk(! (kk == fix (kk) & kk >= 1 & kk < 2^63));
    if (! isempty (bad))
      error ("Octave:invalid-index",
             "%s: subscripts must be either integers 1 to (2^63)-1 or logicals",
             name (value (bad(1))));
    endif
    if (any (kk(:) > bound))
      error ("Octave:index-out-of-bounds", "%s: out of bound %d (dimensions are %dx%d)",
             name (value (max (kk(:)))), bound, m, n);
    endif
  else
    error ("Octave:invalid-index",
           "%s: subscripts must be either integers 1 to (2^63)-1 or logicals",
           name (sprintf ("<%s>", class (k))));
  endif
endfunction

## a subscript's value as Octave's messages write it
function t = value (v)
  if (isnan (v))
    t = "nan";
  elseif (isinf (v) && v > 0)
    t = "inf";
  elseif (isinf (v))
    t = "-inf";
  elseif (v == fix (v) && abs (v) < 2^63)
    t = sprintf ("%d", v);
  else
    t = sprintf ("%g", v);
  endif
endfunction
