## -*- texinfo -*-
## @deftypefn {} {@var{c} =} __gd_class__ (@var{x})
## Internal: the class of the elements @var{x} holds, a gdArray's
## (@code{classUnderlying}) or a matrix's.
## @end deftypefn

function c = __gd_class__ (x)
  if (isa (x, "gdArray"))
    c = classUnderlying (x);
  else
    c = class (x);
  endif
endfunction
