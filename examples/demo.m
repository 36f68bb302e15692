## demo.m - gd on this machine: the device, then gd_minplus on a random
## graph's weight matrix against Octave's own expression, with both times.
##
##   make demo

gd_info ();
warning ("off", "gd:nogpu");    # without a GPU the CPU variant runs

n = 2000;
printf ("\nA random directed graph: %d nodes, 5%% of the edges, weights in [0, 10)\n", n);
W = rand (n, "single") * 10;
W(rand (n) > 0.05) = Inf;
W(1:n+1:end) = 0;

t0 = tic ();
[D, ~, info] = gd_minplus(W);
t_gd = toc (t0);

t0 = tic ();
E = Inf (n, "single");
for j = 1:n
  E(:,j) = min (W + W(:,j)', [], 2);     # R(i,j) = min (W(i,:)' + W(:,j))
endfor
t_oct = toc (t0);

printf ("gd_minplus (W), variant %s on %s:\n", info.variant, info.device);
printf ("  %.1f ms host to host (kernel %.2f ms, %.3g min-plus steps/s)\n",
        t_gd * 1e3, info.kernel_ms, info.rate);
printf ("Octave's min (W(i,:)' + W(:,j)), column by column: %.1f ms\n", t_oct * 1e3);
printf ("identical: %s; speed-up %.0fx\n", mat2str (isequal (D, E)), t_oct / t_gd);

## shortest paths of any length: square until nothing changes
t0 = tic ();
steps = 0;
do
  P = D;
  D = gd_minplus (D);
  steps++;
until (isequal (D, P))
printf ("all-pairs shortest paths: %d more squarings, %.1f ms; %d of %d pairs connected\n",
        steps, toc (t0) * 1e3, nnz (isfinite (D)), n * n);

## single-precision multiply against Octave's own (the host BLAS)
A = rand (3000, "single"); B = rand (3000, "single");
t0 = tic (); [C, info] = gd_sgemm (A, B); t_gd = toc (t0);
t0 = tic (); E = A * B; t_oct = toc (t0);
printf ("\ngd_sgemm, 3000^3, variant %s: %.1f ms host to host (kernel %.2f ms, %.0f GFLOP/s)\n",
        info.variant, t_gd * 1e3, info.kernel_ms, info.rate / 1e9);
printf ("Octave's A * B: %.1f ms; relative difference %.2g (rounding: k * eps = %.2g)\n",
        t_oct * 1e3, norm (double (C) - double (E), "fro") / norm (double (E), "fro"),
        3000 * eps ("single"));

## pairwise distances, the t-SNE preparation step
X = rand (4000, 300, "single");
t0 = tic (); [D, info] = gd_pdist (X); t_gd = toc (t0);
printf ("\ngd_pdist, 4000 x 300, variant %s: %.1f ms host to host for %d distances\n",
        info.variant, t_gd * 1e3, numel (D));
i = 1234; j = 77;                     # spot-check one pair against the definition
S = gd_squareform (D);
printf ("D(%d,%d) = %.6g, norm (X(i,:) - X(j,:)) = %.6g\n", i, j, S(i,j),
        norm (double (X(i,:)) - double (X(j,:))));
if (any (cellfun (@(p) strcmp (p.name, "statistics"), pkg ("list"))))
  ## the statistics package's pdist builds every difference vector at once:
  ## compare on the first 800 rows
  w = warning ("off", "all"); pkg load statistics; warning (w);
  Y = X(1:800,:);
  t0 = tic (); P = pdist (double (Y)); t_oct = toc (t0);
  t0 = tic (); G = gd_pdist (Y); t_gd = toc (t0);
  printf ("800 x 300: statistics pdist %.1f ms, gd_pdist %.1f ms; largest relative difference %.2g\n",
          t_oct * 1e3, t_gd * 1e3, max (abs (double (G) - P) ./ max (P, eps)));
endif
