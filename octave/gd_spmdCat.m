## -*- texinfo -*-
## @deftypefn  {} {@var{Y} =} gd_spmdCat (@var{X})
## @deftypefnx {} {@var{Y} =} gd_spmdCat (@var{X}, @var{dim})
## @deftypefnx {} {@var{Y} =} gd_spmdCat (@var{X}, @var{dim}, @var{destination})
## Every rank's @var{X} concatenated along @var{dim} (default 1) in rank
## order, as MATLAB's @code{spmdCat}: on every rank, or on rank
## @var{destination} alone (the others get []). The values must have one
## class and agree in size but along @var{dim}; a value refused on any
## rank raises the same error on every rank, naming that rank. Where every
## rank's @var{X} is a gdArray, @var{dim} is 1 or 2 and the result goes to
## every rank, it is a gdArray on each, the parts moved from GPU to GPU by
## NCCL where every rank has a GPU of its own (else through host memory;
## a gdArray beside Octave matrices is gathered first). Without a job it
## returns @var{X}.
## @seealso{gd_spmdIndex, gd_spmdSize, gd_spmdBarrier, gd_spmdBroadcast}
## @end deftypefn

function Y = gd_spmdCat (X, dim = [], destination = [])
  if (nargin < 1 || nargin > 3)
    error ("gd:input", "gd_spmdCat: expected X, and optionally DIM and the destination rank");
  endif
  g = __gd__ ("spmd", "cat", double (isa (X, "gdArray")), 1, []);
  if (! any (g))
    Y = __gd__ ("spmd", "cat", X, dim, destination);
  elseif (all (g) && any (isequal (dim, 1) + isequal (dim, 2) + isempty (dim))
          && isempty (destination) && gd_spmdSize () > 1 && __gd__ ("spmd", "gpu"))
    Y = __gd__ ("spmd", "gpu_cat", X, merge (isempty (dim), 1, dim), 0);
  else
    if (isa (X, "gdArray"))
      X = gather (X);
    endif
    Y = __gd__ ("spmd", "cat", X, dim, destination);
    if (all (g) && (isempty (destination) || destination == gd_spmdIndex ()))
      Y = gdArray (Y);
    endif
  endif
endfunction

%!assert (gd_spmdCat ([1 2; 3 4]), [1 2; 3 4])
%!assert (gd_spmdCat (single ([1 2]), 2, 1), single ([1 2]))
%!error <DIM must be a whole number> gd_spmdCat (1, 0)
%!error <rank 1's value must be a real> gd_spmdCat ({1})
%!test
%! G = gd_spmdCat (gdArray (int16 ([1 2; 3 4])), 2);
%! assert (isa (G, "gdArray") && isequal (gather (G), int16 ([1 2; 3 4])));

%!demo
%! ## each rank's rows, put together on every rank in rank order
%! part = gd_spmdIndex () * ones (2, 3);
%! whole = gd_spmdCat (part, 1)
