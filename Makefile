# gd - GPU kernels for GNU Octave.
#
#   make            build/libgd.a, the gateways in octave/private/ and
#                   build/gdbench (one operation/variant/size from the shell)
#   make test       BATS suites and every function's %! tests (runs make deps)
#   make demo       examples/demo.m (runs make deps)
#   make bench      bench/bench.m: tables on stdout and bench/results/,
#                   then the README's performance section (make readme) and
#                   the charts (make charts: bench/results/*.png, gnuplot)
#   make bench-ranks  bench/bench_ranks.m: one rank against a rank a GPU
#                   (MPI + NCCL; two GPUs or more), bench/results/*-ranks.md
#   make sanitize   tests/sanitize.m (every GPU kernel) under
#                   compute-sanitizer's memcheck, racecheck, synccheck and
#                   initcheck; fails on any report (needs a GPU)
#   make deps       find Octave, mkoctfile, bats, the statistics package;
#                   install what is missing with apt-get when root
#   make dist       gd-<version>.tar.gz, the Octave package (pkg install)
#   make clean
#
# GPU_ARCHS=90 builds for one architecture; the default is this machine's
# GPUs (nvidia-smi), else the architectures already built in build/, else
# a fat binary for sm_75 ... sm_90; plus PTX of the newest for later GPUs.
# Every target builds in parallel (one job a processor). Without nvcc
# (or with GD_CUDA=no) the CPU implementations are built alone (build.mk).

OCTAVE    ?= octave-cli
BATS      ?= bats

include build.mk
.DEFAULT_GOAL := all

# the Octave package: pkg/ holds its DESCRIPTION, INDEX, pre_install.m and
# src/Makefile; the version is DESCRIPTION's
VERSION := $(shell sed -n 's/^Version: *//p' pkg/DESCRIPTION)
DIST    := gd-$(VERSION)

OCTAVE_RUN := $(OCTAVE) -q --no-gui --no-init-file --no-history

.PHONY: all test demo bench bench-devices bench-ranks readme charts deps dist clean fp64mix sanitize
all: $(GATEWAYS) build/gdbench

# the C benchmark: one operation/variant/size, no Octave
build/gdbench: bench/gdbench.c kernels/gd.h build/libgd.a
	$(CC) -O2 -Wall -Wextra -std=c11 -D_POSIX_C_SOURCE=200809L -Ikernels -o $@ $< \
	    build/libgd.a $(GD_LIBS) $(if $(HOST_BLAS),$(HOST_BLAS),-lblas) -lm

# the pipes' rates for the kernels' instruction mixes (kernels/NOTES.md):
# make fp64mix (CUDA and a GPU)
ifeq ($(GD_CUDA),yes)
build/fp64_mix: bench/fp64_mix.cu kernels/tiles/metric.cuh kernels/tiles/tile.cuh kernels/tiles/norm2.h | build
	$(NVCC) -O3 -std=c++17 -Ikernels $(GENCODE) -o $@ $<
endif
fp64mix: build/fp64_mix
	build/fp64_mix


deps:
	@tests/deps.sh

# the build in parallel (nvcc spends minutes on a file at every architecture)
NPROC := $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS += -j$(NPROC)

