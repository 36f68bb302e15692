#!/usr/bin/env bats
# The certificate of the planned 'gemm' nearest neighbours (kernels/tiles/
# knnbound.h): its bound on how far a distance from the expansion on the
# tensor cores can be from the sum 'fused' computes, against an emulation
# of that arithmetic on the CPU. Needs a C compiler only.

load helpers

@test "knnbound.h: |e - f| <= B on every pair of every data set, and the worst case of its header reaches it" {
    c_check check_knnbound "bound holds"
}
