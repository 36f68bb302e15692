## -*- texinfo -*-
## @deftypefn  {} {@var{D} =} gd_pdist2 (@var{X}, @var{Y})
## @deftypefnx {} {@var{D} =} gd_pdist2 (@var{X}, @var{Y}, @var{metric})
## @deftypefnx {} {[@var{D}, @var{I}] =} gd_pdist2 (@dots{}, "Smallest", @var{K})
## @deftypefnx {} {[@var{D}, @var{I}] =} gd_pdist2 (@dots{}, "Largest", @var{K})
## @deftypefnx {} {@var{D} =} gd_pdist2 (@dots{}, "Variant", @var{name})
## @deftypefnx {} {[@var{D}, ~, @var{info}] =} gd_pdist2 (@dots{})
## @deftypefnx {} {[@var{D}, @var{I}, @var{info}] =} gd_pdist2 (@dots{}, "Smallest", @var{K})
## @deftypefnx {} {} gd_pdist2 ("variants")
## Distances between the rows of @var{X} (mx-by-d) and of @var{Y}
## (my-by-d), on the GPU: @code{D(i,j)} is the distance of @code{X(i,:)}
## and @code{Y(j,:)}, D is mx-by-my.
##
## @var{metric}: any of @code{gd_pdist}'s, with its parameter after it
## (@code{gd_pdist2 (X, Y, "minkowski", 3)}; seuclidean's scales and
## mahalanobis's covariance default to those of @var{X}). The Euclidean
## ones are computed as @code{sum ((x - y).^2)} (see @code{gd_pdist}):
## with @var{X} equal to @var{Y} the diagonal is exactly 0 (the
## statistics package's pdist2 uses the expanded form, which is not). A
## single and a double operand compute in single. @var{metric} may also
## be a function handle @var{f}: @code{@var{f} (X(i,:), Z)} returns the
## column of distances of row i of @var{X} to the rows @var{Z} of @var{Y}
## (the statistics package's call). It runs on the host (info.variant
## @qcode{"cpu"}), @var{Z} in chunks of at most 2^22 elements; D is
## double; with @qcode{"Smallest"} or @qcode{"Largest"} the K best are
## kept between blocks of rows of @var{X}, so no mx-by-my matrix is made.
## Logical operands are taken as double and sparse ones as full.
##
## Nearest neighbours: with @qcode{"Smallest"}, @var{K} (a positive whole
## number), @var{D} is K-by-my, column j holding the K smallest distances
## from @code{Y(j,:)} to the rows of @var{X} in ascending order, and
## @var{I} their rows of @var{X}, as MATLAB's pdist2 gives them; with
## @qcode{"Largest"}, the K largest in descending order. The order is
## exactly that of @code{[S, J] = sort (gd_pdist2 (X, Y), 1)} (or with
## @qcode{"descend"}): ties go to the smaller row, NaN comes last
## ascending and first descending. K larger than rows (X) gives rows (X)
## rows. The distances are those of the full matrix to the bit, but the
## mx-by-my matrix is never stored: each tile of distances is compared
## with every query's K-th best so far as the GPU computes it, so memory
## holds only the K-by-my result (10,000 queries against 1,000,000 points
## need no 40 GB matrix). @var{I} is double; @qcode{"IndexClass"},
## @qcode{"int32"} halves it. Variants: @qcode{"fused"} (the GPU),
## @qcode{"gemm"} (the GPU's tensor cores for the candidates, certified,
## then the exact distances: @qcode{"fused"}'s results to the bit;
## Euclidean, squared Euclidean and cosine (correlation and spearman
## too), @qcode{"Smallest"} or
## @qcode{"Largest"}, K up to 256; a
## query whose candidates overflow, and any other search, runs
## @qcode{"fused"}, which @code{info.kernel} says), @qcode{"cpu"} or
## @qcode{"auto"} (default). See also @code{gd_knnsearch},
## which returns them in knnsearch's orientation.
##
## "Variant" without @qcode{"Smallest"}: @qcode{"naive"},
## @qcode{"tuned"}, @qcode{"dmma"} (single on the FP64 tensor cores,
## correctly rounded, the Euclidean metrics and cosine: as in
## @code{gd_pdist}), @qcode{"cpu"} or
## @qcode{"auto"} (default).
## Any matrix argument may be a gdArray (data kept on the GPU); the result
## is then a gdArray, and nothing is copied back until @code{gather}.
## @var{info} then says which operands were resident (@code{resident}) and
## whether the result stayed on the GPU (@code{kept}).
##
## @var{info} is the struct of every gd operation (as for
## @code{gd_minplus}): here size [mx my d] for the mx x d @var{X} and my x
## d @var{Y} ([mx my d K] with @qcode{"Smallest"} or @qcode{"Largest"}),
## ops mx*my*d triples, rate in triples per second of kernel time
## (rate_unit @qcode{"triples/s"}).
##
## Example:
## @example
## @group
## X = randn (65536, 128, "single"); Y = randn (8192, 128, "single");
## [D, I] = gd_pdist2 (X, Y, "euclidean", "Smallest", 10);
## I(:,1)        # the 10 rows of X nearest to Y(1,:), nearest first
## @end group
## @end example
##
## "Devices": @qcode{"all"} (default, or GD_DEVICES's list) or a vector
## of device indices (@code{gd_info}'s @code{devices}): several devices
## each compute a panel of @var{D}'s columns (@var{Y}'s rows); with
## @qcode{"Smallest"} or @qcode{"Largest"}, each takes a range of the
## queries, or where @var{X} is the larger a range of @var{X}'s rows, the
## devices' lists then merged in the kernels' own order. Either way the
## result is the one-device result bit for bit. With gdArrays the call runs
## on the first one's device and leaves its results there; @var{D} alone
## divides as well when @qcode{"Devices"} is given (put together on the
## first device named, or with @qcode{"Distributed"}, @code{true} left
## in each device's panels, a distributed gdArray), the neighbour forms
## run on that device alone.
##
## With the environment variable @env{GD_VERBOSE} set to 1, each call
## prints its variant, device and times; one longer than 2 s also prints
## how far it is, about once a second (2: from its start). Ctrl-C stops a
## call within about a second (@qcode{"gd:interrupted"}).
##
## @seealso{gd_knnsearch, gd_pdist, gd_squareform, gdArray}
## @end deftypefn