# make test builds machine code for this machine's GPUs, else sm_90 (or the
# GPU_ARCHS given on the command line), and every kernel is checked to
# compile for sm_75, the oldest architecture, as unoptimised PTX: by the
# package test's install where no GPU answers (it builds PTX for sm_75
# alone, nothing runs it), else here (GD_PTX_CHECK_ARCHS: seconds, where
# optimised PTX took minutes); make, make dist and pkg install build for
# the machine's GPUs or the fat binary. The suites run TEST_JOBS at a time
# (bats --jobs where GNU parallel is there, else tests/run_files.sh: a
# bats a file), one test file's tests one after another; then
# tests/gpu_memory.bats alone (its tests read the whole device's free
# memory, which the other suites' calls would move).
TEST_ARCHS      ?= $(if $(filter command line,$(origin GPU_ARCHS)),$(GPU_ARCHS),$(or $(strip $(GD_LOCAL_ARCHS)),90))
TEST_PTX_CHECKS ?= $(if $(strip $(GD_LOCAL_ARCHS)),75)
# (at most 4 side by side where a GPU answers: the suite was measured so
# on an H100, the interrupt tests' timings included)
TEST_JOBS       ?= $(shell n=$(NPROC); if nvidia-smi -L >/dev/null 2>&1 && [ $$n -gt 4 ]; then n=4; fi; echo $$n)
TEST_FILES       = $(filter-out tests/gpu_memory.bats,$(sort $(wildcard tests/*.bats)))
# the suites run side by side, and the MPI tests' ranks beside them: one
# BLAS thread a process (OpenBLAS's waiting threads would take the cores),
# and OpenMP's idle threads asleep, not spinning (4 ranks on 2 cores:
# check_ranks 14 s spinning, 2.3 s asleep)
test: export OPENBLAS_NUM_THREADS ?= 1
test: export OMP_WAIT_POLICY ?= passive
test: deps
	$(MAKE) -j$(NPROC) all GPU_ARCHS="$(TEST_ARCHS)" GD_PTX_ARCHS= GD_PTX_CHECK_ARCHS="$(TEST_PTX_CHECKS)"
	if [ "$(TEST_JOBS)" != 1 ] && command -v parallel >/dev/null 2>&1; then \
	  $(BATS) --jobs $(TEST_JOBS) --no-parallelize-within-files $(TEST_FILES); \
	elif [ "$(TEST_JOBS)" != 1 ]; then BATS="$(BATS)" tests/run_files.sh $(TEST_JOBS) $(TEST_FILES); \
	else $(BATS) $(TEST_FILES); fi
	$(BATS) tests/gpu_memory.bats

# (deps first: it may install what the build needs)
demo: deps
	$(MAKE) all
	$(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('examples/demo.m')"

bench: all $(if $(filter yes,$(GD_CUDA)),build/fp64_mix)
	$(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('bench/bench.m')"
	GLIBC_TUNABLES= $(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('bench/bench_fresh.m')"
	GLIBC_TUNABLES=glibc.malloc.hugetlb=1 $(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('bench/bench_fresh.m')"
	GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184 $(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('bench/bench_fresh.m')"
	$(MAKE) readme charts

# every GPU kernel under compute-sanitizer's four tools, none may report
SANITIZER ?= $(or $(shell command -v compute-sanitizer 2>/dev/null),$(wildcard $(dir $(NVCC))compute-sanitizer))
sanitize: all
	@test -n "$(SANITIZER)" || { echo "make sanitize: compute-sanitizer not found (it ships with the CUDA toolkit)"; exit 1; }
	@set -e; for t in memcheck racecheck synccheck initcheck; do \
	  echo "== compute-sanitizer --tool $$t"; \
	  $(SANITIZER) --tool $$t --error-exitcode 97 --print-limit 20 \
	    $(OCTAVE_RUN) --eval "source('tests/sanitize.m')" > build/sanitize-$$t.log 2>&1 \
	    || { tail -40 build/sanitize-$$t.log; echo "make sanitize: $$t reported (build/sanitize-$$t.log)"; exit 1; }; \
	  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" build/sanitize-$$t.log || true; \
	  grep -q "every kernel ran" build/sanitize-$$t.log || { tail -20 build/sanitize-$$t.log; exit 1; }; \
	done; echo "make sanitize: memcheck, racecheck, synccheck and initcheck report nothing"

# every device of the host against one (a host with two GPUs or more)
bench-devices: all
	$(OCTAVE_RUN) --eval "addpath('$(CURDIR)/octave'); source('bench/bench_devices.m')"

# the ranks of an MPI job against one rank, a rank a GPU (a host with two
# GPUs or more; GD_RANKS ranks, else one a GPU): bench/bench_ranks.m in 1
# rank, then in GD_RANKS, then its table in bench/results/
MPIRUN ?= mpirun --allow-run-as-root --oversubscribe
GD_RANKS ?= $(shell nvidia-smi -L 2>/dev/null | grep -c GPU)
bench-ranks: all
	rm -f build/bench-ranks-np*.txt
	seed=$$(date +%s); for np in 1 $(GD_RANKS); do \
	  GD_BENCH_SEED=$$seed $(MPIRUN) -np $$np -x GD_BENCH_SEED $(if $(GD_BENCH_QUICK),-x GD_BENCH_QUICK) $(OCTAVE_RUN) bench/bench_ranks.m || exit 1; done
	$(OCTAVE_RUN) bench/bench_ranks.m

# the charts of bench/results (bench/results/<device>-<operation>.png)
charts:
	$(OCTAVE_RUN) --eval "source('bench/bench_charts.m')"

# the README's performance section, from bench/results
readme:
	$(OCTAVE_RUN) --eval "source('bench/perf_readme.m')"

# gd-<version>.tar.gz: pkg install gd-<version>.tar.gz; pkg load gd
dist:
	rm -rf build/dist && mkdir -p build/dist/$(DIST)/inst/private build/dist/$(DIST)/src
	cp pkg/DESCRIPTION pkg/INDEX pkg/pre_install.m COPYING NEWS build/dist/$(DIST)/
	cp octave/*.m build/dist/$(DIST)/inst/
	cp octave/private/*.m build/dist/$(DIST)/inst/private/
	cp -r kernels mex build.mk build/dist/$(DIST)/src/
	cp pkg/Makefile build/dist/$(DIST)/src/Makefile
	tar -C build/dist -czf $(DIST).tar.gz --owner=0 --group=0 $(DIST)
	@echo "written: $(DIST).tar.gz (pkg install $(DIST).tar.gz; pkg load gd)"

clean:
	rm -rf build *.o gd-*.tar.gz
	rm -f octave/private/*.mex octave/private/*.oct
