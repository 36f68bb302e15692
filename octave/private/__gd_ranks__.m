## -*- texinfo -*-
## @deftypefn {} {varargout =} __gd_ranks__ (@var{what}, @dots{})
## gdCodistributed's work across the ranks of an MPI job (internal): the
## parts' checks, gather, the nearest neighbours' and the range search's
## merges, pdist2's distributed rows, pdist's pairs, the min-plus
## product's SUMMA, the matrix product's rows and columns, shortest paths' rounds and one row of a distributed
## predecessor matrix (gd_path). Every rank calls each of these at once: the
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
    case "minplus"
      [varargout{1:max (nargout, 1)}] = summa (varargin{:});
    case "sgemm"
      [varargout{1:max (nargout, 1)}] = sgemm_ranks (varargin{:});
    case "apsp"
      [varargout{1:max (nargout, 1)}] = apsp_ranks (varargin{:});
    case "row"
      varargout{1} = row_of (varargin{:});
    otherwise
      error ("gd:input", "__gd_ranks__: unknown request '%s'", what);
  endswitch
endfunction

function c = CLASSES ()
  c = {"double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32", ...
       "int64", "uint64"};
endfunction

function c = class_code (L)
  if (isa (L, "gdArray"))
    name = classUnderlying (L);
  else
    name = class (L);
  endif
  c = find (strcmp (name, CLASSES ()), 1);
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

## The groups of the ranks of a grid's row (this rank's place: its column
## gj) and of its column (its place: its row gi), made once a grid
## (collective: every rank asks for the same grids in the same order)
function [row, column] = grid_groups (pr, pc, gi, gj)
  persistent made = zeros (0, 4);
  at = find (made(:,1) == pr & made(:,2) == pc, 1);
  if (isempty (at))
    made(end+1,:) = [pr, pc, __gd__("spmd", "group", gi, gj), __gd__("spmd", "group", gj, gi)];
    at = rows (made);
  endif
  row = made(at,3);
  column = made(at,4);
endfunction

## Two products' operands checked (fn's messages): both gdCodistributed,
## '2dbc', one grid and block size, inner dimensions agreeing; their
## layouts, the inner dimension, the grid, block size, this rank's place
## and its groups
function [sa, sb, k, pr, pc, b, gi, gj, row, column] = grid_operands (fn, A, B)
  if (! (isa (A, "gdCodistributed") && isa (B, "gdCodistributed")))
    error ("gd:input", "%s: both operands must be gdCodistributed (give the other in parts too)", fn);
  endif
  sa = layout (A);
  sb = layout (B);
  if (! strcmp (sa.Layout, "2dbc") || ! strcmp (sb.Layout, "2dbc"))
    error ("gd:input", "%s: gdCodistributed operands must be '2dbc'", fn);
  endif
  if (! isequal (sa.Grid, sb.Grid) || sa.BlockSize != sb.BlockSize)
    error ("gd:input", "%s: A and B must have one grid and block size (A: %dx%d, %d; B: %dx%d, %d)",
           fn, sa.Grid, sa.BlockSize, sb.Grid, sb.BlockSize);
  endif
  k = sa.Size(2);
  if (sb.Size(1) != k)
    error ("gd:size", "%s: inner dimensions must agree: A is %dx%d, B is %dx%d", fn, sa.Size, sb.Size);
  endif
  [pr, pc, b] = deal (sa.Grid(1), sa.Grid(2), sa.BlockSize);
  r = gd_spmdIndex ();
  gi = floor ((r - 1) / pc);
  gj = mod (r - 1, pc);
  [row, column] = grid_groups (pr, pc, gi, gj);
endfunction

