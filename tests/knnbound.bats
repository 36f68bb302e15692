#!/usr/bin/env bats
# The certificate of the planned 'gemm' nearest neighbours (kernels/tiles/
# knnbound.h): its bound on how far a distance from the expansion on the
# tensor cores can be from the sum 'fused' computes, against an emulation
# of that arithmetic on the CPU. Needs a C compiler only.

load helpers

@test "knnbound.h: |e - f| <= B on every pair of every data set, and the worst case of its header reaches it" {
    cc -O2 -std=c11 -D_DEFAULT_SOURCE -I"$GD_ROOT/kernels" "$GD_ROOT/tests/check_knnbound.c" \
        -o "$BATS_TEST_TMPDIR/check_knnbound" -lm
    run "$BATS_TEST_TMPDIR/check_knnbound"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"bound holds"* ]]
}
