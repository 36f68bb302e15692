## -*- texinfo -*-
## @deftypefn  {} {@var{info} =} gd_info ()
## @deftypefnx {} {} gd_info ()
## The CUDA device gd uses, or why there is none.
##
## @var{info} is a struct with fields @code{available} (true when a CUDA GPU
## can be used), @code{reason} (why not, when it cannot), @code{name},
## @code{compute_capability} (such as @qcode{"9.0"}), @code{sms}
## (multiprocessors), @code{clock_mhz}, @code{memory_clock_mhz},
## @code{bus_width} (bits), @code{memory_total} and @code{memory_free}
## (bytes), @code{memory_pool} (bytes of GPU memory gd kept from earlier
## calls for the next ones: gd_info gives them back to the driver before
## it reads @code{memory_free}), @code{memory_held} (bytes of GPU memory
## this process's gd holds: its gdArrays' and a running call's; unlike
## @code{memory_free} it does not move with other programs on the GPU),
## @code{driver_version}, @code{runtime_version} (the CUDA runtime
## gd was built with), @code{memory_limit} (bytes, from the environment
## variable GD_GPU_MEM_LIMIT, which caps the GPU memory one gd call may
## allocate; empty when unset), @code{cpu_threads} (OpenMP threads of
## the CPU variants), @code{gdarrays} (how many gdArrays are alive),
## @code{gdarray_bytes} (the memory they hold: on the GPU, or in host
## memory where there is none), @code{mpi} and @code{nccl} (the libraries
## of many hosts, loaded at run time: what was found, or why not; in an MPI
## job this rank and the ranks: @code{gd_spmdIndex}) and @code{blas} (the BLAS Octave is linked
## with, as @code{version ("-blas")} gives it: gd_sgemm's @qcode{"cpu"}
## variant and Octave's own products use it; the reference BLAS is some
## ten times slower than OpenBLAS).
##
## @code{devices} lists every CUDA device gd sees (a struct array with
## @code{index}, as the @qcode{"Devices"} option of every operation counts
## them, @code{name}, @code{compute_capability}, @code{sms},
## @code{memory_total}, @code{memory_free}, @code{memory_held}, @code{pci}, @code{peers}: the
## devices whose memory it reaches directly, and @code{used}: whether calls
## take it by default); @code{devices_default} is the environment variable
## GD_DEVICES (@qcode{"all"} when unset), which sets that default.
##
## Without an output argument it prints a summary. It never raises an error
## for want of a GPU.
## @seealso{gd_minplus, gdArray}
## @end deftypefn

function varargout = gd_info (varargin)
  ## varargout: too many outputs get gd:input, not Octave's own id
  if (nargin > 0)
    error ("gd:input", "gd_info: takes no arguments");
  endif
  if (nargout > 1)
    ## print_usage's text, with gd's id
    error ("gd:input", "Invalid call to gd_info.  Correct usage is:\n\n -- INFO = gd_info ()\n -- gd_info ()");
  endif
  s = __gd__ ("info");
  s.blas = version ("-blas");
  if (nargout > 0)
    varargout{1} = s;
    return;
  endif
  if (s.available)
    printf ("gd: %s (compute capability %s), %d SMs at %.0f MHz\n",
            s.name, s.compute_capability, s.sms, s.clock_mhz);
    printf ("    memory %.1f GiB, %.1f GiB free; driver %s, runtime %s\n",
            s.memory_total / 2^30, s.memory_free / 2^30, s.driver_version,
            s.runtime_version);
    if (numel (s.devices) > 1)
      used = [s.devices.used];
      printf ("    %d devices; calls divide work across %s (GD_DEVICES=%s):\n",
              numel (s.devices), mat2str (find (used)), s.devices_default);
      for d = s.devices
        printf ("    %2d  %s, %.1f GiB, PCI %s%s\n", d.index, d.name,
                d.memory_total / 2^30, d.pci,
                ifelse_peers (d.peers));
      endfor
    endif
    if (! isempty (s.memory_limit))
      printf ("    GD_GPU_MEM_LIMIT caps each call at %.1f MiB\n",
              s.memory_limit / 2^20);
    endif
    if (s.gdarrays > 0)
      printf ("    %d gdArrays hold %.1f MiB\n", s.gdarrays, s.gdarray_bytes / 2^20);
    endif
  else
    printf ("gd: no GPU: %s\n", s.reason);
    printf ("    the CPU variants run (%d threads); runtime %s, driver %s\n",
            s.cpu_threads, s.runtime_version, s.driver_version);
    if (s.gdarrays > 0)
      printf ("    %d gdArrays hold %.1f MiB in host memory\n", s.gdarrays,
              s.gdarray_bytes / 2^20);
    endif
  endif
  printf ("    Octave's BLAS: %s\n", s.blas);
  printf ("    MPI: %s; NCCL: %s\n", s.mpi, s.nccl);
endfunction

function t = ifelse_peers (p)
  if (isempty (p))
    t = "";
  else
    t = sprintf (", reaches %s directly", mat2str (p));
  endif
endfunction

%!test
%! s = gd_info ();
%! assert (isstruct (s.devices) && ischar (s.devices_default));
%! if (s.available)
%!   assert (numel (s.devices) >= 1);
%!   assert ([s.devices.index], 1:numel (s.devices));
%!   assert (strcmp (s.devices(1).name, s.name) || ! isempty (getenv ("GD_SIM_DEVICES")));
%! else
%!   assert (numel (s.devices), 0);
%! endif
%! assert (islogical (s.available) && isscalar (s.available));
%! assert (ischar (s.reason) && ischar (s.name));
%! if (s.available)
%!   assert (isempty (s.reason));
%!   assert (s.sms > 0 && s.clock_mhz > 0 && s.memory_total > 0);
%!   assert (s.memory_free <= s.memory_total);
%!   assert (s.memory_held >= 0 && s.memory_held <= s.memory_total);
%! else
%!   assert (! isempty (s.reason));
%! endif
%! assert (s.cpu_threads >= 1);
%! assert (ischar (s.blas) && ! isempty (s.blas));
%!test
%! out = evalc ("gd_info ()");
%! assert (strncmp (out, "gd: ", 4));
%! assert (! isempty (strfind (out, "Octave's BLAS: ")));
%!error <takes no arguments> gd_info (1)
%!error <Invalid call to gd_info> [a, b] = gd_info ()
%!test
%! try, [a, b] = gd_info (); catch err, assert (err.identifier, "gd:input"); end_try_catch

%!demo
%! ## the device gd computes on, or why there is none
%! s = gd_info ();
%! if (s.available)
%!   printf ("%s, compute capability %s, %.0f GiB\n", s.name, s.compute_capability, ...
%!           s.memory_total / 2^30);
%! else
%!   printf ("no GPU: %s\n", s.reason);
%! endif
