# gd - GPU kernels for GNU Octave.
#
#   make            build/libgd.a, the gateways in octave/private/ and
#                   build/gdbench (one operation/variant/size from the shell)
#   make test       BATS suites and every function's %! tests (runs make deps)
#   make demo       examples/demo.m (runs make deps)
#   make bench      examples/bench.m: tables on stdout and bench/results/,
#                   then the README's performance section (make readme)
#   make deps       find Octave, mkoctfile, bats, the statistics package;
#                   install what is missing with apt-get when root
#   make clean
#
# GPU_ARCHS=90 builds for one architecture while developing; the default is
# a fat binary for sm_75 ... sm_90 plus PTX for newer devices.

NVCC      ?= nvcc
MKOCTFILE ?= mkoctfile
OCTAVE    ?= octave-cli
BATS      ?= bats
CC        ?= gcc

CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC))))
CUDA_LIB  := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib))

GPU_ARCHS ?= 75 80 86 89 90
GENCODE   := $(foreach a,$(GPU_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
             -gencode arch=compute_$(lastword $(GPU_ARCHS)),code=compute_$(lastword $(GPU_ARCHS))

NVCCFLAGS ?= -O3 -std=c++17 -Xcompiler -fPIC -Xcompiler -fopenmp -Xcompiler -Wall $(GENCODE) \
             -DGD_CUDA_LIB='"$(CUDA_LIB)"'
# tuning experiments: make GD_DEFS=-DGD_KNN_BLOCKS_SINGLE=4 (kernels/NOTES.md)
NVCCFLAGS += $(GD_DEFS)
CFLAGS    ?= -O3 -fPIC -fopenmp -Wall -Wextra -std=c11 -D_POSIX_C_SOURCE=200809L
MEXFLAGS  := --mex -R2018a -Ikernels -Imex
# cuBLAS (only the sgemm reference variant) is loaded with dlopen when
# that variant first runs, from the toolkit's directory or through the
# rpath; the host BLAS is the one Octave is linked with.
MEXLIBS   := build/libgd.a -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcudart_static -lrt -ldl -lpthread -lgomp -lstdc++ \
             $(shell $(MKOCTFILE) -p BLAS_LIBS 2>/dev/null)

KERNEL_HDR := kernels/gd.h kernels/gd_internal.h kernels/product.h kernels/tile.cuh kernels/norm2.h \
              kernels/knnkey.h
KERNEL_OBJ := build/device.o build/memory.o build/copies.o build/product.o build/resident.o build/minplus.o build/apsp.o build/sgemm.o build/pdist.o build/knn.o \
              build/cpu.o
GATEWAYS   := octave/private/__gd__.mex octave/private/__gd_uninit__.oct
MEX_SRC    := mex/__gd__.c mex/gd_mex.c mex/gd_array.c mex/op_product.c mex/op_pdist.c \
              mex/op_info.c mex/op_array.c mex/op_apsp.c

OCTAVE_RUN := $(OCTAVE) -q --no-gui --no-init-file --no-history

.PHONY: all test demo bench readme deps clean
all: $(GATEWAYS) build/gdbench

# ptxas's report (registers, spills) of every kernel is kept in
# build/<file>.ptxas for tests/spills.bats; the rest of the compiler's
# output is shown
build/%.o: kernels/%.cu $(KERNEL_HDR) | build
	@echo "$(NVCC) ... -c $< -o $@"
	@$(NVCC) $(NVCCFLAGS) -Xptxas -v -c $< -o $@ 2> build/$*.ptxas; s=$$?; \
	  grep -v '^ptxas info\|bytes stack frame' build/$*.ptxas >&2; exit $$s

build/cpu.o: kernels/cpu.c kernels/gd.h kernels/norm2.h kernels/knnkey.h | build
	$(CC) $(CFLAGS) -c $< -o $@

build/libgd.a: $(KERNEL_OBJ)
	rm -f $@ && ar rcs $@ $^

# the arch list is part of the build: rebuild when it changes
build/archs: FORCE | build
	@echo '$(GPU_ARCHS)' | cmp -s - $@ || echo '$(GPU_ARCHS)' > $@
$(KERNEL_OBJ): build/archs
FORCE:

# one gateway for every function: one copy of the table of gdArrays and of
# the kernel layer's streams and buffers (each .mex would hold its own)
octave/private/__gd__.mex: $(MEX_SRC) mex/gd_mex.h build/libgd.a | octave/private
	$(MKOCTFILE) $(MEXFLAGS) -o $@ $(MEX_SRC) $(MEXLIBS)
	@rm -f $(patsubst mex/%.c,%.o,$(MEX_SRC))

# the gateways' result arrays (Octave's C++ API: an array whose elements are
# not set, so that no thread but the download's touches its pages)
octave/private/__gd_uninit__.oct: mex/__gd_uninit__.cc | octave/private
	$(MKOCTFILE) -o $@ $<
	@rm -f __gd_uninit__.o

# the C benchmark: one operation/variant/size, no Octave
build/gdbench: examples/gdbench.c kernels/gd.h build/libgd.a
	$(CC) -O2 -Wall -Wextra -std=c11 -D_POSIX_C_SOURCE=200809L -Ikernels -o $@ $< \
	    build/libgd.a -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcudart_static -lrt -ldl -lpthread -lgomp -lstdc++ \
	    $(shell $(MKOCTFILE) -p BLAS_LIBS 2>/dev/null || echo -lblas) -lm

build octave/private:
	mkdir -p $@

deps:
	@tests/deps.sh

# the build in parallel (nvcc spends minutes on a file at every architecture)
NPROC := $(shell nproc 2>/dev/null || echo 2)

test: deps
	$(MAKE) -j$(NPROC) all
	$(BATS) tests

demo: deps all
	$(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('examples/demo.m')"

bench: all
	$(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('examples/bench.m')"
	GLIBC_TUNABLES= $(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('examples/bench_fresh.m')"
	GLIBC_TUNABLES=glibc.malloc.hugetlb=1 $(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('examples/bench_fresh.m')"
	GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184 $(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('examples/bench_fresh.m')"
	$(MAKE) readme

# the README's performance section, from bench/results
readme:
	$(OCTAVE_RUN) --eval "source('examples/perf_readme.m')"

clean:
	rm -rf build octave/private *.o
