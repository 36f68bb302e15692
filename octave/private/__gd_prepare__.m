## -*- texinfo -*-
## @deftypefn {} {[@var{args}, @var{X}, @var{Y}, @var{zero}] =} __gd_prepare__ (@var{fn}, @var{X}, @var{Y}, @var{args})
## The metric of a distance call (gd_pdist, gd_pdist2, gd_knnsearch), as
## the kernel layer computes it. @var{args} are the arguments after the
## data: a metric name first, its parameter (minkowski's P, seuclidean's
## scales, mahalanobis's covariance) next, as the statistics package's
## pdist takes them, then name/value options. The metrics the kernels
## compute pass through (minkowski's P as the option "P"; P = 1, 2 or Inf
## become cityblock, euclidean, chebychev); the others become one of them
## on prepared rows:
## @itemize
## @item seuclidean: euclidean on @code{(X - c) ./ S}, S the scales
## (default @code{std (X)}, the statistics package's weights @code{1 ./
## var (X)}), c the columns' means of X (finite values): rows moved to the
## origin before they are scaled keep their digits at any offset. The
## definition, @code{sqrt (sum (((x - y) ./ S).^2))}, holds for every
## scale: a column of scale Inf adds 0 where x - y is finite and NaN where
## it is not (it becomes 0 or NaN); the columns of scale 0 leave the
## prepared rows and come back in @var{zero} (@code{zero.x}, @code{zero.y},
## as double; [] where no scale is 0), for __gd_zero_scale__ to make each
## distance Inf or NaN from them;
## @item mahalanobis: euclidean on @code{(X - c) / R}, @code{R = chol (C)}
## (C default @code{cov (X)}): @code{(x - y) * inv (C) * (x - y)'} is the
## squared distance of the transformed rows;
## @item correlation: cosine on rows minus their means (taken twice, in
## double);
## @item spearman: cosine on rows of ranks (ties averaged) minus their
## means (a row with NaN stays NaN).
## @end itemize
## Rows to prepare that are gdArrays are gathered, prepared and uploaded
## again (the result stays a gdArray). @var{Y} is [] for pdist. @var{c},
## where given, is the offset to use (gdCodistributed's: that of the
## whole X, which a rank's part alone does not know).
## @end deftypefn

