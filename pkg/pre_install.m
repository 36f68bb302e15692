## pre_install.m - run by pkg install before the build: says what will be
## built and about how long it takes, or, when it is so, that the package
## will be built without CUDA (build.mk looks for nvcc the same way:
## $CUDA_HOME/bin/nvcc, else nvcc on the PATH, and chooses the
## architectures as below).

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
    return;
  endif
  ## the architectures: GPU_ARCHS, else this machine's GPUs, else sm_75 ... sm_90
  [archs, why] = deal (strtrim (getenv ("GPU_ARCHS")), "GPU_ARCHS");
  if (isempty (archs) && ! isempty (getenv ("GD_PTX_ARCHS")))
    [archs, why] = deal ("", "GD_PTX_ARCHS");
  elseif (isempty (archs))
    [st, out] = system ("nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null");
    caps = regexp (out, '(\d+)\.(\d+)', "tokens");
    if (st == 0 && ! isempty (caps))
      archs = strjoin (unique (cellfun (@(c) [c{1} c{2}], caps, "UniformOutput", false)), " ");
      why = "the GPUs of this machine; GPU_ARCHS=... chooses others";
    else
      archs = "75 80 86 89 90";
      why = "no GPU answers nvidia-smi; GPU_ARCHS=... builds fewer";
    endif
  endif
  n = numel (strsplit (archs));
  if (isempty (archs))
    n = 1;
  endif
  ## measured: about 3.2 CPU minutes an architecture (five on 2 cores:
  ## 8.1 minutes), of which one file (knn.cu) takes 1 on one core
  cores = nproc ();
  minutes = ceil (max (n, 3.2 * n / cores));
  if (isempty (archs))
    minutes = 2;      # PTX alone: the optimiser's and ptxas's minutes skipped
  endif
  if (isempty (archs))
    what = "as PTX alone";
  else
    what = ["for " strjoin(strcat ("sm_", strsplit (archs)), ", ") " + PTX"];
  endif
  printf (["gd %s: compiling the CUDA kernels %s (%s): about %d minutes on %d cores;\n" ...
           "  a line as each CUDA file starts and ends\n"], desc.version, what, why, minutes, cores);
endfunction
