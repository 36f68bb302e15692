#!/usr/bin/env bats
# How a download lands in host memory (kernels/runtime/land.h: streaming
# stores, int32s widened to doubles) against plain loops, every length and
# alignment up to 700 bytes. Needs a C compiler only.

load helpers

@test "land.h: the bytes and the widened int32s exact, nothing written around them" {
    c_check check_land "land exact"
}
