## N = dmma_setup (): what bench/dmma_accuracy.m and bench/dmma_double.m
## open with: gd's functions and the tests' exact reference on the path, no
## warning for want of a GPU, and N, the rows a side (GD_ACC_N, else 256).
function N = dmma_setup ()
  here = fileparts (mfilename ("fullpath"));
  addpath (fullfile (here, "..", "octave"));
  addpath (fullfile (here, "..", "tests"));
  warning ("off", "gd:nogpu");
  N = str2double (getenv ("GD_ACC_N"));
  if (isnan (N))
    N = 256;
  endif
endfunction
