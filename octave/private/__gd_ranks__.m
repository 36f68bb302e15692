## -*- texinfo -*-
## @deftypefn {} {varargout =} __gd_ranks__ (@var{what}, @dots{})
## gdCodistributed's work across the ranks of an MPI job (internal): the
## parts' checks, gather, the nearest neighbours' and the range search's
## merges, pdist2's distributed rows, pdist's pairs; the '2dbc' operations
## (SUMMA, the matrix product, shortest paths, a row of a distributed P)
## are __gd_ranks_grid__'s. Every rank calls each of these at once: the
## collectives inside pair up in order, and a rank's failure is agreed
## before the next (agree).
## @end deftypefn

function varargout = __gd_ranks__ (what, varargin)
  switch (what)
    case "class_code"
      varargout{1} = class_code (varargin{:});
    case "class_name"
      c = CLASSES ();
      varargout{1} = c{varargin{1}};
    case "refuse"
      refuse (varargin{:});
    case "same_class"
      same_class (varargin{:});
    case "numroc"
      varargout{1} = numroc (varargin{:});
    case "block_indices"
      varargout{1} = block_indices (varargin{:});
    case "gather"
      varargout{1} = gather_parts (varargin{:});
    case "knnsearch"
      [varargout{1:max (nargout, 1)}] = knn (true, varargin{:});
    case "pdist2"
      [varargout{1:max (nargout, 1)}] = pdist2_ranks (varargin{:});
    case "pdist"
      [varargout{1:max (nargout, 1)}] = pdist_ranks (varargin{:});
    case "rangesearch"
      [varargout{1:max (nargout, 1)}] = lists (false, varargin{:});
    case {"minplus", "sgemm", "apsp", "row"}   # the '2dbc' operations
      [varargout{1:max (nargout, 1)}] = __gd_ranks_grid__ (what, varargin{:});
    case "agree"                        # (for __gd_ranks_grid__)
      agree (varargin{:});
    case "on_gpus"
      varargout{1} = on_gpus (varargin{:});
    otherwise
      error ("gd:input", "__gd_ranks__: unknown request '%s'", what);
  endswitch
endfunction

function c = CLASSES ()
  c = {"double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32", ...
       "int64", "uint64"};
endfunction

function c = class_code (L)
  c = find (strcmp (__gd_class__ (L), CLASSES ()), 1);
  if (isempty (c))
    c = 0;
  endif
endfunction

## ok(k): rank k's value is good; where one is not, every rank raises
## the same error, naming the first such rank and, from it, why
function refuse (ok, fn, what, why)
  k = find (! ok, 1);
  if (isempty (k))
    return;
  endif
  why = gd_spmdBroadcast (k, why);
  error ("gd:input", "%s: rank %d's %s %s", fn, k, what, why);
endfunction

function same_class (codes, fn)
  if (any (codes != codes(1)))
    k = find (codes != codes(1), 1);
    c = CLASSES ();
    error ("gd:input", "%s: rank %d's part is %s, rank 1's %s: the parts must have one class",
           fn, k, c{codes(k)}, c{codes(1)});
  endif
endfunction

## the rows (or columns) of n in blocks of b that grid row (column) p of
## np holds
function k = numroc (n, b, p, np)
  nb = floor (n / b);
  k = floor (nb / np) * b;
  extra = mod (nb, np);
  if (p < extra)
    k += b;
  elseif (p == extra)
    k += mod (n, b);
  endif
endfunction

## their indices in the whole, in the part's order
function idx = block_indices (n, b, p, np)
  idx = zeros (1, 0);
  for I = p:np:ceil (n / b) - 1
    idx = [idx, I*b+1:min((I+1)*b, n)];
  endfor
endfunction

function A = host (A)
  if (isa (A, "gdArray"))
    A = gather (A);
  endif
endfunction

