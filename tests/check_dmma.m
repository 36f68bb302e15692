function check_dmma (n)
  ## check_dmma (N): gd_pdist and gd_pdist2's 'dmma' variant (single
  ## distances on the FP64 tensor cores, certified a pair at a time)
  ## against the correctly rounded distances (exact_dist.m), N rows a side
  ## (default 200): uniform, normal, offset (1e4) and clustered data at
  ## d = 2, 10, 100, 500, 2000, euclidean, squared and cosine. Every pair
  ## within 1 ulp and at least 99.9% correctly rounded; correlation and
  ## spearman (cosine on rows the prepare step transformed) near the exact
  ## correlation; then the adversarial sets: near-duplicate rows at large
  ## norms, identical rows (exactly 0), rows 1e30 apart, a row of NaN,
  ## Inf, d = 1, parallel and zero rows for cosine; the count of pairs the
  ## certificate left, on a set built to need it. Prints a line a set.
  if (nargin < 1)
    n = 200;
  endif
  warning ("off", "gd:nogpu");
  setenv ("GD_POISON", "1");
  sets = {"uniform", "normal", "offset 1e4", "clustered"};
  for s = 1:numel (sets)
    for d = [2 10 100 500 2000]
      Y = data (sets{s}, n + 17, d);
      X = Y(1:n, :);
      [Ee, Es] = exact_dist (X, Y);
      Ec = exact_dist (X, Y, "single", "cosine");
      for form = {"euclidean", "squaredeuclidean", "cosine"}
        form = form{1};
        E = merge (form(1) == "e", Ee, merge (form(1) == "s", Es, Ec));
        T = E(:, 1:n);
        [D, ~, info] = gd_pdist2 (X, Y, form, "Variant", "dmma");
        name = sprintf ("pdist2 %s d %d %s", sets{s}, d, form);
        [ok, worst] = ulps (D, E, name);
        [P, info1] = gd_pdist (X, form, "Variant", "dmma");
        [ok1, worst1] = ulps (P, T(tril (true (n), -1))', [name " (pdist)"]);
        printf ("dmma %-10s d %4d %-16s correctly rounded %6.2f%% (pdist %6.2f%%), max ulp %d (%d); %s\n",
                sets{s}, d, form, 100 * ok, 100 * ok1, worst, worst1, info.kernel);
      endfor
    endfor
  endfor
  ## correlation and spearman: cosine on the prepared rows (single, so
  ## within their rounding of the exact correlation of X's rows)
  X = randn (150, 30, "single"); Y = randn (90, 30, "single");
  Xd = double (X) - mean (double (X), 2); Yd = double (Y) - mean (double (Y), 2);
  C = exact_dist (Xd, Yd, "double", "cosine");
  D = gd_pdist2 (X, Y, "correlation", "Variant", "dmma");
  assert (isa (D, "single") && max (abs (double (D(:)) - C(:))) < 1e-5, "check_dmma: correlation");
  P = gd_pdist (X, "correlation", "Variant", "dmma");
  assert (max (abs (P - gd_pdist (X, "correlation", "Variant", "cpu"))) < 1e-4, "check_dmma: pdist correlation");
  S = gd_pdist2 (X, Y, "spearman", "Variant", "dmma");
  assert (max (max (abs (S - gd_pdist2 (X, Y, "spearman", "Variant", "cpu")))) < 1e-4, "check_dmma: spearman");
  printf ("dmma correlation and spearman within 1e-5 of the exact correlation (1e-4 of 'cpu')\n");
  adversarial ();
endfunction

function X = data (kind, n, d)
  switch (kind)
    case "uniform"
      X = rand (n, d, "single");
    case "normal"
      X = randn (n, d, "single");
    case "offset 1e4"
      X = single (1e4 + rand (n, d));
    case "clustered"
      C = randn (5, d) * 10;
      X = single (C(randi (5, n, 1), :) + 1e-3 * randn (n, d));
  endswitch
endfunction

## the share of pairs correctly rounded and the largest error in ulps;
## an error past 1 ulp or a share below 99.9% fails
function [ok, worst] = ulps (D, E, name)
  if (! isequal (size (D), size (E)) || ! strcmp (class (D), "single"))
    error ("check_dmma: %s: got %s %s, expected %s single", name, mat2str (size (D)),
           class (D), mat2str (size (E)));
  endif
  nanD = isnan (D);
  if (! isequal (nanD, isnan (E)))
    error ("check_dmma: %s: NaN where the reference has none, or none where it has", name);
  endif
  fin = ! nanD & isfinite (E);
  if (! isequal (D(! fin & ! nanD), E(! fin & ! nanD)))
    error ("check_dmma: %s: Inf differs", name);
  endif
  u = abs (double (typecast (D(fin), "int32")) - double (typecast (E(fin), "int32")));
  worst = max ([0; u(:)]);
  ok = mean ([1; u(:) == 0]);
  if (! isempty (u))
    ok = mean (u(:) == 0);
  endif
  if (worst > 1 || ok < 0.999)
    error ("check_dmma: %s: %.3f%% correctly rounded, %d ulps at worst", name, 100 * ok, worst);
  endif
endfunction

function adversarial ()
  ## near-duplicate rows at large norms; identical rows give exactly 0
  B = single (1e6 * randn (1, 40));
  B2 = B + single (randn (1, 40));
  B3 = B .* (1 + eps ("single") * (rand (1, 40) > 0.5));
  R = single (randn (60, 40));
  X = [B; B2; B; B3; R];
  check_set (X, "near-duplicates at 1e6");
  P = gd_pdist (X, "Variant", "dmma");
  assert (P(2) == 0, "check_dmma: identical rows give %g", P(2));
  ## cosine: identical and parallel rows (a power of two apart) 0, a zero
  ## row NaN, near-parallel rows at large norms
  X = [B; B; 8 * B; B3; zeros(1, 40); -B; R];
  check_set (X, "cosine's parallel rows");
  C = gd_pdist2 (X, X, "cosine", "Variant", "dmma");
  assert (all (all (C(1:3, 1:3) == 0)) && all (isnan (C(5, :))) && C(1, 6) == 2, "check_dmma: cosine's rows");
  ## rows 1e30 apart, and 1e-30 apart; Inf; a row of NaN; d = 1
  X = single ([1e30*ones(1, 8); -1e30*ones(1, 8); 1e-30*(1:8); zeros(1, 8); rand(40, 8)]);
  check_set (X, "1e30 apart");
  X(5, :) = NaN;
  check_set (X, "a NaN row");
  X(6, 3) = Inf;
  D = gd_pdist2 (X, X, "Variant", "dmma");
  E = gd_pdist2 (X, X, "Variant", "cpu");
  assert (isequal (isinf (D), isinf (E)) && isequal (isnan (D), isnan (E)), "check_dmma: Inf");
  check_set (single (randn (70, 1)), "d = 1");
  ## the count: a duplicate row and a NaN row need the double sum (199 +
  ## 1 pairs of 200 rows), uniform data nothing else
  X = rand (200, 16, "single");
  X(200, :) = X(1, :);
  X(100, 3) = NaN;
  [~, info] = gd_pdist (X, "Variant", "dmma");
  k = sscanf (info.kernel, "%d");
  assert (k >= 200 && k <= 220, "check_dmma: %s (200 pairs need the double sum)", info.kernel);
  printf ("dmma adversarial sets ok; %s\n", info.kernel);
endfunction

function check_set (X, name)
  [E, E2] = exact_dist (X, X);
  D = gd_pdist2 (X, X, "Variant", "dmma");
  ulps (D, E, [name " (pdist2)"]);
  P = gd_pdist (X, "Variant", "dmma");
  ulps (P, E(tril (true (rows (X)), -1))', [name " (pdist)"]);
  ulps (gd_pdist2 (X, X, "squaredeuclidean", "Variant", "dmma"), E2,
        [name " squared"]);
  Ec = exact_dist (X, X, "single", "cosine");
  ulps (gd_pdist2 (X, X, "cosine", "Variant", "dmma"), Ec, [name " cosine"]);
  ulps (gd_pdist (X, "cosine", "Variant", "dmma"), Ec(tril (true (rows (X)), -1))', [name " cosine (pdist)"]);
endfunction
