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
## @var{metric} is any of the statistics package's (default
## @qcode{"euclidean"}), with its parameter after it as pdist takes it:
## @qcode{"euclidean"}, @qcode{"squaredeuclidean"} (also
## @qcode{"sqeuclidean"}), @qcode{"seuclidean"} (scales S, default
## @code{std (X)}), @qcode{"mahalanobis"} (covariance C, default
## @code{cov (X)}), @qcode{"cityblock"}, @qcode{"minkowski"} (exponent P,
## default 2; Inf is chebychev), @qcode{"chebychev"}, @qcode{"cosine"},
## @qcode{"correlation"}, @qcode{"spearman"}, @qcode{"hamming"},
## @qcode{"jaccard"}; or a function handle @var{f}, called as the
## statistics package calls it: @code{@var{f} (X(i,:), X(j:k,:))} returns
## the column of distances of row i to rows j to k. It runs on the host
## (info.variant @qcode{"cpu"}; no GPU), a row against the rows after it
## in chunks of at most 2^22 elements, and D is double, as the statistics
## package's; a result of the wrong size or an error in @var{f} raises
## @qcode{"gd:input"}. Logical @var{X} is taken as double and sparse as
## full (densified once: the GPU computes on dense rows).
## A row with NaN gives NaN with every metric (MATLAB's rule; the
## statistics package's hamming and jaccard refuse NaN); so does a
## feature where both rows hold the same infinity (Inf - Inf is NaN), in
## chebychev's maximum as in the sums. Zero rows give
## NaN for cosine, constant rows for correlation and spearman (0/0);
## cosine distances are never below 0. seuclidean and mahalanobis are
## euclidean distances of the rows scaled by 1 ./ S or transformed by
## @code{/ chol (C)}, correlation and spearman cosine distances of centred
## rows or centred ranks: the same as the statistics package's to
## rounding. The GPU variants compute the Euclidean two; @qcode{"tuned"}
## every metric, the cpu variant's distances bit for bit but for the
## Euclidean two and minkowski (the same sums in the same order, each
## product and sum rounded on its own; minkowski's powers are the GPU's,
## to rounding; jaccard in single up to 65535 features, past that on the
## @qcode{"cpu"} variant, which @qcode{"auto"} then chooses).
##
## The Euclidean distances are computed as @code{sum ((x - y).^2)}
## (square-rooted for euclidean), not through the expanded
## |x|^2 + |y|^2 - 2*x*y', which cancels in single precision (but on
## @qcode{"dmma"}, below, in double and certified): a distance
## is never negative, identical rows give exactly 0 and a row with NaN
## gives NaN. single gives single, double gives double (computed in
## double). Fewer than 2 rows give @code{zeros (1, 0)}.
##
## Accuracy: the statistics package's pdist takes @code{norm (x - y)},
## which scales its sum; gd's plain sum differs from it by a few ulp,
## more as d grows (measured on uniform random rows, either class: at
## most 2 ulp at d = 2, 3 at d = 10, 6 at d = 100, 14 at d = 500, 26 at d
## = 2000, in 40% to 90% of the elements). Neither is the more exact: in
## single against the exact distance gd was at most 2.2, 3.8, 8.8 and
## 16 ulp at d = 10, 100, 500 and 2000 (mean 0.4 to 2.9), the statistics
## package 2.5, 3.7, 9.2 and 18; against the correctly rounded single
## (uniform, normal, offset by 1e4 and clustered rows, d = 2 to 2000)
## @qcode{"tuned"} was correctly rounded in 0% to 100% of the pairs by
## data set (10% to 85% on uniform, normal and clustered rows), at most 21
## ulp off, and @qcode{"dmma"} in 100% of them, 0 ulp off. Where
## the plain sum would overflow or lose digits to
## underflow (rows 1e200 and -1e200, or 1e-200 apart) the pair is
## recomputed with Octave's scaled sum, so a finite distance is never
## Inf or 0.
##
## "Variant": @qcode{"naive"} (one thread per pair through the triangular
## index map), @qcode{"tiled"} (32-observation subsets staged in shared
## memory, after the t-SNE article), @qcode{"tuned"} (register-tiled),
## @qcode{"dmma"}, @qcode{"cpu"} or @qcode{"auto"} (default). Large n is
## computed in panels of the triangle that fit the GPU's memory.
##
## @qcode{"dmma"} (single, the Euclidean two, seuclidean and mahalanobis,
## cosine, correlation and spearman; sm_90 GPUs): the expanded form on the
## FP64 tensor cores, every product and sum in double (the Euclidean rows
## less their columns' means; cosine 1 - x.y / (|x| |y|)); a bound a pair
## certifies that the single is the correctly rounded distance, and the
## pairs it cannot certify (near-duplicate or nearly parallel rows, NaN,
## Inf, results past single's normal range) are summed as @code{sum ((x -
## y).^2)}, or |x/|x| - y/|y||^2 / 2 with the norms and quotients in
## double-double, in double and rounded once; @code{info.kernel} says how
## many. Its distances are correctly rounded but where that double sum
## lies within its own rounding of a midpoint (then 1 ulp off); identical
## rows give exactly 0. @qcode{"auto"} takes it in single for the
## Euclidean metrics from 128 features on such a GPU (faster there than
## @qcode{"tuned"}: 1.27x at 16384 x 300 on an H200), @qcode{"tuned"}
## below; not for cosine (1.22x at 16384 x 300 on uniform rows, but rows
## sharing a large offset are nearly parallel, and every such pair goes
## to the double sum). In double the expanded form is not taken: measured
## (bench/results/accuracy/double-host.md), it is within 4 to 16 ulp where
## rows lie apart but up to 4e8 ulp for clustered rows, and its bound
## certifies at most 1% of pairs within the plain sum's own error.
##
## Example:
## @example
## @group
## X = rand (1000, 300, "single");
## D = gd_pdist (X);
## S = gd_squareform (D);      # S(i,j) = norm (X(i,:) - X(j,:))
## @end group
## @end example
## Any matrix argument may be a gdArray (data kept on the GPU); the result
## is then a gdArray, and nothing is copied back until @code{gather}.
## @var{info} then says which operands were resident (@code{resident}) and
## whether the result stayed on the GPU (@code{kept}).
##
## @var{info} is the struct of every gd operation (as for
## @code{gd_minplus}): here size [n n d] for the n x d @var{X}, ops
## n*(n-1)/2*d (pair, feature) triples, rate in triples per second of
## kernel time (rate_unit @qcode{"triples/s"}).
##
## "Devices": @qcode{"all"} (default, or GD_DEVICES's list) or a vector
## of device indices (@code{gd_info}'s @code{devices}): several devices
## each compute the columns of the triangle that hold an equal share of
## the pairs, bit for bit what one device computes; @qcode{"all"} divides
## from 2^33 (pair, feature) steps a device. A gdArray @var{X} runs on
## its own device alone (or on the first device named), @var{D} left
## there; with @qcode{"Distributed"}, @code{true} it divides too, and
## each device's columns of @var{D} stay where it computed them (a
## distributed gdArray, see @code{gdArray}: nothing gathered onto one
## device).
##
## With the environment variable @env{GD_VERBOSE} set to 1, each call
## prints its variant, device and times; one longer than 2 s also prints
## how far it is, about once a second (2: from its start). Ctrl-C stops a
## call within about a second (@qcode{"gd:interrupted"}).
##
## @seealso{gd_pdist2, gd_squareform, gdArray}
## @end deftypefn

