## -*- texinfo -*-
## @deftypefn {} {@var{R} =} __gd_ew1__ (@var{op}, @var{G})
## gdArray's one-operand arithmetic (internal): __gd__'s ew1 operation
## @var{op} on @var{G}, a logical @var{G} read as double first (as
## Octave's -, abs, floor ... of a logical array give double).
## @end deftypefn

function R = __gd_ew1__ (op, G)
  if (islogical (G))
    G = double (G);
  endif
  R = __gd__ ("ew1", op, G);
endfunction
