/* tile.cuh - the register tiles the product kernels share.
 *
 * 1. The 64x64 tile of min-plus v4: a block of 8x8 threads accumulates a
 * 64x64 tile of
 * C(i,j) = reduce_k op(A(i,k), B(k,j)) from two k-major operands (A(:,k)
 * and B(k,:) contiguous: Ap[i + lda*k], Bt[j + ldb*k]), 4 k-steps at a
 * time through shared memory, 8x8 outputs per thread in registers.
 *
 * With W = 16/sizeof(T) elements a vector, thread ia owns the rows
 * 64ic + g*8W + ia*W + w (g < 8/W, w < W): W consecutive rows, so one
 * 16-byte shared load brings W of its operands and the caller can store W
 * outputs of a column at once. Columns likewise with ja. Staging a k-step
 * takes 64/W vector loads: for float, 64 threads move all 4 k-steps of
 * both operands with one load each. Operands must be padded to whole
 * tiles (rows to 64, k to 4) with a value the operation ignores. */
#ifndef GD_TILE_CUH
#define GD_TILE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

namespace gd_tile {

#include "tiles/tile/steps.cuh"
#include "tiles/tile/witness_steps.cuh"
#include "tiles/tile/small.cuh"
#include "tiles/tile/big.cuh"
#include "tiles/tile/launch.cuh"
#include "tiles/tile/each.cuh"
} // namespace gd_tile

#endif
