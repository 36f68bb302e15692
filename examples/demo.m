## demo.m - gd on this machine: the device, what its first call costs, then
## each job against Octave's own way of getting the same result: min-plus,
## shortest paths with a route, a single-precision product, pairwise
## distances and nearest neighbours. For each: gd's steady host-to-host
## time (the median of three calls after the first), its kernel time,
## Octave's time, whether the results agree, and the speed-up.
##
##   make demo

1;

## the median of three timed calls of f after one untimed call, and that
## call's outputs (its info: the kernel time beside it is the same call's)
function [ms, out] = steady (f, nout)
  outs = cell (3, nout);
  [outs{1,:}] = f ();
  t = zeros (1, 3);
  for r = 1:3
    t0 = tic (); [outs{r,:}] = f (); t(r) = toc (t0) * 1e3;
  endfor
  [~, order] = sort (t);
  ms = t(order(2));
  out = outs(order(2),:);
endfunction

## one line of an H100's figures from bench/results (where the source tree
## has them): what the same jobs take where there is a GPU
function h100_line ()
  d = fullfile (fileparts (which ("gd_minplus")), "..", "bench", "results");
  f = dir (fullfile (d, "*H100*.md"));
  f = f(cellfun (@isempty, strfind ({f.name}, "devices")));
  if (isempty (f))
    return;
  endif
  text = fileread (fullfile (d, f(1).name));
  cell_of = @(row, c) strtrim (strsplit (row(2:end-1), "|")){c};
  picks = {"min-plus n = 8192 single", '\| v5 \(integer min\) \| single \| 8192 \|[^\n]*', 4;
           "shortest paths n = 8192 single", '\| single \| 8192 \| fw \| no \|[^\n]*', 5;
           "10 nearest of 1,000,000 for 10,000 queries", '\| 10000 x 1000000 \| single \| 10 \|[^\n]*', 4};
  parts = {};
  for k = 1:rows (picks)
    row = regexp (text, picks{k,2}, "match", "once");
    if (! isempty (row))
      parts{end+1} = sprintf ("%s %s ms", picks{k,1}, cell_of (row, picks{k,3}));
    endif
  endfor
  if (! isempty (parts))
    printf ("\nOn an %s (bench/results, kernel times): %s.\n",
            regexprep (strsplit (text, "\n"){1}, "^# gd benchmarks: ", ""), strjoin (parts, "; "));
  endif
endfunction

## "exact" when the two are equal, else their relative difference,
## norm (a - b, "fro") / norm (b, "fro")
function s = agreement (a, b)
  if (isequal (a, b))
    s = "exact";
  else
    a = double (a); b = double (b);
    s = sprintf ("to rounding (relative difference %.2g)",
                 norm (a - b, "fro") / norm (b, "fro"));
  endif
endfunction

## R and info of gd_minplus (W): info is its third output, and with the
## second (the argmin K) ignored no witness is computed
function [R, info] = minplus (W)
  [R, ~, info] = gd_minplus (W);
endfunction

function row (what, ms, info, oct_ms, agree)
  kernel = "";
  if (isfield (info, "kernel_ms") && info.kernel_ms > 0)
    kernel = sprintf (", kernel %.2f ms", info.kernel_ms);
  endif
  printf ("%s\n  gd: %.1f ms host to host (%s%s); Octave: %.1f ms; agreement: %s; speed-up %.1fx\n",
          what, ms, info.variant, kernel, oct_ms, agree, oct_ms / ms);
endfunction

## the first GPU call of a process (here gd_info's) creates the CUDA context
## and loads the kernels, and cuBLAS on its first use: once per Octave session
t0 = tic ();
gd_info ();
warning ("off", "gd:nogpu");    # without a GPU the CPU variants run
dev = gd_info ();
gd_minplus (ones (8, "single"));
gd_sgemm (ones (8, "single"), ones (8, "single"));
if (dev.available)
  printf ("\nGPU start-up: %.0f ms, once per Octave session (not counted below)\n", toc (t0) * 1e3);
else
  printf ("\nGPU start-up: none. No GPU: %s. The CPU variants run.\n", dev.reason);
endif

## without a GPU the CPU variants run, on sizes a quarter to an eighth of
## the work, so that the demo ends in seconds (its last line gives an
## H100's figures)
g = dev.available;

