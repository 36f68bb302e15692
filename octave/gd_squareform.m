## -*- texinfo -*-
## @deftypefn  {} {@var{S} =} gd_squareform (@var{D})
## @deftypefnx {} {@var{D} =} gd_squareform (@var{S})
## @deftypefnx {} {@dots{} =} gd_squareform (@dots{}, "tomatrix")
## @deftypefnx {} {@dots{} =} gd_squareform (@dots{}, "tovector")
## Convert between the condensed distance vector of @code{gd_pdist} and the
## square symmetric matrix, as the statistics package's squareform does.
##
## A vector of n*(n-1)/2 distances becomes the n-by-n matrix with zeros on
## the diagonal (a scalar s becomes @code{[0 s; s 0]}); a square matrix
## becomes the row vector of its lower triangle in @code{gd_pdist}'s
## order. A matrix with a non-zero diagonal is an error (it is no distance
## matrix); one that is not symmetric gives the warning
## @qcode{"gd:symmetric"} and its lower triangle. Without a direction a
## vector (a scalar included) converts to a matrix and anything else to a
## vector. The class is kept: single, double, integer and logical in give
## the same class out.
## A gdArray argument is transformed on the GPU and gives a gdArray.
##
## @seealso{gd_pdist, gdArray}
## @end deftypefn