## the whole on every rank (dest []) or on rank dest alone
function A = gather_parts (G, dest)
  r = gd_spmdIndex ();
  P = host (getLocalPart (G));
  s = layout (G);
  if (strcmp (s.Layout, "1d"))
    A = gd_spmdCat (P, s.Dimension, dest);
    if (isempty (A) && (isempty (dest) || dest == r))
      A = zeros (s.Size, s.Class);     # (an empty whole keeps its size)
    endif
    return;
  endif
  ## 2dbc: every part as a column, in rank order, in one gather (to every
  ## rank or to dest alone); each part's size and place from the layout
  flat = gd_spmdCat (P(:), 1, dest);
  A = [];
  if (! isempty (dest) && dest != r)
    return;
  endif
  A = zeros (s.Size, s.Class);
  [pr, pc, b] = deal (s.Grid(1), s.Grid(2), s.BlockSize);
  at = 0;
  for q = 1:gd_spmdSize ()
    ri = block_indices (s.Size(1), b, floor ((q - 1) / pc), pr);
    ci = block_indices (s.Size(2), b, mod (q - 1, pc), pc);
    A(ri, ci) = reshape (flat(at+1:at+numel (ri) * numel (ci)), numel (ri), numel (ci));
    at += numel (ri) * numel (ci);
  endfor
endfunction

## the value of option name in args (name/value pairs, any case), or def
function [v, at] = option (args, name, def)
  v = def;
  at = 0;
  for a = 1:2:numel (args) - 1
    if (ischar (args{a}) && strcmpi (args{a}, name))
      v = args{a+1};
      at = a;
    endif
  endfor
endfunction

## A rank's part L and the queries Y prepared for seuclidean or
## mahalanobis (margs: the metric and its parameter) with the whole X's
## offset (collective). A part of one row goes through as two: the
## solve of mahalanobis's transform rounds a lone row otherwise than a
## row among others (Octave's mrdivide takes another path for a vector)
function [L, Y, zero] = prepare_part (fn, L, Y, margs)
  c = global_offset (L);
  gpu = isa (L, "gdArray");
  L = host (L);
  one = double (rows (L) == 1);
  [~, L, Y, zero] = __gd_prepare__ (fn, [L; L(1:one,:)], Y, margs, c);
  L = L(1:end-one,:);
  if (gpu)
    L = gdArray (L);
  endif
endfunction

## Every rank's own computation done (err: this rank's error, or []):
## where one failed, every rank raises its error (identifier and message,
## naming the rank), instead of the others waiting for it in the next
## collective
function agree (err)
  ok = gd_spmdCat (double (isempty (err)), 1);
  k = find (! ok, 1);
  if (isempty (k))
    return;
  endif
  msg = id = "";
  if (! isempty (err))
    msg = err.message;
    id = err.identifier;
  endif
  msg = gd_spmdBroadcast (k, msg);
  id = gd_spmdBroadcast (k, id);
  if (gd_spmdSize () > 1)
    msg = sprintf ("%s (on rank %d)", msg, k);
  endif
  error (struct ("message", msg, "identifier", id));
endfunction

## the statistics of the whole of X that a metric's defaults need: given
## (its parameter, 'Scale' or 'Cov', is there) or refused
function check_metric (fn, metric, given)
  if (! ischar (metric) || given)
    return;
  endif
  if (strcmpi (metric, "seuclidean"))
    error ("gd:input", "%s: 'seuclidean' on a gdCodistributed X needs its scales (the default is the standard deviation of the whole of X)", fn);
  endif
  if (strcmpi (metric, "mahalanobis"))
    error ("gd:input", "%s: 'mahalanobis' on a gdCodistributed X needs its covariance (the default is the covariance of the whole of X)", fn);
  endif
endfunction

## X '1d' by rows, the queries the same on every rank
function check_points (fn, X, Y)
  if (! isa (X, "gdCodistributed"))
    error ("gd:input", "%s: the queries Y cannot be a gdCodistributed here: give them whole on every rank, the points X in parts", fn);
  endif
  s = layout (X);
  if (! strcmp (s.Layout, "1d") || s.Dimension != 1)
    error ("gd:input", "%s: a gdCodistributed X must be '1d' by rows (its layout is '%s'%s)",
           fn, s.Layout, merge (strcmp (s.Layout, "1d"), " by columns", ""));
  endif
  if (isa (Y, "gdCodistributed"))
    error ("gd:input", "%s: the queries Y must be the same matrix on every rank, not a gdCodistributed", fn);
  endif
  ## (checked on every rank, one whose part has no rows too: agreed)
  err = [];
  if (columns (Y) != s.Size(2))
    err = struct ("message", sprintf ("%s: X and Y must have the same number of columns: X is %dx%d, Y is %dx%d",
                                      fn, s.Size, size (Y)), "identifier", "gd:size");
  endif
  agree (err);
