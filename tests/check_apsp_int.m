function check_apsp_int ()
  ## check_apsp_int: gd_apsp on every integer class against Floyd-Warshall
  ## in Octave's own saturating arithmetic, intmax meaning no edge, bit for
  ## bit; routes followed edge by edge. Fresh random graphs every run at
  ## n = 1, 2, 7, 33, 70, 130 (the host's blocks are 64 a side); negative
  ## edges in the signed classes (potentials, so no negative cycle);
  ## weights near intmax / 2 where sums saturate (non-negative: the
  ## saturated result is then the same in any order of the sums); negative
  ## cycles; the operand never modified; P as int32 and [D, ~, info].
  ## On a GPU: 'auto' from n = 128, and 'fw' at every size, compute the
  ## classes of 32 bits or fewer in single or double where the weights
  ## prove every sum exact; D is then the same bit for bit, and P's routes
  ## are checked as the host's are. Then (gpu_cases) the class the rounds
  ## run in on either side of 2^24, and gdArrays of the integer classes.
  warning ("off", "gd:nogpu");
  gpu = gd_info ().available;
  classes = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"};
  ncase = 0;
  for c = classes
    cls = c{1};
    mx = intmax (cls);
    signed = intmin (cls) < 0;
    for n = [1 2 7 33 70 130]
      for kind = {"small", "negative", "saturating"}
        if (strcmp (kind{1}, "negative") && ! signed)
          continue;
        endif
        switch (kind{1})
          case "small"       # every path fits in int8
            B = randi ([0 3], n);
          case "negative"    # w(i,j) = b(i,j) + phi(i) - phi(j): no negative cycle
            phi = randi ([0 3], n, 1);
            B = randi ([0 3], n) + phi - phi';
          case "saturating"  # two edges already pass intmax
            B = double (mx) / 2 * (0.55 + 0.4 * rand (n));
        endswitch
        W = cast (B, cls);
        W(rand (n) < 0.6) = mx;                       # no edge
        W(1:n+1:end) = cast (randi ([0 3], n, 1), cls);   # self-loops never shorten
        Win = W;
        E = fw_class (W);                            # Octave saturates
        name = sprintf ("%s n=%d %s", cls, n, kind{1});
        [D, P, info] = gd_apsp (W);
        if (! isequal (W, Win))
          error ("check_apsp_int: %s: W was modified", name);
        endif
        if (! strcmp (class (D), cls) || ! isequal (D, E))
          [i, j] = find (D != E, 1);
          error ("check_apsp_int: %s: D(%d,%d) is %s, Floyd-Warshall gives %s", name, i, j,
                 num2str (D(i,j)), num2str (E(i,j)));
        endif
        ## where the weights prove double exact (the rule gd_apsp states)
        w = double (W(W != mx));
        exact = ! any (strcmp (cls, {"int64", "uint64"})) && (isempty (w) || min (w) >= 0
                 || max (n - 1, 1) * max (abs (w)) <= min (double (mx), -double (intmin (cls))));
        want = merge (gpu && n >= 128 && exact, "fw", "cpu");
        if (! strcmp (class (P), "double") || ! strcmp (info.variant, want))
          error ("check_apsp_int: %s: P is %s, the variant %s, not %s", name, class (P),
                 info.variant, want);
        endif
        check_routes (name, W, D, P, cls);
        if (gpu)
          try
            [Df, Pf, infof] = gd_apsp (W, "Variant", "fw", "IndexClass", "int32");
            if (! exact || ! isequal (Df, E) || ! strcmp (class (Pf), "int32")
                || ! strcmp (infof.variant, "fw"))
              error ("check_apsp_int: %s: 'fw' gives another D (or ran where it may not)", name);
            endif
            check_routes ([name " fw"], W, Df, double (Pf), cls);
          catch err
            if (exact || ! strcmp (err.identifier, "gd:variant"))
              rethrow (err);
            endif
          end_try_catch
        endif
        [D2, P2] = gd_apsp (W, "IndexClass", "int32", "Variant", "cpu");
        [~, P1] = gd_apsp (W, "Variant", "cpu");
        [D3, ~, info3] = gd_apsp (W, "Variant", "auto");
        if (! isequal (D2, E) || ! strcmp (class (P2), "int32") || ! isequal (double (P2), P1)
            || ! isequal (D3, E) || ! isstruct (info3))
          error ("check_apsp_int: %s: the int32 P or [D, ~, info] differ", name);
        endif
        ncase++;
      endfor
    endfor
    if (signed)
      ## a negative cycle through vertices 2 and 3; a negative self-loop
      W = cast ([0 1 mx; mx 0 -3; mx 2 0], cls);
      try
        gd_apsp (W); error ("check_apsp_int: %s: no negative cycle found", cls);
      catch err
        if (! strcmp (err.identifier, "gd:negcycle") || isempty (regexp (err.message, "through vertex [23] ")))
          error ("check_apsp_int: %s: %s (%s)", cls, err.message, err.identifier);
        endif
      end_try_catch
      W(3,3) = -1;
      try
        gd_apsp (W); error ("check_apsp_int: %s: no negative self-loop found", cls);
      catch err
        if (! strcmp (err.identifier, "gd:negcycle") || isempty (strfind (err.message, "W(3,3) < 0")))
          error ("check_apsp_int: %s: %s (%s)", cls, err.message, err.identifier);
        endif
      end_try_catch
    endif
  endfor
  if (gpu)
    ncase += gpu_cases ();
  endif
  printf ("%d integer graphs exact\n", ncase);
