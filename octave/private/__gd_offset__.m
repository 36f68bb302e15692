## -*- texinfo -*-
## @deftypefn {} {[@var{c}, @var{s}, @var{n}] =} __gd_offset__ (@var{X}, @var{s0}, @var{n0})
## The offset the prepared metrics (seuclidean, mahalanobis) move rows by
## before they scale them (internal): @var{c}, the columns' means over
## their finite values (0 where a column has none: rows less c are
## differenced as the rows are, but are small, so scaling them keeps the
## digits scaling the rows at an offset loses), from @var{s} and
## @var{n}, the columns' sums and counts of those values. The sums
## continue @var{s0} and @var{n0} (default 0) down X's rows in order
## (Octave's sum adds a column's elements in order), so that parts of one
## matrix summed one after another, each from the last one's sums, give
## the bits of one sum over the whole (gdCodistributed's ranks).
## @end deftypefn

function [c, s, n] = __gd_offset__ (X, s0 = [], n0 = [])
  X = double (gather (X));
  f = isfinite (X);
  X(! f) = 0;
  if (isempty (s0))
    s = sum (X, 1);
    n = sum (f, 1);
  else
    s = sum ([s0; X], 1);
    n = n0 + sum (f, 1);
  endif
  c = s ./ max (n, 1);
  c(! isfinite (c)) = 0;
endfunction
