#!/usr/bin/env bats
# The Octave package (make dist): installed with pkg install into a fresh
# home directory, loaded in a new Octave, its functions' own tests run from
# the installed copy; once with nvcc (one architecture, to keep the build
# short) and once with nvcc hidden, where the CPU implementations alone are
# built and gd_info says so.

load helpers

FUNCTIONS="gd_minplus gd_apsp gd_path gd_sgemm gd_pdist gd_pdist2 gd_squareform gd_knnsearch gdArray gather gd_info"

setup_file() {
    make -s -C "$GD_ROOT" dist >/dev/null
    TARBALL=$(ls "$GD_ROOT"/gd-*.tar.gz | head -1)
    export TARBALL
}

# install_and_test: pkg install -local the tarball with HOME=$BATS_TEST_TMPDIR
# (nothing of the user's own packages), then in a new Octave pkg load gd
# and run every function's %! tests, printing "FAILED name" for any that
# fails. $1: extra commands for the new Octave.
install_and_test() {
    export HOME="$BATS_TEST_TMPDIR"
    # pkg runs make in src/: in parallel, as make test builds (nvcc takes
    # minutes on pdist.cu alone)
    export MAKEFLAGS="-j$(nproc 2>/dev/null || echo 2)"
    run octave-cli -q --no-gui --no-init-file --no-history --eval \
        "pkg install -local -verbose '$TARBALL'; l = pkg ('list'); printf ('installed: %s %s\n', l{1}.name, l{1}.version);"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"installed: gd "* ]]
    install_output="$output"
    local tests=""
    for f in $FUNCTIONS; do
        tests="$tests if (! test ('$f', 'quiet', stdout)) printf ('FAILED %s\n', '$f'); end;"
    done
    run octave-cli -q --no-gui --no-init-file --no-history --eval \
        "pkg load gd; warning ('off', 'gd:nogpu'); p = which ('gd_minplus'); printf ('from: %s\n', p); $1 $tests"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"from: $HOME/"* ]]
    [[ "$output" != *FAILED* ]]
}

@test "make dist writes a package in pkg's layout" {
    run tar -tzf "$TARBALL"
    echo "$output"
    [ "$status" -eq 0 ]
    top=$(basename "$TARBALL" .tar.gz)
    for f in DESCRIPTION INDEX COPYING pre_install.m inst/gd_minplus.m inst/private/__gd_prepare__.m \
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

@test "pkg install with nvcc (GPU_ARCHS=90); pkg load gd; every function's tests from the installed copy" {
    command -v nvcc >/dev/null 2>&1 || [ -n "${CUDA_HOME:-}" ] || skip "no nvcc on this machine"
    # machine code for sm_90 where a GPU will run it; else PTX alone,
    # unoptimised, for sm_75, the oldest architecture (the CUDA build all
    # the same, without ptxas's and the optimiser's minutes: nothing runs it;
    # make test's check that every kernel compiles for sm_75, which make
    # test does itself where a GPU answers)
    if gpu_present; then
        export GPU_ARCHS=90
    else
        export GPU_ARCHS= GD_PTX_ARCHS=75 GD_DEFS="-Xcicc -O0"
    fi
    install_and_test "s = gd_info (); printf ('reason: %s\n', s.reason);"
    [[ "$install_output" != *"nvcc not found"* ]]
    # what is built, and about how long, said before the build
    [[ "$install_output" == *"compiling the CUDA kernels "*"minutes on"* ]]
    [[ "$output" != *"built without CUDA"* ]]
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
    ! command -v nvcc
    install_and_test "s = gd_info (); printf ('reason: %s\n', s.reason);"
    [ "$(grep -c 'nvcc not found' <<< "$install_output")" -eq 1 ]
    [[ "$output" == *"reason: built without CUDA"* ]]
}
