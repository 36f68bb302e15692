## tsne_affinities.m - t-SNE's input affinities: the nearest neighbours of
## every point on the GPU, then the perplexity-calibrated probabilities.
##
##   octave examples/tsne_affinities.m     (N = 20000 points; GD_EXAMPLE_N=2000 for fewer)
## and, last, the exact affinities of the first 4000 points as gdArrays.
##
## Barnes-Hut t-SNE (van der Maaten, "Accelerating t-SNE using Tree-Based
## Algorithms") keeps for each point i only its k = 3 x perplexity nearest
## neighbours and gives them the conditional probabilities
## p(j|i) = exp (-beta_i d(i,j)^2) / sum over the neighbours, beta_i chosen
## (by bisection) so that the entropy of p(.|i) is log (perplexity); then
## P = (p(j|i) + p(i|j)) / 2N, a sparse symmetric matrix summing to 1.
##
## The neighbours come from gd_knnsearch (the distances selected as the
## GPU computes them; the N x N matrix is never stored), and once more the
## way a user without it gets them: the whole distance matrix, then
## Octave's sort. Both give the same neighbours, in the same order.

1;

function t = ifelse_text (c, a, b)
  if (c) t = a; else t = b; endif
endfunction

function v = ifelse_vec (c, a, b)
  v = b; v(c) = a(c);
endfunction

addpath (fullfile (fileparts (mfilename ("fullpath")), "..", "octave"));
warning ("off", "gd:nogpu");
N = str2double (getenv ("GD_EXAMPLE_N"));
if (isnan (N))
  N = 20000;
endif
d = 50; perplexity = 30; k = 3 * perplexity;
randn ("seed", 7); rand ("seed", 7);

## the data: a mixture of 10 Gaussian clusters in 50 dimensions
centres = 0.8 * randn (10, d, "single");
label = randi (10, N, 1);
X = centres(label, :) + randn (N, d, "single");
printf ("%d points in %d dimensions, perplexity %d: k = %d neighbours each\n", N, d,
        perplexity, k);

## 1. the neighbours with gd: k + 1, as each point is its own nearest
gd_knnsearch (X(1:100,:), X, "K", 2);        # the GPU's start-up, not timed
t0 = tic ();
[Idx, D2] = gd_knnsearch (X, X, "K", k + 1, "Distance", "squaredeuclidean");
t_gd = toc (t0);
self = all (Idx(:,1) == (1:N)');
Idx = Idx(:, 2:end); D2 = D2(:, 2:end);
printf ("gd_knnsearch: %.2f s (each point its own nearest: %s)\n", t_gd, mat2str (self));

## 2. the same through the whole matrix and a sort
t0 = tic ();
F = gd_pdist2 (X, X, "squaredeuclidean");
t_matrix = toc (t0);
[S, J] = sort (F, 1);
t_sort = toc (t0) - t_matrix;
clear F;
same = isequal (J(2:k+1, :).', Idx) && isequal (S(2:k+1, :).', D2);
clear S J;
printf ("whole matrix (%.0f MB) %.2f s, then sort %.2f s: %.1f times gd_knnsearch's time\n",
        N * N * 4 / 1e6, t_matrix, t_sort, (t_matrix + t_sort) / t_gd);
printf ("neighbours agree: %s\n", ifelse_text (same, "exact", "NO"));

## 3. beta_i by bisection on every point at once (distances shifted by the
## nearest, which changes no p(j|i) and keeps exp from underflowing)
t0 = tic ();
Dd = double (D2) - double (D2(:,1));
lo = zeros (N, 1); hi = Inf (N, 1); beta = ones (N, 1);
target = log (perplexity);
for it = 1:100
  W = exp (-Dd .* beta);
  sW = sum (W, 2);
  H = log (sW) + beta .* sum (Dd .* W, 2) ./ sW;   # entropy of p(.|i)
  up = H > target;                              # too flat: beta up
  lo(up) = beta(up); hi(! up) = beta(! up);
  beta = ifelse_vec (isinf (hi), 2 * beta, (lo + hi) / 2);
  if (max (abs (H - target)) < 1e-10)
    break;
  endif
endfor
Pc = W ./ sW;                                   # p(j|i), rows sum to 1
P = sparse (repmat ((1:N)', 1, k), double (Idx), Pc, N, N);
P = (P + P') / (2 * N);
t_p = toc (t0);
printf ("calibration: %d bisection steps, %.2f s; entropy off by at most %.2g nats\n", it,
        t_p, max (abs (H - target)));
printf ("P: %d non-zeros, symmetric %s, sum %.12f\n", nnz (P), mat2str (isequal (P, P')),
        full (sum (P(:))));
## the clusters: most of each point's affinity stays in its own cluster
[i, j, v] = find (P);
printf ("affinity within the point's own cluster: %.1f%%\n",
        100 * sum (v(label(i) == label(j))) / sum (v));

## 4. the exact affinities (every pair, t-SNE's original form) without
## leaving the GPU: the squared distances as a gdArray, the bisection on
## every row at once by gdArray arithmetic (exp, .*, sum along rows,
## comparisons), the diagonal set to 0 by assignment, rows normalised,
## symmetrised; only beta's bounds (N values) and the entropy's check
## come to the host. Then the same steps on the host's matrices.
n = min (N, 4000);
Xn = X(1:n,:);
function [P, steps] = exact_affinities (D2, perplexity, n)
  E = D2;
  E(1:n+1:end) = Inf;
  D2 = D2 - min (E, [], 2);                         # (each row's nearest at 0)
  beta = ones (n, 1); lo = zeros (n, 1); hi = Inf (n, 1);
  target = log (perplexity);
  for steps = 1:100
    W = exp (-D2 .* beta);
    W(1:n+1:end) = 0;                               # no p(i|i)
    sW = sum (W, 2);
    H = gather (log (sW) + beta .* sum (D2 .* W, 2) ./ sW);
    up = H > target;
    lo(up) = beta(up); hi(! up) = beta(! up);
    beta(isinf (hi)) *= 2;
    beta(! isinf (hi)) = (lo(! isinf (hi)) + hi(! isinf (hi))) / 2;
    if (max (abs (H - target)) < 1e-5)
      break;
    endif
  endfor
  P = W ./ sW;
  P = (P + P.') / (2 * n);
endfunction
t0 = tic ();
G = gd_squareform (gd_pdist (gdArray (Xn), "squaredeuclidean"));
[Pg, steps] = exact_affinities (G, perplexity, n);
s_gpu = gather (sum (double (Pg(:))));
t_g = toc (t0);
t0 = tic ();
[Ph, steps_h] = exact_affinities (gd_squareform (gd_pdist (Xn, "squaredeuclidean")), perplexity, n);
t_h = toc (t0);
err = gather (max (max (abs (Pg - Ph)))) / max (Ph(:));
printf ("exact affinities of %d points as gdArrays: %d steps, %.2f s (%s), the host's %.2f s; sum %.6f, largest difference %.1g of the largest p\n",
        n, steps, t_g, ifelse_text (existsOnGPU (Pg), "on the GPU", "host-held: no GPU"), t_h, s_gpu, err);
printf ("exact affinities agree: %s\n", ifelse_text (steps == steps_h && err < 1e-4, "yes", "NO"));
