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
[D, info] = gd_minplus (W);
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
