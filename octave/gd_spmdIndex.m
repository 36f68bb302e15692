## -*- texinfo -*-
## @deftypefn {} {@var{r} =} gd_spmdIndex ()
## This process's rank in an MPI job, 1 to @code{gd_spmdSize ()}, as
## MATLAB's @code{spmdIndex}.
##
## Started by a launcher, the same script runs in every rank:
## @example
## mpirun -np 4 octave-cli --eval "pkg load gd; my_script"
## srun --mpi=pmix -n 4 octave-cli --eval "pkg load gd; my_script"
## @end example
## (as root Open MPI's mpirun needs @option{--allow-run-as-root}). gd
## loads MPI (Open MPI's libmpi.so.40) at run time and joins the job at
## the first of these calls; a process no launcher started is rank 1 of
## 1, and needs no MPI. @code{gd_info} says what was found.
##
## @example
## if (gd_spmdIndex () == 1)
##   X = rand (1000);
## endif
## X = gd_spmdBroadcast (1, X);     # every rank now holds rank 1's X
## @end example
## @seealso{gd_spmdSize, gd_spmdBarrier, gd_spmdBroadcast, gd_spmdCat, gd_info}
## @end deftypefn

function r = gd_spmdIndex ()
  r = __gd__ ("spmd", "index");
endfunction

%!assert (gd_spmdIndex () >= 1 && gd_spmdIndex () <= gd_spmdSize ())

%!demo
%! ## this rank and the ranks (1 of 1 outside an MPI job)
%! printf ("rank %d of %d\n", gd_spmdIndex (), gd_spmdSize ());
