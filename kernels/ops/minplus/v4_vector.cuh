/* ops/minplus/v4_vector.cuh - v4: v3 with 16-byte accesses, through tile.cuh's tile.
 * Part of minplus.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// ---------------------------------------------------------------------------
// v4: v3 with 16-byte accesses everywhere: loads from global and shared
// memory and stores of R, through the tile of tile.cuh. R is padded
// (mp x np) so every column starts 16-byte aligned; the host copies it
// back with cudaMemcpy2D. __launch_bounds__(64) lets the compiler use up
// to 255 registers: the 64 accumulators and 16 operands stay in registers.

template <class T>
__global__ void __launch_bounds__(64)
minplus_v4_vector(const T *__restrict__ Ap, const T *__restrict__ Bt,
                  T *__restrict__ Rp, int64_t mp, int64_t np, int64_t kp)
{
    const int64_t ic = blockIdx.x;
    for (int64_t jc = blockIdx.y; jc * TILE < np; jc += gridDim.y) {
        T v[8][8];
        gd_tile::accumulate<gd_tile::minplus>(Ap, mp, Bt, np, kp, ic, jc, v);
        gd_tile::store_padded(Rp, mp, ic, jc, v, gd_tile::identity());
    }
}

