## -*- texinfo -*-
## @deftypefn  {} {@var{Idx} =} gd_rangesearch (@var{X}, @var{Y}, @var{r})
## @deftypefnx {} {[@var{Idx}, @var{D}] =} gd_rangesearch (@var{X}, @var{Y}, @var{r}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {[@var{Idx}, @var{D}, @var{info}] =} gd_rangesearch (@dots{})
## @deftypefnx {} {} gd_rangesearch ("variants")
## Every row of @var{X} within distance @var{r} of each row of @var{Y}, on
## the GPU, as the statistics package's and MATLAB's @code{rangesearch}
## return them: @var{Idx} and @var{D} are rows (Y)-by-1 cell arrays,
## cell j a row of the rows of @var{X} at a distance at most @var{r} from
## @code{Y(j,:)} and their distances, nearest first, ties to the smaller
## index. A NaN distance is within no radius; @var{r} is a real scalar, 0
## (the points equal to the query, by the metric) or more, Inf taking
## every point whose distance is not NaN.
##
## Options, as @code{gd_knnsearch} takes them:
## @table @asis
## @item @qcode{"Distance"}
## @qcode{"euclidean"} (default), any metric of @code{gd_pdist}, or a
## function handle (on the host, as in @code{gd_knnsearch}).
## @item @qcode{"P"}, @qcode{"Scale"}, @qcode{"Cov"}
## minkowski's exponent, seuclidean's scales, mahalanobis's covariance.
## @item @qcode{"SortIndices"}
## true (default): each list nearest first; false: in the order of the
## rows of @var{X}, as the statistics package gives them.
## @item @qcode{"NSMethod"}, @qcode{"BucketSize"}
## checked as @code{gd_knnsearch} checks them and not used: the search
## is exhaustive and exact.
## @item @qcode{"Variant"}, @qcode{"Devices"}
## the range search's variants (@code{gd_rangesearch ("variants")} lists
## them: @qcode{"fused"}, @qcode{"cpu"}), or @code{gd_knnsearch}'s
## @qcode{"gemm"}; the devices of @code{gd_knnsearch}.
## @end table
##
## How: the distances of @code{gd_pdist2} (to the bit) in its tiles, two
## passes over them: the first counts each query's hits, the second
## writes them into lists allocated for exactly that many, which are then
## sorted by distance and row. No rows (X)-by-rows (Y) matrix is made; a
## radius that takes more than memory can hold raises @qcode{"gd:memory"}
## before anything is returned. A function-handle distance, the
## @qcode{"gemm"} variant, @qcode{"Devices"} and seuclidean's zero scales
## take the exact K-nearest search of @code{gd_knnsearch} instead, first
## with K = 64, then again for the queries whose K-th neighbour is still
## within @var{r}, K four times larger, until every list ends inside the K
## found (or K is rows (X)). Logical operands are taken as double and
## sparse ones as full. gdArray operands are searched where they live; the
## cells hold host arrays.
##
## @var{info} is the search's struct (see @code{gd_knnsearch}), with
## @code{kernel_ms} the kernels' time, @code{total_ms} the whole call and
## @code{searches} the number of searches (1 for the range search; the
## K-nearest searches' number otherwise).
##
## Example: the neighbours within 0.1 of every point (DBSCAN's
## eps-neighbourhoods)
## @example
## @group
## X = rand (50000, 3, "single");
## [Idx, D] = gd_rangesearch (X, X, 0.1);
## @end group
## @end example
##
## @seealso{gd_knnsearch, gd_pdist2}
## @end deftypefn

