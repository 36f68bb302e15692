## -*- texinfo -*-
## @deftypefn {} {} __gd_conform__ (@var{op}, @var{a}, @var{b})
## gdArray's element-wise operators (internal): @var{a} and @var{b} 2-D
## and of sizes Octave broadcasts (each dimension equal, or 1 in one of
## them), else Octave's error for operator @var{op}.
## @end deftypefn

function __gd_conform__ (op, a, b)
  sa = size (a);
  sb = size (b);
  if (numel (sa) > 2 || numel (sb) > 2)
    error ("gd:input", "gdArray: operator %s: gdArrays are 2-D", op);
  endif
  if (any (sa != sb & sa != 1 & sb != 1))
    error ("Octave:nonconformant-args",
           "operator %s: nonconformant arguments (op1 is %dx%d, op2 is %dx%d)", op, sa, sb);
  endif
endfunction