endfunction

## The rounds run in single exactly where 2 (n - 1) max |w| <= 2^24 (every
## sum Floyd-Warshall takes is then an integer single holds), else in
## double: the largest weight at the limit and one past it, and weights
## near 2^24 whose sums single would round (D checked against Octave's
## own Floyd-Warshall in the class). gdArrays: D and P stay on the GPU in
## their classes; int64 runs on the host ('auto'), 'fw' refuses it.
function ncase = gpu_cases ()
  ncase = 0;
  n = 130;
  lim = floor (2^23 / (n - 1));
  for c = {{"int32", lim, "single"}, {"int32", lim + 1, "double"},
           {"uint32", 2^24 - 3, "double"}, {"int16", 1000, "single"}}
    [cls, m, kind] = c{1}{:};
    W = cast (randi ([max(0, m - 50) m], n), cls);
    W(rand (n) < 0.7) = intmax (cls);
    W(1, 2) = m;
    W(1:n+1:end) = 0;
    E = fw_class (W);
    for wp = [false true]
      if (wp)
        [D, P, info] = gd_apsp (W, "Variant", "fw");
        check_routes (sprintf ("%s max %d", cls, m), W, D, P, cls);
      else
        [D, ~, info] = gd_apsp (W, "Variant", "fw");
      endif
      if (! isequal (D, E) || ! strcmp (class (D), cls))
        error ("check_apsp_int: %s with max |w| %d: D differs from Floyd-Warshall", cls, m);
      endif
      if (! strncmp (info.kernel, [kind ", exact"], numel (kind) + 7))
        error ("check_apsp_int: %s with max |w| %d ran '%s', not in %s", cls, m, info.kernel, kind);
      endif
      ncase++;
    endfor
  endfor
  ## gdArrays
  W = cast (randi ([-3 9], n), "int8");
  W(rand (n) < 0.6) = intmax ("int8");
  W = max (W, 0);
  W(1:n+1:end) = 0;
  [D, P, info] = gd_apsp (gdArray (W), "IndexClass", "int32");
  if (! isa (D, "gdArray") || ! strcmp (classUnderlying (D), "int8")
      || ! strcmp (classUnderlying (P), "int32") || ! isequal (gather (D), fw_class (W))
      || ! strcmp (info.variant, "fw"))
    error ("check_apsp_int: an int8 gdArray's D (%s, %s) differs", class (D), info.variant);
  endif
  check_routes ("int8 gdArray", W, gather (D), double (gather (P)), "int8");
  V = int64 (W);
  [D, ~, info] = gd_apsp (gdArray (V));
  if (! isa (D, "gdArray") || ! isequal (gather (D), fw_class (V)) || ! strcmp (info.variant, "cpu"))
    error ("check_apsp_int: an int64 gdArray's D differs (%s)", info.variant);
  endif
  expect_error ("gd:variant", "int64 and uint64 never", @gd_apsp, gdArray (V), "Variant", "fw");
  ncase += 2;
endfunction

## Floyd-Warshall in Octave's saturating arithmetic of the class
function E = fw_class (W)
  n = rows (W);
  mx = intmax (class (W));
  E = W; E(1:n+1:end) = 0;
  for k = 1:n
    t = E(:,k) + E(k,:);
    t(E(:,k) == mx | E(k,:) == mx) = mx;
    E = min (E, t);
  endfor
endfunction

## every route up to n = 33, then 300 reachable pairs: its edges exist and
## add up (in the class: exact below intmax) to D; no predecessor where a
## vertex is not reached
function check_routes (name, W, D, P, cls)
  n = rows (W);
  mx = intmax (cls);
  [ii, jj] = find (D != mx);
  if (numel (ii) > 300 && n > 33)
    q = randperm (numel (ii), 300); ii = ii(q); jj = jj(q);
  endif
  ## one gd_path call a source row (its cost is the call's: 35000 a run)
  routes = cell (numel (ii), 1);
  for i = unique (ii(:)')
    at = find (ii == i);
    got = gd_path (P, i, jj(at)');
    if (isscalar (at))
      got = {got};
    endif
    routes(at) = got;
  endfor
  for e = 1:numel (ii)
    i = ii(e); j = jj(e);
    r = routes{e};
    w = W(sub2ind ([n n], r(1:end-1), r(2:end)));
    len = cast (0, cls);
    for t = 1:numel (w)
      len = len + w(t);
    endfor
    if (r(1) != i || r(end) != j || len != D(i,j) || any (w == mx))
      error ("check_apsp_int: %s: the route %d -> %d is no shortest path", name, i, j);
    endif
  endfor
  if (any (P(D == mx) != 0))
    error ("check_apsp_int: %s: a predecessor where a vertex is not reached", name);
  endif
endfunction
