function spmd_say (varargin)
  ## spmd_say (FORMAT, ...): a line into this rank's own file, said<rank>
  ## in the current directory (mpi.bats: the ranks' standard outputs
  ## interleave under mpirun)
  f = fopen (sprintf ("said%d", gd_spmdIndex ()), "a");
  fprintf (f, varargin{:});
  fclose (f);
endfunction
