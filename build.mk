# build.mk - how gd's kernels and gateways are built: included by the
# project's Makefile and, in the Octave package (make dist), by src/Makefile,
# which pkg install runs. Paths are relative to the directory that holds
# kernels/ and mex/; the gateways go to $(GATEWAY_DIR).
#
# With nvcc (on PATH, or $(CUDA_HOME)/bin/nvcc) the kernels are CUDA; without
# it (or GD_CUDA=no) the same sources are compiled as C++ against
# kernels/nocuda/, their launches cut out: the CPU implementations run and
# gd_info says the build has no CUDA.

MKOCTFILE ?= mkoctfile
CC        ?= gcc
CXX       ?= g++
GATEWAY_DIR ?= octave/private

ifneq ($(CUDA_HOME),)
NVCC      ?= $(CUDA_HOME)/bin/nvcc
endif
NVCC      ?= nvcc
GD_CUDA   ?= $(if $(shell command -v $(NVCC) 2>/dev/null),yes,no)

CFLAGS    ?= -O3 -fPIC -fopenmp -Wall -Wextra -std=c11 -D_POSIX_C_SOURCE=200809L
MEXFLAGS  := --mex -R2018a -Ikernels -Imex
HOST_BLAS := $(shell $(MKOCTFILE) -p BLAS_LIBS 2>/dev/null)

# the kernel layer, in layers (ARCHITECTURE.md): runtime/ (devices, memory,
# copies, several devices, resident data), ops/ (each operation's kernels and
# driver), tiles/ (the register tiles and steps the ops share), cpu/ (the host
# implementations); gd.h is the layer's interface
# (the longest to compile first: make -j then ends with the short ones)
KERNEL_CU  := ops/pdist/pdist ops/pdist/pdist_d ops/knn/knn ops/knn/gemm ops/pdist/pdist2 ops/apsp/apsp ops/minplus/int ops/sgemm/sgemm ops/minplus/minplus ops/product/product ops/sssp/sssp ops/ew/ew ops/ew/reduce ops/ew/place ops/ew/fuse \
              runtime/resident runtime/multi runtime/nccl runtime/layout runtime/call runtime/copies runtime/memory runtime/device
# every header of the layer (the no-CUDA build's stubs aside)
KERNEL_HDR := kernels/gd.h $(filter-out kernels/nocuda/%,$(wildcard kernels/*/*.h kernels/*/*.cuh kernels/*/*/*.h kernels/*/*/*.cuh))
# arith.h and fuse.h as C strings, for the chains compiled at run time (ops/ew/compile.cuh)
EW_TEXT    := build/gen/ew_text.h
KERNEL_OBJ := $(patsubst %,build/%.o,$(KERNEL_CU)) build/cpu/cpu.o build/runtime/settings.o \
              build/runtime/interrupt.o build/runtime/mpi.o
GATEWAYS   := $(GATEWAY_DIR)/__gd__.mex $(GATEWAY_DIR)/__gd_uninit__.oct $(GATEWAY_DIR)/__gd_cells__.oct
MEX_SRC    := mex/__gd__.c mex/gd_mex.c mex/gd_array.c mex/op_product.c mex/op_pdist.c \
              mex/op_info.c mex/op_array.c mex/op_apsp.c mex/op_spmd.c

ifeq ($(GD_CUDA),yes)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC))))
CUDA_LIB  := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib))

# GPU_ARCHS: the architectures built as machine code (the newest of them
# also as PTX, which later GPUs compile at first use). Unless given: those
# of the GPUs this machine has (nvidia-smi), else those of the build already
# in build/ (so a target after another reuses it), else sm_75 ... sm_90.
GD_LOCAL_ARCHS := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | \
                    grep -E '^ *[0-9]+\.[0-9]+ *$$' | tr -d '. ' | sort -un)
