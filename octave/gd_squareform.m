## -*- texinfo -*-
## @deftypefn  {} {@var{S} =} gd_squareform (@var{D})
## @deftypefnx {} {@var{D} =} gd_squareform (@var{S})
## @deftypefnx {} {@dots{} =} gd_squareform (@dots{}, "tomatrix")
## @deftypefnx {} {@dots{} =} gd_squareform (@dots{}, "tovector")
## Convert between the condensed distance vector of @code{gd_pdist} and the
## square symmetric matrix, like the statistics package's squareform.
##
## A vector of n*(n-1)/2 distances becomes the n-by-n matrix with zeros on
## the diagonal; a square matrix becomes the row vector of its lower
## triangle in @code{gd_pdist}'s order. A scalar or an empty argument is
## ambiguous: give the direction. The class is kept.
## @seealso{gd_pdist}
## @end deftypefn

function Y = gd_squareform (X, direction)
  if (nargin < 1 || nargin > 2)
    error ("gd:input", "gd_squareform: expected D or S, and optionally 'tomatrix' or 'tovector'");
  endif
  if (! (isnumeric (X) || islogical (X)) || ! ismatrix (X) || ndims (X) != 2)
    error ("gd:input", "gd_squareform: the argument must be a numeric vector or matrix");
  endif
  if (nargin == 2)
    if (! ischar (direction) || ! any (strcmpi (direction, {"tomatrix", "tovector"})))
      error ("gd:input", "gd_squareform: direction must be 'tomatrix' or 'tovector'");
    endif
    tomatrix = strcmpi (direction, "tomatrix");
  else
    tomatrix = isvector (X) && ! isscalar (X);
  endif
  if (tomatrix)
    if (! (isvector (X) || isempty (X)))
      error ("gd:size", "gd_squareform: 'tomatrix' takes a vector");
    endif
    P = numel (X);
    n = (1 + sqrt (1 + 8 * P)) / 2;
    if (n != fix (n))
      error ("gd:size", "gd_squareform: a vector of %d elements is no n*(n-1)/2", P);
    endif
    Y = zeros (n, class (X));
    Y(tril (true (n), -1)) = X;
    Y = Y + Y.';
  else
    if (rows (X) != columns (X))
      error ("gd:size", "gd_squareform: 'tovector' takes a square matrix, not %dx%d",
             rows (X), columns (X));
    endif
    Y = X(tril (true (rows (X)), -1)).';
    if (isempty (Y))
      Y = zeros (1, 0, class (X));
    endif
  endif
endfunction

%!test
%! D = [1 2 3 4 5 6];
%! S = gd_squareform (D);
%! assert (S, [0 1 2 3; 1 0 4 5; 2 4 0 6; 3 5 6 0]);
%! assert (gd_squareform (S), D);
%!assert (gd_squareform (single ([7 8 9])), single ([0 7 8; 7 0 9; 8 9 0]))
%!assert (gd_squareform (zeros (1, 0), "tomatrix"), 1 * zeros (1))
%!assert (gd_squareform (5, "tomatrix"), [0 5; 5 0])
%!assert (gd_squareform (0, "tovector"), zeros (1, 0))
%!error <no n\*\(n-1\)/2> gd_squareform ([1 2])
%!error <square matrix> gd_squareform (ones (2, 3))
%!error <direction> gd_squareform ([1 2 3], "up")
%!error <expected D or S> gd_squareform ()
