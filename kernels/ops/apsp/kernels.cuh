/* ops/apsp/kernels.cuh - the small kernels: W's element as T, an integer W's range, D into an integer class, D's rows filled from W's, the diagonal's and the zero cycle's checks.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
template <class T> __device__ __forceinline__ T pad_nan();
template <> __device__ __forceinline__ float pad_nan<float>() { return __int_as_float(0x7fffffff); }
template <> __device__ __forceinline__ double pad_nan<double>()
{
    return __longlong_as_double(0x7fffffffffffffffLL);
}

// A weight of W's element type I as T: itself in single and double; an
// integer class's value exactly (T holds it: exact_class), its largest
// value (no edge) as Inf.
template <class T, class I> __device__ __forceinline__ T weight_as(I w)
{
    if constexpr (std::is_floating_point<I>::value)
        return (T)w;
    else
        return w == gd_limits<I>::hi ? (T)INFINITY : (T)w;
}

// An integer W's range for exact_class, over rows x cols of ld ldw (all
// of W, or a device's slab of rows): r[0] = the largest |w| of its edges
// (every element but intmax), r[1] = 1 where one is negative.
template <class I>
__global__ void weight_range(const I *__restrict__ W, int64_t ldw, int64_t rows, int64_t cols,
                             unsigned long long *r)
{
    unsigned long long m = 0, neg = 0;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < rows * cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        const I w = ldw == rows ? W[e] : W[e % rows + ldw * (e / rows)];
        if (w == gd_limits<I>::hi) continue;
        const long long v = (long long)w;
        const unsigned long long a = v < 0 ? (unsigned long long)-v : (unsigned long long)v;
        m = a > m ? a : m;
        neg |= v < 0;
    }
    for (int o = 16; o > 0; o /= 2) {
        const unsigned long long x = __shfl_xor_sync(0xffffffffu, m, o);
        m = x > m ? x : m;
        neg |= __shfl_xor_sync(0xffffffffu, neg, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (m) atomicMax(r, m);
        if (neg) atomicMax(r + 1, 1ull);
    }
}

// D (rows x cols of ld ldd) into an integer class at out (ld ldo), as
// Octave's saturating sums give it: Inf and lengths past intmax are
// intmax, lengths below intmin intmin; where a length is intmax (no path
// the class can say), P's element (ld ldp, NULL: none) becomes 0.
template <class T, class I>
__global__ void to_class(const T *__restrict__ D, int64_t ldd, I *__restrict__ out, int64_t ldo,
                         int64_t rows, int64_t cols, int *__restrict__ P, int64_t ldp)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < rows * cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e % rows, j = e / rows;
        const T v = D[i + ldd * j];
        const I x = v >= (T)gd_limits<I>::hi   ? gd_limits<I>::hi
                    : v <= (T)gd_limits<I>::lo ? gd_limits<I>::lo
                                               : (I)v;
        out[i + ldo * j] = x;
        if (P && x == gd_limits<I>::hi) P[i + ldp * j] = 0;
    }
}

// Rows [r0, r0 + rows) of D (np columns) from W's (n columns): the
// weights, 0 on the diagonal, NaN padding; P(i,j) = i + 1 where there is
// an edge i -> j (W(i,j) < Inf, i != j), else 0; H(i,j), the edges of the
// path, 1 there, else 0. Row i of D (and P, H) is row i - d0 of an array of
// leading dimension ldd, row i of W row i - w0 of one of ldw: one device
// fills all np rows of whole arrays (d0 = w0 = 0); across devices each its
// slab, kept as an array of the slab's rows (d0 its first row, and W's
// rows of it alone where P is not asked).
template <class T, class I>
__global__ void apsp_init(const I *__restrict__ W, int64_t ldw, int64_t w0, T *__restrict__ D,
                          int64_t ldd, int64_t d0, int *__restrict__ P, int *__restrict__ H,
                          int64_t n, int64_t np, int64_t r0, int64_t rows, int *flags)
{
    int f = 0, v = 0x7fffffff;
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < rows * np;
         q += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = r0 + q % rows, j = q / rows, e = (i - d0) + ldd * j;
        T d = pad_nan<T>();
        int p = 0;
        if (i < n && j < n) {
            const T w = weight_as<T>(W[(i - w0) + ldw * j]);
            if (w != w) f |= F_NAN;
            else if (signbit(w)) f |= F_SIGN;
            if (i == j) {
                if (w < 0) {
                    f |= F_NEGDIAG;
                    v = min(v, (int)i + 1);
                }
                d = 0;
            } else {
                d = w;
                p = w < (T)INFINITY ? (int)i + 1 : 0;
            }
        }
        D[e] = d;
        if (P) P[e] = p;
        if (H) H[e] = p ? 1 : 0;
    }
    if (f) atomicOr(flags, f);
    if (v != 0x7fffffff) atomicMin(flags + 1, v);
}

// a negative cycle: a negative diagonal entry of D
template <class T> __global__ void apsp_diag(const T *__restrict__ D, int64_t n, int64_t np, int *flags)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        if (D[i + np * i] < 0) {
            atomicOr(flags, F_NEGCYCLE);
            atomicMin(flags + 1, (int)i + 1);
        }
}

// a cycle of weight 0 through i != j: D(i,j) + D(j,i) == 0 (bit 16)
template <class T> __global__ void apsp_zero_cycle(const T *__restrict__ D, int64_t n, int64_t np,
                                                   int *flags)
{
    bool z = false;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e % n, j = e / n;
        z |= i < j && D[i + np * j] + D[j + np * i] == 0;
    }
    if (__syncthreads_or(z) && threadIdx.x == 0) atomicOr(flags, 16);
}