endfunction

## The whole X's offset (__gd_offset__) from the ranks' parts: the sums
## and counts run down the ranks in order, each rank continuing the last
## one's, so that they are the bits of one sum over the whole
function c = global_offset (L)
  sn = zeros (2, columns (L));
  for q = 1:gd_spmdSize ()
    if (q == gd_spmdIndex ())
      [~, s, n] = __gd_offset__ (L, sn(1,:), sn(2,:));
      sn = [s; n];
    endif
    sn = gd_spmdBroadcast (q, sn);
  endfor
  c = __gd_offset__ (zeros (0, columns (L)), sn(1,:), sn(2,:));
endfunction

## gd_knnsearch (knnsearch true: rows a query) or gd_pdist2's 'Smallest'
## / 'Largest' (columns a query): each rank's K best of its rows, as rows
## of the whole, then the ranks' lists side by side in rank order and a
## stable sort in the search's direction: equal distances stay in rank
## order and, within a rank, in row order, so in the order of their
## global rows, as one search's. seuclidean and mahalanobis: the rows
## prepared here with the whole X's offset, then searched as euclidean.
function [A, B, info] = knn (knnsearch, X, Y, varargin)
  fn = merge (knnsearch, "gd_knnsearch", "gd_pdist2");
  check_points (fn, X, Y);
  args = varargin;
  s = layout (X);
  r = gd_spmdIndex ();
  nloc = s.Partition(r);
  L = getLocalPart (X);
  if (knnsearch)
    [K, at] = option (args, "K", 1);
    if (option (args, "IncludeTies", false))
      [A, B, info] = lists (true, X, Y, args{:});
      return;
    endif
    [metric, mat] = option (args, "Distance", "euclidean");
    [param, pat] = option (args, merge (strcmpi (metric, "mahalanobis"), "Cov", "Scale"), []);
    largest = false;
  else
    [metric, first, given] = pdist2_metric (args);
    param = [];
    if (given)
      param = args{2};
    endif
    [K, at] = option (args(first:end), "Smallest", []);
    largest = false;
    if (isempty (K))
      [K, at] = option (args(first:end), "Largest", []);
      largest = true;
    endif
    at += (first - 1) * (at > 0);
  endif
  prepared = ischar (metric) && any (strcmpi (metric, {"seuclidean", "mahalanobis"}));
  check_metric (fn, metric, ! isempty (param));
  if (! (isnumeric (K) && isscalar (K) && K >= 1 && K == fix (K) && K <= s.Size(1)))
    error ("gd:input", "%s: K must be a whole number from 1 to the rows of X (%d)", fn, s.Size(1));
  endif
  if (prepared)                         # (collective: every rank, rows or not)
    [L, Y, zero] = prepare_part (fn, L, Y, {metric, param});
    if (! isempty (zero))
      error ("gd:input", "%s: seuclidean's scales of 0 on a gdCodistributed X are not offered", fn);
    endif
    if (knnsearch)
      args{mat+1} = "euclidean";
      args(pat:pat+1) = [];
      at -= 2 * (at > pat);
    else
      args = [{"euclidean"}, args(first:end)];
      at -= first - 2;
    endif
  endif
  kl = min (K, nloc);
  gpu = isa (L, "gdArray") || isa (Y, "gdArray");
  my = rows (Y);
  icls = option (args, "IndexClass", "double");
  ycls = class (Y);
  if (isa (Y, "gdArray"))
    ycls = classUnderlying (Y);
  endif
  dcls = merge (strcmp (s.Class, "single") || strcmp (ycls, "single"), "single", "double");
  if (kl > 0)
    if (at)
      args{at+1} = kl;
    elseif (knnsearch)
      args(end+1:end+2) = {"K", kl};
    endif
    err = [];
    try
      [A, B, info] = feval (fn, L, Y, args{:});
    catch err
    end_try_catch
    agree (err);
  else
    agree ([]);
    if (knnsearch)
      A = zeros (my, 0, icls); B = zeros (my, 0, dcls); info = struct ();
    else
      A = zeros (0, my, dcls); B = zeros (0, my, icls); info = struct ();
    endif
  endif
  if (gd_spmdSize () > 1)               # (one rank: its lists are the whole's)
    ## the ranks' lists side by side (gd_knnsearch's: a query a row), on
    ## the GPUs where they are gdArrays there, merged by (key, global row)
    dim = merge (knnsearch, 2, 1);
    [Dl, Il] = deal (B, A);
    if (! knnsearch)
      [Dl, Il] = deal (A, B);
    endif
    lens = gd_spmdCat (kl, 1);
    first = cumsum ([0, s.Partition(1:end-1)]);
    if (on_gpus (Dl, Il))
      Dl = __gd__ ("spmd", "gpu_cat", Dl, dim, 0);
      Il = __gd__ ("spmd", "gpu_cat", Il, dim, 0);
    else
      Dl = gd_spmdCat (host (Dl), dim);
      Il = gd_spmdCat (host (Il), dim);
    endif
    [Dl, Il] = __gd__ ("knn_merge", Dl, Il, K, lens, first, largest, knnsearch);
    [A, B] = deal (Il, Dl);
    if (! knnsearch)
      [A, B] = deal (Dl, Il);
    endif
  endif
  if (gpu && ! isa (A, "gdArray"))
    A = gdArray (A);
    B = gdArray (B);
  endif
  info.ranks = gd_spmdSize ();