function [Idx, D, info, varargout] = gd_rangesearch (X, Y, r, varargin)
  if (nargout > 3)
    error ("gd:input", "gd_rangesearch: too many outputs (at most Idx, D and info)");
  endif
  if (nargin == 1 && ischar (X) && strcmpi (X, "variants"))
    ## the searches' variants: gd_knnsearch's
    if (nargout > 1)
      error ("gd:input", "gd_rangesearch: too many outputs (the variants are one struct array)");
    elseif (nargout == 0)
      __gd__ ("range", "variants");
    else
      Idx = __gd__ ("range", "variants");
    endif
    return;
  endif
  if (nargin < 3)
    error ("gd:input", "gd_rangesearch: expected X, Y and a radius r (see help gd_rangesearch)");
  endif
  if (isa (X, "gdCodistributed") || isa (Y, "gdCodistributed"))
    [Idx, D, info] = __gd_ranks__ ("rangesearch", X, Y, r, varargin{:});   # across the ranks
    return;
  endif
  if (mod (numel (varargin), 2))
    error ("gd:input", "gd_rangesearch: options come in name/value pairs");
  endif
  r = gather (r);
  if (! (isnumeric (r) && isreal (r) && isscalar (r) && ! isnan (r) && r >= 0))
    error ("gd:input", "gd_rangesearch: the radius r must be a real scalar, 0 or more");
  endif
  r = double (r);
  OPTIONS = {"Distance", "P", "Scale", "Cov", "SortIndices", "NSMethod", "BucketSize", ...
             "Variant", "Devices"};
  by_row = false;
  for a = 1:2:numel (varargin)
    name = varargin{a};
    if (ischar (name) && strcmpi (name, "SortIndices"))
      v = varargin{a+1};
      by_row = isscalar (v) && (islogical (v) || isnumeric (v)) && v == 0;
    endif
    if (! ischar (name) || rows (name) > 1 || ! any (strcmpi (name, OPTIONS)))
      if (ischar (name) && rows (name) == 1)
        what = sprintf ("'%s'", name);
      else
        what = sprintf ("a %s", class (name));
      endif
      error ("gd:input", "gd_rangesearch: unknown option %s (options: %s)", what, strjoin (OPTIONS, ", "));
    endif
  endfor
  t0 = tic ();
  if (islogical (X) || issparse (X))
    X = full (double (X));              # once, not a search each
  endif
  if (islogical (Y) || issparse (Y))
    Y = full (double (Y));
  endif
  mx = rows (X);
  my = rows (Y);
  if (columns (X) != columns (Y))
    knn (X, Y, 1, varargin);            # its error: the operands first
  endif
  try
    Idx = cell (my, 1);
    D = cell (my, 1);
  catch
    error ("gd:memory", "gd_rangesearch: no host memory for %d lists", my);
  end_try_catch
  ## the range kernels where they serve (a metric by name, their
  ## variants, one device): one search, each query's hits counted, then
  ## written; any refusal there is the K-nearest searches' to make
  if (mx > 0 && my > 0)
    [Idx, D, info, done] = ranges (X, Y, r, varargin, Idx, D);
    if (done)
      [Idx, D] = row_order (Idx, D, by_row);
      info.total_ms = 1000 * toc (t0);
      return;
    endif
  endif
  todo = (1:my)';
  K = min (mx, 64);
  kernel = 0;
  searches = 0;
  info = [];
  if (mx == 0)
    ## nothing to find; the search still checks the operands and options
    [~, ~, info] = knn (X, Y, 1, varargin);
    Idx(:) = {zeros(1, 0)};
    D(:) = {zeros(1, 0, info.class)};
    todo = [];
  endif
  while (! isempty (todo))
    Ys = Y;
    if (numel (todo) < my)
      Ys = Y(todo,:);
    endif
    [I1, D1, i1] = knn (X, Ys, K, varargin);
    searches += 1;
    kernel += i1.kernel_ms;
    if (isempty (info))
      info = i1;
    endif
    I1 = gather (I1);
    D1 = gather (D1);
    ## each row ascending, NaN last: the hits are a prefix; a row whose
    ## last one is a hit may go on past the K found
    within = D1 <= r;
    more = within(:,end) & K < mx;
    done = ! more;
    [Idx(todo(done)), D(todo(done))] = __gd_cells__ (I1(done,:), D1(done,:), ...
                                                     sum (within(done,:), 2));
    todo = todo(more);
    K = min (mx, 4 * K);
  endwhile
  if (isempty (info))                   # no queries: the operands checked
    [~, ~, info] = knn (X, Y, 1, varargin);
  endif
  [Idx, D] = row_order (Idx, D, by_row);
  info.kernel_ms = kernel;
  info.total_ms = 1000 * toc (t0);
  info.searches = searches;
endfunction