## R = A (min, +) B on '2dbc' operands of one grid and block size: for
## each block K of the inner dimension, in order, A's panel (block column
## K, held by grid column mod (K, pc)) along each grid row and B's
## (block row K, grid row mod (K, pr)) down each grid column (MPI groups
## of the grid's rows and columns), then the rank's product of them
## folded into its part of R by min-plus's own rule (a later block's value
## replaces one that is larger, or a NaN where it is not NaN itself), so
## that R and the witness K are one product's
function [R, W, info] = summa (A, varargin)
  B = A;
  args = varargin;
  if (numel (args) && ! ischar (args{1}))
    B = args{1};
    args(1) = [];
  endif
  [sa, sb, k, pr, pc, b, gi, gj, row, column] = grid_operands ("gd_minplus", A, B);
  PA = getLocalPart (A);
  PB = getLocalPart (B);
  gpu = isa (PA, "gdArray") || isa (PB, "gdArray");
  witness = nargout > 1;
  if (gpu && on_gpus (PA, PB))
    [R, W, info] = summa_gpu (PA, PB, sa, sb, k, pr, pc, b, row, column, witness, args);
    return;
  endif
  R = W = [];
  nk = ceil (k / b);
  for Kb = 0:max (nk, 1) - 1
    if (nk == 0)                        # no inner dimension: one empty product
      Ap = host (PA(:, 1:0));
      Bp = host (PB(1:0, :));
    else
      w = min (b, k - Kb * b);
      cols = floor (Kb / pc) * b + (1:w);   # A's block column Kb in its owners' parts
      rws = floor (Kb / pr) * b + (1:w);    # B's block row Kb likewise
      oc = mod (Kb, pc);
      orow = mod (Kb, pr);
      mine = [];
      if (gj == oc)
        mine = host (PA(:, cols));
      endif
      Ap = __gd__ ("spmd", "broadcast", oc + 1, mine, row);      # along the grid row
      mine = [];
      if (gi == orow)
        mine = host (PB(rws, :));
      endif
      Bp = __gd__ ("spmd", "broadcast", orow + 1, mine, column);  # down the grid column
    endif
    err = [];
    try
      if (witness)
        [P, Q, info] = gd_minplus (Ap, Bp, args{:});
        P = host (P);
        Q = host (Q) + Kb * b * (nk > 0);
      else
        P = host (gd_minplus (Ap, Bp, args{:}));
        info = struct ();
      endif
    catch err
    end_try_catch
    agree (err);
    if (isempty (R))
      R = P;
      if (witness)
        W = Q;
      endif
    else
      m = P < R | (isnan (R) & ! isnan (P));
      R(m) = P(m);
      if (witness)
        W(m) = Q(m);
      endif
    endif
  endfor
  [R, W] = dist_pair (R, W, witness, gpu, sa.Grid, sa.BlockSize, [sa.Size(1), sb.Size(2)]);
  info.ranks = gd_spmdSize ();
endfunction

## each rank's part of a result (and of a second one, where asked) made a
## '2dbc' gdCodistributed of the grid, block size and whole size given; as
## gdArrays where the operands' parts were (gpu)
function [R, W] = dist_pair (R, W, second, gpu, grid, b, sz)
  if (gpu && ! isa (R, "gdArray"))
    R = gdArray (R);
    if (second)
      W = gdArray (W);
    endif
  endif
  R = gdCodistributed (R, "2dbc", grid, b, sz);
  if (second)
    W = gdCodistributed (W, "2dbc", grid, b, sz);
  endif
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

## SUMMA with a panel as wide as the inner dimension, on the GPUs: the
## grid row's parts of A side by side and the grid column's parts of B one
## above another (NCCL, device to device), put in the inner dimension's
## order (the witness names the first k of the whole), then one gd_minplus
## of them on each rank's GPU: R's part and W's are one process's, since
## every element is the min of the same sums and the first k among ties
function [R, W, info] = summa_gpu (PA, PB, sa, sb, k, pr, pc, b, row, column, witness, args)
  Ar = PA;
  Bc = PB;
  err = [];
  try
    if (pc > 1)
      Ar = __gd__ ("spmd", "gpu_cat", PA, 2, row);
      Ar = inner_order (Ar, k, b, pc, 2);
    endif
    if (pr > 1)
      Bc = __gd__ ("spmd", "gpu_cat", PB, 1, column);
      Bc = inner_order (Bc, k, b, pr, 1);
    endif
  catch err
  end_try_catch
  agree (err);
  W = [];
  try
    if (witness)
      [R, W, info] = gd_minplus (Ar, Bc, args{:});
    else
      R = gd_minplus (Ar, Bc, args{:});
      info = struct ();
    endif
  catch err
  end_try_catch
  agree (err);
  [R, W] = dist_pair (R, W, witness, false, sa.Grid, sa.BlockSize, [sa.Size(1), sb.Size(2)]);
  info.ranks = gd_spmdSize ();
endfunction

## G's parts of the inner dimension (np of them, block-cyclic, one after
## another along dim) in the inner dimension's order
function G = inner_order (G, k, b, np, dim)
  idx = [];
  for q = 0:np-1
    idx = [idx, block_indices(k, b, q, np)];
  endfor
  [~, o] = sort (idx);
  if (! isequal (o, 1:k))
    if (dim == 2)
      G = G(:, o);
    else
      G = G(o, :);
    endif
  endif
endfunction

