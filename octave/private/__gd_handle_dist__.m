## -*- texinfo -*-
## @deftypefn {} {[@var{R}, @var{I}, @var{info}] =} __gd_handle_dist__ (@var{fn}, @var{form}, @var{f}, @var{X}, @var{Y}, @var{opts})
## A distance given as a function handle, on the host, as the statistics
## package calls it: @code{@var{f} (@var{x}, @var{Z})} with @var{x} one
## row of @var{X} and @var{Z} rows of @var{Y} (of @var{X} after that row,
## for pdist) returns a column of @code{rows (@var{Z})} distances.
##
## @var{form}: @qcode{"pdist"} (@var{R} the 1 x n(n-1)/2 row),
## @qcode{"pdist2"} (@var{R} mx x my, or with @qcode{"Smallest"} or
## @qcode{"Largest"} @var{K} the K x my nearest or farthest and their
## rows @var{I}) or @qcode{"knnsearch"} (@var{R} the my x K rows,
## @var{I} their distances: gd_knnsearch's order). @var{opts}: the
## name/value options that followed the handle (pdist, pdist2), or a
## struct with K, IndexClass and Variant (knnsearch).
##
## @var{f} sees @var{Z} in chunks of at most 2^22 elements (its own
## temporaries then stay bounded); the results are double, as the
## statistics package's. A K search keeps the K best of each column
## between blocks of rows of @var{X} (at most 2^24 distances a block), so
## no mx x my matrix is made. Ties and NaN: Octave's @code{sort}
## (stable: the smaller index first; NaN last with Smallest, first with
## Largest), as the statistics package sorts. gdArray operands give
## gdArray results. Progress under @env{GD_VERBOSE}; Ctrl-C stops it
## between calls of @var{f}.
## @end deftypefn