## 'SortIndices', false: each list in the order of X's rows
function [Idx, D] = row_order (Idx, D, by_row)
  if (! by_row)
    return;
  endif
  for q = 1:numel (Idx)
    [Idx{q}, o] = sort (Idx{q});
    D{q} = D{q}(o);
  endfor
endfunction

## The range search's gateway (gd_range): done false where it does not
## serve (a function handle, 'Devices', a variant of the K-nearest
## searches alone, seuclidean's zero scales) or refuses the arguments, whose
## error the K-nearest searches then give in their own words
function [Idx, D, info, done] = ranges (X, Y, r, opts, Idx, D)
  done = false;
  info = [];
  metric = "euclidean";
  param = {};
  variant = "auto";
  for a = 1:2:numel (opts)
    v = opts{a+1};
    switch (lower (opts{a}))
      case "distance"
        metric = v;
      case {"p", "scale", "cov"}
        param = {v};
      case "variant"
        variant = v;
      case "devices"
        return;
      case "nsmethod"
        if (! (ischar (v) && rows (v) == 1 && any (strcmpi (v, {"exhaustive", "kdtree", "hnsw"}))))
          return;
        endif
      case "bucketsize"
        if (! (isnumeric (v) && isreal (v) && isscalar (v) && v >= 1 && v == fix (v)))
          return;
        endif
      case "sortindices"
        if (! (isscalar (v) && (islogical (v) || (isnumeric (v) && isreal (v)))
               && (v == 0 || v == 1)))
          return;
        endif
    endswitch
  endfor
  if (! ischar (metric) || rows (metric) != 1 || ! ischar (variant)
      || ! any (strcmpi (variant, {"auto", "fused", "cpu"})))
    return;
  endif
  args = [{metric}, param, {"Variant", variant}];
  zero = [];
  try
    if (! isempty (param) || ! any (strcmpi (metric, {"euclidean", "squaredeuclidean", ...
        "sqeuclidean", "cityblock", "chebychev", "cosine", "hamming", "jaccard"})))
      [args, X, Y, zero] = __gd_prepare__ ("gd_rangesearch", X, Y, args);
    endif
    if (! isempty (zero))
      return;
    endif
    [D1, I1, N1, info] = __gd__ ("rangesearch", X, Y, args{:}, "Radius", r);
  catch err
    if (any (strcmp (err.identifier, {"gd:memory", "gd:interrupted", "Octave:interrupt"})))
      rethrow (err);
    endif
    return;
  end_try_catch
  [Idx, D] = __gd_cells__ (I1, D1, N1);
  info.searches = 1;
  done = true;
endfunction

## gd_knnsearch's K nearest, its errors in gd_rangesearch's name
function [I, D, info] = knn (X, Y, K, opts)
  try
    [I, D, info] = gd_knnsearch (X, Y, "K", K, opts{:});
  catch err
    error (err.identifier, "%s", strrep (err.message, "gd_knnsearch", "gd_rangesearch"));
  end_try_catch
endfunction

%!demo
%! ## the points within 1.1 of each query, nearest first (rangesearch's
%! ## cells: a row of indices and one of distances a query)
%! X = [0 0; 1 0; 0 1; 1 1; 5 5];
%! Y = [0.2 0.1; 4.5 4.5];
%! [Idx, D] = gd_rangesearch (X, Y, 1.1)

%!shared X, Y
%! warning ("off", "gd:nogpu");
%! X = randn (300, 3); Y = randn (25, 3);

%!function check (X, Y, r, varargin)
%!  ## against sorting each column of the whole matrix (stable: ties to the
%!  ## smaller row), the hits those at most r
%!  [Idx, D] = gd_rangesearch (X, Y, r, varargin{:});
%!  [I0, D0] = gd_knnsearch (X, Y, "K", rows (X), varargin{:});
%!  assert (iscell (Idx) && iscell (D) && isequal (size (Idx), [rows(Y) 1]));
%!  for q = 1:rows (Y)
%!    n = sum (D0(q,:) <= r);
%!    assert (Idx{q}, I0(q,1:n));
%!    assert (D{q}, D0(q,1:n));
%!  endfor
%!endfunction

