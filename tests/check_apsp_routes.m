function nbad = check_apsp_routes (variant, seeds, sizes, varargin)
  ## check_apsp_routes (VARIANT, SEEDS, SIZES, ...): for each seed, a graph
  ## with large vertex potentials (W = rand + h - h', h up to 1e6, 60% of
  ## the edges missing: negative edges, no negative cycle), single, solved
  ## by gd_apsp (W, 'Variant', VARIANT, ...) with P; every route of P is
  ## walked and its weights summed in double, which must equal D(i,j)
  ## within 4 n eps('single') times the sum of the route's |w|, and reach
  ## i within n steps. SIZES: the vertex counts, taken in turn by seed.
  ## The seed makes the graph (rand ("state", seed)); each failing route is
  ## printed with its seed. Returns the number of failing solves; an error
  ## where nbad is not asked for and a solve failed.
  warning ("off", "gd:nogpu");
  nbad = 0;
  nneg = 0;
  for seed = seeds
    n = sizes(1 + mod (seed, numel (sizes)));
    W = route_graph (seed, n);
    try
      [D, P] = gd_apsp (W, "Variant", variant, varargin{:});
    catch err
      ## rounding the weights to single can make a cycle negative: the
      ## host's exact Floyd-Warshall must agree
      if (! strcmp (err.identifier, "gd:negcycle"))
        rethrow (err);
      endif
      try
        gd_apsp (W, "Variant", "cpu");
        nbad++;
        printf ("check_apsp_routes: %s seed %d n %d: a negative cycle the host does not find\n", variant, seed, n);
      catch
      end_try_catch
      nneg++;
      continue;
    end_try_catch
    [ok, msg] = routes_ok (W, D, double (P));
    if (! ok)
      nbad++;
      printf ("check_apsp_routes: %s seed %d n %d: %s\n", variant, seed, n, msg);
    endif
  endfor
  if (nargout == 0 && nbad > 0)
    error ("check_apsp_routes: %s: %d of %d solves had routes off", variant, nbad, numel (seeds));
  elseif (nargout == 0)
    printf ("%s: %d solves, every route's sum within its bound (%d graphs with a negative cycle in single)\n", variant, numel (seeds), nneg);
  endif
endfunction

function W = route_graph (seed, n)
  rand ("state", seed);
  W = rand (n);
  W(rand (n) < 0.6) = Inf;
  h = 1e6 * rand (n, 1);
  W = W + h - h';
  W(1:n+1:end) = 0;
  W = single (W);
endfunction

function [ok, msg] = routes_ok (W, D, P)
  n = rows (W);
  [i, j, s, a, v, k] = route_sums (W, D, P);
  if (k)
    ok = false;
    msg = sprintf ("P(%d,%d) on the route to %d is %d", i(k), v(k), j(k), P(i(k), v(k)));
    return;
  endif
  circ = find (v != i);
  if (! isempty (circ))
    ok = false;
    msg = sprintf ("%d routes do not reach their source, the first %d -> %d", numel (circ),
                   i(circ(1)), j(circ(1)));
    return;
  endif
  d = double (D(sub2ind ([n n], i, j)));
  bad = find (! (abs (s - d) <= 4 * n * eps ("single") * a));
  ok = isempty (bad);
  msg = "";
  if (! ok)
    k = bad(1);
    msg = sprintf ("%d routes off; %d -> %d sums to %.9g, D = %.9g (bound %.3g)", numel (bad),
                   i(k), j(k), s(k), d(k), 4 * n * eps ("single") * a(k));
  endif
endfunction