GD_BUILT_ARCHS := $(shell sed -n 's/^cuda \([0-9 ]*\) ptx.*/\1/p' build/archs 2>/dev/null)
GPU_ARCHS ?= $(or $(strip $(GD_LOCAL_ARCHS)),$(strip $(GD_BUILT_ARCHS)),75 80 86 89 90)
# GD_PTX_ARCHS: architectures compiled to PTX alone (no machine code):
# (make test checks the oldest one with GD_PTX_CHECK_ARCHS, below)
# (GPU_ARCHS= GD_PTX_ARCHS=90: PTX alone, which the driver compiles at the
# first use; the package test builds so where there is no GPU)
GD_PTX_ARCHS ?=
GENCODE   := $(foreach a,$(GPU_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
             $(foreach a,$(sort $(GD_PTX_ARCHS) $(lastword $(GPU_ARCHS))),-gencode arch=compute_$(a),code=compute_$(a))
NVCCFLAGS ?= -O3 -std=c++17 -Xcompiler -fPIC -Xcompiler -fopenmp -Xcompiler -Wall $(GENCODE) \
             -DGD_CUDA_LIB='"$(CUDA_LIB)"'
# tuning experiments: make GD_DEFS=-DGD_KNN_BLOCKS_SINGLE=4 (kernels/NOTES.md)
NVCCFLAGS += $(GD_DEFS)
# cuBLAS (only the sgemm reference variant) is loaded with dlopen when
# that variant first runs, from the toolkit's directory or through the
# rpath; the host BLAS is the one Octave is linked with.
GD_LIBS   := -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcudart_static -lrt -ldl -lpthread -lgomp -lstdc++
BUILD_ID  := cuda $(GPU_ARCHS) ptx $(GD_PTX_ARCHS)

# ptxas's report (registers, spills) of every kernel is kept in
# build/<file>.ptxas for tests/spills.bats; the rest of the compiler's
# output is shown. GD_PROGRESS=1 (the package's build): each file's start
# and end on stderr with the time of day, which pkg install shows as it
# goes (it keeps make's stdout until the end, or for -verbose)
GD_PROGRESS ?=
$(EW_TEXT): kernels/ops/ew/arith.h kernels/ops/ew/fuse.h
	@mkdir -p $(@D)
	@{ for f in arith fuse; do printf 'static const char gd_text_%s[] =\n' $$f; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' kernels/ops/ew/$$f.h; \
	    printf ';\n'; done; } > $@
build/%.o: kernels/%.cu $(KERNEL_HDR) $(EW_TEXT)
	@mkdir -p $(@D)
	@echo "$(NVCC) ... -c $< -o $@"
	@$(if $(GD_PROGRESS),echo "gd $$(date +%T): compiling $<" >&2)
	@$(NVCC) $(NVCCFLAGS) -Ikernels -Ibuild/gen -Xptxas -v -c $< -o $@ 2> build/$*.ptxas; s=$$?; \
	  grep -v '^ptxas info\|bytes stack frame' build/$*.ptxas >&2; exit $$s
	@$(if $(GD_PROGRESS),echo "gd $$(date +%T): compiled $<" >&2)
# the element-wise operations built as arrayfun's chains are compiled at
# run time (--fmad=false, ops/ew/compile.cuh): the device's math
# functions (pow, exp, ...) then round the same in both, bit for bit
build/ops/ew/%.o: NVCCFLAGS += --fmad=false

# GD_PTX_CHECK_ARCHS: architectures the sources are only checked to
# compile for (PTX without optimisation, not linked: build/check/), what
# make test does for the oldest one. The optimiser is most of nvcc's
# time: pdist.cu's PTX for sm_75 takes 80 s at -O3 and 4 s at -O0 on two
# cores, and the check is the same (the front end and the lowering see
# every intrinsic).
GD_PTX_CHECK_ARCHS ?=
PTX_CHECKS := $(foreach a,$(GD_PTX_CHECK_ARCHS),$(patsubst %,build/check/$(a)/%.o,$(KERNEL_CU)))
define ptx_check_rule
build/check/$(1)/%.o: kernels/%.cu $$(KERNEL_HDR) $$(EW_TEXT)
	@mkdir -p $$(@D)
	@echo "$$(NVCC) ... compute_$(1), -O0 (a compile check) $$<"
	@$$(NVCC) -std=c++17 -Xcompiler -fPIC -Xcompiler -fopenmp -gencode arch=compute_$(1),code=compute_$(1) \
	    -Ikernels -Ibuild/gen -Xcicc -O0 -DGD_CUDA_LIB='""' $$(GD_DEFS) -c $$< -o $$@
endef
$(foreach a,$(GD_PTX_CHECK_ARCHS),$(eval $(call ptx_check_rule,$(a))))
else
# (the kernels are compiled but never run here: the shared arrays made
# static arrays of one element, their indexing and the registers the stubs
# leave unset would warn in every kernel, so those warnings are off)
NOCUDA_CXXFLAGS ?= -O2 -std=c++17 -fPIC -fopenmp -Wall -Wno-unknown-pragmas -Wno-unused-variable \
                   -Wno-unused-but-set-variable -Wno-array-bounds -Wno-maybe-uninitialized \
                   -Wno-unused-function -DGD_CUDA_LIB='""'
# why there is no CUDA, for gd_info's reason
NOCUDA_WHY := -DGD_NO_CUDA_WHY='"$(if $(shell command -v $(NVCC) 2>/dev/null),GD_CUDA=no,no nvcc) when gd was built"'
GD_LIBS   := -lrt -ldl -lpthread -lgomp -lstdc++
BUILD_ID  := nocuda

# the sources as the C++ compiler sees them: launches (<<<...>>>) cut out,
# dynamic shared memory a static array (the kernels are never called)
build/nocuda/%: kernels/%
	@mkdir -p $(@D)
	sed -E -e 's/<<<.*>>>//' -e 's/extern __shared__ (.*)\[\];/static \1[1];/' $< > $@
.PRECIOUS: build/nocuda/%
NOCUDA_SRC := $(patsubst kernels/%,build/nocuda/%,$(KERNEL_HDR))
build/%.o: build/nocuda/%.cu $(NOCUDA_SRC) kernels/nocuda/cuda_runtime.h kernels/nocuda/cublas_v2.h
	@mkdir -p $(@D)
	$(CXX) -x c++ $(NOCUDA_CXXFLAGS) $(NOCUDA_WHY) -Ikernels/nocuda -Ibuild/nocuda -c $< -o $@
endif

build/cpu/cpu.o: kernels/cpu/cpu.c $(filter-out kernels/cpu/cpu.c,$(wildcard kernels/cpu/*.c)) kernels/gd.h kernels/tiles/norm2.h kernels/tiles/knnkey.h kernels/tiles/route.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ikernels -c $< -o $@
build/runtime/%.o: kernels/runtime/%.c kernels/gd.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ikernels -c $< -o $@

build/libgd.a: $(KERNEL_OBJ)
	rm -f $@ && ar rcs $@ $(KERNEL_OBJ)

# the arch list and the kind of build are part of it: rebuild when they change
build/libgd.a: $(PTX_CHECKS)
build/archs: FORCE | build
	@echo '$(BUILD_ID)' | cmp -s - $@ || echo '$(BUILD_ID)' > $@
$(KERNEL_OBJ): build/archs
FORCE:

# one gateway for every function: one copy of the table of gdArrays and of
# the kernel layer's streams and buffers (each .mex would hold its own)
$(GATEWAY_DIR)/__gd__.mex: $(MEX_SRC) mex/gd_mex.h build/libgd.a | $(GATEWAY_DIR)
	$(MKOCTFILE) $(MEXFLAGS) -o $@ $(MEX_SRC) build/libgd.a $(GD_LIBS) $(HOST_BLAS)
	@rm -f $(patsubst mex/%.c,%.o,$(MEX_SRC))

# the gateways' result arrays (Octave's C++ API: an array whose elements are
# not set, so that no thread but the download's touches its pages)
$(GATEWAY_DIR)/__gd_uninit__.oct: mex/__gd_uninit__.cc | $(GATEWAY_DIR)
	$(MKOCTFILE) -o $@ $<
	@rm -f __gd_uninit__.o

# the lists of gd_rangesearch and of gd_knnsearch's 'IncludeTies': rows cut
# into cells (Octave's C++ API: mat2cell takes 10 ms for 10,000 lists)
$(GATEWAY_DIR)/__gd_cells__.oct: mex/__gd_cells__.cc | $(GATEWAY_DIR)
	$(MKOCTFILE) -o $@ $<
	@rm -f __gd_cells__.o

build $(GATEWAY_DIR):
	mkdir -p $@