%!test check (X, Y, 0.8)
%!test check (X, Y, 1.5, "Distance", "cityblock")
%!test check (single (X), Y, 0.5, "Distance", "cosine")
%!test check (X, Y, 2, "Distance", "minkowski", "P", 3)
%!test check (X, Y, Inf)
%!test check (X, Y, 0)
%!test check (X, Y, 3, "Distance", @(x, Z) sum (abs (x - Z), 2))
%!test
%! ## an integer lattice: ties everywhere, every radius a distance; duplicates
%! [a, b] = meshgrid (0:14, 0:14); L = [a(:) b(:); 7 7; 7 7];
%! for r = [0 1 sqrt(2) 2 5]
%!   check (L, [7 7; 0 0; 3.5 3.5; 20 20], r);
%! endfor
%! Idx = gd_rangesearch (L, [7 7], 0);
%! assert (Idx{1}, [113 226 227]);
%!test
%! ## more than 64 (and 256) hits: one pass of the range search; by a
%! ## function handle, K-nearest searches with K four times larger
%! Z = rand (2000, 2);
%! [Idx, D, info] = gd_rangesearch (Z, Z(1:5,:), 0.3);
%! assert (info.searches, 1);
%! check (Z, Z(1:5,:), 0.3);
%! f = @(x, Y) sqrt (sum ((Y - x) .^ 2, 2));
%! [Ih, Dh, info] = gd_rangesearch (Z, Z(1:5,:), 0.3, "Distance", f);
%! assert (info.searches >= 2);
%! assert (Ih, Idx);
%! assert (Dh, D, 1e-12);
%!test
%! ## 'SortIndices', false: the lists in the order of X's rows
%! x = [1 2 3; 4 5 6; 7 8 9; 3 2 1]; y = [2 3 4; 1 4 3];
%! [I1, D1] = gd_rangesearch (x, y, 4);
%! [I0, D0] = gd_rangesearch (x, y, 4, "SortIndices", false);
%! assert (I1, {[1 4 2]; [1 4]});
%! assert (I0, {[1 2 4]; [1 4]});
%! assert (D0{1}, D1{1}([1 3 2]));
%!test
%! ## empty results, no queries, no points
%! [Idx, D] = gd_rangesearch (X, Y + 100, 1);
%! assert (all (cellfun (@isempty, Idx)) && all (cellfun (@isempty, D)));
%! [Idx, D] = gd_rangesearch (X, zeros (0, 3), 1);
%! assert (size (Idx), [0 1]);
%! [Idx, D] = gd_rangesearch (zeros (0, 3), Y, 1);
%! assert (size (Idx), [25 1]);
%! assert (all (cellfun (@isempty, Idx)));
%!test
%! ## NaN rows are within no radius
%! Z = X; Z(3,:) = NaN;
%! Idx = gd_rangesearch (Z, [Z(3,:); Z(4,:)], Inf);
%! assert (isempty (Idx{1}));
%! assert (! any (Idx{2} == 3) && numel (Idx{2}) == 299);
%!test
%! ## logical and sparse operands, as double and full
%! L = rand (40, 6) > 0.5; S = sprand (40, 6, 0.3);
%! assert (gd_rangesearch (L, L(1:3,:), 0.4, "Distance", "hamming"), ...
%!         gd_rangesearch (double (L), double (L(1:3,:)), 0.4, "Distance", "hamming"));
%! assert (gd_rangesearch (S, S(1:3,:), 0.5), gd_rangesearch (full (S), full (S(1:3,:)), 0.5));
%!error <the radius r must be a real scalar> gd_rangesearch (X, Y, -1)
%!error <the radius r must be a real scalar> gd_rangesearch (X, Y, NaN)
%!error <the radius r must be a real scalar> gd_rangesearch (X, Y, [1 2])
%!error <unknown option 'K'> gd_rangesearch (X, Y, 1, "K", 3)
%!error <expected X, Y and a radius> gd_rangesearch (X, Y)
%!error <gd_rangesearch: X and Y must have the same number of columns> gd_rangesearch (X, rand (2, 4), 1)
%!error <gd_rangesearch: unknown metric> gd_rangesearch (X, Y, 1, "Distance", "taxi")
