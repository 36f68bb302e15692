#!/usr/bin/env bats
# How a download lands in host memory (kernels/runtime/land.h: streaming
# stores, int32s widened to doubles) against plain loops, every length and
# alignment up to 700 bytes. Needs a C compiler only.

load helpers

@test "land.h: the bytes and the widened int32s exact, nothing written around them" {
    cc -O2 -std=c11 -D_DEFAULT_SOURCE -I"$GD_ROOT/kernels" "$GD_ROOT/tests/check_land.c" \
        -o "$BATS_TEST_TMPDIR/check_land" -lm
    run "$BATS_TEST_TMPDIR/check_land"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"land exact"* ]]
}
