#!/usr/bin/env bats
# The Octave package (make dist): installed with pkg install into a fresh
# home directory, loaded in a new Octave, its functions' own tests run from
# the installed copy; here with nvcc (one architecture, to keep the build
# short), in package_cpu.bats with nvcc hidden (the two install side by
# side under bats --jobs).

load helpers

setup_file() {
    TARBALL=$(make_dist)
    export TARBALL
}

@test "make dist writes a package in pkg's layout" {
    run tar -tzf "$TARBALL"
    echo "$output"
    [ "$status" -eq 0 ]
    top=$(basename "$TARBALL" .tar.gz)
    for f in DESCRIPTION INDEX COPYING NEWS pre_install.m inst/gd_minplus.m inst/private/__gd_prepare__.m \
             src/Makefile src/build.mk src/kernels/gd.h src/kernels/nocuda/cuda_runtime.h src/mex/gd_mex.c; do
        [[ "$output" == *"$top/$f"* ]] || { echo "missing: $f"; return 1; }
    done
    # every public function and nothing built
    for f in "$GD_ROOT"/octave/*.m; do
        [[ "$output" == *"$top/inst/$(basename "$f")"* ]] || { echo "missing: $(basename "$f")"; return 1; }
    done
    [[ "$output" != *.mex* && "$output" != *.oct* && "$output" != *.o$'\n'* ]]
    version=$(sed -n 's/^Version: *//p' "$GD_ROOT/pkg/DESCRIPTION")
    [ "$top" = "gd-$version" ]
}

@test "pkg install with nvcc (GPU_ARCHS=90); pkg load gd; the functions' tests from the installed copy" {
    command -v nvcc >/dev/null 2>&1 || [ -n "${CUDA_HOME:-}" ] || skip "no nvcc on this machine"
    # machine code for sm_90 where a GPU will run it; else PTX alone,
    # unoptimised, for sm_75, the oldest architecture (the CUDA build all
    # the same, without ptxas's and the optimiser's minutes: nothing runs it;
    # make test's check that every kernel compiles for sm_75, which make
    # test does itself where a GPU answers)
    # Every function's tests where a GPU runs them; without one, the
    # installed gateway takes the CPU paths that octave.bats tests from the
    # source tree, so those of the functions the others are built on
    local only=""
    if gpu_present; then
        export GPU_ARCHS=90
    else
        # (no GPU to run them: PTX alone, and neither it nor the host code
        # optimised)
        export GPU_ARCHS= GD_PTX_ARCHS=75 GD_DEFS="-Xcicc -O0 -Xcompiler -O0"
        only="gd_info gdArray gd_minplus gd_pdist2"
    fi
    install_and_test "s = gd_info (); printf ('reason: %s\n', s.reason);" "$only"
    [[ "$install_output" != *"nvcc not found"* ]]
    # what is built, and about how long, said before the build
    [[ "$install_output" == *"compiling the CUDA kernels "*"minutes on"* ]]
    # and each CUDA file's start and end as the build goes (on stderr, which
    # pkg shows without -verbose)
    [[ "$install_output" == *"gd "*": compiling kernels/ops/pdist/pdist.cu"* ]]
    [[ "$install_output" == *"gd "*": compiled kernels/ops/pdist/pdist.cu"* ]]
    [[ "$output" != *"built without CUDA"* ]]
}