## [D, P, info] = gd_apsp (W) on a '2dbc' W: D and P laid out as W, the
## bits of one process's gd_apsp (W, 'Variant', 'cpu') (D is every
## variant's; 'fw' on a GPU takes P from its rounds' tags, another tree
## where paths tie).
## The lengths by Floyd-Warshall's rounds a vertex k at a time (fw_ranks);
## then, as gd_apsp itself: a negative diagonal fails (the smallest such
## vertex named); P from the last edges, the witnesses of D (min, +) W with
## W's diagonal Inf (SUMMA), where no cycle has weight 0 (a zero of the
## diagonal of D (min, +) D with D's diagonal Inf: SUMMA again), else by
## the rounds again with the predecessors and edge counts tracked (the
## integer classes always, saturating, their largest value no edge); each
## rank's rows of P then made trees by the host's own check
## (__gd__ apsp_trees), from those rows of D and P and the whole W.
function [D, P, info] = apsp_ranks (want_p, W, varargin)
  fn = "gd_apsp";
  if (! isa (W, "gdCodistributed"))
    error ("gd:input", "%s: a gdCodistributed W is expected", fn);
  endif
  s = layout (W);
  if (! strcmp (s.Layout, "2dbc"))
    error ("gd:input", "%s: a gdCodistributed W must be '2dbc' (D and P are laid out as W)", fn);
  endif
  n = s.Size(1);
  if (s.Size(2) != n)
    error ("gd:size", "%s: W must be square (the weights of a graph), not %dx%d", fn, s.Size);
  endif
  icls = apsp_options (fn, varargin);
  PW = getLocalPart (W);
  gpu = isa (PW, "gdArray");
  L = host (PW);
  cls = class (L);
  same_class (gd_spmdCat (class_code (L), 1), fn);
  if (! (isreal (L) && (isfloat (L) || isinteger (L))))
    error ("gd:input", "%s: W must be real single, double or an integer class, not %s", fn, cls);
  endif
  r = gd_spmdIndex ();
  [pr, pc, b] = deal (s.Grid(1), s.Grid(2), s.BlockSize);
  gi = floor ((r - 1) / pc);
  gj = mod (r - 1, pc);
  [row, column] = grid_groups (pr, pc, gi, gj);
  gr = block_indices (n, b, gi, pr);
  gc = block_indices (n, b, gj, pc);
  diagonal = gr(:) == gc;                 # the part's entries W(i,i)
  [di, ~] = find (diagonal);              # (in the order of L(diagonal))
  di = gr(di);
  ints = isinteger (L);
  if (ints)
    hi = intmax (cls);
    add = @(x, y) ifelse_hi (x + y, x == hi | y == hi, hi);
    finite = @(x) x != hi;
    none = hi;
  else
    add = @plus;
    finite = @(x) x < Inf;
    none = Inf;
    if (any (gd_spmdCat (double (any (isnan (L(:)))), 1)))
      error ("gd:input", "%s: W has a NaN: a weight must be a number", fn);
    endif
  endif
  ## a negative W(i,i): a negative self-loop (the smallest such i)
  first_negative (L(diagonal), di, fn, "W(%d,%d) < 0 (a negative self-loop)", 2);
  ## the lengths (and with the integer classes, P by the rounds)
  D = L;
  D(diagonal) = 0;
  P = H = [];
  if (want_p && ints)
    [P, H] = first_edges (L, gr, gc, none);
  endif
  [D, P] = fw_ranks (want_p && ints, D, P, H, n, b, pr, pc, gi, gj, row, column, add, finite);
  first_negative (D(diagonal), di, fn, "a closed path through vertex %d has negative length", 1);
  if (want_p && ! ints)
    at = struct ("grid", s.Grid, "b", b, "size", s.Size, "gr", gr, "gc", gc, "gi", gi, "gj", gj,
                 "row", row, "column", column);
    [D, P] = float_paths (D, L, W, diagonal, at, add, finite);
  endif
  if (want_p && strcmp (icls, "int32"))
    P = int32 (P);
  endif
  [D, P] = dist_pair (D, P, want_p, gpu, s.Grid, b, s.Size);
  info = struct ("variant", "cpu", "kernel",
                 sprintf ("Floyd-Warshall's rounds on a %dx%d grid of ranks", pr, pc),
                 "class", cls, "size", n, "ops", n ^ 3, "ranks", gd_spmdSize ());
endfunction

