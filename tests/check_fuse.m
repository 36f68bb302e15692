## check_fuse - gdArray's arrayfun: an element-wise chain in one pass
## (ops/ew/fuse.cu) against the same chain of gdArray operations, one
## pass each (bit for bit, on the GPU and on the host), and against
## Octave's own where the host computes (no GPU); every operation the
## chain takes, in double and single, logical inputs, comparisons;
## GD_VERBOSE shows the fused kernel ran; what it does not compile runs
## Octave's arrayfun; a complex result refused. On the GPU each chain is
## compiled (NVRTC), or interpreted where GD_NVRTC=0 or NVRTC is missing:
## prints "arrayfun exact, compiled" or "..., interpreted".
function check_fuse ()
  warning ("off", "gd:nogpu", "local");
  host = ! gd_info ().available;
  X = randn (301, 71); Y = randn (301, 71);   # (21371: fours and a tail)
  X(1:4) = [0, -0, Inf, NaN]; Y(5:8) = [NaN, -Inf, 0, 1];
  s = 0.7;
  how = {};
  fs = {@(x, y) max (x, 0) + 2 * y - x ./ (1 + y .^ 2) + (x > y) .* x - mod (x, 0.3) + abs (y) .^ 1.5 - min (0.2, y), ...
        @(x, y) (x + y) .* (x - y) ./ ((x .* y) - (y + 1)), ...
        @(x, y) x .^ 2 + y .^ 3 - 1 ./ x + x .^ -1 + 2 .^ x - abs (x) .^ 0.5 + rem (y, -0.7) + max (x, y) - min (y, x), ...
        @(x, y) (x >= y) + (x == x) - (y ~= 0.5) + (x < 0) .* (y <= 0), ...
        @(x, y) sign (x) .* floor (y * 3) + ceil (x) - round (y * 2.5) + fix (-x * 1.5), ...
        @(x, y) exp (x) + log (abs (y) + 1) + log2 (abs (x) + 2) + log1p (abs (y)) + expm1 (x / 4) + sin (x) + cos (y) + tanh (x + y), ...
        @(x, y) -x .^ 2 + 2 ^ -2 .* y - -y + x ./ 2 - y ./ x, ...
        @(x, y) exp (-x .^ 2 / (2 * s ^ 2)) .* (y > 0)};
  for k = 1:numel (fs)
    for c = {"double", "single"}
      A = cast (X, c{1}); B = cast (Y, c{1});
      G = gdArray (A); H = gdArray (B);
      setenv ("GD_VERBOSE", "1");
      unwind_protect
        said = evalc ("R = arrayfun (fs{k}, G, H);");
      unwind_protect_cleanup
        unsetenv ("GD_VERBOSE");
      end_unwind_protect
      ## (single's comparisons summed are double, as Octave's: not fused)
      if (isempty (strfind (said, "fused chain")) != (k == 4 && strcmp (c{1}, "single")))
        error ("chain %d in %s: fused or not, against the rule (%s)", k, c{1}, said);
      endif
      how{end+1} = regexp (said, "(compiled|interpreted)", "match", "once");
      U = fs{k} (G, H);                 # the unfused chain
      if (! (isa (R, "gdArray") && strcmp (classUnderlying (R), classUnderlying (U))
             && isequaln (gather (R), gather (U))))
        error ("chain %d in %s: %d elements differ from the unfused chain's", k, c{1},
               nnz (gather (R) != gather (U)));
      endif
      if (host && ! isequaln (gather (R), fs{k} (A, B)))
        error ("chain %d in %s: differs from Octave's", k, c{1});
      endif
    endfor
  endfor
  ## logical inputs, a comparison's logical result, a host array beside
  ## a gdArray, a named function
  L = rand (301, 71) > 0.5;
  R = arrayfun (@(l, x) l .* x + l, gdArray (L), gdArray (single (X)));
  assert (isequaln (gather (R), gather (gdArray (L) .* gdArray (single (X)) + gdArray (L))));
  R = arrayfun (@(x) x > 0.5, gdArray (X));
  assert (islogical (R) && isequal (gather (R), X > 0.5));
  R = arrayfun (@(x, y) x .* y, gdArray (X), Y);
  assert (isequaln (gather (R), X .* Y));
  assert (isequaln (gather (arrayfun (@abs, gdArray (X))), abs (X)));
  for n = 1:9                           # (a tail alone, fours and a tail)
    R = arrayfun (@(x, y) x .* 2 - y, gdArray (single (X(1:n))), gdArray (single (Y(1:n))));
    assert (isequaln (gather (R), single (X(1:n)) .* 2 - single (Y(1:n))));
  endfor
  ## not fused: Octave's arrayfun on the gathered values, a gdArray back
  R = arrayfun (@(x) sum ([x, 1]), gdArray (X));
  assert (isa (R, "gdArray") && isequaln (gather (R), X + 1));
  R = arrayfun (@(x) x + single (1), gdArray (X));
  assert (strcmp (classUnderlying (R), "single") && isequaln (gather (R), X + single (1)));
  R = arrayfun (@(x) x + 1, gdArray (int8 ([1 2 127])));
  assert (isequal (gather (R), int8 ([2 3 127])));
  [m, i] = arrayfun (@(x) max ([x, 0]), gdArray (X(1:5)));
  [em, ei] = arrayfun (@(x) max ([x, 0]), X(1:5));
  assert (isequaln (gather (m), em) && isequal (gather (i), ei));
  ## a complex result, as the unfused operations
  try
    arrayfun (@(x) sqrt (x) + 1, gdArray (X));
    error ("no refusal");
  catch err
    assert (err.identifier, "gd:gather");
  end_try_catch
  how = unique (how(! cellfun (@isempty, how)));
  if (numel (how) > 1)
    error ("some chains compiled, some interpreted");
  endif
  printf ("arrayfun exact%s\n", sprintf (", %s", how{:}));
endfunction
