#!/bin/sh
# deps.sh - find what gd needs by running it; install what is missing with
# apt-get when root (Debian/Ubuntu), otherwise print the command.
# Never touches the package manager when everything is found. What the
# build and the tests need ($missing) stops make when it cannot be had;
# what only speeds Octave up or draws the bench's charts ($wanted) is
# installed where it can be and otherwise named in a warning (a GPU
# machine that reaches no package archive still builds and tests).
missing=""
wanted=""
command -v octave-cli >/dev/null 2>&1 || missing="$missing octave"
command -v mkoctfile >/dev/null 2>&1 || missing="$missing liboctave-dev"
command -v bats >/dev/null 2>&1 || missing="$missing bats"
# the shortest paths' second oracle where Python has it (tests/scipy_paths.py):
# scipy's csgraph, in the python3 on PATH or Debian's
for py in python3 /usr/bin/python3 ""; do
    [ -n "$py" ] || { wanted="$wanted python3-scipy"; break; }
    "$py" -c "import scipy.io, scipy.sparse.csgraph" >/dev/null 2>&1 && break
done
# the ranks of an MPI job (gd_spmd*): Open MPI's mpirun and libmpi, which
# gd loads at run time; its headers for what is built on it
command -v mpirun >/dev/null 2>&1 || missing="$missing openmpi-bin"
[ -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] || [ -f /usr/include/mpi.h ] ||
    wanted="$wanted libopenmpi-dev"
# make bench's charts: Octave draws them headless through gnuplot, with the
# FreeSans font Octave's text renderer loads
command -v gnuplot >/dev/null 2>&1 || wanted="$wanted gnuplot-nox"
# make test runs the suites side by side through GNU parallel (bats --jobs;
# without it, tests/run_files.sh: a bats a file)
command -v parallel >/dev/null 2>&1 || wanted="$wanted parallel"
[ -f /usr/share/fonts/opentype/freefont/FreeSans.otf ] || wanted="$wanted fonts-freefont-otf"
if command -v octave-cli >/dev/null 2>&1; then
    octave-cli -q --no-gui --no-init-file --eval \
        "l = pkg('list'); exit(~any(cellfun(@(p) strcmp(p.name, 'statistics'), l)))" \
        >/dev/null 2>&1 || missing="$missing octave-statistics"
else
    missing="$missing octave-statistics"
fi
# Octave's BLAS: OpenBLAS (Octave's recommended one; the reference BLAS is
# ten times slower and makes every timing against Octave meaningless).
# Installed only for Debian's own Octave (its libblas.so.3 is an
# alternative that the libopenblas package takes over); an Octave that
# brings its own libraries is left as it is.
if command -v octave-cli >/dev/null 2>&1; then
    blas=$(octave-cli -q --no-gui --no-init-file --eval "printf('%s', version('-blas'))" 2>/dev/null)
    case "$blas" in
    *OpenBLAS*) ;;
    *)
        if command -v dpkg >/dev/null 2>&1 &&
            dpkg -S "$(readlink -f "$(command -v octave-cli)")" >/dev/null 2>&1; then
            wanted="$wanted libopenblas0-pthread"
        else
            echo "deps: Octave's BLAS is '$blas', not OpenBLAS; its timings will be slow" >&2
        fi
        ;;
    esac
fi
# nvcc as the build finds it: on PATH, or $CUDA_HOME/bin/nvcc (build.mk)
if ! command -v nvcc >/dev/null 2>&1 && ! { [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; }; then
    echo "deps: nvcc not found: install the CUDA toolkit and put its bin/ on PATH (or set CUDA_HOME)" >&2
fi
can_install() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
install() {
    echo "deps: installing$1"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $1
}
if [ -n "$missing" ]; then
    if ! can_install || ! install "$missing"; then
        echo "deps: missing$missing; run: sudo apt-get install$missing" >&2
        exit 1
    fi
fi
if [ -n "$wanted" ]; then
    if ! can_install || ! install "$wanted"; then
        echo "deps: not installed:$wanted (Octave's own timings, make charts); run: sudo apt-get install$wanted" >&2
    fi
fi
exit 0
