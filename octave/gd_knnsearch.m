## -*- texinfo -*-
## @deftypefn  {} {@var{Idx} =} gd_knnsearch (@var{X}, @var{Y})
## @deftypefnx {} {[@var{Idx}, @var{D}] =} gd_knnsearch (@var{X}, @var{Y}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {[@var{Idx}, @var{D}, @var{info}] =} gd_knnsearch (@dots{})
## @deftypefnx {} {} gd_knnsearch ("variants")
## The K nearest rows of @var{X} to each row of @var{Y}, on the GPU, in
## the orientation of the statistics package's @code{knnsearch}:
## @var{Idx} and @var{D} are rows (Y)-by-K, row j holding the rows of
## @var{X} nearest to @code{Y(j,:)} and their distances, nearest first.
##
## Options:
## @table @asis
## @item @qcode{"K"}
## the number of neighbours (default 1); more than rows (X) gives rows (X).
## @item @qcode{"Distance"}
## @qcode{"euclidean"} (default) or any metric of @code{gd_pdist}
## (@qcode{"squaredeuclidean"}, @qcode{"seuclidean"},
## @qcode{"mahalanobis"}, @qcode{"cityblock"}, @qcode{"minkowski"},
## @qcode{"chebychev"}, @qcode{"cosine"}, @qcode{"correlation"},
## @qcode{"spearman"}, @qcode{"hamming"}, @qcode{"jaccard"}), or a
## function handle @var{f}: @code{@var{f} (@var{x}, @var{Z})} with
## @var{x} one row of @var{X} and @var{Z} rows of @var{Y} returns a
## column of their distances (the statistics package's call, as
## @code{gd_pdist2}'s). A function handle runs on the host (info.variant
## @qcode{"cpu"}), @var{Z} in chunks of at most 2^22 elements and the K
## best kept between blocks of @var{X} (no rows (X) x rows (Y) matrix);
## its distances are double.
## @item @qcode{"P"}, @qcode{"Scale"}, @qcode{"Cov"}
## the exponent of @qcode{"minkowski"} (default 2), the scales of
## @qcode{"seuclidean"} (default @code{std (X)}), the covariance of
## @qcode{"mahalanobis"} (default @code{cov (X)}); each only with its
## metric.
## @item @qcode{"SortIndices"}
## true (default) or false; gd always returns the neighbours sorted,
## which false allows.
## @item @qcode{"IndexClass"}
## @qcode{"double"} (default, as knnsearch) or @qcode{"int32"}.
## @item @qcode{"Variant"}
## @qcode{"fused"}, @qcode{"gemm"} (Euclidean, squared Euclidean and
## cosine (correlation, spearman), K up to 256: candidates from the tensor cores, certified, then the exact
## distances: @qcode{"fused"}'s results to the bit), @qcode{"cpu"} or
## @qcode{"auto"} (default; @qcode{"gemm"} where it serves a large search).
## @item @qcode{"Devices"}
## @qcode{"all"} (default, or GD_DEVICES's list) or a vector of device
## indices: several devices divide the queries, or the points where
## @var{X} is the larger (their lists merged), as @code{gd_pdist2} does.
## With gdArrays, the first one's device alone (or the first named).
## @item @qcode{"IncludeTies"}
## false (default) or true: every point at a distance equal to the K-th
## too. @var{Idx} and @var{D} are then rows (Y)-by-1 cell arrays, cell j
## a row of the neighbours of @code{Y(j,:)}, nearest first, ties to the
## smaller index (host arrays, also from gdArrays). A K-th distance of
## NaN ties with nothing.
## @item @qcode{"NSMethod"}, @qcode{"BucketSize"}
## the search structure of the statistics package's knnsearch:
## @qcode{"exhaustive"}, @qcode{"kdtree"} or @qcode{"hnsw"}, and a
## positive whole leaf size, checked and not used: gd compares every pair
## (an exhaustive search, exact), whichever is named, so that a call
## written for the statistics package runs unchanged and gives the exact
## answer.
## @end table
##
## Logical @var{X} and @var{Y} are taken as double, sparse ones as full
## (the statistics package converts them likewise).
##
## The distances and the order are @code{gd_pdist2}'s with
## @qcode{"Smallest"}: exactly those of sorting each column of the full
## distance matrix with a stable sort (ties go to the smaller row), which
## is never stored. @code{gd_knnsearch (X, X, "K", k)} gives each point
## itself first (its distance is exactly 0), unless an identical row of
## @var{X} comes before it. Any matrix argument may be a gdArray; the
## results are then gdArrays.
##
## @var{info} is the struct of every gd operation (as for
## @code{gd_minplus}): here size [mx my d K] for the mx x d @var{X} (the
## points) and my x d @var{Y} (the queries), ops mx*my*d triples, rate in
## triples per second of kernel time (rate_unit @qcode{"triples/s"}).
##
## Example: the 15 nearest neighbours of every point, for t-SNE's
## affinities
## @example
## @group
## X = randn (20000, 50, "single");
## [Idx, D] = gd_knnsearch (X, X, "K", 16);
## Idx = Idx(:, 2:end); D = D(:, 2:end);   # without each point itself
## @end group
## @end example
##
## With the environment variable @env{GD_VERBOSE} set to 1, each call
## prints its variant, device and times; one longer than 2 s also prints
## how far it is, about once a second (2: from its start). Ctrl-C stops a
## call within about a second (@qcode{"gd:interrupted"}).
##
## @seealso{gd_pdist2, gd_pdist, gdArray}
## @end deftypefn

