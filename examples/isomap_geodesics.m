## isomap_geodesics.m - Isomap's geodesic distances: the nearest-neighbour
## graph of points on a curved surface, shortest paths over it from a set of
## landmarks, and the surface unrolled from them.
##
##   octave examples/isomap_geodesics.m    (N = 100000 points, 1000 landmarks;
##                                          GD_EXAMPLE_N=3000 for fewer)
##
## Isomap (Tenenbaum, de Silva and Langford, "A Global Geometric Framework
## for Nonlinear Dimensionality Reduction") measures distances along the
## data's surface, not through space: each point joined to its K nearest
## neighbours by edges as long as their distance, the geodesic distance is
## a shortest path in that graph. Landmark Isomap (de Silva and Tenenbaum,
## "Global versus local methods in nonlinear dimensionality reduction")
## needs the paths from a few landmarks only: classical scaling of the
## landmarks' distances, then every point placed from its distances to
## them.
##
## Here the surface is a swiss roll, a rectangle rolled up in 3-D whose
## unrolled coordinates are known: the geodesic distances should match the
## distances in the rectangle, and the unrolled points the rectangle. The
## neighbours come from gd_knnsearch, the paths from gd_apsp's 'Sources'
## on the sparse graph (no N x N matrix anywhere), each route checked edge
## by edge for a few of them.

1;

addpath (fullfile (fileparts (mfilename ("fullpath")), "..", "octave"));
warning ("off", "gd:nogpu");
N = str2double (getenv ("GD_EXAMPLE_N"));
if (isnan (N))
  N = 100000;
endif
L = min (1000, max (20, round (N / 100)));   # landmarks
K = 10;
rand ("seed", 11);

## the swiss roll: (t, h) in a rectangle, rolled along t
t = 1.5 * pi * (1 + 2 * rand (N, 1));
h = 21 * rand (N, 1);
X = [t .* cos(t), h, t .* sin(t)];
flat = [t .* sqrt(1 + t.^2) / 2 + asinh(t) / 2, h];   # arc length along the roll, height
printf ("%d points on a swiss roll, K = %d neighbours, %d landmarks\n", N, K, L);

## 1. the K nearest neighbours (each point its own nearest, dropped)
t0 = tic ();
[Idx, Dk] = gd_knnsearch (X, X, "K", K + 1);
t_knn = toc (t0);
Idx = Idx(:,2:end); Dk = Dk(:,2:end);

## 2. the graph: an edge each way for every neighbour pair
i = repmat ((1:N)', 1, K);
A = sparse (i(:), double (Idx(:)), double (Dk(:)), N, N);
G = max (A, A');               # (a pair found from both ends: one edge)
printf ("graph: %d vertices, %d directed edges\n", N, nnz (G));

## 3. shortest paths from the landmarks
lm = randperm (N, L);
t0 = tic ();
[D, P] = gd_apsp (G, "Sources", lm);
t_paths = toc (t0);
reached = mean (isfinite (D(:)));
printf ("gd_knnsearch %.2f s, gd_apsp 'Sources' %.2f s (every vertex reached: %s)\n", ...
        t_knn, t_paths, mat2str (reached == 1));

## routes: each edge of the graph, summed to D exactly
ok = true;
for k = 1:min (L, 5)
  for j = randperm (N, 20)
    r = gd_path (P, k, j);
    w = full (G(sub2ind ([N N], r(1:end-1), r(2:end))));
    ok = ok && r(1) == lm(k) && r(end) == j && all (w > 0) && sum (w) == D(k,j);
  endfor
endfor
printf ("routes from the landmarks checked edge by edge: %s\n", mat2str (ok));

## 4. geodesic against true (unrolled) distances, landmark pairs apart
far = D(:,lm);
truth = sqrt ((flat(lm,1) - flat(lm,1)').^2 + (flat(lm,2) - flat(lm,2)').^2);
c = corr (far(:), truth(:));
printf ("geodesic vs unrolled distance between landmarks: correlation %.4f\n", c);

## 5. landmark Isomap: classical scaling of the landmarks, then every
## point from its squared distances to them
D2 = far .^ 2;
J = eye (L) - 1 / L;
B = -J * D2 * J / 2;
[V, E] = eig ((B + B') / 2);
[e, o] = sort (diag (E), "descend");
V = V(:, o(1:2)); e = e(1:2);
Y = -((D .^ 2 - mean (D2, 2))' * (V ./ sqrt (e'))) / 2;    # N x 2
## the unrolled coordinates up to a rotation: their distances compared
s = randperm (N, min (N, 2000));
dy = sqrt (sumsq (permute (Y(s,:), [1 3 2]) - permute (Y(s,:), [3 1 2]), 3));
df = sqrt (sumsq (permute (flat(s,:), [1 3 2]) - permute (flat(s,:), [3 1 2]), 3));
printf ("unrolled layout vs the rectangle (pairwise distances): correlation %.4f\n", ...
        corr (dy(:), df(:)));
