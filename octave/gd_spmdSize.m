## -*- texinfo -*-
## @deftypefn {} {@var{n} =} gd_spmdSize ()
## The number of ranks of the MPI job this process belongs to (1 where no
## launcher started it), as MATLAB's @code{spmdSize}.
## @seealso{gd_spmdIndex, gd_spmdBarrier, gd_spmdBroadcast, gd_spmdCat}
## @end deftypefn

function n = gd_spmdSize ()
  n = __gd__ ("spmd", "size");
endfunction

%!assert (gd_spmdSize () >= 1)

%!demo
%! ## rows split among the ranks, this rank's share
%! n = 10; k = gd_spmdSize (); r = gd_spmdIndex ();
%! mine = floor ((r - 1) * n / k) + 1 : floor (r * n / k)
