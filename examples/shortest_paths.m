## shortest_paths.m - all shortest paths of a road-like graph, with a route.
##
##   octave examples/shortest_paths.m       (n = 2000 places; GD_EXAMPLE_N=300 for fewer)
##
## Places are random points in the unit square; each is joined both ways
## to its 6 nearest neighbours by a road as long as the straight line
## (the neighbours come from gd_knnsearch, on the GPU). gd_apsp then gives the
## length of every shortest route and the predecessors that spell each
## route out; Octave's own Floyd-Warshall loop checks the lengths. Where a
## display is available the route is drawn.

addpath (fullfile (fileparts (mfilename ("fullpath")), "..", "octave"));
warning ("off", "gd:nogpu");
n = str2double (getenv ("GD_EXAMPLE_N"));
if (isnan (n))
  n = 2000;
endif
rand ("seed", 42);
X = rand (n, 2);

## the road network: W(i,j) = length of the road i -> j, Inf where none;
## each place's 6 nearest others from gd_knnsearch (exact, on the GPU),
## the place itself first among its 7 nearest
[near, len] = gd_knnsearch (X, X, "K", 7);
W = Inf (n);
W(sub2ind ([n n], repmat ((1:n)', 1, 6), near(:, 2:7))) = len(:, 2:7);
W = min (W, W');                             # roads go both ways
W(1:n+1:end) = 0;

## all shortest routes on the GPU (the CPU without one)
[D, P, info] = gd_apsp (W);
printf ("%d places, %d roads: all %d shortest route lengths in %.1f ms (%s, %s; %.1f ms of kernels)\n",
        n, nnz (isfinite (W)) - n, n^2, info.total_ms, info.variant, info.device, info.kernel_ms);

## Octave's Floyd-Warshall, the same lengths to rounding
t0 = tic ();
E = W;
for k = 1:n
  E = min (E, E(:,k) + E(k,:));
endfor
t = toc (t0);
printf ("Octave's Floyd-Warshall loop: %.1f s (%.0fx longer); largest difference %.2g\n",
        t, t / (info.total_ms * 1e-3), max (abs (D(isfinite (E)) - E(isfinite (E)))));

## the route between the two places farthest apart (by road)
Df = D; Df(! isfinite (Df)) = -1;
[~, far] = max (Df(:));
[i, j] = ind2sub ([n n], far);
r = gd_path (P, i, j);
legs = W(sub2ind ([n n], r(1:end-1), r(2:end)));
printf ("route %d -> %d: %d roads, length %.4f (D says %.4f); straight line %.4f\n",
        i, j, numel (r) - 1, sum (legs), D(i,j), norm (X(i,:) - X(j,:)));
printf ("  via %s\n", mat2str (r));

if (! isempty (getenv ("DISPLAY")) && ! strcmp (graphics_toolkit (), "gnuplot"))
  figure ();
  [a, b] = find (isfinite (W) & W > 0);
  plot ([X(a,1) X(b,1)]', [X(a,2) X(b,2)]', "color", [0.85 0.85 0.85]);
  hold on;
  plot (X(r,1), X(r,2), "r-", "linewidth", 2);
  plot (X([i j],1), X([i j],2), "ko", "markerfacecolor", "k");
  axis equal; title (sprintf ("shortest route %d -> %d", i, j));
endif
