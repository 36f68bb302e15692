#!/usr/bin/env bats
# build/gdbench: the C benchmark checks a variant against the cpu variant
# and times it, without Octave.

load helpers

@test "gdbench: cpu variants of every operation check and time" {
    cd "$GD_ROOT"
    run build/gdbench minplus cpu double 150x70x90 3
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"exact (0 of 13500"* ]]
    run build/gdbench sgemm cpu single 64x200x33 3
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *exact* ]]
    run build/gdbench pdist cpu single 300x17 3
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"exact (0 of 44850"* ]]
    run build/gdbench pdist2 cpu single 120x9x70 3
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"exact (0 of 8400"* ]]
}

@test "gdbench: bad usage exits 2" {
    cd "$GD_ROOT"
    run build/gdbench minplus v4
    [ "$status" -eq 2 ]
    run build/gdbench cube v4 single 10
    [ "$status" -eq 2 ]
    run build/gdbench minplus cpu single 10 1 positive
    [ "$status" -eq 2 ]
    run build/gdbench minplus cpu single 10 1 nonneg new
    [ "$status" -eq 2 ]
}

@test "gdbench: a fresh result each call (cpu variants)" {
    cd "$GD_ROOT"
    run build/gdbench pdist cpu single 300x17 3 signed fresh
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"(fresh result)"* ]]
    run build/gdbench minplus cpu double 150x70x90 3 nonneg reuse
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"(reused result)"* ]]
}

@test "gdbench: nonneg inputs (cpu variant)" {
    cd "$GD_ROOT"
    run build/gdbench minplus cpu single 40x30x20 2 nonneg
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"exact (0 of 800"* ]]
}

@test "gdbench: GPU variants agree with the cpu variant" {
    require_gpu
    cd "$GD_ROOT"
    for v in v0 v1 v2 v3 v4 v5; do
        run build/gdbench minplus $v single 333x65x129 2
        echo "$output"; [ "$status" -eq 0 ]
    done
    # v5 single: the integer-min kernel on nonneg inputs, the sign split
    # (integer max, then fminf) on signed
    run build/gdbench minplus v5 single 333x65x129 2 nonneg
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"v5 (integer min)"* ]]
    run build/gdbench minplus v5 single 333x65x129 2 signed
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"v5 (integer max on "*" tiles, fminf on "* ]]
    for v in k1-64 k4-128-j4-k4 k5 tuned cublas; do
        run build/gdbench sgemm $v single 333x65x129 2
        echo "$output"; [ "$status" -eq 0 ]
    done
    for v in naive tiled tuned; do
        run build/gdbench pdist $v double 333x65 2
        echo "$output"; [ "$status" -eq 0 ]
    done
    for c in single double; do
        run build/gdbench pdist2 tuned $c 333x65x200 2
        echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"exact (0 of 66600"* ]]
    done
    # fresh results, large enough for the staging slots and min-plus blocks
    run build/gdbench pdist tuned single 3000x20 2 signed fresh
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"(fresh result)"* ]]
    GD_BLOCKS=2 run build/gdbench minplus v5 single 1500 2 nonneg fresh
    echo "$output"; [ "$status" -eq 0 ]; [[ "$output" == *"(fresh result)"* ]]
}
