## -*- texinfo -*-
## @deftypefn {} {@var{R} =} __gd_math__ (@var{op}, @var{G}, @var{lo})
## gdArray's exp, log, log2, log1p, expm1, sin, cos and tanh (internal):
## an integer class in double first, as Octave's; an element below
## @var{lo} (whose result would be complex) refused.
## @end deftypefn

function R = __gd_math__ (op, G, lo)
  if (isinteger (G))
    G = double (G);
  endif
  if (isfinite (lo) && numel (G) && gather (min (min (G))) < lo)
    names = {"exp", "log", "log2", "log1p", "expm1", "sin", "cos", "tanh"};
    __gd_refuse__ (sprintf ("%s of an element below %d (a complex result)", names{op - 7}, lo));
  endif
  R = __gd_ew1__ (op, G);
endfunction
