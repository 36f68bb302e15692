## R = exact_dist (X, Y): the Euclidean distances between the rows of X and
## the rows of Y (single or double values), correctly rounded to single
## ([R, R2] = exact_dist (X, Y): R2 the squared distances so rounded):
## the reference that single-precision distances are measured against.
## Every difference, square and sum is kept as a pair of doubles (hi + lo:
## Knuth's two-sum, Veltkamp's split and Dekker's product), the square
## root to about 100 bits, then rounded once, ties to even. A row with NaN
## gives NaN; Inf gives Inf.
function [R, R2] = exact_dist (X, Y)
  X = double (X);
  Y = double (Y);
  R = R2 = zeros (rows (X), rows (Y), "single");
  for j = 1:rows (Y)
    [s, t] = two_sum (X, -Y(j,:));      # x - y = s + t exactly
    [p, q] = two_prod (s, s);           # s^2 = p + q exactly
    far = t != 0;                       # (the exponents far apart: s + t needs both)
    q(far) += t(far) .* (2 * s(far) + t(far));
    h = l = zeros (rows (X), 1);
    for k = 1:columns (X)               # the sum, a double-double in order
      [h, e] = two_sum (h, p(:,k));
      l += e + q(:,k);
      [h, l] = two_sum (h, l);
    endfor
    R(:,j) = round_sqrt (h, l);
    if (nargout > 1)
      R2(:,j) = round_pair (h, l);
    endif
  endfor
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
  r0 = sqrt (h);
  [p, q] = two_prod (r0, r0);
  r1 = ((h - p) - q + l) ./ (2 * r0);
  r1(! (r0 > 0) | ! isfinite (r0)) = 0;
  c = round_pair (r0, r1);
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
%! assert (isnan (exact_dist (single ([NaN 1]), single ([0 0]))));
%! assert (exact_dist (single ([Inf 1]), single ([0 0])), single (Inf));
%! assert (exact_dist (single ([1e-40 0]), single ([0 0])), single (1e-40));