function [R, I, varargout] = gd_pdist2 (varargin)
  ## named outputs: the lean path of a call (the gateway says which counts
  ## of outputs go with which options: [D, I] needs 'Smallest' or 'Largest')
  if (nargout == 0 && nargin == 1 && ischar (varargin{1}))
    __gd__ ("pdist2", varargin{:});                 # prints the variant list
    return;
  endif
  if (nargin >= 2 && (isa (varargin{1}, "gdCodistributed")
                      || isa (varargin{2}, "gdCodistributed")))
    ## across the ranks of a job
    [R, I, info] = __gd_ranks__ ("pdist2", varargin{:});
    varargout = {info};
    return;
  endif
  ## logical data as the statistics package takes it: as double
  for a = 1:min (nargin, 2)
    if (islogical (varargin{a}))
      varargin{a} = double (varargin{a});
    endif
    if (issparse (varargin{a}))
      varargin{a} = full (varargin{a});        # the rows are dense on the GPU
    endif
  endfor
  if (nargin >= 3 && is_function_handle (varargin{3}))
    if (nargout > 3)
      error ("gd:input", "gd_pdist2: too many outputs: [D, I, info]");
    endif
    [R, I, info] = __gd_handle_dist__ ("gd_pdist2", "pdist2", varargin{3}, varargin{1}, ...
                                       varargin{2}, varargin(4:end));
    if (nargout == 2 && numel (info.size) == 3)
      error ("gd:input", "gd_pdist2: [D, I] needs 'Smallest' or 'Largest' (I: the rows of the nearest); the info struct is the third output, [D, ~, info]");
    endif
    if (nargout > 2)
      varargout{1} = info;
    endif
    return;
  endif
  ## the statistics package's metrics on rows prepared for the kernels'
  if (nargin >= 3)
    [args, X, Y, zero] = __gd_prepare__ ("gd_pdist2", varargin{1}, varargin{2}, varargin(3:end));
    varargin = [{X, Y}, args];
    if (! isempty (zero))
      ## seuclidean with a scale of 0: each distance Inf or NaN
      [R, I, info] = __gd_zero_scale__ (zero, "pdist2", {X, Y}, args, nargout);
      if (nargout > 2)
        varargout{1} = info;
      endif
      return;
    endif
  endif
  if (nargout < 2)
    R = __gd__ ("pdist2", varargin{:});
  else
    [R, I, varargout{1:nargout-2}] = __gd__ ("pdist2", varargin{:});
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
%! assert ({v.name}, {"naive", "tuned", "dmma", "cpu"});
%!error <variant 'dmma' computes single> gd_pdist2 (rand (9, 3), rand (4, 3), "Variant", "dmma")

