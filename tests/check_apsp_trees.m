function ncircle = check_apsp_trees (variant, cls, ngraphs, count_only, nrange, varargin)
  ## check_apsp_trees (VARIANT, CLS, NGRAPHS): every predecessor matrix
  ## gd_apsp gives with VARIANT on CLS weights is a shortest-path tree:
  ## following P from any j reaches i in at most n - 1 steps, and the
  ## route's weights summed equal D(i,j) to the rounding of that sum.
  ## First the graph whose rounded sums tie a path through a vertex with
  ## the direct edge (1 -> 2 -> 1 weighs 2^-30, 2^-12 in single, at a
  ## magnitude of 2^30, 2^12), with both index classes; then NGRAPHS random
  ## graphs of non-negative weights plus potentials h(i) - h(j) (negative
  ## edges, no negative cycle, as Johnson's reweighting and arbitrage on
  ## -log rates make them), large potentials with small fractions so that
  ## rounding ties paths often (graph). Every pair's route is walked. A
  ## graph whose rounded sums make a cycle negative (gd:negcycle) is
  ## counted and skipped.
  ## check_apsp_trees (..., true) counts the graphs with a circling P
  ## (NCIRCLE) instead of failing at the first; check_apsp_trees (...,
  ## COUNT_ONLY, NRANGE, OPTIONS...) draws n from NRANGE (default [3 40])
  ## and passes OPTIONS to gd_apsp ('Devices', say).
  ## Fresh random graphs each run.
  warning ("off", "gd:nogpu");
  if (nargin < 3)
    ngraphs = 500;
  endif
  if (nargin < 4)
    count_only = false;
  endif
  if (nargin < 5)
    nrange = [3 40];
  endif
  ncircle = nsum = 0;
  if (strcmp (cls, "single"))
    t = 2^-12;  big = 2^12;
  else
    t = 2^-30;  big = 2^30;
  endif
  W = cast ([0 1 Inf; -1+t 0 Inf; Inf big 0], cls);
  for pc = {"double", "int32"}
    [D, P] = gd_apsp (W, "Variant", variant, "IndexClass", pc{1}, varargin{:});
    try
      r = gd_path (P, 3, 2);
    catch err
      r = err.message;
    end_try_catch
    if (! isequal (r, [3 2]) && ! count_only)
      error ("check_apsp_trees: %s %s: the route from 3 to 2 is [%s], not [3 2]", variant, cls,
             num2str (r));
    endif
    [ok, ~, circles] = tree_ok (W, D, double (P), cls);
    ncircle += circles;
    nsum += ! ok && ! circles;
  endfor
  nneg = 0;
  for g = 1:ngraphs
    n = randi (nrange);
    W = graph (n, cls);
    try
      [D, P] = gd_apsp (W, "Variant", variant, varargin{:});
    catch err
      ## rounding W's sums can leave a cycle negative: then it is one
      if (! strcmp (err.identifier, "gd:negcycle"))
        rethrow (err);
      endif
      nneg++;
      continue;
    end_try_catch
    [ok, why, circles] = tree_ok (W, D, double (P), cls);
    if (! ok)
      ncircle += circles;
      nsum += ! circles;
      if (! count_only)
        error ("check_apsp_trees: %s %s graph %d (n = %d): %s", variant, cls, g, n, why);
      endif
    endif
  endfor
  printf ("%s %s: %d graphs, %d with a circling P, %d with a route off D, %d negative cycles by rounding: trees ok\n",
          variant, cls, ngraphs + 2, ncircle, nsum, nneg);
endfunction

function W = graph (n, cls)
  ## Vertices in three groups; edges within a group weigh B + h(i) - h(j)
  ## (B: 0 .. 2 in halves plus one or two steps of a fine grid, h:
  ## potentials on that grid, so each such weight is exact in the class
  ## and no cycle is negative), edges from a group to a later one about L
  ## (2^30, 2^12 in single) more, none back: every cycle stays in a group.
  ## From a source in the first group the lengths into the others are of
  ## L's magnitude, where a cycle of a step or two weighs nothing.
  if (strcmp (cls, "single"))
    L = 2^12;  res = 2^-12;
  else
    L = 2^30;  res = 2^-30;
  endif
  g = sort (randi ([0 2], n, 1));
  B = randi ([0 4], n) / 2 + res * randi ([1 2], n);
  B(rand (n) < 0.4) = Inf;
  h = round ((rand (n, 1) - 0.5) / res) * res;
  E = B + h - h';
  up = g > g';                 # i's group after j's: no edge i -> j
  E(up) = Inf;
  across = g < g';
  E(across) += L * (g' - g)(across);
  E(1:n+1:end) = 0;
  inside = isfinite (E) & g == g';
  W = cast (E, cls);
  if (! isequal (double (W(inside)), E(inside)))
    error ("check_apsp_trees: the test's weights are not exact in %s", cls);
  endif
endfunction

function [ok, why, circles] = tree_ok (W, D, P, cls)
  ## walk every route at once, summing its weights from j back to i
  n = rows (W);
  W = double (W);
  D = double (D);
  why = "";
  circles = false;
  reach = isfinite (D);
  reach(1:n+1:end) = false;
  if (any (P(! reach) != 0))
    ok = false;  why = "P is not 0 where nothing is reachable";
    return;
  endif
  [i, j, len, absum, v, k] = route_sums (W, D, P);
  if (k)
    ok = false;  circles = true;  why = "a route meets a vertex without a predecessor";
    return;
  endif
  if (any (v != i))
    k = find (v != i, 1);
    ok = false;  circles = true;
    why = sprintf ("following P from %d does not reach %d in %d steps", j(k), i(k), n - 1);
    return;
  endif
  ## the route's sum in another order than D's, which the rounds took
  ## over a path of up to n - 1 edges in their own association (the
  ## squarings' pairs, Floyd-Warshall's blocks): each is within n eps of
  ## the larger of the route's sum of |w| and D (a route that is not a
  ## shortest one, as a wrong attachment gives, is off by a weight's step)
  e = eps (cls);
  d = D(sub2ind ([n n], i, j));
  bad = find (abs (len - d) > 2 * n * e .* max (absum, abs (d)), 1);
  if (! isempty (bad))
    ok = false;
    why = sprintf ("the route from %d to %d weighs %.17g, D says %.17g", i(bad), j(bad),
                   len(bad), d(bad));
    return;
  endif
  ok = true;
endfunction
