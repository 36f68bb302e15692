/* ops/minplus/v01_naive.cuh - v0 and v1, the course's first rungs: one thread an output on Octave's own layouts.
 * Part of minplus.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// ---------------------------------------------------------------------------
// v0, v1: one thread per output on Octave's own layouts.
// JFAST selects the mapping: threadIdx.x walks j (v0) or i (v1).

// With K (the witness), Octave's own rule: a term replaces the minimum
// when it is smaller, or when the minimum is still NaN and it is not; K
// gets the k + 1 of the last replacement (1 when every term is NaN).
template <class T, bool JFAST, bool WITNESS>
__global__ void minplus_v01_naive(const T *__restrict__ A,
                                  const T *__restrict__ B, T *__restrict__ R,
                                  int *__restrict__ K, int64_t m, int64_t k, int64_t n)
{
    const int64_t fast = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t nslow = JFAST ? m : n;
    if (fast >= (JFAST ? n : m)) return;
    for (int64_t slow = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
         slow < nslow; slow += (int64_t)gridDim.y * blockDim.y) {
        const int64_t i = JFAST ? slow : fast, j = JFAST ? fast : slow;
        T v = nan_v<T>();
        if constexpr (WITNESS) {
            int64_t w = 0;
            for (int64_t kk = 0; kk < k; ++kk) {
                const T s = A[i + m * kk] + B[kk + k * j];
                if (s < v || (v != v && s == s)) {
                    v = s;
                    w = kk;
                }
            }
            K[i + m * j] = (int)(w + 1);
        } else {
            for (int64_t kk = 0; kk < k; ++kk) v = gmin(v, A[i + m * kk] + B[kk + k * j]);
        }
        R[i + m * j] = v;
    }
}

