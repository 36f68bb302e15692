function check_minplus_int (variant)
  ## check_minplus_int: gd_minplus on every integer class against Octave's
  ## own expression, [R(:,j), K(:,j)] = min (A + B(:,j)', [], 2), bit for
  ## bit: operands with intmin and intmax (the sums saturate both ways),
  ## ties (small values), sizes 1, 7, 63, 64, 65, 129 and an empty inner
  ## dimension (intmax, K = 0); A (x) A; int32 indices; operands unchanged.
  ## check_minplus_int ("v5"): the GPU's R (check_gpu below).
  warning ("off", "all");
  if (nargin > 0)
    check_gpu (variant);
    return;
  endif
  ncase = 0;
  for c = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
    cls = c{1};
    for s = {[1 1 1], [7 5 9], [63 64 65], [129 65 7], [64 129 64], [3 0 4]}
      m = s{1}(1); k = s{1}(2); n = s{1}(3);
      A = cast (randi ([-4 4], m, k), cls); B = cast (randi ([-4 4], k, n), cls);
      if (m * k > 0)
        A(randperm (m * k, ceil (m * k / 7))) = intmax (cls);
        A(randperm (m * k, ceil (m * k / 7))) = intmin (cls);
      endif
      if (k * n > 0)
        B(randperm (k * n, ceil (k * n / 7))) = intmax (cls);
        B(randperm (k * n, ceil (k * n / 5))) = intmin (cls);
      endif
      A0 = A; B0 = B;
      E = repmat (intmax (cls), m, n); EK = zeros (m, n);
      if (k > 0)
        for j = 1:n
          [E(:,j), EK(:,j)] = min (A + B(:,j)', [], 2);
        endfor
      endif
      [R, K, info] = gd_minplus (A, B);
      if (! strcmp (class (R), cls) || ! isequal (R, E))
        error ("check_minplus_int: %s %s: R differs from Octave's", cls, mat2str (s{1}));
      endif
      if (! isequal (K, EK))
        error ("check_minplus_int: %s %s: K differs from Octave's min", cls, mat2str (s{1}));
      endif
      [~, K32] = gd_minplus (A, B, "Variant", "cpu", "IndexClass", "int32");
      if (! strcmp (class (K32), "int32") || ! isequal (double (K32), EK))
        error ("check_minplus_int: %s %s: int32 K", cls, mat2str (s{1}));
      endif
      if (! isequal (A, A0) || ! isequal (B, B0))
        error ("check_minplus_int: an operand was modified");
      endif
      if (m == k)
        E2 = repmat (intmax (cls), m, m);
        for j = 1:m, E2(:,j) = min (A + A(:,j)', [], 2); endfor
        if (! isequal (gd_minplus (A), E2))
          error ("check_minplus_int: %s A (x) A", cls);
        endif
      endif
      ## gdArrays (on the GPU, or held on the host where there is none):
      ## both operands, and one beside an Octave matrix; R, K as gdArrays
      GA = gdArray (A);
      [GR, GK] = gd_minplus (GA, gdArray (B));
      if (! isa (GR, "gdArray") || ! strcmp (classUnderlying (GR), cls) || ! isequal (gather (GR), E)
          || ! isequal (gather (GK), EK))
        error ("check_minplus_int: %s %s: gdArray operands", cls, mat2str (s{1}));
      endif
      if (! isequal (gather (gd_minplus (GA, B)), E) || ! isequal (gather (GA), A0))
        error ("check_minplus_int: %s %s: a gdArray beside a matrix", cls, mat2str (s{1}));
      endif
      ncase++;
    endfor
  endfor
  printf ("%d cases exact\n", ncase);
endfunction

## The GPU variant on every class, each with data whose range proves that
## no sum leaves the narrowest lanes (small values) and with intmin and
## intmax (the sums saturate: wider lanes or saturating sums), against
## Octave's expression (and at a size past several tiles, against the cpu
## variant, itself checked against Octave above); info.kernel must name
## the form the ranges call for. The result is poisoned first.
function check_gpu (variant)
  setenv ("GD_POISON", "1");
  narrow = struct ("int8", "dpx s16x2, widened", "uint8", "dpx s16x2, widened",
                   "int16", "dpx s16x2", "uint16", "dpx u16x2", "int32", "dpx s32",
                   "uint32", "dpx u32", "int64", "int64", "uint64", "uint64");
  wide = struct ("int8", "dpx s16x2, widened", "uint8", "dpx s16x2, widened",
                 "int16", "dpx s32, widened", "uint16", "dpx s32, widened",
                 "int32", "int64, widened", "uint32", "int64, widened",
                 "int64", "int64, saturating", "uint64", "uint64, saturating");
  ncase = 0;
  for c = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
    cls = c{1};
    for extreme = [false true]
      for s = {[1 1 1], [7 5 9], [63 64 65], [129 65 7], [64 129 64], [130 17 200], [257 300 131], [900 700 1000]}
        m = s{1}(1); k = s{1}(2); n = s{1}(3);
        if (extreme)
          A = cast (randi ([-1000 1000], m, k), cls); B = cast (randi ([-1000 1000], k, n), cls);
          A(randperm (m * k, ceil (m * k / 7))) = intmax (cls);
          A(randperm (m * k, ceil (m * k / 7))) = intmin (cls);
          B(randperm (k * n, ceil (k * n / 7))) = intmax (cls);
          B(randperm (k * n, ceil (k * n / 5))) = intmin (cls);
          A(1) = intmax (cls); B(1) = intmax (cls);   # a sum that must saturate
        else
          A = cast (randi ([-40 40], m, k), cls); B = cast (randi ([-40 40], k, n), cls);
        endif
        A0 = A; B0 = B;
        if (m * k * n < 1e7)
          E = repmat (intmax (cls), m, n);
          for j = 1:n
            E(:,j) = min (A + B(:,j)', [], 2);
          endfor
        else
          E = gd_minplus (A, B, "Variant", "cpu");
        endif
        [R, ~, info] = gd_minplus (A, B, "Variant", variant);
        ## the witness on the GPU: Octave's first k of the saturated sums
        ## (against the cpu variant, itself checked against Octave above)
        [RW, KW, winfo] = gd_minplus (A, B, "Variant", variant);
        [RC, KC] = gd_minplus (A, B, "Variant", "cpu");
        what = sprintf ("%s %s%s", cls, mat2str (s{1}), merge (extreme, ", saturating data", ""));
        if (! strcmp (class (R), cls) || ! isequal (R, E))
          bad = find (R != E, 1);
          error ("check_minplus_int: %s: R differs from Octave's (%d of %d elements; first at %d: %s, not %s)",
                 what, nnz (R != E), numel (E), bad, num2str (R(bad)), num2str (E(bad)));
        endif
        ## (keys where no sum saturates and all fit 16 bits, else 64-bit lanes)
        wkernel = merge (extreme, "witness, int64 lanes", "witness, dpx keys");
        if (! isequal (RW, RC) || ! isequal (KW, KC) || ! strcmp (winfo.kernel, wkernel))
          bad = find (KW != KC, 1);
          error ("check_minplus_int: %s: the GPU's witness differs from the cpu variant's (%d of %d; first at %d: %d, not %d)",
                 what, nnz (KW != KC), numel (KC), bad, KW(bad), KC(bad));
        endif
        want = merge (extreme, wide.(cls), narrow.(cls));
        if (! strcmp (info.kernel, want) || ! strcmp (info.variant, variant))
          error ("check_minplus_int: %s: ran %s '%s', not %s '%s'", what, info.variant,
                 info.kernel, variant, want);
        endif
        if (! isequal (A, A0) || ! isequal (B, B0))
          error ("check_minplus_int: %s: an operand was modified", what);
        endif
        if (m == k && ! isequal (gd_minplus (A, "Variant", variant), gd_minplus (A, "Variant", "cpu")))
          error ("check_minplus_int: %s: A (x) A", what);
        endif
        ## resident: gdArray operands, the result kept on the GPU; twice
        ## in a chain where the product is square
        GA = gdArray (A); GB = gdArray (B);
        [GR, ~, ginfo] = gd_minplus (GA, GB, "Variant", variant);
        if (! isa (GR, "gdArray") || ! strcmp (classUnderlying (GR), cls)
            || ! isequal (gather (GR), E) || ! ginfo.kept || ! strcmp (ginfo.kernel, want))
          error ("check_minplus_int: %s: gdArray operands (kept %d, form '%s')", what,
                 ginfo.kept, ginfo.kernel);
        endif
        if (! isequal (gather (gd_minplus (A, GB, "Variant", variant)), E))
          error ("check_minplus_int: %s: a matrix beside a gdArray", what);
        endif
        if (m == n && k == n)
          C = gd_minplus (gd_minplus (GA, "Variant", variant), GA, "Variant", variant);
          if (! isequal (gather (C), gd_minplus (gd_minplus (A, "Variant", "cpu"), A, "Variant", "cpu")))
            error ("check_minplus_int: %s: a chain of gdArrays", what);
          endif
        endif
        ncase++;
      endfor
    endfor
    ## an empty inner dimension on the GPU: intmax of the class
    [R0, ~, i0] = gd_minplus (zeros (70, 0, cls), zeros (0, 90, cls), "Variant", variant);
    if (! isequal (R0, repmat (intmax (cls), 70, 90)) || ! strcmp (i0.variant, variant))
      error ("check_minplus_int: %s: k = 0 on the GPU", cls);
    endif
    ## the keys' witness in parts of 65536 k-steps: small values, many
    ## ties within and across the parts (the first k wins), and a row whose
    ## least sum lies in the second part alone
    A = cast (randi ([0 3], 5, 70000), cls); B = cast (randi ([0 3], 70000, 7), cls);
    A(2, 65540) = 0; A(2, [1:65539, 65541:end]) = 3; B(65540, :) = 0;
    [RW, KW, winfo] = gd_minplus (A, B, "Variant", variant);
    [RC, KC] = gd_minplus (A, B, "Variant", "cpu");
    if (! isequal (RW, RC) || ! isequal (KW, KC) || ! strcmp (winfo.kernel, "witness, dpx keys")
        || ! all (KW(2,:) == 65540))
      error ("check_minplus_int: %s: the keys' witness past 65536 k-steps (%s; %d of %d differ)",
             cls, winfo.kernel, nnz (KW != KC), numel (KC));
    endif
    ## keys whose lanes wrap: operands far outside 16 bits whose sums all
    ## fit them (int32, int64: A near 1e5, B near -1e5), and unsigned sums
    ## up to the top of 16 bits (a key's largest sum)
    if (intmin (cls) < -1e5 || intmax (cls) > 1e5)
      if (intmin (cls) < 0)
        A = cast (1e5 + randi ([-40 40], 60, 70), cls); B = cast (-1e5 + randi ([-40 40], 70, 50), cls);
      else
        A = cast (65000 + randi ([0 300], 60, 70), cls); B = cast (randi ([0 235], 70, 50), cls);
        A(1) = 65300; B(1) = 235;
      endif
      [RW, KW, winfo] = gd_minplus (A, B, "Variant", variant);
      [RC, KC] = gd_minplus (A, B, "Variant", "cpu");
      if (! isequal (RW, RC) || ! isequal (KW, KC) || ! strcmp (winfo.kernel, "witness, dpx keys"))
        error ("check_minplus_int: %s: the keys' witness on offset operands (%s; %d of %d differ)",
               cls, winfo.kernel, nnz (KW != KC), numel (KC));
      endif
    endif
    ## 'auto' takes the GPU for R and for the witness (int32 too), and
    ## gdArrays keep both there
    A = cast (randi ([0 9], 80, 90), cls); B = cast (randi ([0 9], 90, 70), cls);
    [~, KC] = gd_minplus (A, B, "Variant", "cpu");
    [~, ~, ia] = gd_minplus (A, B);
    [~, K32, ib] = gd_minplus (A, B, "IndexClass", "int32");
    [~, K, ic] = gd_minplus (A, B);
    if (! strcmp (ia.variant, variant) || ! strcmp (ic.variant, variant) || ! isequal (K, KC)
        || ! strcmp (class (K32), "int32") || ! isequal (double (K32), KC))
      error ("check_minplus_int: %s: auto ran %s for R alone and %s with K", cls, ia.variant, ic.variant);
    endif
    [GR, GK] = gd_minplus (gdArray (A), gdArray (B));
    if (! isa (GK, "gdArray") || ! isequal (gather (GK), KC) || ! strcmp (classUnderlying (GR), cls))
      error ("check_minplus_int: %s: the witness of gdArrays", cls);
    endif
  endfor
  unsetenv ("GD_POISON");
  printf ("%d GPU cases exact\n", ncase);
endfunction