endfunction

## Lists of any length a query, in cells (gd_rangesearch with ties false:
## its radius is args{1}; gd_knnsearch with 'IncludeTies' where ties):
## each rank's lists of its rows, as rows of the whole, put side by side
## in rank order and merged by a stable sort of each query's distances
## (ties in the order of their global rows; 'SortIndices' false: left in
## row order). With ties, K of them and every later one at the K-th's
## distance. The lists travel flat: each rank's lengths, rows, distances.
function [Idx, Dst, info] = lists (ties, X, Y, varargin)
  fn = merge (ties, "gd_knnsearch", "gd_rangesearch");
  check_points (fn, X, Y);
  args = varargin;
  opts = args(1 + ! ties:end);
  [metric, mat] = option (opts, "Distance", "euclidean");
  [param, pat] = option (opts, merge (strcmpi (metric, "mahalanobis"), "Cov", "Scale"), []);
  check_metric (fn, metric, ! isempty (param));
  s = layout (X);
  r = gd_spmdIndex ();
  L = getLocalPart (X);
  K = 0;
  if (ties)
    [K, at] = option (opts, "K", 1);
    if (! (isnumeric (K) && isscalar (K) && K >= 1 && K == fix (K) && K <= s.Size(1)))
      error ("gd:input", "%s: K must be a whole number from 1 to the rows of X (%d)", fn, s.Size(1));
    endif
    if (at)
      opts{at+1} = min (K, s.Partition(r));
    else
      opts(end+1:end+2) = {"K", min(K, s.Partition(r))};
    endif
  endif
  if (ischar (metric) && any (strcmpi (metric, {"seuclidean", "mahalanobis"})))
    [L, Y] = prepare_part (fn, L, Y, {metric, param});
    opts{mat+1} = "euclidean";
    opts(pat:pat+1) = [];
  endif
  by_row = ! option (opts, "SortIndices", true);
  lo = sum (s.Partition(1:r-1));
  my = rows (Y);
  err = [];
  try
    if (s.Partition(r) == 0)
      [Il, Dl, info] = deal (cell (my, 1), cell (my, 1), struct ());
      Dl(:) = {zeros(1, 0, merge (strcmp (s.Class, "single") || strcmp (class (host (Y)), "single"), "single", "double"))};
    elseif (ties)
      [Il, Dl, info] = gd_knnsearch (L, Y, opts{:});
    else
      [Il, Dl, info] = gd_rangesearch (L, Y, args{1}, opts{:});
    endif
  catch err
  end_try_catch
  agree (err);
  n = cellfun (@numel, Il);
  icls = option (opts, "IndexClass", "double");
  dcls = merge (strcmp (s.Class, "single") || strcmp (class (host (Y)), "single"), "single", "double");
  I = double (horzcat (zeros (1, 0), Il{:})) + lo;
  D = horzcat (zeros (1, 0, dcls), Dl{:});
  n = gd_spmdCat (n(:), 2);             # my x ranks
  I = gd_spmdCat (I, 2);
  D = gd_spmdCat (D, 2);
  ## every entry's query: the flat lists are rank after rank, each query
  ## after query; two stable sorts, by distance then by query, leave each
  ## query's entries by distance, equal ones in rank order, then row order
  if (! any (n(:)))                     # (repelem takes no empty list)
    [Idx, Dst] = deal (repmat ({zeros(1, 0, icls)}, my, 1), repmat ({zeros(1, 0, dcls)}, my, 1));
    info.ranks = gd_spmdSize ();
    return;
  endif
  q = repelem (repmat ((1:my)', columns (n), 1), n(:));
  o = (1:numel (q))';
  if (! by_row)
    [~, o] = sort (D(:));
  endif
  [~, o2] = sort (q(o));
  o = o(o2);
  q = q(o);
  I = I(o);
  D = D(o);
  c = sum (n, 2);                       # each query's entries
  if (ties)                             # K and every later one at the K-th's distance
    p = (1:numel (q))' - repelem (cumsum ([0; c(1:end-1)]), c);
    kth = cumsum ([0; c(1:end-1)]) + min (K, c);
    dk = NaN (my, 1, class (D));
    dk(c > 0) = D(kth(c > 0));
    keep = p <= K | D(:) == dk(q);
    I = I(keep);
    D = D(keep);
    c = accumarray (q(keep), 1, [my, 1]);
  endif
  Idx = cell (my, 1);
  Dst = cell (my, 1);
  if (my)
    Idx = mat2cell (reshape (cast (I, icls), 1, []), 1, c)';
    Dst = mat2cell (reshape (D, 1, []), 1, c)';
  endif
  info.ranks = gd_spmdSize ();
endfunction

## gd_pdist2's metric (its third argument, where that is not an option's
## name) and where its name/value pairs begin
function [metric, first, param] = pdist2_metric (args)
  metric = "euclidean";
  first = 1;
  param = false;                        # the metric's parameter given
  names = {"Smallest", "Largest", "Variant", "IndexClass", "Devices", "Distributed"};
  if (numel (args) && (is_function_handle (args{1})
                       || (ischar (args{1}) && ! any (strcmpi (args{1}, names)))))
    metric = args{1};
    first = 2;
    if (numel (args) >= 2 && ! ischar (args{2}))
      param = true;
      first = 3;
    endif
  endif
endfunction

## gd_pdist2 with X (or Y) '1d' by rows: D's rows (columns) '1d' on the
## same ranks; with 'Smallest' or 'Largest', the neighbours' merge
function varargout = pdist2_ranks (X, Y, varargin)
  if (any (cellfun (@(a) ischar (a) && any (strcmpi (a, {"Smallest", "Largest"})), varargin)))
    [varargout{1:max (nargout, 1)}] = knn (false, X, Y, varargin{:});
    return;
  endif
  [metric, first, param] = pdist2_metric (varargin);
  if (isa (X, "gdCodistributed") && isa (Y, "gdCodistributed"))
    error ("gd:input", "gd_pdist2: X and Y cannot both be gdCodistributed: give one whole on every rank");
  endif
  G = X;
  d = 1;
  if (isa (Y, "gdCodistributed"))
    G = Y;
    d = 2;
  endif
  s = layout (G);
  if (! strcmp (s.Layout, "1d") || s.Dimension != 1)
    error ("gd:input", "gd_pdist2: a gdCodistributed operand must be '1d' by rows (its layout is '%s')", s.Layout);
  endif
  check_metric ("gd_pdist2", metric, param);
  err = [];
  try
  if (d == 1)
    L = getLocalPart (X);
    if (ischar (metric) && any (strcmpi (metric, {"seuclidean", "mahalanobis"})))
      ## the rows prepared with the whole X's offset (collective)
      [L, Y, zero] = prepare_part ("gd_pdist2", L, Y, varargin(1:first-1));
      if (! isempty (zero))
        error ("gd:input", "gd_pdist2: seuclidean's scales of 0 on a gdCodistributed X are not offered");
      endif
      varargin = [{"euclidean"}, varargin(first:end)];
    endif
    [D, ~, info] = gd_pdist2 (L, Y, varargin{:});
  else
    [D, ~, info] = gd_pdist2 (X, getLocalPart (Y), varargin{:});
  endif
  catch err
  end_try_catch
  agree (err);
  info.ranks = gd_spmdSize ();
  varargout = {gdCodistributed(D, "1d", d), [], info};
endfunction

## gd_pdist with X '1d' by rows: D, the pairs (i, j), i > j, in pdist's
## order (j's column after column), '1d' by columns: rank r holds the
## columns j of its rows, each its pairs with its own later rows (gd_pdist
## of its rows) and then with every later rank's (gd_pdist2 of those rows
## against its own: the metrics are symmetric to the bit, each term of
## x - y and of x .* y the same either way). Every rank takes the whole X
## (the later ranks' rows; the prepared metrics' statistics of the whole)
function [R, info, varargout] = pdist_ranks (X, varargin)
  s = layout (X);
  if (! strcmp (s.Layout, "1d") || s.Dimension != 1)
    error ("gd:input", "gd_pdist: a gdCodistributed X must be '1d' by rows (its layout is '%s')", s.Layout);
  endif
  if (numel (varargin) && is_function_handle (varargin{1}))
    error ("gd:input", "gd_pdist: a function handle's distances on a gdCodistributed X are not offered: give the metric by name");
  endif
  gpu = isa (getLocalPart (X), "gdArray");
  W = gather (X);
  args = varargin;
  if (numel (args))
    [args, W, ~, zero] = __gd_prepare__ ("gd_pdist", W, [], args);
    if (! isempty (zero))
      error ("gd:input", "gd_pdist: seuclidean's scales of 0 on a gdCodistributed X are not offered");
    endif
  endif
  r = gd_spmdIndex ();
  lo = sum (s.Partition(1:r-1));
  nl = s.Partition(r);
  hi = lo + nl;
  L = W(lo+1:hi, :);
  later = W(hi+1:end, :);
  if (gpu)
    L = gdArray (L);                    # (read by both calls below)
  endif
  ## (the rows prepared: the gateway's metrics and options)
  err = [];
  try
    [Dw, info] = __gd__ ("pdist", L, args{:});
    Dc = __gd__ ("pdist2", later, L, args{:});
  catch err
  end_try_catch
  agree (err);
  Dw = host (Dw);
  Dc = host (Dc);
  ## column j: its nl - j pairs within, then its n - hi pairs with the later
  ## rows
  nr = rows (Dc);
  part = zeros (1, nl * nr + nl * (nl - 1) / 2, class (Dc));
  at = 0;
  first = 0;
  for j = 1:nl
    w = nl - j;
    part(at+1:at+w) = Dw(first+1:first+w);
    part(at+w+1:at+w+nr) = Dc(:,j);
    at += w + nr;
    first += w;
  endfor
  if (gpu)
    part = gdArray (part);
  endif
  R = gdCodistributed (part, "1d", 2);
  info.ranks = gd_spmdSize ();
  varargout = {};
endfunction

## Whether every rank's parts are gdArrays on a GPU and the ranks move
## device data by NCCL (every rank at once; the same answer on each)
function tf = on_gpus (varargin)
  mine = true;
  for i = 1:numel (varargin)
    mine = mine && isa (varargin{i}, "gdArray") && existsOnGPU (varargin{i}) && isscalar (device (varargin{i}));
  endfor
  tf = all (gd_spmdCat (double (mine), 1));
  if (tf)
    tf = __gd__ ("spmd", "gpu");
  endif
endfunction

