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
## @qcode{"spearman"}, @qcode{"hamming"}, @qcode{"jaccard"}).
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
## @item @qcode{"NSMethod"}, @qcode{"BucketSize"}
## the search structure of the statistics package's knnsearch, taken and
## not used: gd compares every pair (an exhaustive search, exact).
## @end table
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
  ## the options, one list: the parser's, the help's table's (docs.bats
  ## checks it) and the unknown option's message
  OPTIONS = {"K", "Distance", "P", "Scale", "Cov", "SortIndices", "IndexClass", "Variant", ...
             "Devices", "NSMethod", "BucketSize"};
  K = 1;
  metric = "euclidean";
  variant = "auto";
  iclass = "double";
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
      case "SortIndices"
        if (! (isscalar (value) && (islogical (value) || (isnumeric (value) && isreal (value)))
               && (value == 0 || value == 1)))
          error ("gd:input", "gd_knnsearch: 'SortIndices' must be true or false");
        endif
      case "IndexClass"
        iclass = value;
      case "Variant"
        variant = value;
      case "Devices"
        devices = {"Devices", value};
      case {"NSMethod", "BucketSize"}
        ## the search structure of knnsearch: gd always compares every pair
    endswitch
  endfor
  if (! ischar (metric) || rows (metric) > 1)
    error ("gd:input", ["gd_knnsearch: 'Distance' must be a metric's name (a function " ...
                        "handle cannot run on the GPU)"]);
  endif
  margs = {metric};
  given = {"P", P, "minkowski", set.p; "Scale", Scale, "seuclidean", set.scale;
           "Cov", Cov, "mahalanobis", set.cov};
  for g = 1:rows (given)
    if (given{g,4} && (isempty (given{g,2}) || ! isnumeric (given{g,2})))
      error ("gd:input", "gd_knnsearch: '%s' must be a real numeric %s, not %s", given{g,1}, ...
             {"scalar", "vector of scales", "matrix"}{g}, ...
             {class(given{g,2}), "empty"}{1 + isempty (given{g,2})});
    endif
    if (given{g,4})
      if (! strcmpi (metric, given{g,3}))
        error ("gd:input", "gd_knnsearch: '%s' goes with the '%s' distance, not '%s'", ...
               given{g,1}, given{g,3}, metric);
      endif
      margs{2} = given{g,2};
    endif
  endfor
  [args, X, Y, zero] = __gd_prepare__ ("gd_knnsearch", X, Y, [margs, {"Smallest", K, "Variant", ...
                                       variant, "IndexClass", iclass}, devices]);
  if (! isempty (zero))
    ## seuclidean with a scale of 0: each distance Inf or NaN
    [D, Idx, info] = __gd_zero_scale__ (zero, "knnsearch", {X, Y}, args, 3);
  else
    ## (the gateway's results a row a query)
    if (nargout < 3)
      [D, Idx] = __gd__ ("knnsearch", X, Y, args{:});
    else
      [D, Idx, info] = __gd__ ("knnsearch", X, Y, args{:});
    endif
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
%!error <'Distance' must be a metric's name> gd_knnsearch (1, 1, "Distance", @(a, b) 1)
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
