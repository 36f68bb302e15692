## ranks_knn.m - exact nearest neighbours across the ranks of an MPI job:
## each rank holds its own share of the points (a gdCodistributed in
## '1d' parts) and searches it on its own GPU; gd_knnsearch merges the
## ranks' lists into the K nearest of all the points, the same neighbours,
## in the same order, as one search over the whole set.
##
##   mpirun -np 4 octave-cli --eval "pkg load gd; source ('examples/ranks_knn.m')"
##   octave examples/ranks_knn.m          (outside a job: one rank)
##
## GD_EXAMPLE_N: the points (default 1,000,000 of 64 features, 2,000
## queries, K = 10). GD_EXAMPLE_CHECK=1: rank 1 also gathers every share
## and searches the whole set once, and says whether the lists agree.
## GD_EXAMPLE_TIES=1: points and queries on a small integer lattice of 3
## features, where most distances tie.
##
## Why the merge is exact: each rank's list is sorted by distance, ties to
## its smaller row; the ranks hold consecutive rows in rank order, so the
## ranks' lists side by side, sorted by distance with a stable sort, keep
## equal distances in the order of their global rows: the order of one
## search over all the rows (gd_knnsearch's, a stable sort of each
## column of the full distance matrix).

1;
function t = ifelse_text (c, a, b)
  if (c)
    t = a;
  else
    t = b;
  endif
endfunction

function P = points (m, d, ties)
  if (ties)
    P = single (randi ([0 3], m, d));
  else
    P = randn (m, d, "single");
  endif
endfunction

addpath (fullfile (fileparts (mfilename ("fullpath")), "..", "octave"));
warning ("off", "gd:nogpu");
r = gd_spmdIndex ();
nr = gd_spmdSize ();
N = str2double (getenv ("GD_EXAMPLE_N"));
if (isnan (N))
  N = 1e6;
endif
d = 64;
K = 10;
my = 2000;

## this rank's rows of X: lo:hi of 1:N (a rank would read its own file;
## here each makes its share from a seed of its own)
lo = floor ((r - 1) * N / nr) + 1;
hi = floor (r * N / nr);
ties = strcmp (getenv ("GD_EXAMPLE_TIES"), "1");
if (ties)
  d = 3;
endif
rand ("state", 1000 + r); randn ("state", 1000 + r);
Xr = points (hi - lo + 1, d, ties);
## the queries, made on rank 1 and sent to every rank
Y = [];
if (r == 1)
  rand ("state", 7); randn ("state", 7);
  Y = points (my, d, ties);
endif
Y = gd_spmdBroadcast (1, Y);

## the points in parts, one a rank (on its GPU where there is one)
if (! isempty (gd_info ().devices))
  Xr = gdArray (Xr);
endif
X = gdCodistributed (Xr, "1d");
tic;
[Ik, Dk] = gd_knnsearch (X, Y, "K", K);   # every rank's K best, merged
Ik = gather (Ik);
Dk = gather (Dk);
if (r == 1)
  printf ("%d ranks: the %d nearest of %d points (%d features) to %d queries in %.2f s\n",
          nr, K, N, d, my, toc);
  printf ("query 1's nearest rows: %s\n", mat2str (Ik(1,:)));
endif

if (strcmp (getenv ("GD_EXAMPLE_CHECK"), "1"))
  W = gather (X, 1);                      # the whole X, on rank 1 alone
  if (r == 1)
    [I1, D1] = gd_knnsearch (W, Y, "K", K);
    printf ("one search over all the points: %s\n",
            ifelse_text (isequal (I1, Ik) && isequal (D1, Dk), "the same lists", "DIFFERENT lists"));
  endif
endif
gd_spmdBarrier ();
