## check_ranks_apsp.m - gd_apsp on a '2dbc' gdCodistributed W across the
## ranks of a job (every rank runs it; mpi.bats starts it in 1 to 4
## ranks): D and P on every grid of the ranks against one process's
## gd_apsp on the whole W ('cpu': P as its rule picks among ties), bit
## for bit: fresh random graphs with missing edges, negative edges (weights plus potentials, no negative cycle),
## cycles of weight 0 (P then by the rounds with edge counts), real weights
## (routes within rounding), the integer classes, parts held as gdArrays;
## gd_path on the distributed P; a negative cycle and a NaN refused on every
## rank. Each rank says "apsp ok N" or what differed (rank_check).

r = gd_spmdIndex ();
n = gd_spmdSize ();
rank_check ("begin");                   # one stream of data on every rank
## a graph of v vertices: kind "plain" (weights 1..20, a third missing),
## "negative" (plus potentials: some edges negative, no cycle), "zero" (a
## cycle of weight 0 planted), "real" (uniform weights), in class cls
function W = graph (v, kind, cls)
  W = randi (20, v);
  W(rand (v) < 0.35) = Inf;
  switch (kind)
    case "negative"
      p = randi (15, v, 1);
      W = W + p - p';                   # a cycle's weight unchanged
    case "zero"
      a = randi (v); c = mod (a, v) + 1;
      W(a,c) = 0; W(c,a) = 0;
      W(c, randi (v)) = 0;
    case "real"
      W = rand (v) * 10;
      W(rand (v) < 0.3) = Inf;
  endswitch
  W(1:v+1:end) = 0;
  W = cast (W, cls);
endfunction

pr = max (find (mod (n, 1:floor (sqrt (n))) == 0));
grids = unique ([1 n; n 1; pr n/pr], "rows");
if (n == 4)
  grids = [2 2];                        # (1xN and Nx1 in 2 and 3 ranks: time)
endif
for g = 1:rows (grids)
  grid = grids(g,:);
  gi = floor ((r - 1) / grid(2));
  gj = mod (r - 1, grid(2));
  for t = {{"single", "plain"}, {"double", "negative"}, {"single", "zero"}, ...
           {"double", "real"}, {"single", "real"}, {"double", "zero"}}
    [cls, kind] = deal (t{1}{:});
    b = randi (4);
    v = 5 + randi (20);
    W = graph (v, kind, cls);
    part = @(M) M(part_blocks (rows (M), b, gi, grid(1)), part_blocks (columns (M), b, gj, grid(2)));
    GW = gdCodistributed (part (W), "2dbc", grid, b, size (W));
    what = sprintf ("%s %s n %d grid %dx%d b %d", cls, kind, v, grid, b);
    [D1, P1] = gd_apsp (W, "Variant", "cpu");
    [D2, P2, info] = gd_apsp (GW);
    rank_check (isa (D2, "gdCodistributed") && isequal (layout (D2).Grid, grid)
           && isequal (layout (P2).BlockSize, b), ["layout " what]);
    rank_check (isequaln (gather (D2), D1) && strcmp (class (gather (D2)), cls), ["D " what]);
    rank_check (isequal (gather (P2), P1), ["P " what]);
    rank_check (isequaln (gather (gd_apsp (GW)), gd_apsp (W)), ["D alone " what]);
    [~, P3] = gd_apsp (GW, "IndexClass", "int32", "Variant", "cpu");
    [~, P4] = gd_apsp (W, "IndexClass", "int32", "Variant", "cpu");
    rank_check (isequal (gather (P3), P4) && isa (gather (P3), "int32"), ["P int32 " what]);
    i = randi (v); j = randi (v, 1, 3);
    rank_check (isequal (gd_path (P2, i, j), gd_path (P1, i, j)), ["gd_path " what]);
    rank_check (info.ranks == n, ["info " what]);
  endfor
  ## the integer classes: saturating sums, the largest value no edge
  for cls = {"int32", "uint8"}
    b = randi (3);
    v = 4 + randi (12);
    W = randi (60, v);
    W(rand (v) < 0.3) = double (intmax (cls{1}));
    W(1:v+1:end) = 0;
    W = cast (W, cls{1});
    part = @(M) M(part_blocks (rows (M), b, gi, grid(1)), part_blocks (columns (M), b, gj, grid(2)));
    GW = gdCodistributed (part (W), "2dbc", grid, b, size (W));
    [D1, P1] = gd_apsp (W, "Variant", "cpu");
    [D2, P2] = gd_apsp (GW);
    rank_check (isequal (gather (D2), D1) && isequal (gather (P2), P1),
           sprintf ("%s n %d grid %dx%d b %d", cls{1}, v, grid, b));
  endfor
  ## parts held as gdArrays: the results' parts gdArrays, the same values
  W = graph (12, "plain", "single");
  b = 2;
  part = @(M) M(part_blocks (rows (M), b, gi, grid(1)), part_blocks (columns (M), b, gj, grid(2)));
  GW = gdCodistributed (gdArray (part (W)), "2dbc", grid, b, size (W));
  [D1, P1] = gd_apsp (W, "Variant", "cpu");
  [D2, P2] = gd_apsp (GW);
  rank_check (isa (getLocalPart (D2), "gdArray") && isequal (gather (D2), D1)
         && isequal (gather (P2), P1), "gdArray parts");
  try
    gd_apsp (GW, "Variant", "fw");
    rank_check (false, "'fw' refused");
  catch e
    rank_check (strcmp (e.identifier, "gd:input") && ! isempty (strfind (e.message, "'fw' across ranks takes W's parts as gdArrays on GPUs")), ["'fw': " e.message]);
  end_try_catch
  try
    gd_apsp (GW, "Variant", "squaring");
    rank_check (false, "'squaring' refused");
  catch e
    rank_check (strcmp (e.identifier, "gd:input") && ! isempty (strfind (e.message, "'squaring' is not offered")), ["'squaring': " e.message]);
  end_try_catch
  ## a negative cycle, a negative self-loop, a NaN: refused on every rank
  W = graph (9, "plain", "double");
  W(3,5) = -40; W(5,3) = 1;
  GW = gdCodistributed (part (W), "2dbc", grid, b, size (W));
  try
    gd_apsp (GW);
    rank_check (false, "a negative cycle refused");
  catch e
    rank_check (strcmp (e.identifier, "gd:negcycle") && ! isempty (strfind (e.message, "gd_apsp: the graph has a negative cycle")),
           ["a negative cycle: " e.message]);
  end_try_catch
  W = graph (9, "plain", "single");
  W(7,7) = -1; W(4,4) = -2;
  GW = gdCodistributed (part (W), "2dbc", grid, b, size (W));
  try
    gd_apsp (GW);
    rank_check (false, "a negative self-loop refused");
  catch e
    rank_check (strcmp (e.message, "gd_apsp: the graph has a negative cycle: W(4,4) < 0 (a negative self-loop)"),
           ["a negative self-loop: " e.message]);
  end_try_catch
  W(4,4) = 0; W(7,7) = 0; W(2,6) = NaN;
  GW = gdCodistributed (part (W), "2dbc", grid, b, size (W));
  try
    gd_apsp (GW);
    rank_check (false, "a NaN refused");
  catch e
    rank_check (strcmp (e.identifier, "gd:input") && ! isempty (strfind (e.message, "NaN")), ["a NaN: " e.message]);
  end_try_catch
endfor

rank_check ("end", "apsp");