## gd_apsp's options on a gdCodistributed W: the variant ('auto' or
## 'cpu' alone) and P's class
function icls = apsp_options (fn, args)
  icls = "double";
  if (mod (numel (args), 2))
    error ("gd:input", "%s: options come as name/value pairs", fn);
  endif
  for a = 1:2:numel (args)
    name = args{a};
    v = args{a+1};
    if (! ischar (name))
      error ("gd:input", "%s: an option name must be a string", fn);
    elseif (strcmpi (name, "Variant"))
      if (! ischar (v) || ! any (strcmpi (v, {"auto", "cpu", "fw", "squaring"})))
        error ("gd:input", "%s: unknown variant '%s' (see gd_apsp ('variants'))", fn, num2str (v));
      elseif (! any (strcmpi (v, {"auto", "cpu"})))
        error ("gd:input", "%s: a gdCodistributed W runs the 'cpu' variant's rounds across the ranks ('auto' or 'cpu'): '%s' is not offered there", fn, v);
      endif
    elseif (strcmpi (name, "IndexClass"))
      if (! ischar (v) || ! any (strcmpi (v, {"double", "int32"})))
        error ("gd:input", "%s: 'IndexClass' must be 'double' or 'int32'", fn);
      endif
      icls = lower (v);
    else
      error ("gd:input", "%s: unknown option '%s'", fn, name);
    endif
  endfor
endfunction

## P in single or double, as the 'cpu' variant makes it: from the last
## edges (SUMMA's witnesses of D (min,+) W, W's diagonal Inf) where no
## cycle has weight 0 (no 0 on the diagonal of D (min,+) D, D's diagonal
## Inf), else by the rounds again with the edge counts (D from them too);
## then this rank's rows made trees. L: this rank's part of W (the
## gdCodistributed W); at: the grid, this rank's place and groups.
function [D, P] = float_paths (D, L, W, diagonal, at, add, finite)
  n = at.size(1);
  part = @(M) gdCodistributed (M, "2dbc", at.grid, at.b, at.size);
  Dinf = D;
  Dinf(diagonal) = Inf;
  Z = getLocalPart (summa (part (Dinf), part (Dinf)));
  zero = any (gd_spmdCat (double (any (host (Z)(diagonal) == 0)), 1));
  if (zero)
    [P, H] = first_edges (L, at.gr, at.gc, Inf);
    D = L;
    D(diagonal) = 0;
    [D, P] = fw_ranks (true, D, P, H, n, at.b, at.grid(1), at.grid(2), at.gi, at.gj,
                       at.row, at.column, add, finite);
  else
    Winf = L;
    Winf(diagonal) = Inf;
    [~, K] = summa (part (D), part (Winf));
    P = host (getLocalPart (K));
    P(diagonal | ! (D < Inf)) = 0;
  endif
  P = trees (D, P, W, at.gr, at.gc, n, at.b, at.grid(2), at.gj, at.row);
endfunction

function z = ifelse_hi (z, m, hi)
  z(m) = hi;
endfunction

