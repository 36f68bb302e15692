## check_gdarray (variants) - every gd operation on gdArray operands equals
## the same operation on Octave matrices bit for bit: single and double,
## awkward sizes, mixed gdArray and host operands, mixed classes, chains.
## Fresh random data each run (integers where a sum's order could change
## the result, so that host and device agree exactly). variants: the
## min-plus variants to try (the GPU ones where there is a GPU, else
## {"auto"}). Prints a count of the cases.
function check_gdarray (variants)
  warning ("off", "gd:nogpu");
  ncase = 0;
  gpu = on_gpu ();
  sizes = [1 1 1; 7 5 3; 33 65 17; 130 1 129; 257 100 63; 0 4 3; 5 0 6];
  for c = {"single", "double"}
    cls = c{1};
    for s = 1:rows (sizes)
      m = sizes(s, 1); k = sizes(s, 2); n = sizes(s, 3);
      A = cast (randi ([-50 50], m, k), cls);
      B = cast (randi ([-50 50], k, n), cls);
      A(rand (size (A)) < 0.1) = Inf;
      GA = gdArray (A); GB = gdArray (B);
      for v = variants
        ref = gd_minplus (A, B, "Variant", "cpu");
        [R, ~, info] = gd_minplus(GA, GB, "Variant", v{1});
        expect (R, ref, sprintf ("minplus %s %s %dx%dx%d", v{1}, cls, m, k, n));
        if (m * n > 0 && info.kept != gpu)
          error ("check_gdarray: info.kept is %d", info.kept);
        endif
        expect (gd_minplus (GA, B, "Variant", v{1}), ref, "minplus gdArray x host");
        expect (gd_minplus (A, GB, "Variant", v{1}), ref, "minplus host x gdArray");
        ncase += 3;
      endfor
      ## mixed classes compute in single, as for host matrices
      other = ifelse_class (cls);
      expect (gd_minplus (GA, cast (B, other)), gd_minplus (A, cast (B, other)), "mixed classes");
      expect (gd_minplus (gdArray (cast (A, other)), GB), gd_minplus (cast (A, other), B), "mixed classes");
      ## sgemm on small integers: exact in any order
      As = single (randi ([-8 8], m, k)); Bs = cast (randi ([-8 8], k, n), cls);
      expect (gd_sgemm (gdArray (As), gdArray (Bs)), gd_sgemm (As, Bs), "sgemm");
      expect (gd_sgemm (gdArray (As), Bs), gd_sgemm (As, Bs), "sgemm mixed");
      ## distances of integer data: exact sums of squares
      X = cast (randi ([-9 9], m, k), cls); Y = cast (randi ([-9 9], n, k), cls);
      expect (gd_pdist (gdArray (X), "squaredeuclidean"), gd_pdist (X, "squaredeuclidean"), "pdist");
      expect (gd_pdist (gdArray (X)), gd_pdist (X), "pdist euclidean");
      expect (gd_pdist2 (gdArray (X), gdArray (Y)), gd_pdist2 (X, Y), "pdist2");
      expect (gd_pdist2 (X, gdArray (Y), "squaredeuclidean"), gd_pdist2 (X, Y, "squaredeuclidean"), "pdist2 mixed");
      ## transpose and squareform on the device
      expect (GA', A', "transpose");
      expect (GA.', A.', "transpose");
      ncase += 10;
    endfor
    ## a chain that stays resident: pdist -> squareform -> min-plus, and
    ## repeated squaring
    X = cast (randi ([-9 9], 150, 8), cls);
    D = gd_squareform (gd_pdist (X, "squaredeuclidean"));
    G = gd_minplus (gd_squareform (gd_pdist (gdArray (X), "squaredeuclidean")));
    expect (G, gd_minplus (D), "chain pdist -> squareform -> minplus");
    W = cast (randi ([1 20], 200), cls);
    W(rand (200) < 0.7) = Inf;
    W(1:201:end) = 0;
    H = W; G = gdArray (W);
    for it = 1:8
      H = gd_minplus (H);
      G = gd_minplus (G);
    endfor
    expect (G, H, "repeated squaring");
    ncase += 2;
  endfor
  printf ("check_gdarray: %d cases, all equal\n", ncase);
endfunction

function expect (G, ref, what)
  if (! isa (G, "gdArray"))
    error ("check_gdarray: %s: the result is a %s, not a gdArray", what, class (G));
  endif
  R = gather (G);
  if (! (isequaln (R, ref) && strcmp (class (R), class (ref)) && isequal (size (R), size (ref))))
    error ("check_gdarray: %s: differs from the host result", what);
  endif
  ## zeros keep their sign where the host's do
  z = R == 0 & ref == 0;
  if (any (signbit (R(z)) != signbit (ref(z))))
    error ("check_gdarray: %s: the sign of a zero differs", what);
  endif
endfunction

function c = ifelse_class (cls)
  c = "double";
  if (strcmp (cls, "double"))
    c = "single";
  endif
endfunction

function tf = on_gpu ()
  s = gd_info ();
  tf = s.available;
endfunction
