## -*- texinfo -*-
## @deftypefn {} {varargout =} __gd_ranks_grid__ (@var{what}, @dots{})
## gdCodistributed's operations on '2dbc' operands across the ranks of an
## MPI job (internal, through __gd_ranks__): the min-plus product's SUMMA
## ("minplus"), the matrix product's rows and columns ("sgemm"), shortest
## paths' rounds ("apsp") and one row of a distributed predecessor matrix
## ("row", gd_path). Every rank calls each at once (see __gd_ranks__).
## @end deftypefn

function varargout = __gd_ranks_grid__ (what, varargin)
  switch (what)
    case "minplus"
      [varargout{1:max (nargout, 1)}] = summa (varargin{:});
    case "sgemm"
      [varargout{1:max (nargout, 1)}] = sgemm_ranks (varargin{:});
    case "apsp"
      [varargout{1:max (nargout, 1)}] = apsp_ranks (varargin{:});
    case "row"
      varargout{1} = row_of (varargin{:});
  endswitch
endfunction

## __gd_ranks__'s helpers this file shares
function agree (err)
  __gd_ranks__ ("agree", err);
endfunction
function tf = on_gpus (varargin)
  tf = __gd_ranks__ ("on_gpus", varargin{:});
endfunction
function c = class_code (L)
  c = __gd_ranks__ ("class_code", L);
endfunction
function same_class (codes, fn)
  __gd_ranks__ ("same_class", codes, fn);
endfunction
function idx = block_indices (n, b, p, np)
  idx = __gd_ranks__ ("block_indices", n, b, p, np);
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
      Ap = gather (PA(:, 1:0));
      Bp = gather (PB(1:0, :));
    else
      w = min (b, k - Kb * b);
      cols = floor (Kb / pc) * b + (1:w);   # A's block column Kb in its owners' parts
      rws = floor (Kb / pr) * b + (1:w);    # B's block row Kb likewise
      oc = mod (Kb, pc);
      orow = mod (Kb, pr);
      mine = [];
      if (gj == oc)
        mine = gather (PA(:, cols));
      endif
      Ap = __gd__ ("spmd", "broadcast", oc + 1, mine, row);      # along the grid row
      mine = [];
      if (gi == orow)
        mine = gather (PB(rws, :));
      endif
      Bp = __gd__ ("spmd", "broadcast", orow + 1, mine, column);  # down the grid column
    endif
    err = [];
    try
      if (witness)
        [P, Q, info] = gd_minplus (Ap, Bp, args{:});
        P = gather (P);
        Q = gather (Q) + Kb * b * (nk > 0);
      else
        P = gather (gd_minplus (Ap, Bp, args{:}));
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
  [icls, variant] = apsp_options (fn, varargin);
  PW = getLocalPart (W);
  gpu = isa (PW, "gdArray");
  same_class (gd_spmdCat (class_code (PW), 1), fn);
  r = gd_spmdIndex ();
  [pr, pc, b] = deal (s.Grid(1), s.Grid(2), s.BlockSize);
  gi = floor ((r - 1) / pc);
  gj = mod (r - 1, pc);
  [row, column] = grid_groups (pr, pc, gi, gj);
  if (gpu && ! strcmp (variant, "cpu") && mod (b, 128) == 0 && isfloat (PW) && on_gpus (PW))
    [D, P, info] = apsp_gpu (want_p, PW, s, icls, [n, b, pr, pc, gi, gj, row, column]);
    if (! isempty (D))
      return;
    endif
  elseif (strcmp (variant, "fw"))
    error ("gd:input", "%s: 'fw' across ranks takes W's parts as gdArrays on GPUs (NCCL), in single or double, of blocks of a multiple of 128", fn);
  endif
  L = gather (PW);
  cls = class (L);
  if (! (isreal (L) && (isfloat (L) || isinteger (L))))
    error ("gd:input", "%s: W must be real single, double or an integer class, not %s", fn, cls);
  endif
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