function [Idx, D, info, varargout] = gd_knnsearch (X, Y, varargin)
  if (nargout > 3)
    error ("gd:input", "gd_knnsearch: too many outputs (at most Idx, D and info)");
  endif
  if (nargin == 1 && ischar (X) && strcmpi (X, "variants"))
    if (nargout > 1)
      error ("gd:input", "gd_knnsearch: too many outputs (the variants are one struct array)");
    elseif (nargout == 0)
      __gd__ ("knn", "variants");
    else
      Idx = __gd__ ("knn", "variants");
    endif
    return;
  endif
  if (nargin < 2)
    error ("gd:input", "gd_knnsearch: expected X and Y (see help gd_knnsearch)");
  endif
  if (isa (X, "gdCodistributed") || isa (Y, "gdCodistributed"))
    [Idx, D, info] = __gd_ranks__ ("knnsearch", X, Y, varargin{:});   # across the ranks
    return;
  endif
  if (mod (numel (varargin), 2))
    error ("gd:input", "gd_knnsearch: options come in name/value pairs");
  endif
  ## logical data as the statistics package takes it: as double
  if (islogical (X))
    X = double (X);
  endif
  if (islogical (Y))
    Y = double (Y);
  endif
  if (issparse (X))
    X = full (X);                       # the rows are dense on the GPU
  endif
  if (issparse (Y))
    Y = full (Y);
  endif
  OPTIONS = {"K", "Distance", "P", "Scale", "Cov", "SortIndices", "IndexClass", "Variant", ...
             "Devices", "IncludeTies", "NSMethod", "BucketSize"};
  K = 1;
  metric = "euclidean";
  variant = "auto";
  iclass = "double";
  ties = false;
  P = []; Scale = []; Cov = [];
  set = struct ("p", false, "scale", false, "cov", false);
  devices = {};
  for a = 1:2:numel (varargin)
    name = varargin{a};
    value = varargin{a+1};
    if (! ischar (name) || rows (name) > 1)
      error ("gd:input", "gd_knnsearch: option names are text, not %s", class (name));
    endif
    known = strcmpi (name, OPTIONS);
    if (! any (known))
      error ("gd:input", "gd_knnsearch: unknown option '%s' (options: %s)", name, strjoin (OPTIONS, ", "));
    endif
    switch (OPTIONS{known})
      case "K"
        K = value;
      case "Distance"
        metric = value;
      case "P"
        P = value;
        set.p = true;
      case "Scale"
        Scale = value;
        set.scale = true;
      case "Cov"
        Cov = value;
        set.cov = true;
      case {"SortIndices", "IncludeTies"}
        if (! (isscalar (value) && (islogical (value) || (isnumeric (value) && isreal (value)))
               && (value == 0 || value == 1)))
          error ("gd:input", "gd_knnsearch: '%s' must be true or false", OPTIONS{known});
        endif
        if (strcmp (OPTIONS{known}, "IncludeTies"))
          ties = logical (value);
        endif
      case "IndexClass"
        iclass = value;
      case "Variant"
        variant = value;
      case "Devices"
        devices = {"Devices", value};
      case "NSMethod"
        if (! (ischar (value) && rows (value) == 1
               && any (strcmpi (value, {"exhaustive", "kdtree", "hnsw"}))))
          error ("gd:input", "gd_knnsearch: 'NSMethod' must be 'exhaustive', 'kdtree' or 'hnsw' (gd's search is exhaustive and exact whichever is named)");
        endif
      case "BucketSize"
        if (! (isnumeric (value) && isreal (value) && isscalar (value) && value >= 1
               && value == fix (value)))
          error ("gd:input", "gd_knnsearch: 'BucketSize' must be a positive whole number (a k-d tree's leaf size, which gd's exhaustive search does not use)");
        endif
    endswitch
  endfor
  handle = is_function_handle (metric);
  if (! handle && (! ischar (metric) || rows (metric) > 1))
    error ("gd:input", "gd_knnsearch: 'Distance' must be a metric's name or a function handle");
  endif
  margs = {metric};
  given = {};
  if (set.p || set.scale || set.cov)
    given = {"P", P, "minkowski", set.p; "Scale", Scale, "seuclidean", set.scale;
             "Cov", Cov, "mahalanobis", set.cov};
  endif
  for g = 1:rows (given)
    if (given{g,4} && (isempty (given{g,2}) || ! isnumeric (given{g,2})))
      error ("gd:input", "gd_knnsearch: '%s' must be a real numeric %s, not %s", given{g,1}, ...
             {"scalar", "vector of scales", "matrix"}{g}, ...
             {class(given{g,2}), "empty"}{1 + isempty (given{g,2})});
    endif
    if (given{g,4})
      if (handle || ! strcmpi (metric, given{g,3}))
        if (handle)
          what = "a function handle";
        else
          what = ["'" metric "'"];
        endif
        error ("gd:input", "gd_knnsearch: '%s' goes with the '%s' distance, not %s", ...
               given{g,1}, given{g,3}, what);
      endif
      margs{2} = given{g,2};
    endif
  endfor
  if (handle && ! isempty (devices))
    error ("gd:input", "gd_knnsearch: a function-handle distance runs on the host: 'Devices' does not apply");
  endif
  if (! ties)
    if (nargout < 3)
      [Idx, D] = knn (handle, X, Y, margs, K, variant, iclass, devices, nargout);
    else
      [Idx, D, info] = knn (handle, X, Y, margs, K, variant, iclass, devices, 3);
    endif
    return;
  endif
  search = @(k) knn (handle, X, Y, margs, k, variant, iclass, devices, 3);
  ## IncludeTies: every point at the K-th distance too. Searches with K
  ## doubled until each query's last neighbour lies past its K-th (or all
  ## of X is in), then each query's list cut after its last tie.
  if (! (isnumeric (K) && isreal (K) && isscalar (K) && K >= 1 && K == fix (K)))
    [Idx, D, info] = search (K);        # the search's own error
  endif
  mx = rows (X);
  k = max (1, min (K + 1, mx));         # one past the K-th: does it tie?
  while (true)
    [I1, D1, info] = search (k);
    I1 = gather (I1);
    D1 = gather (D1);
    if (k >= mx || isempty (D1) || ! any (D1(:,end) == D1(:,K)))
      break;
    endif
    k = min (mx, 2 * k);
  endwhile
  Kc = min (K, columns (D1));
  n = Kc * ones (rows (D1), 1);
  if (Kc > 0)
    n += sum (D1(:,Kc+1:end) == D1(:,Kc), 2);
  endif
  [Idx, D] = __gd_cells__ (I1, D1, n);