function [R, info, varargout] = gd_pdist (varargin)
  ## named outputs: the lean path of a call (a third output reaches the
  ## gateway, which says too many)
  if (nargout == 0 && nargin == 1 && ischar (varargin{1}))
    __gd__ ("pdist", varargin{:});                 # prints the variant list
    return;
  endif
  if (nargin >= 1 && isa (varargin{1}, "gdCodistributed"))
    [R, info] = __gd_ranks__ ("pdist", varargin{:});   # across the ranks of a job
    return;
  endif
  ## logical data as the statistics package takes it: as double
  if (nargin >= 1 && islogical (varargin{1}))
    varargin{1} = double (varargin{1});
  endif
  if (nargin >= 1 && issparse (varargin{1}))
    varargin{1} = full (varargin{1});          # the rows are dense on the GPU
  endif
  if (nargin >= 2 && is_function_handle (varargin{2}))
    if (nargout > 2)
      error ("gd:input", "gd_pdist: too many outputs: [D, info]");
    endif
    [R, ~, info] = __gd_handle_dist__ ("gd_pdist", "pdist", varargin{2}, varargin{1}, [], ...
                                       varargin(3:end));
    return;
  endif
  ## the statistics package's metrics on rows prepared for the kernels'
  if (nargin >= 2)
    [args, X, ~, zero] = __gd_prepare__ ("gd_pdist", varargin{1}, [], varargin(2:end));
    varargin = [{X}, args];
    if (! isempty (zero))
      ## seuclidean with a scale of 0: each distance Inf or NaN
      [R, ~, info] = __gd_zero_scale__ (zero, "pdist", {X}, args, nargout);
      return;
    endif
  endif
  if (nargout < 2)
    R = __gd__ ("pdist", varargin{:});
  else
    [R, info, varargout{1:nargout-2}] = __gd__ ("pdist", varargin{:});
  endif
