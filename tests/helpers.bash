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

# octave_error SETUP ARGS: after SETUP, expect_error(ARGS) holds (the id,
# the message pattern, nothing modified).
octave_error() {
    octave_ok "$1 expect_error($2)"
}
