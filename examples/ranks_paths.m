## ranks_paths.m - shortest path lengths across the ranks of an MPI job:
## the weights in 2-D block-cyclic parts on a grid of the ranks (a
## gdCodistributed '2dbc', each rank holding its blocks, on its GPU where
## it has one), the lengths by repeated min-plus squaring, each product by
## SUMMA (gd_minplus on the parts: for each block of the inner dimension
## the owners' panels broadcast along the grid's rows and columns, each
## rank's product of them folded into its part). The product is exact, so
## the lengths are those of one process's squaring.
##
##   mpirun -np 4 octave-cli --eval "pkg load gd; source ('examples/ranks_paths.m')"
##   octave examples/ranks_paths.m        (outside a job: one rank)
##
## Then the routes: gd_apsp on the same parts gives D and P laid out as W
## (Floyd-Warshall's rounds across the ranks, P's trees as one process
## makes them), and gd_path reads one route from the distributed P.
##
## GD_EXAMPLE_N: the vertices (default 2048; integer weights 1 to 100 on a
## fifth of the pairs, the rest no edge). GD_EXAMPLE_CHECK=1: rank 1 also
## gathers the lengths (and D and P) and compares them with gd_apsp on the
## whole graph ('cpu' for P: the GPU's 'fw' picks other predecessors
## among ties, another shortest-path tree).

1;
addpath (fullfile (fileparts (mfilename ("fullpath")), "..", "octave"));
warning ("off", "gd:nogpu");
r = gd_spmdIndex ();
nr = gd_spmdSize ();
n = str2double (getenv ("GD_EXAMPLE_N"));
if (isnan (n))
  n = 2048;
endif
b = 64;                                   # the block size
pr = max (find (mod (nr, 1:floor (sqrt (nr))) == 0));   # the squarest grid
grid = [pr, nr / pr];

## this rank's blocks of W: the rows and columns of the blocks it holds
## (a rank would read its own; here each makes the whole from one seed
## and keeps its blocks)
gi = floor ((r - 1) / grid(2));
gj = mod (r - 1, grid(2));
own = @(p, np) cell2mat (arrayfun (@(I) I*b+1:min ((I+1)*b, n), p:np:ceil (n / b) - 1,
                                   "uniformoutput", false));
rand ("state", 42);
W = single (randi (100, n));
W(rand (n) > 0.2) = Inf;
W(1:n+1:end) = 0;
L = W(own (gi, grid(1)), own (gj, grid(2)));
if (! isempty (gd_info ().devices))
  L = gdArray (L);
endif
D = gdCodistributed (L, "2dbc", grid, b, [n n]);

tic;
for s = 1:ceil (log2 (max (n - 1, 1)))
  D = gd_minplus (D);                     # D (min, +) D across the ranks
endfor
t = toc;
if (r == 1)
  printf ("%d ranks (%dx%d grid): shortest path lengths of %d vertices by %d squarings in %.2f s\n",
          nr, grid, n, ceil (log2 (max (n - 1, 1))), t);
endif
if (strcmp (getenv ("GD_EXAMPLE_CHECK"), "1"))
  A = gather (D, 1);
  if (r == 1)
    printf ("gd_apsp on the whole graph: %s\n",
            merge (isequal (A, gd_apsp (W)), "the same lengths", "DIFFERENT lengths"));
  endif
endif

G = gdCodistributed (L, "2dbc", grid, b, [n n]);
tic;
[Dr, P] = gd_apsp (G);
t = toc;
route = gd_path (P, 1, n);                # (every rank: row 1 from its holders)
if (r == 1)
  printf ("routes: D and P across the ranks in %.2f s; the route from 1 to %d has %d vertices\n",
          t, n, numel (route));
endif
if (strcmp (getenv ("GD_EXAMPLE_CHECK"), "1"))
  A = gather (Dr, 1);
  Q = gather (P, 1);
  if (r == 1)
    [D1, P1] = gd_apsp (W, "Variant", "cpu");   # (P: the cpu variant's rule among ties)
    printf ("routes: %s\n", merge (isequal (A, D1) && isequal (Q, P1) && isequal (route, gd_path (P1, 1, n)),
                                   "D and P are gd_apsp's ('cpu') on the whole graph", "D or P DIFFER"));
  endif
endif
gd_spmdBarrier ();
