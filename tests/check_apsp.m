function check_apsp (variant, cls, sizes)
  ## check_apsp (VARIANT, CLS, SIZES): gd_apsp with VARIANT on CLS weights
  ## of every kind below at each n in SIZES, against Floyd-Warshall written
  ## here (exact: integer weights), with every predecessor checked (the
  ## route through P(i,j) has the length D(i,j), and following P from any j
  ## reaches i within n steps) and sampled routes from gd_path checked edge
  ## by edge; the lengths alone (no P) too. Negative edges come from vertex
  ## potentials (no negative cycle); one source of those graphs is checked
  ## by Bellman-Ford too.
  ## Fresh random graphs each run; an error at the first mismatch.
  warning ("off", "gd:nogpu");
  if (nargin < 3)
    sizes = [1 2 7 63 64 65 129 300 1000];
  endif
  kinds = {"dense", "sparse", "parts", "negative", "selfloops"};
  ncase = 0;
  for n = sizes
    for q = 1:numel (kinds)
      W = graph (kinds{q}, n, cls);
      Win = W;
      name = sprintf ("%s %s %s n=%d", variant, cls, kinds{q}, n);
      pc = {"double", "int32"}{1 + mod (ncase, 2)};
      [D, P, info] = gd_apsp (W, "Variant", variant, "IndexClass", pc);
      E = fw_ref (W);
      if (! strcmp (class (D), cls) || ! isequal (size (D), [n n]) || ! strcmp (class (P), pc))
        error ("check_apsp: %s: got D %s %dx%d, P %s", name, class (D), rows (D), columns (D),
               class (P));
      endif
      if (! isequal (D, E))
        bad = find (D != E, 1);
        [i, j] = ind2sub ([n n], bad);
        error ("check_apsp: %s: D(%d,%d) = %g, Floyd-Warshall gives %g (%d differ)", name, i, j,
               D(bad), E(bad), nnz (D != E));
      endif
      ## the lengths alone, without P (a path of its own in every variant)
      D1 = gd_apsp (W, "Variant", variant);
      if (! isequal (D1, E))
        error ("check_apsp: %s: without P, %d lengths differ from Floyd-Warshall", name,
               nnz (D1 != E));
      endif
      if (! isequal (W, Win))
        error ("check_apsp: %s: W was modified", name);
      endif
      check_pred (W, D, double (P), name);
      if (strcmp (kinds{q}, "negative") && n > 1)
        s = randi (n);
        if (! isequal (bellman_ford (double (W), s), double (D(s,:))))
          error ("check_apsp: %s: row %d differs from Bellman-Ford", name, s);
        endif
      endif
      for t = 1:min (20, n)
        i = randi (n); j = randi (n);
        r = gd_path (P, i, j);
        if (isinf (D(i,j)))
          ok = isempty (r);
        else
          ok = r(1) == i && r(end) == j && numel (unique (r)) == numel (r) ...
               && sum (double (W(sub2ind ([n n], r(1:end-1), r(2:end))))) == D(i,j);
        endif
        if (! ok)
          error ("check_apsp: %s: gd_path from %d to %d is [%s]", name, i, j, num2str (r));
        endif
      endfor
      if (! strcmp (variant, "auto") && ! strcmp (info.variant, variant))
        error ("check_apsp: %s: ran %s", name, info.variant);
      endif
      ncase++;
    endfor
  endfor
  printf ("%s %s: %d graphs exact\n", variant, cls, ncase);
endfunction

function W = graph (kind, n, cls)
  switch (kind)
    case "dense"
      W = randi ([0 100], n);
    case "sparse"                  # about 3 edges a vertex
      W = Inf (n);
      W(rand (n) < min (1, 3 / n)) = 0;
      W(W == 0) = randi ([1 50], nnz (W == 0), 1);
    case "parts"                   # two parts with no edge from one to the other
      W = randi ([1 30], n);
      W(rand (n) < 0.5) = Inf;
      h = floor (n / 2);
      W(1:h, h+1:end) = Inf;
      W(h+1:end, 1:h) = Inf;
    case "negative"                # w(i,j) + p(i) - p(j) with w >= 0: no negative cycle
      W = randi ([0 40], n);
      W(rand (n) < 0.6) = Inf;
      p = randi ([0 60], n, 1);
      W = W + p - p';
    case "selfloops"               # positive diagonal entries, a few zero-weight edges
      W = randi ([0 9], n);
      W(rand (n) < 0.3) = Inf;
      W(1:n+1:end) = randi ([1 5], n, 1);
  endswitch
  W = cast (W, cls);
endfunction

function D = fw_ref (W)
  n = rows (W);
  D = W;
  D(1:n+1:end) = 0;
  for k = 1:n
    D = min (D, D(:,k) + D(k,:));
  endfor
endfunction

function d = bellman_ford (W, s)
  n = rows (W);
  d = Inf (1, n); d(s) = 0;
  for it = 1:n
    d2 = min (d, min (d' + W, [], 1));
    d2(s) = min (d2(s), 0);
    if (isequal (d2, d))
      break;
    endif
    d = d2;
  endfor
endfunction

function check_pred (W, D, P, name)
  ## P(i,j) for every reachable j != i: an edge P(i,j) -> j that ends a
  ## shortest path (D(i,P(i,j)) + W(P(i,j),j) == D(i,j)); 0 elsewhere; and
  ## following P from every j reaches i (no circle)
  n = rows (W);
  reach = isfinite (D);
  reach(1:n+1:end) = false;
  if (any (P(! reach) != 0))
    error ("check_apsp: %s: P is not 0 on the diagonal and where nothing is reachable", name);
  endif
  [i, j] = find (reach);
  q = P(sub2ind ([n n], i, j));
  if (any (q < 1 | q > n))
    error ("check_apsp: %s: P(%d,%d) = %d for a reachable vertex", name, i(1), j(1), q(1));
  endif
  len = D(sub2ind ([n n], i, q)) + W(sub2ind ([n n], q, j));
  bad = find (len != D(sub2ind ([n n], i, j)), 1);
  if (! isempty (bad))
    error ("check_apsp: %s: P(%d,%d) = %d, but D(%d,%d) + W(%d,%d) = %g != D = %g", name,
           i(bad), j(bad), q(bad), i(bad), q(bad), q(bad), j(bad), len(bad),
           D(i(bad), j(bad)));
  endif
  ## every route ends at its source: walk all of them at once, n steps
  v = j;
  for s = 1:n
    at = v != i;
    if (! any (at))
      break;
    endif
    v(at) = P(sub2ind ([n n], i(at), v(at)));
  endfor
  if (any (v != i))
    error ("check_apsp: %s: following P from a vertex does not reach its source", name);
  endif
endfunction