## min-plus on a random graph's weights; integer weights, so every sum is
## exact and the two results must be equal
n = merge (g, 2000, 1000);
W = single (randi ([1 100], n));
W(rand (n) > 0.05) = Inf;
W(1:n+1:end) = 0;
[ms, out] = steady (@() minplus (W), 2);
[R, info] = out{:};
t0 = tic ();
E = Inf (n, "single");
for j = 1:n
  E(:,j) = min (W + W(:,j)', [], 2);     # R(i,j) = min (W(i,:)' + W(:,j))
endfor
row (sprintf ("\nmin-plus R = W (x) W, n = %d, single (Octave: min (W + W(:,j)', [], 2) for each j)", n),
     ms, info, toc (t0) * 1e3, agreement (R, E));

## all shortest paths with their routes, against Floyd-Warshall in Octave
n = merge (g, 1000, 500);
W = W(1:n,1:n);
[ms, out] = steady (@() gd_apsp (W), 3);
[D, P, info] = out{:};
t0 = tic ();
E = W;
for k = 1:n
  E = min (E, E(:,k) + E(k,:));
endfor
row (sprintf ("\nshortest paths, n = %d (Octave: Floyd-Warshall, E = min (E, E(:,k) + E(k,:)))", n),
     ms, info, toc (t0) * 1e3, agreement (D, E));
d = D(1,:);
d(! isfinite (d)) = -1;
[~, far] = max (d);              # the farthest vertex that 1 reaches
route = gd_path (P, 1, far);
len = sum (W(sub2ind (size (W), route(1:end-1), route(2:end))));
printf ("  the route from 1 to %d: %s; its edges add up to %g = D(1,%d)\n", far,
        strjoin (arrayfun (@num2str, route, "UniformOutput", false), " -> "), len, far);

## a single-precision product against Octave's A * B (its BLAS)
n = merge (g, 3000, 1500);
A = rand (n, "single"); B = rand (n, "single");
[ms, out] = steady (@() gd_sgemm (A, B), 2);
[C, info] = out{:};
t0 = tic (); E = A * B; t_oct = toc (t0) * 1e3;
blas = strtok (dev.blas, " (");
if (strcmp (blas, "unknown"))
  blas = "the reference BLAS or one Octave cannot name";
endif
row (sprintf ("\nC = A * B, %d^3, single (Octave: A * B with %s)", n, blas),
     ms, info, t_oct, agreement (C, E));

## pairwise distances against the statistics package's pdist
X = randi ([-20 20], merge (g, 2000, 1000), 64);
have_stats = any (cellfun (@(p) strcmp (p.name, "statistics"), pkg ("list")));
[ms, out] = steady (@() gd_pdist (X, "squaredeuclidean"), 2);
[G, info] = out{:};
if (have_stats)
  w = warning ("off", "all"); pkg load statistics; warning (w);
  t0 = tic (); E = pdist (X, "squaredeuclidean"); t_oct = toc (t0) * 1e3;
  row (sprintf ("\npdist, %d x 64 integers, squared euclidean, double (Octave: the statistics package's pdist)",
                rows (X)), ms, info, t_oct, agreement (G, E));
else
  printf ("\npdist: the statistics package is not installed (make deps installs it)\n");
endif

## nearest neighbours: 10 of 20000 points for each of 2000 queries, against
## the full distances and a sort (integer data: every distance exact)
X = randi ([-20 20], merge (g, 20000, 10000), 16); Y = randi ([-20 20], merge (g, 2000, 1000), 16);
[ms, out] = steady (@() gd_knnsearch (X, Y, "K", 10), 3);
[Idx, Dk, info] = out{:};
t0 = tic ();
J = zeros (rows (Y), 10);
for j = 1:rows (Y)
  [~, s] = sort (sumsq (X - Y(j,:), 2));
  J(j,:) = s(1:10);
endfor
row (sprintf ("\nnearest neighbours, 10 of %d for %d queries, d = 16 (Octave: each query's distances, sorted)",
              rows (X), rows (Y)),
     ms, info, toc (t0) * 1e3, agreement (Idx, J));
if (! dev.available)
  h100_line ();
endif
