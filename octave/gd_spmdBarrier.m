## -*- texinfo -*-
## @deftypefn {} {} gd_spmdBarrier ()
## Waits until every rank of the MPI job has reached it, as MATLAB's
## @code{spmdBarrier}. Without a job it returns at once.
## @seealso{gd_spmdIndex, gd_spmdSize, gd_spmdBroadcast, gd_spmdCat}
## @end deftypefn

function gd_spmdBarrier ()
  __gd__ ("spmd", "barrier");
endfunction

%!test
%! gd_spmdBarrier ();

%!demo
%! ## every rank here before any goes on
%! gd_spmdBarrier ();
%! printf ("rank %d passed the barrier\n", gd_spmdIndex ());