function [R, I, info] = __gd_handle_dist__ (fn, form, f, X, Y, opts)
  t0 = tic ();
  resident = isa (X, "gdArray") || isa (Y, "gdArray");
  X = gather (X);
  Y = gather (Y);
  [K, largest, iclass] = options (fn, form, opts);
  check_operand (fn, "X", X);
  if (! strcmp (form, "pdist"))
    check_operand (fn, "Y", Y);
    if (columns (X) != columns (Y))
      error ("gd:size", "%s: X and Y must have the same number of columns: X is %dx%d, Y is %dx%d", ...
             fn, rows (X), columns (X), rows (Y), columns (Y));
    endif
  endif
  X = full (X);
  Y = full (Y);
  d = columns (X);
  zrows = max (1, floor (2^22 / max (d, 1)));        # rows of Z a call of f
  say = progress_start (fn);
  I = [];
  switch (form)
    case "pdist"
      n = rows (X);
      if (n < 2)
        R = cast (zeros (1, 0), class (X));
      else
        R = alloc (fn, 1, n * (n - 1) / 2);
        at = 0;
        done = 0;
        total = n * (n - 1) / 2;
        ## (f in the loop itself where the rows after r are one call's)
        for r = 1:n-1
          if (n - r > zrows)
            for c0 = r+1:zrows:n
              c1 = min (n, c0 + zrows - 1);
              R(at + (1:c1-c0+1)) = call (fn, f, X(r,:), X(c0:c1,:));
              at += c1 - c0 + 1;
            endfor
          else
            try
              d = f (X(r,:), X(r+1:n,:));
            catch err
              failed (fn, n - r, err);
            end_try_catch
            if (! (columns (d) == 1 && rows (d) == n - r && (isnumeric (d) || islogical (d))
                   && isreal (d)))
              check_result (fn, n - r, d);
            endif
            R(at + 1:at + n - r) = d;
            at += n - r;
          endif
          done += n - r;
          if (say.level)
            say = progress (say, "pairs", done, total);
          endif
        endfor
      endif
      ops = n * max (n - 1, 0) / 2 * d;
    otherwise
      mx = rows (X);
      my = rows (Y);
      if (K == 0)
        R = alloc (fn, mx, my);
        if (my == 0)
          mx = 0;                       # (nothing to call f for)
        endif
        chunk = max (1, floor (2^20 / max (my, 1)));  # rows of X between reports
        for r0 = 1:chunk:mx
          r1 = min (mx, r0 + chunk - 1);
          R(r0:r1,:) = rows_of (fn, f, X, r0, r1, Y, zrows);
          say = progress (say, "rows of X", r1, mx);
        endfor
      else
        K = min (K, mx);
        order = {"ascend", "descend"}{1 + largest};
        R = zeros (0, my);
        I = zeros (0, my);
        chunk = max (1, floor (2^24 / max (my, 1)));  # rows of X a merge
        alloc (fn, K, my);
        if (my == 0)
          mx = 0;                       # (nothing to call f for)
        endif
        for r0 = 1:chunk:mx
          r1 = min (mx, r0 + chunk - 1);
          B = rows_of (fn, f, X, r0, r1, Y, zrows);
          ## the best so far first: a stable sort keeps the smaller row
          ## first among equal distances
          [R, s] = sort ([R; B], 1, order);
          J = [I; repmat((r0:r1)', 1, my)];
          J = J(s + (0:my-1) * rows (J));
          R = R(1:min (K, rows (R)),:);
          I = J(1:rows (R),:);
          say = progress (say, "rows of X", r1, mx);
        endfor
        if (my == 0)
          R = zeros (K, 0);
          I = zeros (K, 0);
        endif
        I = cast (I, iclass);
        if (strcmp (form, "knnsearch"))
          [R, I] = deal (I.', R.');          # Idx, D a row a query
        endif
      endif
      ops = mx * my * d;
  endswitch
  ms = 1000 * toc (t0);
  if (verbose () > 0)
    printf ("gd: %s: cpu on the host (function handle, %d rows of Z a call), %.2f ms\n", ...
            fn, zrows, ms);
  endif
  info = struct ("variant", "cpu", "kernel", "function handle, on the host", ...
                 "device", "cpu (Octave)", "class", "double", "size", [rows(X) rows(Y) d K], ...
                 "upload_ms", 0, "prep_ms", 0, "kernel_ms", ms, "download_ms", 0, ...
                 "total_ms", ms, "ops", ops, "rate", ops / max (ms, eps) * 1000, ...
                 "rate_unit", "triples/s", "gpu_bytes", 0, "resident", resident, "kept", 0, ...
                 "devices", []);
  if (strcmp (form, "pdist"))
    info.size = [rows(X) rows(X) d];
  elseif (K == 0)
    info.size = [rows(X) rows(Y) d];
  endif
  if (resident)
    R = gdArray (R);
    if (! isempty (I))
      I = gdArray (I);
    endif
  endif
endfunction

## zeros (m, n), or gd:memory where the host cannot hold it
function R = alloc (fn, m, n)
  try
    R = zeros (m, n);
  catch
    error ("gd:memory", "%s: cannot allocate the %dx%d result in host memory (%.1f MiB)", ...
           fn, m, n, m * n * 8 / 2^20);
  end_try_catch
endfunction

## The options after the handle: 'Smallest' or 'Largest' K, 'IndexClass',
## and 'Variant', 'Devices', 'Distributed' as far as they apply on the host
function [K, largest, iclass] = options (fn, form, opts)
  K = 0;
  largest = false;
  iclass = "double";
  variant = "auto";
  if (isstruct (opts))
    K = opts.K;
    iclass = opts.IndexClass;
    variant = opts.Variant;
    opts = {};
    check_k (fn, "K", K);
  endif
  if (mod (numel (opts), 2))
    error ("gd:input", "%s: options come in name/value pairs after the distance function", fn);
  endif
  names = {"Smallest", "Largest", "IndexClass", "Variant", "Devices", "Distributed"};
  if (strcmp (form, "pdist"))
    names = {"Variant", "Devices", "Distributed"};
  endif
  seen = {};
  for a = 1:2:numel (opts)
    name = opts{a};
    value = opts{a+1};
    if (! ischar (name) || rows (name) > 1 || ! any (strcmpi (name, names)))
      if (ischar (name) && rows (name) == 1)
        what = sprintf ("'%s'", name);
      else
        what = sprintf ("a %s", class (name));
      endif
      error ("gd:input", "%s: unknown option %s after a distance function (options: %s)", ...
             fn, what, strjoin (names, ", "));
    endif
    name = names{strcmpi (name, names)};
    seen{end+1} = name;
    switch (name)
      case {"Smallest", "Largest"}
        check_k (fn, name, value);
        K = double (value);
        largest = strcmp (name, "Largest");
      case "IndexClass"
        iclass = value;
      case "Variant"
        variant = value;
      case "Devices"
        error ("gd:input", "%s: a function-handle distance runs on the host: 'Devices' does not apply", fn);
      case "Distributed"
        if (! (isscalar (value) && (islogical (value) || isnumeric (value)) && value == 0))
          error ("gd:input", "%s: a function-handle distance runs on the host: its result cannot be distributed", fn);
        endif
    endswitch
  endfor
  if (all (ismember ({"Smallest", "Largest"}, seen)))
    error ("gd:input", "%s: 'Smallest' and 'Largest' cannot both be given", fn);
  endif
  if (! (ischar (iclass) && any (strcmp (iclass, {"double", "int32"}))))
    error ("gd:input", "%s: 'IndexClass' must be 'double' or 'int32'", fn);
  endif
  if (ismember ("IndexClass", seen) && K == 0)
    error ("gd:input", "%s: 'IndexClass' goes with 'Smallest' or 'Largest' (the indices it sets the class of)", fn);
  endif
  if (! (ischar (variant) && rows (variant) <= 1 && any (strcmpi (variant, {"auto", "cpu"}))))
    error ("gd:variant", "%s: a function-handle distance runs on the host: 'Variant' must be 'auto' or 'cpu'", fn);
  endif
endfunction

function check_k (fn, name, v)
  if (! (isnumeric (v) && isreal (v) && isscalar (v) && ! issparse (v) && v >= 1
         && v == fix (v) && v <= 9e15))
    error ("gd:input", "%s: '%s' must be a positive whole number K", fn, name);
  endif
endfunction

function check_operand (fn, name, A)
  if (! ((isnumeric (A) || islogical (A)) && isreal (A) && ndims (A) == 2))
    error ("gd:input", "%s: %s must be a real numeric or logical matrix, not %s", fn, name, class (A));
  endif
endfunction

## f's distances of x to the rows of Y (a row), in calls of at most zrows
## rows
## f of rows r0 .. r1 of X against Y, a row of B each: f called in the
## loop itself (a function call more a row costs Octave as much as a small
## f), each result checked by builtins, into B's columns (then turned)
function B = rows_of (fn, f, X, r0, r1, Y, zrows)
  n = rows (Y);
  if (n > zrows)                        # Y in chunks of zrows rows
    B = zeros (r1 - r0 + 1, n);
    for r = r0:r1
      for c0 = 1:zrows:n
        c1 = min (n, c0 + zrows - 1);
        B(r - r0 + 1, c0:c1) = call (fn, f, X(r,:), Y(c0:c1,:));
      endfor
    endfor
    return;
  endif
  B = zeros (n, r1 - r0 + 1);
  bad = false;
  try
    for r = r0:r1
      d = f (X(r,:), Y);
      if (! (columns (d) == 1 && rows (d) == n && (isnumeric (d) || islogical (d))
             && isreal (d)))
        bad = true;
        break;
      endif
      B(:, r - r0 + 1) = d;
    endfor
  catch err
    failed (fn, n, err);
  end_try_catch
  if (bad)
    check_result (fn, n, d);
  endif
  B = B.';
endfunction

function d = call (fn, f, x, Z)
  try
    d = f (x, Z);
  catch err
    failed (fn, rows (Z), err);
  end_try_catch
  check_result (fn, rows (Z), d);
endfunction

function failed (fn, n, err)
  error ("gd:input", "%s: the distance function failed on a row and %d rows: %s", fn, n, err.message);
endfunction

function check_result (fn, n, d)
  if (! ((isnumeric (d) || islogical (d)) && isreal (d) && isequal (size (d), [n, 1])))
    error ("gd:input", "%s: the distance function must return a real column of %d distances (one a row of its second argument); it returned a %s %s", ...
           fn, n, strjoin (arrayfun (@num2str, size (d), "UniformOutput", false), "x"), class (d));
  endif
endfunction

function v = verbose ()
  v = str2double (getenv ("GD_VERBOSE"));
  if (! (v == 1 || v == 2))
    v = 0;
  endif
endfunction

## GD_VERBOSE's lines as the gateway prints them: from 2 s into the call
## (2: from its first report), at most once a second
function say = progress_start (fn)
  say = struct ("fn", fn, "t0", tic (), "last", -Inf, "level", verbose ());
endfunction

function say = progress (say, what, done, total)
  if (say.level == 0)
    return;
  endif
  s = toc (say.t0);
  if ((say.level == 1 && s < 2) || s - say.last < 1)
    return;
  endif
  say.last = s;
  printf ("gd: %s: %s %d of %d (%.0f%%), %.1f s (function handle, on the host)\n", ...
          say.fn, what, done, total, 100 * done / max (total, 1), s);
  fflush (stdout);
endfunction