function [args, X, Y, zero] = __gd_prepare__ (fn, X, Y, args, c = [])
  zero = [];
  options = {"variant", "smallest", "largest", "indexclass", "p", "devices", "distributed"};
  if (isempty (args) || ! ischar (args{1}) || rows (args{1}) > 1
      || any (strcmpi (args{1}, options)))
    no_p (fn, args);
    return;                     # no metric (euclidean), or the gateway's error
  endif
  metric = lower (args{1});
  known = {"euclidean", "squaredeuclidean", "sqeuclidean", "seuclidean", "mahalanobis", ...
           "cityblock", "minkowski", "chebychev", "cosine", "correlation", "spearman", ...
           "hamming", "jaccard"};
  if (! any (strcmp (metric, known)))
    return;                     # the gateway names the metrics
  endif
  ## the metric's parameter: the argument after it that names no option
  ## (text after a metric that takes none is an option's name, for the
  ## gateway to check)
  takes = any (strcmp (metric, {"seuclidean", "mahalanobis", "minkowski"}));
  has = numel (args) >= 2 && ! (ischar (args{2}) && (any (strcmpi (args{2}, options)) || ! takes));
  if (has && ! takes)
    error ("gd:input", "%s: the metric '%s' takes no parameter (only 'minkowski', 'seuclidean' and 'mahalanobis' do)", fn, metric);
  endif
  param = [];
  if (has)
    param = args{2};
  endif
  rest = args(2 + has:end);
  no_p (fn, rest);
  d = columns (X);
  switch (metric)
    case "minkowski"
      ## P = 1, 2 and Inf are other metrics; any other P goes to the
      ## gateway, which checks it
      p = 2;
      if (has)
        p = gather (param);     # (a gdArray parameter: its value)
      endif
      if (isnumeric (p) && isscalar (p) && isreal (p) && any (p == [1 2 Inf]))
        args = [{{"cityblock", "euclidean", "chebychev"}{find (p == [1 2 Inf])}}, rest];
      else
        args = [{"minkowski", "P", p}, rest];
      endif
    case "seuclidean"
      if (has)
        S = gather (param);
        if (! (isnumeric (S) && isreal (S) && isvector (S) && numel (S) == d && all (S(:) >= 0)))
          error ("gd:input", "%s: seuclidean's scales S must be a real non-negative vector of %d elements (one a column)", fn, d);
        endif
      endif
      if (isempty (c))
        c = __gd_offset__ (X);
      endif
      if (! has)
        S = std (double (gather (X)) - c, 0, 1);  # centred: no digits lost to an offset
      endif
      S = double (S(:).');
      z = S == 0;
      if (any (z))
        ## the columns of scale 0: every distance Inf or NaN from them
        Z = double (gather (X));
        zero.x = Z(:, z);
        zero.y = [];
        if (! isempty (Y) || isa (Y, "gdArray"))
          Z = double (gather (Y));
          zero.y = Z(:, z);
        endif
      endif
      [X, Y] = prepare (@(Z) cast (scaled (double (Z), c, S), class (Z)), X, Y);
      args = [{"euclidean"}, rest];
    case "mahalanobis"
      if (isempty (c))
        c = __gd_offset__ (X);
      endif
      if (has)
        C = gather (param);
        if (! (isnumeric (C) && isreal (C) && ismatrix (C) && isequal (size (C), [d d])))
          error ("gd:input", "%s: mahalanobis's covariance C must be a real %dx%d matrix", fn, d, d);
        endif
      else
        C = cov (double (gather (X)) - c);  # centred: no digits lost to an offset
      endif
      bad = d == 0;                     # (chol of 0x0 gives no second output)
      if (! bad)
        [R, bad] = chol (double (C));
      endif
      if (bad)
        error ("gd:input", "%s: mahalanobis's covariance must be symmetric positive definite (with rows (X) > columns (X) for the default cov (X))", fn);
      endif
      [X, Y] = prepare (@(Z) cast ((double (Z) - c) / R, class (Z)), X, Y);
      args = [{"euclidean"}, rest];
    case {"correlation", "spearman"}
      if (d < 2)
        error ("gd:input", "%s: the %s distance needs at least 2 columns", fn, metric);
      endif
      if (strcmp (metric, "spearman"))
        f = @(Z) cast (nan_rows (center (ranks (double (Z), 2)), Z), class (Z));
      else
        f = @(Z) center (Z);
      endif
      [X, Y] = prepare (f, X, Y);
      args = [{"cosine"}, rest];
  endswitch
endfunction

function no_p (fn, opts)
  ## minkowski's exponent follows the metric in pdist and pdist2; 'P' is
  ## an option of knnsearch alone (the statistics package's forms)
  if (any (strcmp (fn, {"gd_pdist", "gd_pdist2"})))
    for k = 1:2:numel (opts)
      if (ischar (opts{k}) && rows (opts{k}) == 1 && strcmpi (opts{k}, "p"))
        error ("gd:input", "%s: unknown option 'P': minkowski's exponent follows the metric, %s (..., 'minkowski', P)", fn, fn);
      endif
    endfor
  endif
endfunction

function Z = center (Z)
  ## twice: the second pass takes out the first mean's rounding, which at
  ## an offset of 1e12 is of the order of the rows' own differences; single
  ## rows in double
  c = class (Z);
  Z = double (Z);
  Z = Z - mean (Z, 2);
  Z = cast (Z - mean (Z, 2), c);
endfunction

function Z = scaled (Z, c, S)
  ## (Z - c) ./ S on the columns of a scale other than 0 (those leave);
  ## a column of scale Inf is 0 where Z is finite (x - y then is: its term
  ## (x - y) / Inf is 0) and NaN where not (Inf - y or NaN: NaN)
  keep = S != 0;
  f = isinf (S);
  Z(:, f) = ifelse_nan (isfinite (Z(:, f)));
  c(f) = 0;
  S(f) = 1;
  Z = (Z(:, keep) - c(keep)) ./ S(keep);
endfunction

function Z = ifelse_nan (t)
  ## 0 where t, NaN where not
  Z = zeros (size (t));
  Z(! t) = NaN;
endfunction

function R = nan_rows (R, Z)
  ## ranks rank NaN too: a row of Z with NaN keeps NaN (its distances are)
  R(any (isnan (Z), 2), :) = NaN;
endfunction

function [X, Y] = prepare (f, X, Y)
  ## f applied to the rows of X and Y (gdArrays gathered and uploaded)
  X = apply (f, X);
  if (! isempty (Y) || isa (Y, "gdArray"))
    Y = apply (f, Y);
  endif
endfunction

function Z = apply (f, Z)
  if (isa (Z, "gdArray"))
    Z = gdArray (f (gather (Z)));
  elseif (isnumeric (Z) && ! isempty (Z))
    Z = f (Z);
  endif
endfunction
