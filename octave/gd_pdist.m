## -*- texinfo -*-
## @deftypefn  {} {@var{D} =} gd_pdist (@var{X})
## @deftypefnx {} {@var{D} =} gd_pdist (@var{X}, @var{metric})
## @deftypefnx {} {@var{D} =} gd_pdist (@dots{}, "Variant", @var{name})
## @deftypefnx {} {[@var{D}, @var{info}] =} gd_pdist (@dots{})
## @deftypefnx {} {} gd_pdist ("variants")
## Pairwise distances between the rows of @var{X}, on the GPU.
##
## @var{X} is n-by-d, one observation per row. @var{D} is the row vector of
## the n*(n-1)/2 distances in the order of the statistics package's
## @code{pdist}: (2,1), (3,1), @dots{}, (n,1), (3,2), @dots{}, (n,n-1).
## @code{gd_squareform (@var{D})} turns it into the n-by-n matrix.
##
## @var{metric} is @qcode{"euclidean"} (default) or
## @qcode{"squaredeuclidean"}. Each distance is computed as
## @code{sum ((x - y).^2)} (square-rooted for euclidean), never through the
## expanded |x|^2 + |y|^2 - 2*x*y', which cancels in single precision: a
## distance is never negative, identical rows give exactly 0 and a row with
## NaN gives NaN. single gives single, double gives double (computed in
## double). Fewer than 2 rows give @code{zeros (1, 0)}.
##
## "Variant": @qcode{"naive"} (one thread per pair through the triangular
## index map), @qcode{"tiled"} (32-observation subsets staged in shared
## memory, after the t-SNE article), @qcode{"tuned"} (register-tiled),
## @qcode{"cpu"} or @qcode{"auto"} (default). Large n is computed in
## panels of the triangle that fit the GPU's memory.
##
## Example:
## @example
## @group
## X = rand (1000, 300, "single");
## D = gd_pdist (X);
## S = gd_squareform (D);      # S(i,j) = norm (X(i,:) - X(j,:))
## @end group
## @end example
## @seealso{gd_pdist2, gd_squareform}
## @end deftypefn

function varargout = gd_pdist (varargin)
  if (nargout == 0 && nargin == 1 && ischar (varargin{1}))
    __gd_pdist__ (varargin{:});               # prints the variant list
  else
    [varargout{1:max (1, nargout)}] = __gd_pdist__ (varargin{:});
  endif
endfunction

%!shared X
%! X = randi ([-5 5], 9, 4);

%!function D = ref (X)
%!  n = rows (X); D = zeros (1, n * (n - 1) / 2, class (X)); t = 0;
%!  for j = 1:n-1
%!    for i = j+1:n
%!      D(++t) = sumsq (X(i,:) - X(j,:));
%!    endfor
%!  endfor
%!endfunction

%!test
%! warning ("off", "gd:nogpu", "local");
%! assert (gd_pdist (X, "squaredeuclidean"), ref (X));
%! assert (gd_pdist (X), sqrt (ref (X)));
%! assert (gd_pdist (single (X), "Variant", "cpu"), sqrt (ref (single (X))));
%!test
%! warning ("off", "gd:nogpu", "local");
%! assert (gd_pdist (zeros (1, 3)), zeros (1, 0));
%! assert (gd_pdist (zeros (0, 3, "single")), zeros (1, 0, "single"));
%! assert (gd_pdist (ones (3, 0)), zeros (1, 3));
%!test
%! warning ("off", "gd:nogpu", "local");
%! D = gd_pdist (single ([512695; 512804]), "squaredeuclidean");
%! assert (D, single (11881));
%!test
%! warning ("off", "gd:nogpu", "local");
%! D = gd_pdist ([1 2; NaN 0; 1 2]);
%! assert (all (isnan (D([1 3]))) && D(2) == 0);   # (2,1) (3,1) (3,2)
%!test
%! [D, info] = gd_pdist (X, "Variant", "cpu");
%! assert (info.ops, 36 * 4);
%! v = gd_pdist ("variants");
%! assert ({v.name}, {"naive", "tiled", "tuned", "cpu"});

%!error <expected a matrix X> gd_pdist ()
%!error <unknown metric 'cityblock'> gd_pdist (X, "cityblock")
%!error <unknown variant> gd_pdist (X, "euclidean", "Variant", "fast")
%!error <not int16> gd_pdist (int16 (X))
%!error <complex> gd_pdist (X * 1i)
