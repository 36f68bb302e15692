## -*- texinfo -*-
## @deftypefn  {} {@var{D} =} gd_pdist2 (@var{X}, @var{Y})
## @deftypefnx {} {@var{D} =} gd_pdist2 (@var{X}, @var{Y}, @var{metric})
## @deftypefnx {} {@var{D} =} gd_pdist2 (@dots{}, "Variant", @var{name})
## @deftypefnx {} {[@var{D}, @var{info}] =} gd_pdist2 (@dots{})
## @deftypefnx {} {} gd_pdist2 ("variants")
## Distances between the rows of @var{X} (mx-by-d) and of @var{Y}
## (my-by-d), on the GPU: @code{D(i,j)} is the distance of @code{X(i,:)}
## and @code{Y(j,:)}, D is mx-by-my.
##
## @var{metric}: @qcode{"euclidean"} (default) or @qcode{"squaredeuclidean"},
## computed as @code{sum ((x - y).^2)} (see @code{gd_pdist}): with
## @var{X} equal to @var{Y} the diagonal is exactly 0 (the statistics
## package's pdist2 uses the expanded form, which is not). A single and a
## double operand compute in single.
##
## "Variant": @qcode{"naive"}, @qcode{"tuned"}, @qcode{"cpu"} or
## @qcode{"auto"} (default).
## Any matrix argument may be a gdArray (data kept on the GPU); the result
## is then a gdArray, and nothing is copied back until @code{gather}.
## @var{info} then says which operands were resident (@code{resident}) and
## whether the result stayed on the GPU (@code{kept}).
##
## @seealso{gd_pdist, gd_squareform, gdArray}
## @end deftypefn

function [R, info, varargout] = gd_pdist2 (varargin)
  ## named outputs: the lean path of a call (a third output reaches the
  ## gateway, which says too many)
  if (nargout < 2)
    if (nargout == 0 && nargin == 1 && ischar (varargin{1}))
      __gd__ ("pdist2", varargin{:});              # prints the variant list
      return;
    endif
    R = __gd__ ("pdist2", varargin{:});
  else
    [R, info, varargout{1:nargout-2}] = __gd__ ("pdist2", varargin{:});
  endif
endfunction

%!shared X, Y
%! X = randi ([-5 5], 7, 3); Y = randi ([-5 5], 4, 3);

%!test
%! warning ("off", "gd:nogpu", "local");
%! E = zeros (7, 4);
%! for i = 1:7, for j = 1:4, E(i,j) = sumsq (X(i,:) - Y(j,:)); end, end
%! assert (gd_pdist2 (X, Y, "squaredeuclidean"), E);
%! assert (gd_pdist2 (X, Y), sqrt (E));
%! assert (class (gd_pdist2 (single (X), Y)), "single");
%!test
%! warning ("off", "gd:nogpu", "local");
%! D = gd_pdist2 (X, X);
%! assert (diag (D), zeros (7, 1));
%! assert (gd_pdist2 (zeros (2, 0), zeros (3, 0)), zeros (2, 3));
%!test
%! v = gd_pdist2 ("variants");
%! assert ({v.name}, {"naive", "tuned", "cpu"});

%!error <expected matrices X and Y> gd_pdist2 (X)
%!error <same number of columns> gd_pdist2 (X, X')
%!error <metric 'cosine' does not run in gd> gd_pdist2 (X, Y, "cosine")
%!error <unknown metric 'taxi'> gd_pdist2 (X, Y, "taxi")
%!error <not logical> gd_pdist2 (X, Y > 0)
