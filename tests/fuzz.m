function fuzz (fname, seed)
  ## fuzz (FNAME, SEED): calls the public function FNAME with odd and bad
  ## arguments: a valid call with each argument position (and one past the
  ## end) replaced by every value of a pool (every class, empty shapes,
  ## N-D, dimensions no memory holds, NaN and Inf, text with NUL, function
  ## handles ...), every argument and output count from none to too many,
  ## and random argument lists drawn from the pool, all from SEED. Each
  ## call must either raise an error whose id begins with "gd:" or return
  ## the correct result (checked against Octave's own computation), and
  ## must leave its arguments as they were. A crash ends the process: the
  ## caller sees it. Prints "fuzz FNAME: N cases, all passed" or raises
  ## an error listing the failures.
  rand ("state", seed); randn ("state", seed);
  warning ("off", "gd:nogpu"); warning ("off", "gd:symmetric"); warning ("off", "gd:threads");
  pool = value_pool ();
  [base, maxout] = base_call (fname);
  f = str2func (fname);
  cases = {};
  ## every position, each pool value
  for p = 1:numel (base) + 1
    for v = 1:rows (pool)
      args = base;
      args{p} = pool{v, 2};
      cases(end+1, :) = {args, 1, sprintf("arg %d = %s", p, pool{v, 1})};
    endfor
  endfor
  ## argument and output counts
  extra = [base, {"Variant", "auto", 1}];
  for na = 0:numel (extra)
    for no = 0:maxout + 1
      cases(end+1, :) = {extra(1:na), no, sprintf("%d args, %d outputs", na, no)};
    endfor
  endfor
  ## random lists from the pool
  for c = 1:150
    na = randi ([0 4], 1);
    idx = randi (rows (pool), 1, na);
    no = randi ([0 maxout], 1);
    label = ["random: " strjoin(pool(idx, 1)', ", ")];
    cases(end+1, :) = {pool(idx, 2)', no, label};
  endfor
  ## valid calls of random shapes (empty ones too), classes, NaN and Inf,
  ## through every variant this machine can run
  for c = 1:120
    [args, label] = valid_call (fname);
    no = randi ([1 maxout], 1);
    cases(end+1, :) = {args, no, label};
  endfor
  failures = {};
  ok = 0;
  for c = 1:rows (cases)
    t0 = tic;
    [why, good] = run_case (f, fname, cases{c, 1}, cases{c, 2});
    ok += good;
    if (toc (t0) > 1 && getenv ("GD_FUZZ_SLOW")) printf ("slow %.1f s: %s\n", toc (t0), cases{c, 3}); endif
    if (! isempty (why))
      failures{end+1} = sprintf ("case %d (%s): %s", c, cases{c, 3}, why);
    endif
  endfor
  if (! isempty (failures))
    error ("fuzz %s (seed %d): %d of %d cases failed:\n%s", fname, seed,
           numel (failures), rows (cases), strjoin (failures, "\n"));
  endif
  printf ("fuzz %s: %d cases, all passed (%d returned a checked result, %d a gd: error; seed %d)\n",
          fname, rows (cases), ok, rows (cases) - ok, seed);
endfunction

function [why, good] = run_case (f, fname, args, nout)
  why = "";
  good = false;
  before = cellfun (@fingerprint, args, "UniformOutput", false);
  out = cell (1, nout);
  try
    if (nout == 0)
      evalc ("f (args{:});");
    else
      [out{1:nout}] = f (args{:});
    endif
  catch err
    if (! strncmp (err.identifier, "gd:", 3))
      why = sprintf ("error without a gd: id: '%s': %s", err.identifier, err.message);
    endif
    out = [];
  end_try_catch
  if (isempty (why) && ! isequal (before, cellfun (@fingerprint, args, "UniformOutput", false)))
    why = "an argument was modified";
  endif
  if (isempty (why) && ! isempty (out) && nout > 0)
    why = check_result (fname, args, out);
    good = isempty (why);
  endif
endfunction

## The result of a call that succeeded, against Octave's own computation;
## "" when right.
function why = check_result (fname, args, out)
  why = "";
  R = out{1};
  ## info is the output after those of Octave's counterpart: third for
  ## gd_minplus ([R, K, info]: K as min's index), gd_apsp, gd_knnsearch,
  ## gd_rangesearch and gd_pdist2 ([D, I, info]), second for the others
  at = 2 + any (strcmp (fname, {"gd_minplus", "gd_apsp", "gd_knnsearch", "gd_rangesearch", "gd_pdist2"}));
  if (numel (out) >= at && ! isstruct (out{at}) && ! ischar (args{1}))
    why = sprintf ("output %d is not the info struct", at);
    return;
  endif
  switch (fname)
    case "gd_info"
      why = result_info (fname, args, out, R);
    case {"gd_minplus", "gd_sgemm"}
      why = result_minplus (fname, args, out, R);
    case "gd_apsp"
      why = result_apsp (fname, args, out, R);
    case "gd_path"
      why = result_path (fname, args, out, R);
    case {"gd_pdist", "gd_pdist2"}
      why = result_pdist (fname, args, out, R);
    case "gd_knnsearch"
      why = result_knnsearch (fname, args, out, R);
    case "gd_rangesearch"
      why = result_rangesearch (fname, args, out, R);
    case "gd_squareform"
      why = result_squareform (fname, args, out, R);
  endswitch
endfunction

## check_result's case "gd_info"
function why = result_info (fname, args, out, R)
  why = "";
  if (! isstruct (R) || ! isfield (R, "available"))
    why = "gd_info gave no struct";
  endif
endfunction

## check_result's case "gd_minplus", "gd_sgemm"
function why = result_minplus (fname, args, out, R)
  why = "";
  if (ischar (args{1}))          # 'variants'
    if (! isstruct (R)) why = "variants: no struct"; endif
    return;
  endif
  A = args{1};
  if (numel (args) >= 2 && ! ischar (args{2})) B = args{2}; else B = A; endif
  if (strcmp (fname, "gd_sgemm"))
    try
      ref = double (single (A)) * double (single (B));
    catch
      ## sizes Octave's BLAS cannot take (its 32-bit dimensions): gd
      ## answered, and there is no reference to hold it to
      return;
    end_try_catch
    if (! isa (R, "single") || ! isequal (size (R), size (ref)))
      why = sprintf ("sgemm: %s %dx%d, wanted single %dx%d", class (R), rows (R), columns (R), rows (ref), columns (ref));
    elseif (all (isfinite (ref(:))) && max (abs (ref(:))) < 1e30)
      tol = (columns (A) + 1) * eps ("single") * (abs (double (single (A))) * abs (double (single (B)))) + 1e-30;
      if (any (abs (double (R(:)) - ref(:)) > tol(:)))
        why = "sgemm: result off by more than k eps";
      endif
    endif
  else
    if (isa (A, "single") || isa (B, "single")) cls = "single"; else cls = "double"; endif
    if (isinteger (A)) cls = class (A); endif   # both of it, or gd refused
    A = cast (A, cls); B = cast (B, cls);
    if (isinteger (A))
      ref = repmat (intmax (cls), rows (A), columns (B));
    else
      ref = Inf (rows (A), columns (B), cls);
    endif
    kref = zeros (rows (A), columns (B));
    if (columns (A) > 0)
      for j = 1:columns (B)
        [ref(:, j), kref(:, j)] = min (A + B(:, j).', [], 2);
      endfor
    endif
    if (! strcmp (class (R), cls) || ! isequaln (R, ref))
      why = "min-plus: not Octave's result";
    elseif (numel (out) > 1 && ! isequal (out{2}, kref))
      why = "min-plus: the witness is not Octave's [~, K] = min (...)";
    endif
  endif
endfunction

## check_result's case "gd_apsp"
function why = result_apsp (fname, args, out, R)
  why = "";
  if (ischar (args{1}))
    if (! isstruct (R)) why = "variants: no struct"; endif
    return;
  endif
  W = args{1}; n = rows (W);
  if (issparse (W))
    ## a sparse graph as MATLAB's digraph reads it: a stored entry an
    ## edge, a structural zero none
    [i, j, v] = find (W);
    W = Inf (size (W)); W(sub2ind (size (W), i, j)) = v;
  endif
  E = W; E(1:n+1:end) = 0;
  none = Inf;
  if (isinteger (W)) none = intmax (class (W)); endif   # no edge
  for k = 1:n
    t = E(:,k) + E(k,:);
    t(E(:,k) == none | E(k,:) == none) = none;
    E = min (E, t);
  endfor
  if (! strcmp (class (R), class (W)) || ! isequal (R, E))
    why = "gd_apsp: not Floyd-Warshall's lengths";
  elseif (numel (out) > 1)
    P = double (out{2});
    ## the routes from up to 6 sources (drawn afresh each case; every
    ## source's routes are checked in apsp.bats's own tests)
    for i = randperm (n, min (n, 6))
      ## every route from i in one call (one call a pair took seconds)
      js = find (E(i,:) != none);
      routes = gd_path (P, i, js);
      if (! iscell (routes)) routes = {routes}; endif
      for t = 1:numel (js)
        r = routes{t}; j = js(t);
        if (r(1) != i || r(end) != j || sum (W(sub2ind ([n n], r(1:end-1), r(2:end)))) != E(i,j))
          why = sprintf ("gd_apsp: the route %d -> %d is no shortest path", i, j);
          return;
        endif
      endfor
    endfor
  endif
endfunction

## check_result's case "gd_path"
function why = result_path (fname, args, out, R)
  why = "";
  P = double (args{1}); i = args{2}; js = args{3};
  routes = R;
  if (! iscell (routes)) routes = {routes}; endif
  for t = 1:numel (js)
    r = routes{t};
    ## from i where row i is an all-pairs row (P(i,i) is 0), else from
    ## the row's root (a sources P: row i is s(i)'s tree, its
    ## predecessor 0)
    if (i <= columns (P) && P(i,i) == 0)
      from_root = isempty (r) || r(1) == i;
    else
      from_root = isempty (r) || P(i, r(1)) == 0;
    endif
    if (! isempty (r) && (! from_root || r(end) != js(t)))
      why = "gd_path: a route does not run from its row's root to j";
    endif
  endfor
endfunction

## check_result's case "gd_pdist", "gd_pdist2"
function why = result_pdist (fname, args, out, R)
  why = "";
  if (ischar (args{1}))
    if (! isstruct (R)) why = "variants: no struct"; endif
    return;
  endif
  two = strcmp (fname, "gd_pdist2");
  if (numel (args) > 1 + two && (is_function_handle (args{2 + two})
      || (ischar (args{2 + two}) && any (strcmpi (args{2 + two}, {"seuclidean", "mahalanobis", ...
          "cityblock", "minkowski", "chebychev", "cosine", "correlation", "spearman", "hamming", "jaccard"})))))
    return;                         # a metric the fuzz does not recompute
  endif
  X = dense (args{1});
  if (two) Y = dense (args{2}); else Y = X; endif
  sq = numel (args) > 1 + two && ischar (args{2 + two}) ...
       && any (strcmpi (args{2 + two}, {"squaredeuclidean", "sqeuclidean"}));
  if (isa (X, "single") || isa (Y, "single")) cls = "single"; else cls = "double"; endif
  X = double (cast (X, cls)); Y = double (cast (Y, cls));
  ref = zeros (rows (X), rows (Y));
  for j = 1:rows (Y)
    ref(:, j) = sumsq (X - Y(j, :), 2);
  endfor
  if (! sq) ref = sqrt (ref); endif
  if (! two)
    ref = ref(tril (true (rows (X)), -1)).';
    if (isempty (ref)) ref = zeros (1, 0); endif
  endif
  ## a sum of k squares in the class: within (k + 3) u of it, u = eps / 2
  ## (the difference, the square, k - 1 additions; the root halves it),
  ## and never tighter than 16 u
  tol = max (16, columns (X) + 3) * eps (cls) / 2 * abs (ref) + realmin (cls);
  if (! strcmp (class (R), cls) || ! isequal (size (R), size (ref)))
    why = sprintf ("%s: %s %dx%d, wanted %s %dx%d", fname, class (R), rows (R), columns (R), cls, rows (ref), columns (ref));
  elseif (! isequal (isnan (R), isnan (ref)) || any (abs (double (R(:)) - ref(:)) > tol(:)))
    why = sprintf ("%s: distances wrong", fname);
  endif
endfunction

## check_result's case "gd_knnsearch"
function why = result_knnsearch (fname, args, out, R)
  why = "";
  if (ischar (args{1}))
    if (! isstruct (R)) why = "variants: no struct"; endif
    return;
  endif
  ## the neighbours against the Octave formula of the distance: each
  ## row of Idx in range, D the distances of those rows, ascending,
  ## none of the others nearer than the last one taken
  X = dense (args{1}); Y = dense (args{2});
  o = struct ("k", 1, "distance", "euclidean");
  for a = 3:2:numel (args)
    o.(lower (args{a})) = args{a+1};
  endfor
  if (isa (X, "single") || isa (Y, "single")) cls = "single"; else cls = "double"; endif
  X = double (cast (X, cls)); Y = double (cast (Y, cls));
  if (! any (strcmpi (o.distance, {"euclidean", "squaredeuclidean", "sqeuclidean", "cityblock", "chebychev"})))
    return;                         # a metric the fuzz does not recompute
  endif
  k = min (o.k, rows (X));
  if (columns (X) == 0)
    ## no features: every distance 0, so any k distinct rows (a million
    ## empty rows each side has no pairwise reference to build)
    s = sort (R, 2);
    if (! isequal (size (R), [rows(Y) k]) || any (R(:) < 1 | R(:) > rows (X))
        || any (any (diff (s, 1, 2) == 0))
        || (numel (out) > 1 && ! isequal (out{2}, zeros (rows (Y), k, cls))))
      why = "gd_knnsearch: with no features, not k distinct rows at distance 0";
    endif
    return;
  endif
  F = zeros (rows (X), rows (Y));
  for j = 1:rows (Y)
    switch (lower (o.distance))
      case {"euclidean", "squaredeuclidean", "sqeuclidean"}, F(:,j) = sum ((X - Y(j,:)).^2, 2);
      case "cityblock", F(:,j) = sum (abs (X - Y(j,:)), 2);
      case "chebychev"
        ## gd's rule: a NaN difference (the same infinity in both rows)
        ## gives NaN, as it does in the sums; Octave's max would skip it
        A = abs (X - Y(j,:)); F(:,j) = max (A, [], 2); F(any (isnan (A), 2), j) = NaN;
    endswitch
    if (any (isnan (X(:))) || any (isnan (Y(j,:)))) F(any (isnan (X), 2) | any (isnan (Y(j,:))), j) = NaN; endif
  endfor
  if (strcmpi (o.distance, "euclidean")) F = sqrt (F); endif
  if (numel (out) < 2) return; endif
  D = out{2};
  if (! isequal (size (R), [rows(Y) k]) || ! isequal (size (D), [rows(Y) k]) || ! strcmp (class (D), cls))
    why = sprintf ("gd_knnsearch: Idx %dx%d, D %s %dx%d, wanted %dx%d %s", rows (R), columns (R), class (D), rows (D), columns (D), rows (Y), k, cls);
    return;
  endif
  for j = 1:rows (Y)
    if (k == 0) break; endif
    idx = R(j,:); dj = double (D(j,:));
    if (any (idx < 1 | idx > rows (X) | idx != round (idx)) || numel (unique (idx)) != k)
      why = "gd_knnsearch: an index out of range or repeated"; return;
    endif
    ref = F(idx, j).';
    tol = 8 * eps (cls) * abs (ref) + realmin (cls);
    if (! isequal (isnan (dj), isnan (ref)) || any (abs (dj - ref) > tol))
      why = "gd_knnsearch: D is not the distance of the rows in Idx"; return;
    endif
    v = dj(! isnan (dj));
    if (any (diff (v) < 0) || any (isnan (dj(1:numel (v)))))
      why = "gd_knnsearch: D not ascending (NaN last)"; return;
    endif
    rest = F(setdiff (1:rows (X), idx), j);
    if (! isempty (v) && numel (v) == k && any (rest < v(end) - tol(end)))
      why = "gd_knnsearch: a nearer row was left out"; return;
    endif
  endfor
endfunction

## check_result's case "gd_rangesearch"
function why = result_rangesearch (fname, args, out, R)
  why = "";
  ## each list: the rows within r of the query (but for a distance at r
  ## to rounding), D their distances, ascending
  if (ischar (args{1}))
    if (! isstruct (R)) why = "variants: no struct"; endif
    return;
  endif
  X = dense (args{1}); Y = dense (args{2}); r = double (args{3});
  if (isa (X, "single") || isa (Y, "single")) cls = "single"; else cls = "double"; endif
  X = double (cast (X, cls)); Y = double (cast (Y, cls));
  if (! iscell (R) || ! isequal (size (R), [rows(Y) 1]))
    why = "gd_rangesearch: Idx is not a rows (Y) x 1 cell"; return;
  endif
  for j = 1:rows (Y)
    F = sqrt (sum ((X - Y(j,:)).^2, 2));
    tol = 8 * eps (cls) * max (abs (F), r) + realmin (cls);
    idx = R{j};
    odd = setxor (idx, find (F <= r)');
    if (any (abs (F(odd) - r) > tol(odd)) || numel (unique (idx)) != numel (idx))
      why = "gd_rangesearch: a list is not the rows within r"; return;
    endif
    if (numel (out) > 1)
      dj = double (out{2}{j});
      if (! isequal (size (dj), size (idx)) || any (abs (dj - F(idx)') > tol(idx)')
          || any (diff (dj) < 0))
        why = "gd_rangesearch: D is not the rows' distances, ascending"; return;
      endif
    endif
  endfor
endfunction

## check_result's case "gd_squareform"
function why = result_squareform (fname, args, out, R)
  why = "";
  X = args{1};
  if (! strcmp (class (R), class (X)))
    why = "squareform: class not kept";
  elseif (isvector (R) && ! (rows (R) == columns (R) && numel (R) == 1))
    n = rows (X);
    if (! isequal (R, reshape (X(tril (true (n), -1)), 1, [])))
      why = "squareform: not the lower triangle";
    endif
  elseif (rows (R) != columns (R) || any (diag (R) != 0) || ! isequaln (R, R.'))
    why = "squareform: not a symmetric hollow matrix";
  elseif (! isequaln (reshape (R(tril (true (rows (R)), -1)), 1, []), reshape (X, 1, [])))
    why = "squareform: the vector is not its lower triangle";
  endif
endfunction

function [args, label] = valid_call (fname)
  sizes = [0 1 2 3 7 33 130];
  pick = @() sizes(randi (numel (sizes)));
  cls = {"single", "double"};
  c1 = cls{randi (2)}; c2 = cls{randi (2)};
  m = pick (); k = pick (); n = pick ();
  args = {};
  label = "";
  variant = {"Variant", "auto"};
  if (! any (strcmp (fname, {"gd_squareform", "gd_info", "gd_path"})))
    v = feval (fname, "variants");
    names = {v.name};
    if (! gd_info ().available) names = names(! [v.gpu]); endif
    variant = {"Variant", names{randi (numel (names))}};
  endif
  switch (fname)
    case {"gd_minplus", "gd_sgemm"}
      A = spoil (randi ([-9 9], m, k), c1); B = spoil (randi ([-9 9], k, n), c2);
      if (strcmp (fname, "gd_minplus") && rand () < 0.25)
        ## an integer class for both, its extremes sprinkled in
        ic = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}{randi (8)};
        A = cast (randi ([-9 9], m, k), ic); B = cast (randi ([-9 9], k, n), ic);
        A(rand (m, k) < 0.1) = intmax (ic); B(rand (k, n) < 0.1) = intmin (ic);
        variant = {"Variant", {"auto", "cpu"}{randi (2)}};
      endif
      if (strcmp (fname, "gd_sgemm")) A(! isfinite (A)) = 1; B(! isfinite (B)) = 2; endif
      args = [{A, B}, variant];
    case "gd_pdist"
      metric = {"euclidean", "squaredeuclidean"}{randi (2)};
      X = spoil (randn (m, k), c1);
      args = [{X, metric}, variant];
    case "gd_pdist2"
      metric = {"euclidean", "sqeuclidean"}{randi (2)};
      X = spoil (randn (m, k), c1); Y = spoil (randn (n, k), c2);
      args = [{X, Y, metric}, variant];
    case "gd_squareform"
      q = randi ([0 9], 1); X = spoil (rand (1, q * (q - 1) / 2), c1);
      args = {X};
    case "gd_knnsearch"
      metric = {"euclidean", "squaredeuclidean", "cityblock", "chebychev"}{randi (4)};
      X = spoil (randn (m, k), c1); Y = spoil (randn (n, k), c2);
      K = randi ([1, m + 2]);
      args = [{X, Y, "K", K, "Distance", metric}, variant];
    case "gd_rangesearch"
      X = spoil (randn (m, k), c1); Y = spoil (randn (n, k), c2);
      args = [{X, Y, {0, 0.5, 1.5, Inf}{randi (4)}}, variant];
    case "gd_info"
      args = {};
    case "gd_apsp"
      W = randi ([0 9], m); W(rand (m) < 0.5) = Inf; W(1:m+1:end) = 0;
      W = cast (W, c1);
      if (rand () < 0.25)
        ## an integer class: intmax is no edge
        ic = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}{randi (8)};
        W = cast (randi ([0 9], m), ic); W(rand (m) < 0.5) = intmax (ic); W(1:m+1:end) = 0;
        variant = {"Variant", {"auto", "cpu"}{randi (2)}};
      endif
      args = [{W}, variant];
    case "gd_path"
      W = randi ([1 9], n + 1); W(rand (n + 1) < 0.5) = Inf;
      [~, P] = gd_apsp (W, "Variant", "cpu");
      i0 = randi (n + 1); js = randi (n + 1, 1, randi (3));
      args = {P, i0, js};
  endswitch
  label = sprintf ("valid: %s", strjoin (cellfun (@(a) sprintf ("%s %dx%d", class (a), rows (a), columns (a)),
                                                    args, "UniformOutput", false), ", "));
endfunction

## a few NaN and Inf in X, as class cls
function X = spoil (X, cls)
  X = cast (X, cls);
  if (numel (X) > 2 && rand () < 0.5)
    X(randi (numel (X), 1, 2)) = [NaN, Inf*sign(randn())];
  endif
endfunction

function [base, maxout] = base_call (fname)
  switch (fname)
    case "gd_minplus"
      base = {randn(3, 4), randn(4, 5), "Variant", "auto"}; maxout = 3;
    case "gd_sgemm"
      base = {randn(3, 4), randn(4, 5), "Variant", "auto"}; maxout = 2;
    case "gd_apsp"
      base = {[0 2 Inf; 1 0 4; Inf 1 0], "Variant", "auto"}; maxout = 3;
    case "gd_path"
      base = {[0 1 2; 2 0 2; 3 3 0], 1, 3}; maxout = 1;
    case "gd_pdist"
      base = {randn(6, 3), "euclidean", "Variant", "auto"}; maxout = 2;
    case "gd_pdist2"
      base = {randn(5, 3), randn(4, 3), "euclidean", "Variant", "auto"}; maxout = 3;
    case "gd_squareform"
      base = {rand(1, 6), "tomatrix"}; maxout = 1;
    case "gd_knnsearch"
      base = {randn(6, 3), randn(4, 3), "K", 2, "Variant", "auto"}; maxout = 3;
    case "gd_rangesearch"
      base = {randn(6, 3), randn(4, 3), 0.8, "Variant", "auto"}; maxout = 3;
    case "gd_info"
      base = {}; maxout = 1;
    otherwise
      error ("fuzz: unknown function %s", fname);
  endswitch
endfunction

function pool = value_pool ()
  metric = @(x, y) sum (abs (x - y), 2);
  ints = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"};
  pool = {"double 3x4", randn(3, 4); "double 4x5", randn(4, 5); "single 4x3", randn(4, 3, "single");
          "single 3x3", randn(3, "single"); "double 6x3", randn(6, 3); "scalar", 5; "scalar -0", -0;
          "single scalar", single(2.5); "row 1x6", rand(1, 6); "column 6x1", rand(6, 1);
          "0x0", []; "0x3", zeros(0, 3); "3x0", zeros(3, 0); "single 0x4", zeros(0, 4, "single");
          "4x0 single", zeros(4, 0, "single"); "1x0", zeros(1, 0);
          "2^40x0", zeros(2^40, 0); "0x2^40", zeros(0, 2^40); "1e6x0", zeros(1e6, 0);
          "N-D", rand(2, 2, 2); "N-D empty", zeros(0, 3, 2);
          "NaN/Inf", [NaN Inf 1; -Inf 0 NaN; 2 -Inf Inf]; "all NaN 3x4", NaN(3, 4);
          "huge values", [1e300 -1e300; 1e-300 0]; "single Inf", single([Inf -Inf; 1 NaN]);
          "logical", true(3, 4); "char", "abc"; "char matrix", ["ab"; "cd"];
          "complex", randn(3, 4) + 1i; "sparse", sparse(eye(3)); "cell", {1, 2};
          "struct", struct("a", 1); "function handle", @sin; "metric handle", metric;
          "'Variant'", "Variant"; "'cpu'", "cpu"; "'auto'", "auto"; "'v5'", "v5"; "'tuned'", "tuned";
          "'variants'", "variants"; "'euclidean'", "euclidean"; "'SQEuclidean'", "SQEuclidean";
          "'minkowski'", "minkowski"; "'tomatrix'", "tomatrix"; "'tovector'", "tovector";
          "'cpu' NUL 'x'", ["cpu" char(0) "x"]; "'euclidean' NUL", ["euclidean" char(0)];
          "'Variant' NUL", ["Variant" char(0)]; "empty string", ""; "string column", ("cpu")';
          "NaN", NaN; "Inf", Inf; "-1", -1; "1e300", 1e300;
          "'Devices'", "Devices"; "'all'", "all"; "[1 1]", [1 1]};
  for c = 1:numel (ints)
    pool(end+1, :) = {ints{c}, cast(randi([0 9], 3, 4), ints{c})};
  endfor
endfunction

function f = fingerprint (x)
  ## a copy of x's bytes that shares no storage with x
  if (isa (x, "gdArray"))
    f = {class(x), size(x), disp(x)};       # (isnumeric, as gpuArray answers)
  elseif (isnumeric (x) && isreal (x) && ! issparse (x))
    f = {class(x), size(x), typecast(x(:), "uint8")'};
  elseif (ischar (x) || islogical (x))
    f = {class(x), size(x), double(x(:))'};
  else
    f = {class(x), size(x), disp(x)};
  endif
endfunction

function x = dense (x)
  ## a sparse operand as the functions take it: full
  if (issparse (x))
    x = full (x);
  endif
endfunction
