# helpers.bash - shared by the BATS suites.

GD_ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
export GD_ROOT

# octave_run CODE: runs CODE in Octave with octave/ and tests/ on the path;
# exits non-zero when CODE raises an error.
octave_run() {
    octave-cli -q --no-gui --no-init-file --no-history --eval \
        "addpath('$GD_ROOT/octave'); addpath('$GD_ROOT/tests'); $1"
}

# Decides once per run whether a CUDA GPU is usable (through gd_info) and
# caches the answer: an empty file when it is, else the reason.
gpu_reason() {
    local cache="$BATS_RUN_TMPDIR/gd_gpu_reason"
    if [ ! -f "$cache" ]; then
        octave_run "s = gd_info(); if s.available, printf(''); else printf('%s', s.reason); end" \
            > "$cache.tmp" 2>/dev/null || echo "gd_info failed" > "$cache.tmp"
        mv "$cache.tmp" "$cache"
    fi
    cat "$cache"
}

# gpu_present: true when a CUDA GPU is usable
gpu_present() {
    [ -z "$(gpu_reason)" ]
}

# require_gpu: skips the test, with the reason, when no GPU is usable.
require_gpu() {
    local why
    why="$(gpu_reason)"
    [ -z "$why" ] || skip "no CUDA GPU: $why"
}

# octave_ok CODE [TEXT]: CODE runs without error (and prints TEXT, when
# given); the output is shown when the test fails.
octave_ok() {
    run octave_run "$1"
    echo "$output"
    [ "$status" -eq 0 ]
    [ -z "${2:-}" ] || [[ "$output" == *"$2"* ]]
}

# c_check NAME TEXT: tests/NAME.c built against kernels/ (C11, a C
# compiler alone) and run: it exits 0 and prints TEXT.
c_check() {
    cc -O2 -std=c11 -D_DEFAULT_SOURCE -I"$GD_ROOT/kernels" "$GD_ROOT/tests/$1.c" \
        -o "$BATS_TEST_TMPDIR/$1" -lm
    run "$BATS_TEST_TMPDIR/$1"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"$2"* ]]
}

# octave_error SETUP ARGS: after SETUP, expect_error(ARGS) holds (the id,
# the message pattern, nothing modified).
octave_error() {
    octave_ok "$1 expect_error($2)"
}

# make_dist: make dist under a lock (package.bats and package_cpu.bats make
# it side by side), the tarball copied into this file's temporary
# directory, its path printed
make_dist() {
    mkdir -p "$GD_ROOT/build"
    (
        flock 9
        make -s -C "$GD_ROOT" dist >/dev/null && cp "$GD_ROOT"/gd-*.tar.gz "$BATS_FILE_TMPDIR/"
    ) 9> "$GD_ROOT/build/dist.lock"
    ls "$BATS_FILE_TMPDIR"/gd-*.tar.gz | head -1
}

# the functions whose %! tests the installed package runs: those of the
# package's list (pkg/INDEX, a category's functions on the lines after it,
# each indented)
PKG_FUNCTIONS=$(grep '^ ' "$GD_ROOT/pkg/INDEX" | tr -s ' \n' ' ')

# install_and_test: pkg install -local the tarball with HOME=$BATS_TEST_TMPDIR
# (nothing of the user's own packages), then in a new Octave pkg load gd
# and run every function's %! tests (those of $2 alone where given),
# printing "FAILED name" for any that fails. $1: extra commands for the new
# Octave.
install_and_test() {
    export HOME="$BATS_TEST_TMPDIR"
    # pkg runs make in src/: in parallel, as make test builds (nvcc takes
    # a minute an architecture on knn.cu alone)
    export MAKEFLAGS="-j$(nproc 2>/dev/null || echo 2)"
    run octave-cli -q --no-gui --no-init-file --no-history --eval \
        "pkg install -local -verbose '$TARBALL'; l = pkg ('list'); printf ('installed: %s %s\n', l{1}.name, l{1}.version);"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"installed: gd "* ]]
    install_output="$output"
    local tests="" f
    for f in ${2:-$PKG_FUNCTIONS}; do
        tests="$tests if (! test ('$f', 'quiet', stdout)) printf ('FAILED %s\n', '$f'); end;"
    done
    run octave-cli -q --no-gui --no-init-file --no-history --eval \
        "pkg load gd; warning ('off', 'gd:nogpu'); p = which ('gd_minplus'); printf ('from: %s\n', p); $1 $tests"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"from: $HOME/"* ]]
    [[ "$output" != *FAILED* ]]
}

# interrupt_after SETUP CALL NEXT: runs SETUP, then CALL, interrupts CALL a
# second after it has begun (Octave prints a mark just before it), then
# runs NEXT; prints "stopped in S s" (from the signal to Octave's next
# prompt) and what Octave printed.
interrupt_after() {
    local fifo="$BATS_TEST_TMPDIR/in" out="$BATS_TEST_TMPDIR/out" t0 t1 pid
    rm -f "$fifo" "$out"
    mkfifo "$fifo"
    octave-cli -q --no-gui --no-init-file --no-history -i < "$fifo" > "$out" 2>&1 &
    pid=$!
    exec 3> "$fifo"
    echo "addpath('$GD_ROOT/octave'); warning('off', 'gd:nogpu'); $1; disp('CALLING'); fflush(stdout); $2; disp('NOT INTERRUPTED')" >&3
    for _ in $(seq 1 600); do grep -q "CALLING" "$out" && break; sleep 0.05; done
    sleep 1
    t0=$(date +%s.%N)
    kill -INT $pid
    for _ in $(seq 1 200); do grep -q "octave:2>" "$out" && break; sleep 0.02; done
    t1=$(date +%s.%N)
    echo "$3" >&3
    echo "exit" >&3
    exec 3>&-
    wait $pid || true
    echo "stopped in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s"
    cat "$out"
}

# the call stopped within a second, and what came after ran
check_stopped() {
    echo "$output"
    [[ "$output" == *"CALLING"* ]]
    [[ "$output" != *"NOT INTERRUPTED"* ]]
    [[ "$output" == *"next ok"* ]]
    s=$(echo "$output" | sed -n 's/^stopped in \([0-9.]*\) s$/\1/p')
    [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s < 1.0) }'
}
