## -*- texinfo -*-
## @deftypefn {} {@var{R} =} __gd_mtimes__ (@var{a}, @var{b})
## a * b: by a scalar element-wise (Octave's); single matrices by
## gd_sgemm (its 'auto' kernel: cuBLAS's sum order, not the host
## BLAS's: within k eps of Octave's), double ones by cuBLAS's dgemm
## (Octave's BLAS without a GPU), logical as double; integer classes
## gathered first
## @end deftypefn

function R = __gd_mtimes__ (a, b)
  if (isscalar (a) || isscalar (b))
    R = __gd_ew__ (".*", a, b);
    return;
  endif
  c = {class(a), class(b)};
  c(cellfun (@(x) isa (x, "gdArray"), {a, b})) = "gdArray";
  for k = find (strcmp (c, "gdArray"))
    c{k} = classUnderlying ({a, b}{k});
  endfor
  if (! all (ismember (c, {"single", "double", "logical"})))
    __gd_refuse__ (sprintf ("'*' (mtimes) of %s by %s matrices (single, double and logical are computed)", c{:}));
  endif
  if (columns (a) != rows (b))
    error ("Octave:nonconformant-args", "operator *: nonconformant arguments (op1 is %dx%d, op2 is %dx%d)",
           rows (a), columns (a), rows (b), columns (b));
  endif
  if (islogical (a))                  # (logical as double, as Octave)
    a = double (a);
  endif
  if (islogical (b))
    b = double (b);
  endif
  if (any (strcmp (c, "single")))
    R = gd_sgemm (a, b);
  else                                # double: cuBLAS (dgemm)
    R = __gd__ ("dgemm", a, b);
  endif
endfunction
