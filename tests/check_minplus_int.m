function check_minplus_int ()
  ## check_minplus_int: gd_minplus on every integer class against Octave's
  ## own expression, [R(:,j), K(:,j)] = min (A + B(:,j)', [], 2), bit for
  ## bit: operands with intmin and intmax (the sums saturate both ways),
  ## ties (small values), sizes 1, 7, 63, 64, 65, 129 and an empty inner
  ## dimension (intmax, K = 0); A (x) A; int32 indices; operands unchanged.
  warning ("off", "all");
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
      ncase++;
    endfor
  endfor
  printf ("%d cases exact\n", ncase);
endfunction
