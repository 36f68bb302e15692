## pre_install.m - run by pkg install before the build: says once, when it
## is so, that the package will be built without CUDA (build.mk looks for
## nvcc the same way: $CUDA_HOME/bin/nvcc, else nvcc on the PATH).

function pre_install (desc)
  nvcc = "nvcc";
  if (! isempty (getenv ("CUDA_HOME")))
    nvcc = fullfile (getenv ("CUDA_HOME"), "bin", "nvcc");
  endif
  [status, ~] = system (sprintf ("command -v '%s' >/dev/null 2>&1", nvcc));
  if (status != 0)
    printf (["gd %s: nvcc not found (set CUDA_HOME or put the CUDA toolkit's bin/ on the PATH):\n" ...
             "  building the CPU implementations only; gd_info will say \"built without CUDA\".\n"],
            desc.version);
  endif
endfunction