endfunction

## One search of k neighbours: the gateway, or the host for a function
## handle
function [Idx, D, info] = knn (handle, X, Y, margs, k, variant, iclass, devices, nout)
  if (handle)
    opts = struct ("K", k, "IndexClass", iclass, "Variant", variant);
    [Idx, D, info] = __gd_handle_dist__ ("gd_knnsearch", "knnsearch", margs{1}, X, Y, opts);
    return;
  endif
  args = [margs, {"Smallest", k, "Variant", variant, "IndexClass", iclass}, devices];
  zero = [];
  if (numel (margs) > 1 || ! any (strcmpi (margs{1}, {"euclidean", "squaredeuclidean", ...
      "sqeuclidean", "cityblock", "chebychev", "cosine", "hamming", "jaccard"})))
    ## the metrics the gateway does not compute as named: prepared rows
    [args, X, Y, zero] = __gd_prepare__ ("gd_knnsearch", X, Y, args);
  endif
  if (! isempty (zero))
    [D, Idx, info] = __gd_zero_scale__ (zero, "knnsearch", {X, Y}, args, 3);
  elseif (nout < 3)
    [D, Idx] = __gd__ ("knnsearch", X, Y, args{:});
  else
    [D, Idx, info] = __gd__ ("knnsearch", X, Y, args{:});
  endif