## the smallest of the vertices idx whose values v are negative, over
## every rank, raised as gd:negcycle with msg (the vertex its times %d)
function first_negative (v, idx, fn, msg, times)
  k = idx(v(:)' < 0);
  k = min ([gd_spmdCat(reshape (k, [], 1), 1); Inf]);
  if (k < Inf)
    k = num2cell (repmat (k, 1, times));
    error ("gd:negcycle", ["%s: the graph has a negative cycle: " msg], fn, k{:});
  endif
endfunction

## the predecessors and edge counts before the rounds: P(i,j) = i where
## W(i,j) is an edge (i != j), else 0; H = 1 where P is, else 0
function [P, H] = first_edges (L, gr, gc, none)
  P = repmat (gr(:), 1, numel (gc));
  P(gr(:) == gc | L == none) = 0;
  H = double (P != 0);
endfunction

## Floyd-Warshall's rounds on this rank's part D (rows gr, columns gc of
## the whole): for each vertex k in order, row k's piece down each grid
## column and column k's along each grid row, then D(i,j) = D(i,k) +
## D(k,j) where that is smaller (add: the class's sum), or as small with
## fewer edges where P is tracked (track, every rank alike, a part
## without elements too: P(i,j) = P(k,j), H the edge counts).
## Where no cycle is negative, row and column k do not change in round k,
## so each element sees the same values in the same order as in the
## blocked rounds of one process: the same bits.
function [D, P] = fw_ranks (track, D, P, H, n, b, pr, pc, gi, gj, row, column, add, finite)
  for k = 1:n
    K = floor ((k - 1) / b);
    [orow, ocol] = deal (mod (K, pr), mod (K, pc));
    mine = mine_h = [];
    if (gi == orow)
      lk = floor (K / pr) * b + mod (k - 1, b) + 1;
      mine = D(lk,:);
      if (track)
        mine_h = [H(lk,:); P(lk,:)];
      endif
    endif
    dk = __gd__ ("spmd", "broadcast", orow + 1, mine, column);
    if (track)
      hk = __gd__ ("spmd", "broadcast", orow + 1, mine_h, column);
    endif
    mine = mine_h = [];
    if (gj == ocol)
      lk = floor (K / pc) * b + mod (k - 1, b) + 1;
      mine = D(:,lk);
      if (track)
        mine_h = H(:,lk);
      endif
    endif
    ck = __gd__ ("spmd", "broadcast", ocol + 1, mine, row);
    sum_ = add (ck, dk);
    if (track)
      hc = __gd__ ("spmd", "broadcast", ocol + 1, mine_h, row);
      h = hc + hk(1,:);
      m = sum_ < D | (sum_ == D & finite (sum_) & h < H);
      D(m) = sum_(m);
      H(m) = h(m);
      pk = repmat (hk(2,:), rows (D), 1);
      P(m) = pk(m);
    else
      m = sum_ < D;
      D(m) = sum_(m);
    endif
  endfor
endfunction

## This rank's rows of P made trees as one process's are: the rows of D
## and P whole along the grid row (its ranks' pieces in turn), W whole,
## then the host's check a block of rows at a time; the rank keeps its
## columns
function P = trees (D, P, W, gr, gc, n, b, pc, gj, row)
  Wh = gather (W);
  Dr = zeros (rows (D), n, class (D));
  Pr = zeros (rows (D), n);
  for q = 0:pc - 1
    cq = block_indices (n, b, q, pc);
    mine = [];
    if (q == gj)
      mine = D;
    endif
    Dr(:,cq) = __gd__ ("spmd", "broadcast", q + 1, mine, row);
    mine = [];
    if (q == gj)
      mine = P;
    endif
    Pr(:,cq) = __gd__ ("spmd", "broadcast", q + 1, mine, row);
  endfor
  for at = 1:b:numel (gr)
    li = at:min (at + b - 1, numel (gr));
    Pr(li,:) = __gd__ ("apsp_trees", Dr(li,:), Wh, Pr(li,:), gr(at));
  endfor
  P = Pr(:,gc);
endfunction

## row i of a gdCodistributed G (a predecessor matrix) on every rank, as
## doubles: each rank holding some of it sends those columns
function v = row_of (G, i)
  li = find (globalIndices (G, 1) == i);
  piece = zeros (2, 0);
  if (! isempty (li))
    L = host (getLocalPart (G));
    piece = [globalIndices(G, 2); double(L(li,:))];
  endif
  all_ = gd_spmdCat (piece, 2, []);
  v = zeros (1, columns (G));
  v(all_(1,:)) = all_(2,:);
endfunction

## C = A * B (gd_sgemm) on '2dbc' operands of one grid and block size:
## each rank's part of C is one gd_sgemm of its grid row's rows of A whole
## (the row's ranks' pieces in turn) and its grid column's columns of B
## whole, so that every element is one sum over the whole inner dimension
## in the variant's own order: one process's bits wherever that order
## does not depend on the operands' shape ('cpu', as its panels of columns
## already assume of the BLAS, and the ladder k1 ... k5; 'tuned' and cuBLAS
## choose their splits of the inner dimension by shape). Not SUMMA's
## panels: a sum of panels' sums rounds otherwise than one sum.
function [C, info] = sgemm_ranks (A, B, varargin)
  [sa, sb, k, pr, pc, b, gi, gj, row, column] = grid_operands ("gd_sgemm", A, B);
  PA = getLocalPart (A);
  PB = getLocalPart (B);
  gpu = isa (PA, "gdArray") || isa (PB, "gdArray");
  La = host (PA);
  Lb = host (PB);
  Ar = zeros (rows (La), k, class (La));
  for q = 0:pc - 1
    mine = [];
    if (q == gj)
      mine = La;
    endif
    Ar(:, block_indices (k, b, q, pc)) = __gd__ ("spmd", "broadcast", q + 1, mine, row);
  endfor
  Bc = zeros (k, columns (Lb), class (Lb));
  for q = 0:pr - 1
    mine = [];
    if (q == gi)
      mine = Lb;
    endif
    Bc(block_indices (k, b, q, pr), :) = __gd__ ("spmd", "broadcast", q + 1, mine, column);
  endfor
  err = [];
  info = struct ();
  try
    if (gpu)
      [Ar, Bc] = deal (gdArray (Ar), gdArray (Bc));
    endif
    [Cl, info] = gd_sgemm (Ar, Bc, varargin{:});
  catch err
    Cl = [];
  end_try_catch
  agree (err);
  C = gdCodistributed (Cl, "2dbc", sa.Grid, b, [sa.Size(1), sb.Size(2)]);
  info.ranks = gd_spmdSize ();
endfunction