function varargout = gd_squareform (varargin)
  ## varargout and varargin: wrong counts get gd:input, not Octave's own id
  if (nargin < 1 || nargin > 2 || nargout > 1)
    ## print_usage's text, with gd's id (print_usage itself takes 50 ms)
    error ("gd:input", ["Invalid call to gd_squareform.  Correct usage is:\n\n" ...
                        " -- S = gd_squareform (D)\n -- D = gd_squareform (S)\n" ...
                        " -- ... = gd_squareform (..., \"tomatrix\")\n" ...
                        " -- ... = gd_squareform (..., \"tovector\")"]);
  endif
  X = varargin{1};
  if (isa (X, "gdArray"))
    varargout{1} = resident_squareform (X, varargin{2:end});
    return;
  endif
  if (! (isnumeric (X) || islogical (X)) || ! isreal (X) || issparse (X) || ndims (X) != 2)
    error ("gd:input", "gd_squareform: the argument must be a real, full numeric or logical vector or matrix, not %s",
           ifelse_class (X));
  endif
  if (nargin == 2)
    direction = varargin{2};
    if (! ischar (direction) || rows (direction) != 1
        || ! any (strcmpi (direction, {"tomatrix", "tovector"})))
      error ("gd:input", "gd_squareform: direction must be 'tomatrix' or 'tovector'");
    endif
    tomatrix = strcmpi (direction, "tomatrix");
  else
    tomatrix = isvector (X);
  endif
  if (tomatrix)
    if (! (isvector (X) || isempty (X)))
      error ("gd:size", "gd_squareform: 'tomatrix' takes a vector, not a %dx%d matrix",
             rows (X), columns (X));
    endif
    P = numel (X);
    n = (1 + sqrt (1 + 8 * P)) / 2;
    if (n != fix (n))
      error ("gd:size", "gd_squareform: a vector of %d elements is no n*(n-1)/2", P);
    endif
    lower = tril (true (n), -1);
    if (islogical (X))
      Y = false (n);
      Y(lower) = X;
      Y = Y | Y.';
    else
      Y = zeros (n, class (X));
      Y(lower) = X;
      Y = Y + Y.';
    endif
  else
    if (rows (X) != columns (X))
      error ("gd:size", "gd_squareform: 'tovector' takes a square matrix, not %dx%d",
             rows (X), columns (X));
    endif
    if (any (diag (X) != 0))
      error ("gd:input", "gd_squareform: the matrix has a non-zero diagonal: it is no distance matrix");
    endif
    if (! isequaln (X, X.'))
      warning ("gd:symmetric", "gd_squareform: the matrix is not symmetric: its lower triangle is taken");
    endif
    Y = X(tril (true (rows (X)), -1)).';
    if (isempty (Y))
      Y = reshape (X([]), 1, 0);
    endif
  endif
  varargout{1} = Y;
endfunction

## on the GPU (or, with no GPU, on the host copy the gdArray holds): the
## same checks, messages and result, as a gdArray
function Y = resident_squareform (X, direction)
  sz = size (X);
  if (nargin == 2)
    if (! ischar (direction) || rows (direction) != 1
        || ! any (strcmpi (direction, {"tomatrix", "tovector"})))
      error ("gd:input", "gd_squareform: direction must be 'tomatrix' or 'tovector'");
    endif
    tomatrix = strcmpi (direction, "tomatrix");
  else
    tomatrix = any (sz == 1);
  endif
  if (tomatrix && ! any (sz == 1) && all (sz != 0))
    error ("gd:size", "gd_squareform: 'tomatrix' takes a vector, not a %dx%d matrix",
           sz(1), sz(2));
  endif
  Y = __gd__ ("squareform", X, tomatrix);
endfunction

function c = ifelse_class (X)
  if (iscell (X))
    c = "a cell array";
  elseif (isstruct (X))
    c = "a struct";
  elseif (! isreal (X))
    c = "complex";
  elseif (issparse (X))
    c = "sparse";
  elseif (ndims (X) != 2)
    c = sprintf ("%d-D", ndims (X));
  else
    c = class (X);
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
%!error <direction must be> gd_squareform ([1 2 3], ["tomatrix"; "tovector"])
%!error <direction must be> gd_squareform (ones (3), ["tovector"; "tovector"])
%!error <Invalid call to gd_squareform> gd_squareform ()
%!error <Invalid call> [S, T] = gd_squareform ([1 2 3])
%!error <Invalid call> gd_squareform ([1 2 3], "tovector", 1)
%!test
%! try, [S, T] = gd_squareform ([1 2 3]); catch err, assert (err.identifier, "gd:input"); end_try_catch
%! try, gd_squareform (); catch err, assert (err.identifier, "gd:input"); end_try_catch
%!assert (gd_squareform (7), [0 7; 7 0])
%!assert (gd_squareform (int8 ([1 2 3])), int8 ([0 1 2; 1 0 3; 2 3 0]))
%!assert (gd_squareform (logical ([1 0 1])), logical ([0 1 0; 1 0 1; 0 1 0]))
%!assert (gd_squareform (logical ([0 1 0; 1 0 1; 0 1 0])), logical ([1 0 1]))
%!assert (class (gd_squareform (uint16 (magic (3) - diag (diag (magic (3)))), "tovector")), "uint16")
%!error <gd_squareform: the matrix has a non-zero diagonal> gd_squareform ([1 2; 2 0])
%!warning <not symmetric> gd_squareform ([0 1; 2 0]);
%!test
%! warning ("off", "gd:symmetric", "local");
%! assert (gd_squareform ([0 1; 2 0]), 2);
%!error <'tovector' takes a square matrix> gd_squareform (ones (2, 3), "tovector")
%!test
%! ## gdArrays: the same result, as a gdArray, on the GPU where there is one
%! warning ("off", "gd:nogpu", "local");
%! for c = {"single", "double"}
%!   v = cast (randi (9, 1, 45), c{1});
%!   v(3) = -0;
%!   G = gd_squareform (gdArray (v));
%!   assert (isa (G, "gdArray"));
%!   S = gd_squareform (v);
%!   assert (isequal (gather (G), S) && isequal (class (gather (G)), c{1}));
%!   assert (1 ./ double (gather (G)(4, 1)), Inf);   # -0 + 0 is +0, as in Octave
%!   assert (isequal (gather (gd_squareform (G)), gd_squareform (S)));
%!   assert (isequal (gather (gd_squareform (gdArray (S), "tovector")), v + 0));
%! endfor
%! assert (gather (gd_squareform (gdArray (zeros (1, 0)))), 0);
%! assert (size (gather (gd_squareform (gdArray (0), "tovector"))), [1 0]);
%!error <non-zero diagonal> gd_squareform (gdArray ([1 2; 2 0]))
%!error <non-zero diagonal> gd_squareform (gdArray ([NaN 2; 2 0]))
%!error <no n\*\(n-1\)/2> gd_squareform (gdArray ([1 2]))
%!error <'tovector' takes a square matrix> gd_squareform (gdArray (ones (2, 3)), "tovector")
%!error <'tomatrix' takes a vector> gd_squareform (gdArray (ones (2, 3)), "tomatrix")
%!warning <not symmetric> gd_squareform (gdArray ([0 1; 2 0]));
%!error <argument must be> gd_squareform ("abc")
%!error <argument must be> gd_squareform ({1})
%!error <argument must be> gd_squareform (ones (2, 2, 2))
%!error <direction must be> gd_squareform ([1 2 3], ["tomatrix" char(0)])
%!test
%! if (exist ("squareform") == 2)    # the statistics package's, where loaded
%!   v = rand (1, 45);
%!   assert (gd_squareform (v), squareform (v));
%!   S = squareform (v);
%!   assert (gd_squareform (S), squareform (S));
%!   assert (gd_squareform (single (3)), squareform (single (3)));
%! endif

%!demo
%! ## pdist's condensed vector to the symmetric matrix and back
%! v = [1 2 3 4 5 6];
%! S = gd_squareform (v)
%! w = gd_squareform (S)