## gd_apsp on gdArray parts on the ranks' GPUs (g: n, b, the grid, this
## rank's place and groups): D by 'fw''s rounds across the ranks
## (__gd__ apsp_ranks: one device's 'fw' D bit for bit, and the rounds'
## tags); P by fw's chain: D gathered whole on every rank (NCCL), the
## chain searched on this rank's rows of the tags, the rows put together,
## the jumps on the whole (each rank the same), then this rank's rows made
## trees on its GPU (__gd__ apsp_trees, W gathered whole): one device's
## 'fw' P. Where rounding breaks a chain, P from the last edges (the
## witnesses of D (min,+) W, W's diagonal Inf, SUMMA), as fw's own
## fallback. Where a cycle weighs 0 (D(i,j) + D(j,i) == 0), D = []: P
## then needs the edge counts, and the host's rounds make D and P.
function [D, P, info] = apsp_gpu (want_p, PW, s, icls, g)
  [n, b, pr, pc, gi, gj, row, column] = num2cell (g){:};
  P = [];
  kernel = sprintf ("Floyd-Warshall's rounds on a %dx%d grid of ranks' GPUs (NCCL)", pr, pc);
  if (! want_p)
    D = __gd__ ("apsp_ranks", PW, g);
  else
    [D, T] = __gd__ ("apsp_ranks", PW, g);
    gr = block_indices (n, b, gi, pr);
    gc = block_indices (n, b, gj, pc);
    Dw = whole_gpu (D, n, b, pr, pc, row, column);
    if (each (@() zero_cycle (Dw, n)))
      [D, info] = deal ([], struct ());
      return;
    endif
    if (pc > 1)
      T = inner_order (__gd__ ("spmd", "gpu_cat", T, 2, row), n, b, pc, 2);
    endif
    [P, broken] = each (@() __gd__ ("apsp_chain", Dw, T, gr));
    clear T;
    broken = any (gd_spmdCat (double (broken), 1));     # (every rank's)
    if (! broken)
      if (pr > 1)
        P = inner_order (__gd__ ("spmd", "gpu_cat", P, 1, column), n, b, pr, 1);
      endif
      [P, broken] = each (@() __gd__ ("apsp_chain", P));
      broken = any (gd_spmdCat (double (broken), 1));   # (the same on every rank)
      if (pr > 1)
        P = P(gr,:);
      endif
    endif
    [tf, at] = ismember (gr, gc);
    dg = find (tf(:)) + (at(tf)(:) - 1) * numel (gr);   # the part's W(i,i)
    how = "P by the chain";
    if (broken)
      Winf = PW;
      Winf(dg) = Inf;
      part = @(M) gdCodistributed (M, "2dbc", s.Grid, b, s.Size);
      [~, K] = summa (part (D), part (Winf));
      clear Winf;
      P = getLocalPart (K) .* (D < Inf);
      P(dg) = 0;
      if (pc > 1)
        P = inner_order (__gd__ ("spmd", "gpu_cat", P, 2, row), n, b, pc, 2);
      endif
      P = int32 (P);
      how = "P from the last edges";
    endif
    ## this rank's rows of P made trees, then its columns
    Ww = whole_gpu (PW, n, b, pr, pc, row, column);
    P = each (@() trees_part (Dw(gr,:), Ww, P, gr, gc));
    if (! strcmp (icls, "int32"))
      P = double (P);
    endif
    kernel = [kernel ", " how ", trees on the GPUs"];
  endif
  [D, P] = dist_pair (D, P, want_p, true, s.Grid, b, s.Size);
  info = struct ("variant", "fw", "kernel", kernel, "class", classUnderlying (PW), "size", n,
                 "ops", n ^ 3, "ranks", gd_spmdSize ());
endfunction

## f's results on this rank; a failure on any rank raised on every rank
function varargout = each (f)
  varargout = cell (1, max (nargout, 1));
  err = [];
  try
    [varargout{:}] = f ();
  catch err
  end_try_catch
  agree (err);
endfunction

## this rank's rows of P (sources gr) made trees (D's rows, W whole: on
## the GPU), then its columns gc
function P = trees_part (Dr, W, P, gr, gc)
  P = __gd__ ("apsp_trees", Dr, W, P, gr);
  P = P(:, gc);
endfunction

## whether D (n x n, whole) shows a cycle of weight 0: D(i,j) + D(j,i) ==
## 0 for some i != j
function z = zero_cycle (D, n)
  Z = D + D.';
  Z(1:n+1:end) = Inf;
  z = gather (any (any (Z == 0)));
endfunction

## a '2dbc' matrix's parts (gdArrays, n x n whole) put together on every
## rank's GPU: the grid row's side by side, then the grid column's one
## above another (NCCL), each in the vertices' order
function G = whole_gpu (G, n, b, pr, pc, row, column)
  if (pc > 1)
    G = inner_order (__gd__ ("spmd", "gpu_cat", G, 2, row), n, b, pc, 2);
  endif
  if (pr > 1)
    G = inner_order (__gd__ ("spmd", "gpu_cat", G, 1, column), n, b, pr, 1);
  endif
endfunction

## gd_apsp's options on a gdCodistributed W: the variant ('auto', 'cpu',
## or 'fw' on the GPUs) and P's class
function [icls, variant] = apsp_options (fn, args)
  icls = "double";
  variant = "auto";
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
      elseif (! any (strcmpi (v, {"auto", "cpu", "fw"})))
        error ("gd:input", "%s: a gdCodistributed W runs 'fw''s rounds on the ranks' GPUs or the 'cpu' variant's on their hosts ('auto', 'fw' or 'cpu'): '%s' is not offered there", fn, v);
      endif
      variant = lower (v);
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
  zero = any (gd_spmdCat (double (any (gather (Z)(diagonal) == 0)), 1));
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
    P = gather (getLocalPart (K));
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
    L = gather (getLocalPart (G));
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
## does not depend on the operands' shape (the ladder k1 ... k5, 'cpu' on
## the reference BLAS; not on OpenBLAS, whose kernels for a few rows and
## for eight sum otherwise, nor 'tuned' and cuBLAS, which choose their
## splits of the inner dimension by shape). Not SUMMA's panels: a sum of
## panels' sums rounds otherwise than one sum.
function [C, info] = sgemm_ranks (A, B, varargin)
  [sa, sb, k, pr, pc, b, gi, gj, row, column] = grid_operands ("gd_sgemm", A, B);
  PA = getLocalPart (A);
  PB = getLocalPart (B);
  gpu = isa (PA, "gdArray") || isa (PB, "gdArray");
  La = gather (PA);
  Lb = gather (PB);
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
