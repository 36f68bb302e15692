#!/usr/bin/env bats
# The Octave package installed with nvcc hidden: the CPU implementations
# alone are built, the install says so once and gd_info says why (the
# install with nvcc: package.bats).

load helpers

setup_file() {
    TARBALL=$(make_dist)
    export TARBALL
}

@test "pkg install with nvcc hidden: the CPU implementations, said once at install and by gd_info" {
    # a PATH without any directory that holds nvcc, and no CUDA_HOME
    local path="" d
    IFS=: read -ra dirs <<< "$PATH"
    for d in "${dirs[@]}"; do
        [ -x "$d/nvcc" ] || path="${path:+$path:}$d"
    done
    export PATH="$path"
    unset CUDA_HOME
    # the kernels' sources built as C++ are never run without CUDA (their
    # launches are cut out): -O0 for them, as the nvcc install's PTX check
    # builds; the CPU implementations (cpu.c) keep the build's -O2
    export NOCUDA_CXXFLAGS="-O0 -std=c++17 -fPIC -fopenmp -Wall -Wno-unknown-pragmas -Wno-unused-variable \
        -Wno-unused-but-set-variable -Wno-array-bounds -Wno-maybe-uninitialized -Wno-unused-function \
        -DGD_CUDA_LIB='\"\"'"
    ! command -v nvcc
    # the installed copy's tests of the functions the others are built on
    # (octave.bats runs every function's from the source tree: the same
    # CPU implementations)
    install_and_test "s = gd_info (); printf ('reason: %s\n', s.reason); news ('gd');" \
        "gd_info gdArray gd_minplus gd_pdist2 gd_apsp"
    [ "$(grep -c 'nvcc not found' <<< "$install_output")" -eq 1 ]
    [[ "$output" == *"reason: built without CUDA (no nvcc when gd was built)"* ]]
    # news gd: the package's NEWS
    [[ "$output" == *"user-visible changes for gd $(sed -n 's/^Version: *//p' "$GD_ROOT/pkg/DESCRIPTION")"* ]]
}
