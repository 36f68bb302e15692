function check_devices (which)
  ## check_devices: calls divided across every device gd sees (real ones,
  ## or GD_SIM_DEVICES's simulated ones, run one after another on the
  ## first) against the same calls on device 1: equal bit for bit (the
  ## sign of a zero and NaN's place included), with the devices info
  ## names. Fresh random data each run, results poisoned first, sizes
  ## that leave a short last part. check_devices ("resident"): gdArrays
  ## on every device instead (resident_cases).
  setenv ("GD_POISON", "1");
  N = numel (gd_info ().devices);
  if (N < 2)
    error ("check_devices: gd sees %d device; run with GD_SIM_DEVICES set", N);
  endif
  all_ = 1:N;
  ncase = 0;
  if (nargin > 0 && strcmp (which, "resident"))
    A = randn (333, 129, "single");  B = randn (129, 600 + N, "single");
    ncase = resident_cases (N, A, B, gd_minplus (A, B, "Devices", 1));
    printf ("%d gdArray device cases agree on %d devices\n", ncase, N);
    return;
  endif
  for c = {"single", "double"}
    ## min-plus, R alone and with the witness: NaN, Inf, signed zeros, ties
    A = cast (randi ([-4 9], 300, 257), c{1});
    B = cast (randi ([-4 9], 257, 700 + N), c{1});
    A(randperm (numel (A), 40)) = NaN;  B(randperm (numel (B), 40)) = Inf;
    A(randperm (numel (A), 40)) = -0;   B(:, 5) = NaN;
    [R1, ~, i1] = gd_minplus (A, B, "Devices", 1);
    [Rn, ~, in] = gd_minplus (A, B, "Devices", all_);
    same (Rn, R1, in, all_, ["minplus " c{1}]);
    [R1, K1] = gd_minplus (A, B, "Devices", 1);
    [Rn, Kn, in] = gd_minplus (A, B, "Devices", all_);
    same (Rn, R1, in, all_, ["minplus witness R " c{1}]);
    same (Kn, K1, in, all_, ["minplus witness K " c{1}]);
    [~, Kn, in] = gd_minplus (A, B, "Devices", all_, "IndexClass", "int32");
    same (Kn, int32 (K1), in, all_, ["minplus int32 witness " c{1}]);
    ncase += 4;

    ## pdist2 (queries' panels) and pdist (the triangle in equal shares)
    X = cast (randn (500, 33), c{1});  Y = cast (randn (300 * N + 7, 33), c{1});
    X(3,:) = Y(2,:);  X(7,2) = NaN;
    for m = {"euclidean", "squaredeuclidean", "cityblock", "cosine", "hamming"}
      [D1, ~, i1] = gd_pdist2 (X, Y, m{1}, "Variant", "tuned", "Devices", 1);
      [Dn, ~, in] = gd_pdist2 (X, Y, m{1}, "Variant", "tuned", "Devices", all_);
      same (Dn, D1, in, all_, ["pdist2 " m{1} " " c{1}]);
      Z = [X; Y(1:200,:)];
      [P1, i1] = gd_pdist (Z, m{1}, "Variant", "tuned", "Devices", 1);
      [Pn, in] = gd_pdist (Z, m{1}, "Variant", "tuned", "Devices", all_);
      same (Pn, P1, in, all_, ["pdist " m{1} " " c{1}]);
      ncase += 2;
    endfor

    ## nearest neighbours: the queries split (Y the larger), then X's rows
    ## split with the lists merged (X the larger); repeated rows make ties
    for shape = {[400 2500], [5000 333]}
      mx = shape{1}(1);  my = shape{1}(2);
      X = cast (randi ([-3 3], mx, 6), c{1});  Y = cast (randi ([-3 3], my, 6), c{1});
      for lg = {"Smallest", "Largest"}
        [D1, I1] = gd_pdist2 (X, Y, "euclidean", lg{1}, 9, "Devices", 1);
        [Dn, In, in] = gd_pdist2 (X, Y, "euclidean", lg{1}, 9, "Devices", all_);
        what = sprintf ("knn %s %dx%d %s", lg{1}, mx, my, c{1});
        same (Dn, D1, in, all_, [what " D"]);
        same (In, I1, in, all_, [what " I"]);
        Ik = gd_knnsearch (X, Y, "K", 5, "Devices", all_);
        if (! isequal (Ik, gd_knnsearch (X, Y, "K", 5, "Devices", 1)))
          error ("check_devices: %s: gd_knnsearch's indices differ", what);
        endif
        ncase += 3;
      endfor
    endfor
    ## X's rows in 128-row steps: 300 rows on three devices would leave
    ## the last 44, fewer than K = 60: fewer devices take them
    X = cast (randn (300, 5), c{1});  Y = cast (randn (40, 5), c{1});
    [D1, I1] = gd_pdist2 (X, Y, "euclidean", "Smallest", 60, "Devices", 1);
    [Dn, In, in] = gd_pdist2 (X, Y, "euclidean", "Smallest", 60, "Devices", all_);
    same_bits (Dn, D1, ["knn K = 60 of 300 rows " c{1}]);
    same_bits (In, I1, ["knn K = 60 of 300 rows, I " c{1}]);
    ncase++;
    ## the gemm neighbours, the queries split, X from the host: on real
    ## devices with peer access X's upload is shared (each device a share
    ## of each piece, the rest pulled from the others); with device 2
    ## capped below the search's memory its part runs fused, and the
    ## others upload its share of X themselves
    X = cast (randn (40000, 24), c{1});  Y = cast (randn (3000, 24), c{1});
    X(5:9,:) = repmat (X(1,:), 5, 1);  Y(7,:) = X(1,:);
    [D1, I1] = gd_pdist2 (X, Y, "euclidean", "Smallest", 10, "Variant", "gemm", "Devices", 1);
    for cap = {"", "2:14000000"}
      setenv ("GD_GPU_MEM_LIMIT", cap{1});
      [Dn, In, in] = gd_pdist2 (X, Y, "euclidean", "Smallest", 10, "Variant", "gemm", "Devices", all_);
      unsetenv ("GD_GPU_MEM_LIMIT");
      same (Dn, D1, in, all_, ["knn gemm, X shared, cap '" cap{1} "' D " c{1}]);
      same (In, I1, in, all_, ["knn gemm, X shared, cap '" cap{1} "' I " c{1}]);
      ncase += 2;
    endfor
  endfor

  ## v5 single on signed data: info.kernel's tile counts (the sign split)
  ## are the parts' counts summed, each part's as it gives alone
  A = randn (600, 300, "single");  B = randn (300, 1500, "single");
  B(:, 1:40) = abs (B(:, 1:40)) + 1;  A(1:5, :) = abs (A(1:5, :)) + 1;  # fminf tiles
  [~, ~, in] = gd_minplus (A, B, "Variant", "v5", "Devices", all_);
  counts = @(k) sscanf (regexp (k, '\d+ of \d+ tiles, fminf on \d+', "match", "once"), ...
                        "%d of %d tiles, fminf on %d");
  got = counts (in.kernel);
  units = ceil (1500 / 256);  want = zeros (3, 1);
  for p = 0:N-1
    lo = floor (units * p / N) * 256;  hi = min (floor (units * (p + 1) / N) * 256, 1500);
    if (hi > lo)
      [~, ~, ip] = gd_minplus (A, B(:, lo+1:hi), "Variant", "v5", "Devices", 1);
      want += counts (ip.kernel);
    endif
  endfor
  if (numel (got) != 3 || ! isequal (got, want))
    error ("check_devices: the divided sign split says '%s', the parts alone %s", in.kernel,
           mat2str (want'));
  endif
  ncase++;

  ## integer min-plus (v5): each device's lanes from its own panel's range
  for c = {"int8", "int32", "uint64"}
    A = cast (randi ([0 90], 200, 150), c{1});  B = cast (randi ([0 90], 150, 600 + N), c{1});
    B(:, end) = intmax (c{1});
    [R1, ~, i1] = gd_minplus (A, B, "Variant", "v5", "Devices", 1);
    [Rn, ~, in] = gd_minplus (A, B, "Variant", "v5", "Devices", all_);
    same (Rn, R1, in, all_, ["integer min-plus " c{1}]);
    ncase++;
  endfor

  ## shortest paths: D alone divides by rows of blocks (fw); with P on
  ## one device, the first one named
  for c = {"single", "double"}
    for nv = [300, 128 * N + 77]
      W = cast (randi ([1 50], nv), c{1});  W(rand (nv) < 0.9) = Inf;
      W(rand (nv) < 0.01) = 0;
      ## negative weights without a cycle: edges upward alone
      V = cast (randi ([-9 50], nv), c{1});  V(rand (nv) < 0.9) = Inf;
      V = triu (V, 1) + tril (Inf (nv, c{1}), -1);
      for G = {W, V}
        [D1, ~, i1] = gd_apsp (G{1}, "Variant", "fw", "Devices", 1);
        [Dn, ~, in] = gd_apsp (G{1}, "Variant", "fw", "Devices", all_);
        want = all_(1:min (N, ceil (nv / 128)));
        same (Dn, D1, in, want, sprintf ("apsp D %s n = %d", c{1}, nv));
        ncase++;
      endfor
    endfor
  endfor
  ## the integer classes: D alone divides too, the rounds in single where
  ## every sum stays within 2^24 (small weights), else in double (int32
  ## weights near 2^25), each device's rows of D converted to the class
  nv = 128 * N + 77;
  for c = {"uint8", "int16", "int32"}
    W = cast (randi ([0 9], nv), c{1});
    big = strcmp (c{1}, "int32");
    if (big)
      W += 2^25;
    endif
    W(rand (nv) < 0.9) = intmax (c{1});
    [D1, ~, i1] = gd_apsp (W, "Variant", "fw", "Devices", 1);
    [Dn, ~, in] = gd_apsp (W, "Variant", "fw", "Devices", all_);
    same (Dn, D1, in, all_, ["apsp D " c{1}]);
    kind = merge (big, "double, exact", "single, exact");
    if (! strncmp (in.kernel, kind, numel (kind)) || ! strncmp (i1.kernel, kind, numel (kind)))
      error ("check_devices: apsp %s ran '%s' and '%s', not in %s", c{1}, in.kernel,
             i1.kernel, kind);
    endif
    ncase++;
  endfor
  ## each device uploads and checks its own rows of W; what the rows say
  ## is taken together: a negative edge, a large integer weight, a NaN or
  ## a negative self-loop in the last device's rows alone decide for all
  nv = 128 * N + 77;
  W = single (randi ([1 9], nv));  W(rand (nv) < 0.9) = Inf;
  W(nv, 2) = -1;                     # the one negative edge, in the last slab
  [D1, ~, i1] = gd_apsp (W, "Variant", "fw", "Devices", 1);
  [Dn, ~, in] = gd_apsp (W, "Variant", "fw", "Devices", all_);
  same (Dn, D1, in, all_, "apsp single, a negative edge in the last rows alone");
  if (isempty (strfind (in.kernel, "fminf")) || isempty (strfind (i1.kernel, "fminf")))
    error ("check_devices: a negative edge in the last rows ran '%s' and '%s'", in.kernel, i1.kernel);
  endif
  W = int32 (randi ([0 9], nv));  W(rand (nv) < 0.9) = intmax ("int32");
  W(nv, 3) = 2^25;                   # double's range, from the last slab alone
  [D1, ~, i1] = gd_apsp (W, "Variant", "fw", "Devices", 1);
  [Dn, ~, in] = gd_apsp (W, "Variant", "fw", "Devices", all_);
  same (Dn, D1, in, all_, "apsp int32, the large weight in the last rows alone");
  if (! strncmp (in.kernel, "double, exact", 13) || ! strncmp (i1.kernel, "double, exact", 13))
    error ("check_devices: a large weight in the last rows ran '%s' and '%s'", in.kernel, i1.kernel);
  endif
  W = single (randi ([1 9], nv));
  W(nv - 1, 4) = NaN;
  expect_error ("gd:input", "NaN", @gd_apsp, W, "Variant", "fw", "Devices", all_);
  W(nv - 1, 4) = 1;  W(nv - 1, nv - 1) = -1;  W(130, 130) = -3;   # the first is named
  expect_error ("gd:negcycle", "W\\(130,130\\) < 0", @gd_apsp, W, "Variant", "fw", "Devices", all_);
  ncase += 4;
  ## P divides with D (the slabs' tags, the chain on the first device),
  ## single and double: integer weights (ties), negative edges, a graph
  ## with a cycle of weight 0 (found across devices, then P with the edge
  ## counts on the first device)
  nv = 128 * N + 77;
  W = single (randi ([1 9], nv));  W(rand (nv) < 0.95) = Inf;
  V = single (randi ([-9 50], nv));  V(rand (nv) < 0.9) = Inf;
  V = triu (V, 1) + tril (Inf (nv, "single"), -1);
  Z = W;  Z(3, 8) = 0;  Z(8, 3) = 0;
  for G = {W, V, Z, double(V)}
    [D1, P1] = gd_apsp (G{1}, "Devices", 1);
    [Dn, Pn, in] = gd_apsp (G{1}, "Devices", all_);
    zero = any (any (G{1} == 0 & G{1}.' == 0 & ! eye (nv)));
    same (Dn, D1, in, merge (zero, 1, all_), sprintf ("apsp %s D with P, zero cycle %d", class (G{1}), zero));
    same_bits (Pn, P1, sprintf ("apsp %s P across devices, zero cycle %d", class (G{1}), zero));
    if (! zero && isempty (strfind (in.kernel, "P from the tags")))
      error ("check_devices: apsp %s with P across devices says '%s'", class (G{1}), in.kernel);
    endif
    ncase++;
  endfor
  ## an integer class's P runs on one device, the first of the list
  W = int16 (randi (9, 300));  W(rand (300) < 0.9) = intmax ("int16");
  [D1, P1] = gd_apsp (W, "Devices", 1);
  [DN, PN, iN] = gd_apsp (W, "Devices", [N 1]);
  same (DN, D1, iN, N, "apsp int16 with P on the last device");
  same_bits (PN, P1, "apsp's predecessors on the last device");
  W = rand (300);  W(rand (300) < 0.9) = Inf;
  W(5, 9) = -1;  W(9, 5) = -1;       # a negative cycle through 5 and 9
  expect_error ("gd:negcycle", "negative cycle", @gd_apsp, W, "Devices", all_);
  ncase += 2;

  ## sgemm: the tuned kernel's panels are the whole product's
  A = randn (333, 129, "single");  B = randn (129, 600 + N, "single");
  [C1, i1] = gd_sgemm (A, B, "Variant", "tuned", "Devices", 1);
  [Cn, in] = gd_sgemm (A, B, "Variant", "tuned", "Devices", all_);
  same (Cn, C1, in, all_, "sgemm tuned");
  ncase++;

  ## one array as both operands, in blocks: each device uploads its own
  ## columns once and pulls the others' blocks of rows (simulated devices:
  ## uploads them itself); the bits of one device and of GD_SHARE=twice
  setenv ("GD_BLOCKS", "3");
  for c = {"single", "double"}
    G = cast (randi ([-4 40], 700 + N, 700 + N), c{1});
    G(randperm (numel (G), 40)) = NaN;  G(randperm (numel (G), 40)) = -0;
    [R1, ~, i1] = gd_minplus (G, "Devices", 1);
    [Rn, ~, in] = gd_minplus (G, G, "Devices", all_);
    same (Rn, R1, in, all_, ["minplus of one array " c{1}]);
    setenv ("GD_SHARE", "twice");
    [Rt, ~, it] = gd_minplus (G, "Devices", all_);
    unsetenv ("GD_SHARE");
    same (Rt, R1, it, all_, ["minplus of one array, uploaded twice " c{1}]);
    ncase += 2;
  endfor
  G = randn (900 + N, "single");
  [C1, i1] = gd_sgemm (G, G, "Variant", "tuned", "Devices", 1);
  [Cn, in] = gd_sgemm (G, G, "Variant", "tuned", "Devices", all_);
  same (Cn, C1, in, all_, "sgemm of one array");
  unsetenv ("GD_BLOCKS");
  ncase++;

  ## one device but the first; the devices in another order
  [R2, ~, i2] = gd_minplus (A, B, "Devices", N);
  if (! isequal (i2.devices, N))
    error ("check_devices: 'Devices', %d ran on %s", N, mat2str (i2.devices));
  endif
  same_bits (R2, gd_minplus (A, B, "Devices", 1), "minplus on the last device");
  [Rr, ~, ir] = gd_minplus (A, B, "Devices", fliplr (all_));
  same (Rr, R2, ir, fliplr (all_), "minplus, devices reversed");
  ncase += 2;

  ## GD_DEVICES sets the default; 'all' takes every device for work that
  ## pays (2^35 steps a device for min-plus), and one below twice that
  setenv ("GD_DEVICES", sprintf ("[%d 1]", N));
  [~, ~, ie] = gd_minplus (A, B);
  setenv ("GD_DEVICES", "1");
  [~, ~, i1] = gd_minplus (A, B);
  unsetenv ("GD_DEVICES");
  if (! isequal (ie.devices, [N 1]) || ! isequal (i1.devices, 1))
    error ("check_devices: GD_DEVICES gave %s and %s", mat2str (ie.devices), mat2str (i1.devices));
  endif
  [~, ~, ia] = gd_minplus (A, B);
  if (! isequal (ia.devices, 1))
    error ("check_devices: a small product took %s by default", mat2str (ia.devices));
  endif
  n = ceil ((N * 2^35) ^ (1/3)) + 1;
  G = rand (n, "single");
  [Ra, ~, ia] = gd_minplus (G, G);
  same (Ra, gd_minplus (G, G, "Devices", 1), ia, all_, "minplus 'all' by default");
  G = rand (floor ((2 * 2^35) ^ (1/3)) - 2, "single");
  [~, ~, ia] = gd_minplus (G, G);
  if (! isequal (ia.devices, 1))
    error ("check_devices: a product below two devices' share took %s", mat2str (ia.devices));
  endif
  ncase += 3;

  printf ("%d device cases agree on %d devices\n", ncase, N);
endfunction

## gdArrays on every device: a call runs where its first gdArray lives
## and leaves its result there; an operand elsewhere is copied there; a
## 'Devices' list divides the products, the result on the list's first
## device; the other operations run on that first device alone
function ncase = resident_cases (N, A, B, R2)
  ncase = 0;
  all_ = 1:N;
  G = gdArray (A, "Device", N);
  H = gdArray (B, "Device", 1);
  on (G, N, "gdArray (A, 'Device', N)");
  on (H, 1, "gdArray (B, 'Device', 1)");
  if (isempty (strfind (evalc ("disp (G)"), sprintf ("on device %d", N))))
    error ("check_devices: disp does not name device %d: %s", N, evalc ("disp (G)"));
  endif
  same_bits (gather (G), A, "gather from the last device");
  ## one call, the operands on two devices: the first's device runs it
  [R, ~, i] = gd_minplus (G, H);
  on (R, N, "min-plus of gdArrays on N and 1");
  same (gather (R), R2, i, N, "min-plus, the gdArrays on N and 1");
  [R, ~, i] = gd_minplus (H.', G.');
  on (R, 1, "min-plus of gdArrays on 1 and N");
  same (gather (R), gd_minplus (B.', A.', "Devices", 1), i, 1, "min-plus, the gdArrays on 1 and N");
  ncase += 3;
  ## 'Devices' with gdArrays: divided, the result on the first named,
  ## with the witness
  [R1, K1] = gd_minplus (A, B, "Devices", 1);
  [R, K, i] = gd_minplus (G, H, "Devices", all_);
  on (R, 1, "divided min-plus's R");
  on (K, 1, "divided min-plus's K");
  same (gather (R), R1, i, all_, "divided min-plus of gdArrays, R");
  same_bits (gather (K), K1, "divided min-plus of gdArrays, K");
  [R, ~, i] = gd_minplus (G, B, "Devices", fliplr (all_));
  on (R, N, "min-plus with 'Devices' N:-1:1");
  same (gather (R), R1, i, fliplr (all_), "min-plus of a gdArray, devices reversed");
  S = gd_sgemm (G, H, "Variant", "tuned", "Devices", 1);
  [C, i] = gd_sgemm (G, H, "Variant", "tuned", "Devices", all_);
  on (C, 1, "divided sgemm");
  same (gather (C), gather (S), i, all_, "divided sgemm of gdArrays");
  X = randn (700, 20, "single");  Y = randn (300 * N + 5, 20, "single");
  GX = gdArray (X, "Device", N);
  [D, ~, i] = gd_pdist2 (GX, Y, "cityblock", "Devices", all_);
  on (D, 1, "divided pdist2");
  same (gather (D), gd_pdist2 (X, Y, "cityblock", "Devices", 1), i, all_, "divided pdist2 of a gdArray");
  ncase += 4;
  ## the others: on the first gdArray's device, or the list's first, alone
  [P, i] = gd_pdist (GX);
  on (P, N, "pdist of a gdArray on N");
  same (gather (P), gd_pdist (X, "Devices", 1), i, N, "pdist of a gdArray on N");
  [P, i] = gd_pdist (GX, "Devices", [1 N]);
  on (P, 1, "pdist of a gdArray with 'Devices' [1 N]");
  same (gather (P), gd_pdist (X, "Devices", 1), i, 1, "pdist with 'Devices' [1 N]");
  GY = gdArray (Y, "Device", 1);
  [Dk, Ik, i] = gd_pdist2 (GX, GY, "euclidean", "Smallest", 4);
  on (Dk, N, "kNN's D");
  on (Ik, N, "kNN's I");
  [Dw, Iw] = gd_pdist2 (X, Y, "euclidean", "Smallest", 4, "Devices", 1);
  same (gather (Dk), Dw, i, N, "kNN of gdArrays on N and 1, D");
  same_bits (gather (Ik), Iw, "kNN of gdArrays on N and 1, I");
  W = rand (200);  W(rand (200) < 0.8) = Inf;
  GW = gdArray (W, "Device", N);
  [Dp, Pp, i] = gd_apsp (GW);
  on (Dp, N, "apsp's D");
  on (Pp, N, "apsp's P");
  [Dw, Pw] = gd_apsp (W, "Devices", 1);
  same (gather (Dp), Dw, i, N, "apsp of a gdArray on N, D");
  same_bits (gather (Pp), Pw, "apsp of a gdArray on N, P");
  if (! isequal (gd_path (Pp, 3, 7), gd_path (Pw, 3, 7)))
    error ("check_devices: gd_path on a P on device %d differs", N);
  endif
  T = G.';
  on (T, N, "the transpose");
  same_bits (gather (T), A.', "the transpose on device N");
  Q = gd_squareform (gd_pdist (GX));
  on (Q, N, "squareform");
  same_bits (gather (Q), gd_squareform (gd_pdist (X, "Devices", 1)), "squareform on device N");
  ncase += 7;
endfunction

## G, a gdArray, lives on device d
function on (G, d, what)
  if (! isa (G, "gdArray"))
    error ("check_devices: %s: %s, not a gdArray on device %d", what, class (G), d);
  elseif (device (G) != d)
    error ("check_devices: %s: on device %d, not %d", what, device (G), d);
  endif
endfunction


function same (got, want, info, devices, what)
  same_bits (got, want, what);
  if (! isequal (info.devices, devices))
    error ("check_devices: %s ran on devices %s, not %s", what, mat2str (info.devices),
           mat2str (devices));
  endif
endfunction

function same_bits (got, want, what)
  if (! strcmp (class (got), class (want)) || ! isequal (size (got), size (want)))
    error ("check_devices: %s: %s %s against %s %s", what, class (got), mat2str (size (got)),
           class (want), mat2str (size (want)));
  endif
  if (isfloat (got))
    bad = find (typecast (got(:), "uint8") != typecast (want(:), "uint8"), 1);
  else
    bad = find (got(:) != want(:), 1);
  endif
  if (! isempty (bad))
    error ("check_devices: %s differs from the one-device result (byte %d)", what, bad);
  endif
endfunction
