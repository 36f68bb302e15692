function [i, j, s, a, v, k] = route_sums (W, D, P)
  ## [I, J, S, A, V, K] = route_sums (W, D, P): every route of P at once,
  ## (I(t), J(t)) for each pair with D finite and I != J, walked from J
  ## back along P for at most n steps: S its weights summed in double, A
  ## their |w|, V where the walk ended (I where it reached its source).
  ## K: the first walk that met a predecessor outside 1..n (0: none), its
  ## walk stopped there. (check_apsp_trees.m, check_apsp_routes.m)
  n = rows (W);
  W = double (W);
  P = double (P);
  [i, j] = find (isfinite (D) & ! eye (n));
  v = j;
  s = zeros (size (i));
  a = s;
  k = 0;
  for step = 1:n
    at = find (v != i);
    if (isempty (at))
      break;
    endif
    q = P(sub2ind ([n n], i(at), v(at)));
    if (any (q < 1 | q > n))
      k = at(find (q < 1 | q > n, 1));
      return;
    endif
    w = W(sub2ind ([n n], q, v(at)));
    s(at) += w;
    a(at) += abs (w);
    v(at) = q;
  endfor
endfunction