endfunction


%!test
%! warning ("off", "gd:nogpu", "local");
%! X = randi ([0 3], 40, 3); Y = randi ([0 3], 9, 3);
%! F = zeros (40, 9);
%! for i = 1:40, for j = 1:9, F(i,j) = norm (X(i,:) - Y(j,:)); end, end
%! [S, J] = sort (F, 1);
%! [Idx, D] = gd_knnsearch (X, Y, "K", 4);
%! assert (Idx, J(1:4,:).');
%! assert (D, S(1:4,:).', 4 * eps);
%! assert (gd_knnsearch (X, Y), J(1,:).');
%!test
%! warning ("off", "gd:nogpu", "local");
%! X = randn (30, 4);
%! [Idx, D] = gd_knnsearch (X, X, "K", 3, "Distance", "squaredeuclidean");
%! assert (Idx(:,1), (1:30)');
%! assert (D(:,1), zeros (30, 1));
%! assert (size (Idx), [30 3]);
%!test
%! warning ("off", "gd:nogpu", "local");
%! [Idx, D] = gd_knnsearch (single ([0; 1; 3]), [2.9; 0.2], "K", 5, "IndexClass", "int32");
%! assert (Idx, int32 ([3 2 1; 1 2 3]));
%! assert (class (D), "single");
%!test
%! v = gd_knnsearch ("variants");
%! assert ({v.name}, {"fused", "cpu", "gemm"});

%!error <expected X and Y> gd_knnsearch (1)
%!error <too many outputs> [a, b, c, d] = gd_knnsearch (1, 1)
%!error <too many outputs> [a, b] = gd_knnsearch ("variants")
%!error <name/value pairs> gd_knnsearch (1, 1, "K")
%!error <unknown option 'Radius'> gd_knnsearch (1, 1, "Radius", 2)
%!error <positive whole number> gd_knnsearch (1, 1, "K", 0)
%!error <'P' goes with the 'minkowski' distance> gd_knnsearch (1, 1, "P", 3)
%!error <'SortIndices' must be true or false> gd_knnsearch (1, 1, "SortIndices", NaN)
%!error <'Scale' must be a real numeric vector of scales, not empty> gd_knnsearch (1, 1, "Distance", "seuclidean", "Scale", [])
%!error <'Cov' must be a real numeric matrix, not empty> gd_knnsearch (1, 1, "Distance", "mahalanobis", "Cov", "")
%!error <'Cov' must be a real numeric matrix, not char> gd_knnsearch (1, 1, "Distance", "mahalanobis", "Cov", "ab")
%!error <'P' must be a real numeric scalar, not empty> gd_knnsearch (1, 1, "Distance", "minkowski", "P", [])
%!error <'Distance' must be a metric's name or a function handle> gd_knnsearch (1, 1, "Distance", {1})
%!error <the distance function must return a real column of 1> gd_knnsearch (1, 1, "Distance", @(a, b) [1 2])
%!error <'P' goes with the 'minkowski' distance, not a function handle> gd_knnsearch (1, 1, "Distance", @(a, b) 1, "P", 3)
%!error <'Variant' must be 'auto' or 'cpu'> gd_knnsearch (1, 1, "Distance", @(a, b) 1, "Variant", "fused")
%!error <'NSMethod' must be 'exhaustive', 'kdtree' or 'hnsw'> gd_knnsearch (1, 1, "NSMethod", "balltree")
%!error <'BucketSize' must be a positive whole number> gd_knnsearch (1, 1, "BucketSize", 0.5)
%!error <'IncludeTies' must be true or false> gd_knnsearch (1, 1, "IncludeTies", NaN)
%!test
%! ## a function handle: the statistics package's call, f (a row of X, rows
%! ## of Y); the result that of sorting the whole matrix it gives
%! X = randi (5, 60, 3); Y = randi (5, 9, 3);
%! f = @(x, Z) sum (abs (x - Z), 2) + 0.25 * (x(1) > Z(:,1));   # not symmetric
%! Dfull = zeros (60, 9);
%! for r = 1:60
%!   Dfull(r,:) = f (X(r,:), Y)';
%! endfor
%! [s, i] = sort (Dfull, 1);
%! [Idx, D, info] = gd_knnsearch (X, Y, "K", 7, "Distance", f);
%! assert (Idx, i(1:7,:)');
%! assert (D, s(1:7,:)');
%! assert (info.variant, "cpu");
%! [Idx, D] = gd_knnsearch (single (X), Y, "K", 70, "Distance", f, "IndexClass", "int32");
%! assert (Idx, int32 (i'));
%! assert (class (D), "double");
%!test
%! ## IncludeTies on an integer lattice: every point at the K-th distance,
%! ## nearest first, ties to the smaller index, cell columns of rows
%! [a, b] = meshgrid (0:6, 0:6); X = [a(:) b(:)]; Y = [3 3; 0 0; 2.5 3; 6 6];
%! for K = [1 2 4 5 9 49]
%!   [Idx, D] = gd_knnsearch (X, Y, "K", K, "IncludeTies", true);
%!   assert (iscell (Idx) && iscell (D) && isequal (size (Idx), [4 1]));
%!   Dall = gd_pdist2 (X, Y, "euclidean");
%!   for q = 1:4
%!     [s, i] = sort (Dall(:,q));
%!     n = sum (s <= s(K));
%!     assert (Idx{q}, i(1:n)');
%!     assert (D{q}, s(1:n)');
%!   endfor
%! endfor
%! [Idx, D] = gd_knnsearch (zeros (0, 2), [3 3; 1 1], "K", 2, "IncludeTies", true);
%! assert (size (Idx), [2 1]);
%! assert (isempty (Idx{1}) && isempty (D{2}));
%! [Idx, D] = gd_knnsearch (X, zeros (0, 2), "K", 2, "IncludeTies", true);
%! assert (size (Idx), [0 1]);
%! [Idx, D] = gd_knnsearch (X, [NaN 1], "K", 2, "IncludeTies", true);
%! assert (Idx{1}, [1 2]);
%! [Idx, D] = gd_knnsearch (X, [3 3], "K", 2, "IncludeTies", true);
%! assert (Idx{1}, [25 18 24 26 32]);
%! assert (D{1}, [0 1 1 1 1]);
%!test
%! ## sparse and logical operands, as dense doubles; NSMethod and BucketSize
%! ## taken (the search stays exhaustive and exact)
%! X = sprand (40, 6, 0.3); Y = sprand (5, 6, 0.5);
%! [I0, D0] = gd_knnsearch (full (X), full (Y), "K", 3);
%! [I1, D1] = gd_knnsearch (X, Y, "K", 3, "NSMethod", "kdtree", "BucketSize", 10);
%! assert ({I1, D1}, {I0, D0});
%! L = rand (30, 5) > 0.5;
%! assert (gd_knnsearch (L, L(1:4,:), "K", 2, "Distance", "hamming"), ...
%!         gd_knnsearch (double (L), double (L(1:4,:)), "K", 2, "Distance", "hamming"));
%!test
%! warning ("off", "gd:nogpu", "local");
%! X = randn (50, 4); Y = randn (6, 4);
%! F = gd_pdist2 (X, Y, "minkowski", 3);
%! [S, J] = sort (F, 1);
%! [Idx, D] = gd_knnsearch (X, Y, "K", 5, "Distance", "minkowski", "P", 3);
%! assert (Idx, J(1:5,:).');
%! assert (D, S(1:5,:).');
%! C = cov (X) + eye (4);
%! [S, J] = sort (gd_pdist2 (X, Y, "mahalanobis", C), 1);
%! assert (gd_knnsearch (X, Y, "K", 2, "Distance", "mahalanobis", "Cov", C), J(1:2,:).');

%!test
%! ## 'Scale' with a 0: every distance Inf (all zero-scale columns differ)
%! ## or NaN; the neighbours the Inf ones by index, then the NaN ones
%! warning ("off", "gd:nogpu", "local");
%! A = [0 0; 1 1; 2 5; 3 1; 5 5];
%! B = [0 1; 2 2];
%! [Idx, D] = gd_knnsearch (A, B, "K", 3, "Distance", "seuclidean", "Scale", [1 0]);
%! assert (Idx, [1 3 5; 1 2 3]);
%! assert (D, [Inf Inf Inf; Inf Inf Inf]);
%! [Idx, D] = gd_knnsearch (A, B, "K", 5, "Distance", "seuclidean", "Scale", [1 0]);
%! assert (Idx, [1 3 5 2 4; 1 2 3 4 5]);
%! assert (isnan (D), logical ([0 0 0 1 1; 0 0 0 0 0]));
%!test
%! ## gdArrays in: the results gdArrays a row a query, as from the host
%! ## with the same variant (auto runs a search this small from the host
%! ## on the CPU, from gdArrays on their GPU), and info the search's (not
%! ## the turning's)
%! warning ("off", "gd:nogpu", "local");
%! X = rand (40, 3); Y = rand (6, 3);
%! [I, D, info] = gd_knnsearch (gdArray (X), gdArray (Y), "K", 4);
%! [I0, D0, info0] = gd_knnsearch (X, Y, "K", 4, "Variant", info.variant);
%! assert (isa (I, "gdArray") && isa (D, "gdArray"));
%! assert (gather (I), I0);
%! assert (gather (D), D0);
%! assert (info.variant, info0.variant);
%!error <gd_knnsearch: X and Y must have the same number of columns> gd_knnsearch (rand (5, 2), rand (3, 3))
%!error <gd_knnsearch: X must be a single or double matrix> gd_knnsearch ({1}, rand (3, 2))
%!error id=gd:input gd_knnsearch (rand (5, 2), {1})

%!demo
%! ## the 3 nearest points of X to each row of Y (knnsearch's
%! ## orientation: a row a query), exact, ties in Octave's order
%! X = [0 0; 1 0; 0 1; 1 1; 5 5];
%! Y = [0.2 0.1; 4.5 4.5];
%! [Idx, D] = gd_knnsearch (X, Y, "K", 3)