%!test
%! warning ("off", "gd:nogpu", "local");
%! F = gd_pdist2 (X, Y);
%! [S, J] = sort (F, 1);
%! [D, I] = gd_pdist2 (X, Y, "Smallest", 3);
%! assert (D, S(1:3,:));
%! assert (I, J(1:3,:));
%! [S, J] = sort (F, 1, "descend");
%! [D, I, info] = gd_pdist2 (X, Y, "euclidean", "Largest", 100);
%! assert (D, S);
%! assert (I, J);
%! assert (isstruct (info));
%! [~, I] = gd_pdist2 (X, Y, "Smallest", 2, "IndexClass", "int32");
%! assert (class (I), "int32");

%!error <positive whole number> gd_pdist2 (X, Y, "Smallest", 0)
%!error <positive whole number> gd_pdist2 (X, Y, "Smallest", 1.5)
%!error <positive whole number> gd_pdist2 (X, Y, "Smallest", -2)
%!error <positive whole number> gd_pdist2 (X, Y, "Smallest", "a")
%!error <cannot both be given> gd_pdist2 (X, Y, "Smallest", 1, "Largest", 1)
%!error <goes with 'Smallest'> gd_pdist2 (X, Y, "IndexClass", "int32")
%!error <expected matrices X and Y> gd_pdist2 (X)
%!error <\[D, I\] needs 'Smallest' or 'Largest'> [D, I] = gd_pdist2 (X, Y)
%!error <too many outputs> [D, I, info, z] = gd_pdist2 (X, Y)
%!test
%! [D, e, info] = gd_pdist2 (X, Y);
%! assert (isempty (e) && isstruct (info) && isequal (info.size, [rows(X) rows(Y) columns(X)]));
%!error <same number of columns> gd_pdist2 (X, X')
%!error <takes no parameter> gd_pdist2 (X, Y, "cosine", 2)
%!error <positive real scalar> gd_pdist2 (X, Y, "minkowski", -1)
%!error <symmetric positive definite> gd_pdist2 (X, Y, "mahalanobis", zeros (3))
%!error <unknown metric 'taxi'> gd_pdist2 (X, Y, "taxi")
%!test
%! ## seuclidean by its definition at scales 0 and Inf (gd_pdist's test),
%! ## the nearest first: Inf by index, then NaN; the index class asked
%! warning ("off", "gd:nogpu", "local");
%! A = [0 0 1; 1 0 2; 2 5 3; 3 5 NaN; 4 7 Inf];
%! B = [1 0 2; 3 6 3; 4 7 -Inf];
%! def = @(S) cell2mat (arrayfun (@(i) arrayfun (@(j) sqrt (sum (((A(i,:) - B(j,:)) ./ S).^2)), ...
%!                                          1:rows (B)), (1:rows (A)).', "UniformOutput", false));
%! for S = {[1 0 1], [0 0 1], [1 1 Inf], [2 Inf 0]}
%!   E = def (S{1});
%!   R = gd_pdist2 (single (A), single (B), "seuclidean", S{1});
%!   assert (class (R), "single");
%!   assert (isnan (R), isnan (E));
%!   assert (double (R(! isnan (E))), E(! isnan (E)), 1e-5 * max ([1; E(isfinite (E))]));
%!   [Dk, I] = gd_pdist2 (A, B, "seuclidean", S{1}, "Smallest", 4, "IndexClass", "int32");
%!   [Es, J] = sort (E, 1);
%!   assert (Dk, Es(1:4,:));
%!   assert (I, int32 (J(1:4,:)));
%!   [Dk, I] = gd_pdist2 (A, B, "seuclidean", S{1}, "Largest", 2);
%!   [Es, J] = sort (E, 1, "descend");
%!   assert (Dk, Es(1:2,:));
%!   assert (I, J(1:2,:));
%! endfor
%!test
%! warning ("off", "gd:nogpu", "local");
%! X = rand (20, 3); Y = rand (7, 3);
%! E = gd_pdist2 (X, Y);
%! assert (gd_pdist2 (X, Y, "Distributed", false), E);
%! assert (gather (gd_pdist2 (X, Y, "Distributed", true)), E);
%! assert (gd_pdist2 (X, Y, "Devices", 1), E);
%! assert (gd_pdist2 (X, Y, "cityblock", "Distributed", false), gd_pdist2 (X, Y, "cityblock"));
%!assert (gd_pdist2 (X > 0, Y > 0, "hamming"), gd_pdist2 (double (X > 0), double (Y > 0), "hamming"))

%!demo
%! ## every distance between two sets of points, then each query's two
%! ## nearest points (rows of X) without the whole matrix
%! X = [0 0; 1 0; 0 1; 5 5];  Y = [0.1 0.1; 4 4];
%! D = gd_pdist2 (X, Y)
%! [Dk, I] = gd_pdist2 (X, Y, "euclidean", "Smallest", 2)
%!test
%! ## a function handle: the statistics package's call, f (X(i,:), Y),
%! ## the K search that of sorting the whole matrix (stable: ties to the
%! ## smaller row; NaN last ascending, first descending)
%! X = randi (4, 50, 3); X(7,:) = NaN; Y = randi (4, 8, 3);
%! f = @(x, Z) max (abs (x - Z), [], 2) + 0.5 * (x(1) > Z(:,2));
%! full = zeros (50, 8);
%! for i = 1:50
%!   full(i,:) = f (X(i,:), Y)';
%! endfor
%! [D, ~, info] = gd_pdist2 (X, Y, f);
%! assert (D, full);
%! assert (info.variant, "cpu");
%! [s, i] = sort (full, 1);
%! [D, I] = gd_pdist2 (X, Y, f, "Smallest", 9);
%! assert ({D, I}, {s(1:9,:), i(1:9,:)});
%! [s, i] = sort (full, 1, "descend");
%! [D, I] = gd_pdist2 (single (X), Y, f, "Largest", 60, "IndexClass", "int32");
%! assert ({D, I}, {s, int32(i)});
%! assert (size (gd_pdist2 (zeros (0, 3), Y, f)), [0 8]);
%! assert (size (gd_pdist2 (X, zeros (0, 3), f, "Smallest", 2)), [2 0]);
%!error <\[D, I\] needs 'Smallest'> [D, I] = gd_pdist2 (rand (3, 2), rand (2, 2), @(x, Z) sum (Z, 2))
%!error <'Devices' does not apply> gd_pdist2 (rand (3, 2), rand (2, 2), @(x, Z) sum (Z, 2), "Devices", 1)
%!error <'Smallest' must be a positive whole number> gd_pdist2 (rand (3, 2), rand (2, 2), @(x, Z) sum (Z, 2), "Smallest", 0)
