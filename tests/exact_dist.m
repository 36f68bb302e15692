## R = exact_dist (X, Y): the Euclidean distances between the rows of X and
## the rows of Y (single or double values), correctly rounded to single
## ([R, R2] = exact_dist (X, Y): R2 the squared distances so rounded):
## the reference that single-precision distances are measured against.
## exact_dist (X, Y, "double"): both correctly rounded to double (but
## within 2^-100 of a midpoint between doubles). exact_dist (X, Y, cls,
## "cosine"): the cosine distances 1 - x.y / (|x| |y|), computed as
## |x/|x| - y/|y||^2 / 2 with every norm, quotient, difference and sum a
## pair of doubles (so identical rows, and rows a power of two apart,
## give 0; a zero row NaN).
## Every difference, square and sum is kept as a pair of doubles (hi + lo:
## Knuth's two-sum, Veltkamp's split and Dekker's product), the square
## root to about 100 bits, then rounded once, ties to even. A row with NaN
## gives NaN; Inf gives Inf.
function [R, R2] = exact_dist (X, Y, cls = "single", metric = "euclidean")
  X = double (X);
  Y = double (Y);
  cosine = strcmp (metric, "cosine");
  if (cosine)                           # the rows over their norms, as pairs
    [X, xl] = unit_rows (X);
    [Y, yl] = unit_rows (Y);
  endif
  h = l = zeros (rows (X), rows (Y));
  for k = 1:columns (X)                 # every pair at once, a feature a step
    [s, t] = two_sum (X(:,k), -Y(:,k)');  # x - y = s + t exactly
    if (cosine)
      t += xl(:,k) - yl(:,k)';
      [s, t] = two_sum (s, t);
    endif
    [p, q] = two_prod (s, s);           # s^2 = p + q exactly
    far = t != 0;                       # ((s + t)^2: the cross terms where t counts)
    q(far) += t(far) .* (2 * s(far) + t(far));
    [h, e] = two_sum (h, p);            # the sum, a double-double in order
    l += e + q;
    [h, l] = two_sum (h, l);
  endfor
  if (cosine)
    h /= 2; l /= 2;
    R = cast (h + l, cls);
    if (strcmp (cls, "single"))
      R = round_pair (h, l);
    endif
    R2 = R;
  elseif (strcmp (cls, "double"))
    [r0, r1] = sqrt_pair (h, l);
    R = r0 + r1;                        # (one rounding of the pair)
    R2 = h + l;
  else
    R = round_sqrt (h, l);
    R2 = round_pair (h, l);
  endif
endfunction

## the rows divided by their norms, each quotient a pair of doubles
function [qh, ql] = unit_rows (X)
  [p, q] = two_prod (X, X);
  h = l = zeros (rows (X), 1);
  for k = 1:columns (X)
    [h, e] = two_sum (h, p(:,k));
    l += e + q(:,k);
    [h, l] = two_sum (h, l);
  endfor
  [nh, nl] = sqrt_pair (h, l);          # the norm, about 100 bits
  qh = X ./ nh;                         # x / (nh + nl), the remainder's quotient added
  [p, q] = two_prod (qh, nh);
  ql = (((X - p) - q) - qh .* nl) ./ nh;
  ql(! isfinite (qh)) = 0;
endfunction

function [s, e] = two_sum (a, b)
  s = a + b;
  v = s - a;
  e = (a - (s - v)) + (b - v);
  e(! isfinite (s)) = 0;
endfunction

function [p, e] = two_prod (a, b)
  p = a .* b;
  [ah, al] = split (a);
  [bh, bl] = split (b);
  e = ((ah .* bh - p) + ah .* bl + al .* bh) + al .* bl;
  e(! isfinite (p)) = 0;
endfunction

function [h, l] = split (a)
  c = 134217729 * a;                    # 2^27 + 1
  h = c - (c - a);
  l = a - h;
  big = abs (a) > 2^996 & isfinite (a);  # (c would overflow: split a scaled copy)
  if (any (big(:)))
    [hb, lb] = split (a(big) * 2^-28);
    h(big) = hb * 2^28;
    l(big) = lb * 2^28;
  endif
endfunction

## sqrt (h + l) rounded once to single: r0 + r1 to about 100 bits; single
## (r0) is the nearest single unless r0 is a midpoint between two singles,
## where r1's sign decides (no other double lies within r1 of r0)
function c = round_sqrt (h, l)
  [r0, r1] = sqrt_pair (h, l);
  c = round_pair (r0, r1);
endfunction

## sqrt (h + l) as r0 + r1 to about 100 bits (a Newton step on sqrt (h))
function [r0, r1] = sqrt_pair (h, l)
  r0 = sqrt (h);
  [p, q] = two_prod (r0, r0);
  r1 = ((h - p) - q + l) ./ (2 * r0);
  r1(! (r0 > 0) | ! isfinite (r0)) = 0;
endfunction

## r0 + r1 (|r1| below half an ulp of the double r0) rounded once to single
function c = round_pair (r0, r1)
  r1(! isfinite (r0)) = 0;
  c = single (r0);
  up = double (c) < r0;                 # the other single beside r0
  other = c;
  other(up) = c(up) + eps (c(up));
  down = double (c) > r0;
  other(down) = c(down) - eps (c(down)) .* (1 - 0.5 * (abs (double (c(down))) == 2 .^ floor (log2 (abs (double (c(down)))))));
  mid = (double (c) + double (other)) / 2;
  tie = double (c) != r0 & mid == r0 & r1 != 0;
  toward = sign (r1) == sign (double (other) - double (c));
  c(tie & toward) = other(tie & toward);
endfunction

%!test
%! ## integer data: squared distances exact; sqrt of a perfect square exact
%! X = single ([0 0; 3 4; 1e3 1]);
%! assert (exact_dist (X, X(1,:)), single ([0; 5; sqrt(1e6 + 1)]));
%!test
%! ## against double's own sum where it is exact (small integers)
%! X = single (randi ([-50 50], 40, 7)); Y = single (randi ([-50 50], 30, 7));
%! E = single (sqrt (sum ((permute (double (X), [1 3 2]) - permute (double (Y), [3 1 2])) .^ 2, 3)));
%! assert (exact_dist (X, Y), E);
%!test
%! ## a midpoint between two singles: 2^24 + 1 rounds to even, 2^24
%! assert (exact_dist (single ([0 0]), [2^24+1 0]), single (2^24));
%! ## one part in 2^-80 above the midpoint: the single above
%! d = 2^24 + 1; y = [d 2^-28];           # d^2 + 2^-56: sqrt is d + 2^-81
%! assert (exact_dist ([0 0], y), single (2^24 + 2));
%!test
%! ## double: 1 + 2^-52 apart in one coordinate and 2^-30 in the other
%! x = [1 + 2^-52, 2^-30]; y = [1 0];
%! d2 = 2^-104 + 2^-60;                 # exactly; sqrt (d2) rounded to double:
%! assert (exact_dist (x, y, "double"), sqrt (d2));
%! [~, R2] = exact_dist (x, y, "double");
%! assert (R2, d2);
%! X = randi ([-50 50], 30, 5); Y = randi ([-50 50], 20, 5);
%! assert (exact_dist (X, Y, "double"), sqrt (sum ((permute (X, [1 3 2]) - permute (Y, [3 1 2])) .^ 2, 3)));
%!test
%! ## cosine: against double's own formula on random rows (no cancellation
%! ## to speak of); identical and parallel rows 0, a zero row NaN
%! X = single (randn (40, 9)); Y = single (randn (30, 9));
%! Xd = double (X); Yd = double (Y);
%! C = 1 - (Xd * Yd') ./ (sqrt (sum (Xd .^ 2, 2)) * sqrt (sum (Yd .^ 2, 2))');
%! R = exact_dist (X, Y, "single", "cosine");
%! assert (max (abs (double (typecast (R(:), "int32")) - double (typecast (single (C(:)), "int32")))) <= 1);
%! assert (mean (R(:) == single (C(:))) > 0.99);
%! Z = [X(1,:); X(1,:); 4 * X(1,:); zeros(1, 9)];
%! R = exact_dist (Z, Z, "single", "cosine");
%! assert (R(1:3,1:3), zeros (3, "single"));
%! assert (all (isnan (R(4,:))) && all (isnan (R(:,4))));
%! ## near-parallel rows: 1 - cos of a small angle t is about t^2 / 2
%! t = 2^-20; R = exact_dist ([1 0], [cos(t) sin(t)], "double", "cosine");
%! assert (abs (R - 2 * sin (t / 2) ^ 2) <= 4 * eps (R));
%!test
%! assert (isnan (exact_dist (single ([NaN 1]), single ([0 0]))));
%! assert (exact_dist (single ([Inf 1]), single ([0 0])), single (Inf));
%! assert (exact_dist (single ([1e-40 0]), single ([0 0])), single (1e-40));