endfunction

%!test
%! ## logical data, as the statistics package takes it (as double)
%! warning ("off", "gd:nogpu", "local");
%! L = logical ([1 0 1 1; 0 1 1 0; 1 1 0 0; 0 0 0 1]);
%! for m = {"jaccard", "hamming", "euclidean", "cityblock"}
%!   assert (gd_pdist (L, m{1}), gd_pdist (double (L), m{1}));
%!   assert (gd_pdist2 (L, L(1:2,:), m{1}), gd_pdist2 (double (L), double (L(1:2,:)), m{1}));
%! endfor
%! assert (gd_pdist (L, "jaccard"), [3/4 3/4 2/3 2/3 1 1], eps);   # the statistics package's
%! assert (islogical (L));
%! assert (gd_knnsearch (L, L(1,:), "K", 1, "Distance", "hamming"), 1);

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
%! assert ({v.name}, {"naive", "tiled", "tuned", "dmma", "cpu"});

%!error <expected a matrix X> gd_pdist ()
%!test
%! ## minkowski's P = 1, 2 and Inf are cityblock, euclidean and chebychev
%! warning ("off", "gd:nogpu", "local");
%! assert (gd_pdist (X, "minkowski", 1), gd_pdist (X, "cityblock"));
%! assert (gd_pdist (X, "minkowski"), gd_pdist (X, "euclidean"));
%! assert (gd_pdist (X, "minkowski", Inf), gd_pdist (X, "chebychev"));
%! D = gd_pdist (X, "minkowski", 3);
%! assert (D(1), sum (abs (X(2,:) - X(1,:)).^3) ^ (1/3), 1e-12);
%!error <takes no parameter> gd_pdist (X, "cityblock", 3)
%!error <positive real scalar> gd_pdist (X, "minkowski", 0)
%!error <needs at least 2 columns> gd_pdist (X(:,1), "correlation")
%!error <the others run on 'tuned' and 'cpu'> gd_pdist (X, "cosine", "Variant", "naive")
%!error <variant 'dmma' computes single> gd_pdist (rand (9, 3), "Variant", "dmma")
%!error <squaredeuclidean metrics and cosine .correlation, spearman.; the others run on 'tuned' and 'cpu'> gd_pdist (single (X), "cityblock", "Variant", "dmma")
%!error <unknown metric 'taxi'> gd_pdist (X, "taxi", 3)
%!test
%! ## every option where a name may stand, 'Distributed' and 'Devices' too
%! warning ("off", "gd:nogpu", "local");
%! X = rand (20, 3);
%! E = gd_pdist (X);
%! assert (gd_pdist (X, "Distributed", false), E);
%! assert (gather (gd_pdist (X, "Distributed", true)), E);
%! assert (gd_pdist (X, "Devices", 1, "Variant", "auto"), E);
%! assert (gd_pdist (X, "euclidean", "Distributed", false), E);
%!test
%! ## a function handle: the statistics package's call and order, on the
%! ## host; D double whatever X's class
%! X = randn (23, 4); f = @(x, Z) sum (abs (x - Z) .^ 1.5, 2);
%! ref = zeros (1, 0);
%! for i = 1:22
%!   ref = [ref, f(X(i,:), X(i+1:end,:))'];
%! endfor
%! [D, info] = gd_pdist (X, f);
%! assert (D, ref);
%! assert (info.variant, "cpu");
%! ## the info of every gd operation, field for field
%! [~, info0] = gd_pdist (X);
%! assert (fieldnames (info), fieldnames (info0));
%! assert (gd_pdist (single (X), f), double (gd_pdist (single (X), f)));
%! assert (class (gd_pdist (single (X), f)), "double");
%! assert (gd_pdist (X(1,:), f), zeros (1, 0));
%! assert (gd_pdist (sparse (X), f), ref);
%!error <the distance function must return a real column of 22> gd_pdist (rand (23, 2), @(x, Z) 1)
%!error <the distance function failed> gd_pdist (rand (3, 2), @(x, Z) undefined_thing (x))
%!error <'Variant' must be 'auto' or 'cpu'> gd_pdist (rand (3, 2), @(x, Z) sum (Z, 2), "Variant", "tuned")
%!error <unknown option 'Smallest'> gd_pdist (rand (3, 2), @(x, Z) sum (Z, 2), "Smallest", 2)
%!error <metric must be a character row without NUL> gd_pdist (X, ["euclidean" char(0)])
%!error <value of 'Variant' must be> gd_pdist (X, "Variant", ["cpu" char(0) "x"])
%!assert (gd_pdist (X, "sqeuclidean", "Variant", "cpu"), gd_pdist (X, "squaredeuclidean", "Variant", "cpu"))
%!test
%! ## the plain sum would overflow or underflow: recomputed scaled, as norm does
%! for v = {"cpu", "auto"}
%!   warning ("off", "gd:nogpu", "local");
%!   assert (gd_pdist ([1e200; -1e200; 0], "Variant", v{1}), [2e200 1e200 1e200], -4 * eps);
%!   assert (gd_pdist ([1e-200 0; 0 1e-200; 0 0], "Variant", v{1}), [sqrt(2)*1e-200 1e-200 1e-200], -4 * eps);
%!   assert (gd_pdist (single ([1e30; -1e30; 0]), "Variant", v{1}), single ([2e30 1e30 1e30]), -4 * eps ("single"));
%!   assert (gd_pdist2 ([1e200 0], [-1e200 1], "Variant", v{1}), 2e200, -4 * eps);
%!   assert (gd_pdist ([1e200 1; 1e200 1]), 0);
%!   assert (gd_pdist ([Inf 0; 0 0; NaN 0]), [Inf NaN NaN]);
%! endfor
%!test
%! if (exist ("pdist") == 2)         # the statistics package's, where loaded
%!   warning ("off", "gd:nogpu", "local");
%!   Y = randn (50, 7);
%!   assert (gd_pdist (Y), pdist (Y), -8 * eps);
%!   assert (gd_pdist (single (Y)), single (pdist (Y)), -8 * eps ("single"));
%! endif
%!test
%! ## seuclidean by its definition, sqrt (sum (((x - y) ./ S).^2)), at
%! ## scales 0 and Inf: a zero-scale column where x and y differ adds Inf,
%! ## where they are equal (or NaN) NaN; a scale of Inf adds 0, or NaN
%! ## where x - y is not finite
%! warning ("off", "gd:nogpu", "local");
%! def = @(X, S) arrayfun (@(i, j) sqrt (sum (((X(i,:) - X(j,:)) ./ S).^2)), ...
%!                         nchoosek (1:rows (X), 2)(:,1), nchoosek (1:rows (X), 2)(:,2)).';
%! V = [0 0; 1 1; 2 5];
%! assert (gd_pdist (V, "seuclidean", [1 0]), [Inf Inf Inf]);
%! assert (gd_pdist (V, "seuclidean", [1 0]), def (V, [1 0]));
%! V = [0 0 1; 1 0 2; 2 5 3; 3 5 NaN; 4 7 Inf; 4 7 -Inf];
%! for S = {[1 0 1], [0 0 1], [1 1 Inf], [1 0 Inf], [0 0 0], [2 Inf 0]}
%!   for c = {"double", "single"}
%!     Z = cast (V, c{1});
%!     R = gd_pdist (Z, "seuclidean", S{1});
%!     assert (class (R), c{1});
%!     E = def (double (Z), S{1});
%!     assert (isnan (R), isnan (E));
%!     assert (double (R(! isnan (E))), E(! isnan (E)), 1e-6 * max ([1 E(isfinite (E))]));
%!   endfor
%! endfor
%! ## a constant column's default scale, std, is 0: every pair NaN (0/0)
%! assert (all (isnan (gd_pdist ([1 2; 1 5; 1 9], "seuclidean"))));
%!error <unknown variant> gd_pdist (X, "euclidean", "Variant", "fast")
%!error <not int16> gd_pdist (int16 (X))
%!error <complex> gd_pdist (X * 1i)

%!demo
%! ## the distances between five points in the plane, in pdist's
%! ## condensed order, then as a matrix
%! X = [0 0; 3 4; 6 8; 0 1; 1 0];
%! D = gd_pdist (X)
%! S = gd_squareform (D)
%! C = gd_pdist (X, "cityblock")
