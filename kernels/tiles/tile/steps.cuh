/* tiles/tile/steps.cuh - 16-byte vectors, a thread's offsets, and the steps: the semirings and distance steps a tile accumulates by.
 * Part of tile.cuh, which includes it inside namespace gd_tile, in order. */
enum { TILE = 64, KS = 4 };

// A 16-byte vector of T: the widest load one thread can issue.
template <class T> struct vec16;
template <> struct vec16<float> { typedef float4 type; enum { N = 4 }; };
template <> struct vec16<double> { typedef double2 type; enum { N = 2 }; };
// the integer lanes of min-plus on the integer classes (minplus_int.cu)
template <> struct vec16<int> { typedef int4 type; enum { N = 4 }; };
template <> struct vec16<long long> { typedef longlong2 type; enum { N = 2 }; };

__device__ __forceinline__ void unpack(float *d, float4 v) { d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w; }
__device__ __forceinline__ void unpack(double *d, double2 v) { d[0] = v.x; d[1] = v.y; }
__device__ __forceinline__ float4 pack(const float *s) { return make_float4(s[0], s[1], s[2], s[3]); }
__device__ __forceinline__ double2 pack(const double *s) { return make_double2(s[0], s[1]); }
__device__ __forceinline__ void unpack(int *d, int4 v) { d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w; }
__device__ __forceinline__ void unpack(long long *d, longlong2 v) { d[0] = v.x; d[1] = v.y; }
__device__ __forceinline__ int4 pack(const int *s) { return make_int4(s[0], s[1], s[2], s[3]); }
__device__ __forceinline__ longlong2 pack(const long long *s) { return make_longlong2(s[0], s[1]); }

// Offset within the tile of register row (or column) b of thread a.
template <class T> __device__ __forceinline__ int offset(int a, int b)
{
    enum { W = vec16<T>::N };
    return (b / W) * 8 * W + a * W + b % W;
}

// The value a result is stored as, when nothing is applied to it.
struct identity {
    template <class T> __device__ T operator()(T x) const { return x; }
};

// The semirings. init: the accumulator's start; step: one k-step (K = 1),
// or step2: two k-steps at once (K = 2).
struct muladd {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b) { acc = fmaf(a, b, acc); }
    __device__ static void step(double &acc, double a, double b) { acc = fma(a, b, acc); }
};
struct minplus {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)NAN; }
    __device__ static void step(float &acc, float a, float b) { acc = fminf(acc, a + b); }
    __device__ static void step(double &acc, double a, double b) { acc = fmin(acc, a + b); }
};
// min-plus in double by a compare and a select: a sum takes the
// accumulator's place where it is below it (DSETP and two FSEL: 20.3 steps
// a clock an SM on an H100, fmin's DSETP.MIN and selects 13.0;
// kernels/NOTES.md). A NaN sum is never below, so NaN terms are skipped as
// fmin skips them, and of equal sums the first stays, as Octave's min
// keeps the first (+0 and -0 as they come). The accumulator starts at
// +Inf, so an output whose every term is NaN reads +Inf: the caller makes
// those NaN afterwards (minplus.cu's all_nan).
struct minplus_sel {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)INFINITY; }
    template <class T> __device__ static void step(T &acc, T a, T b)
    {
        const T s = a + b;
        acc = s < acc ? s : acc;
    }
};
// min-plus in single for operands whose sign bits are all clear (+0, the
// positive numbers, +Inf) or that are NaN. Every sum is then +0 ... +Inf or
// the canonical NaN 0x7fffffff, and on those the order of the floats is the
// order of their bit patterns read as integers, with the NaN above +Inf:
// an integer min picks the same operand fminf does, NaN included (ignored
// unless every term is NaN). sm_90 has a three-input integer min
// (VIMNMX3): two k-steps take two FADD and one min instead of two of each.
// Older GPUs run two two-input mins instead (not measured there).
struct minplus_nonneg {
    enum { K = 2, WITNESS = 0 };
    template <class T> __device__ static T init() { return __int_as_float(0x7fffffff); }
    __device__ static void step2(float &acc, float a0, float b0, float a1, float b1)
    {
        acc = __int_as_float(__vimin3_s32(__float_as_int(acc), __float_as_int(a0 + b0),
                                          __float_as_int(a1 + b1)));
    }
};
// min-plus in single for any operands, where a sum is negative: read as
// unsigned integers, the bit patterns of the negative floats (-0 excluded)
// lie above every other sum's (NaN 0x7fffffff included) and grow with the
// magnitude, so the integer max of the sums is the most negative one, the
// float min, whenever one sum is below zero. The three-input VIMNMX3 again:
// 1.5 instructions a step. Where no sum is negative the result is not the
// min; the caller finds those outputs (bits at most 0x80000000) and computes
// them again with fminf (minplus.cu, the sign split).
struct minplus_negmax {
    enum { K = 2, WITNESS = 0 };
    template <class T> __device__ static T init() { return __uint_as_float(0u); }
    __device__ static void step2(float &acc, float a0, float b0, float a1, float b1)
    {
        acc = __uint_as_float(__vimax3_u32(__float_as_uint(acc), __float_as_uint(a0 + b0),
                                           __float_as_uint(a1 + b1)));
    }
};
struct sqdist {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    template <class T> __device__ static void step(T &acc, T a, T b)
    {
        const T d = a - b;
        acc += d * d;
    }
};
// cityblock: sum |x - y| (an FADD and an FADD whose operand takes the
// absolute value: no extra instruction)
struct absdist {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b) { acc += fabsf(a - b); }
    __device__ static void step(double &acc, double a, double b) { acc += fabs(a - b); }
};
// cosine's dot product, each product and sum rounded on its own (no FFMA):
// the host's loop to the bit, and its norms' too
struct dot_rn {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b) { acc = __fadd_rn(acc, __fmul_rn(a, b)); }
    __device__ static void step(double &acc, double a, double b) { acc = __dadd_rn(acc, __dmul_rn(a, b)); }
};
// hamming: the count of x != y (NaN counts; the epilogue makes such rows'
// distances NaN)
struct neq {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    template <class T> __device__ static void step(T &acc, T a, T b) { acc += a != b ? (T)1 : (T)0; }
};
// jaccard: two counts in the accumulator's bits, x != y in the low half,
// x != 0 or y != 0 in the high half (16 bits each in single, so at most
// 65535 features; 32 in double); the epilogue divides them
struct jaccard_counts {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b)
    {
        acc = __int_as_float(__float_as_int(acc) + (a != b ? 1 : 0) + (a != 0 || b != 0 ? 0x10000 : 0));
    }
    __device__ static void step(double &acc, double a, double b)
    {
        acc = __longlong_as_double(__double_as_longlong(acc) + (a != b ? 1 : 0) +
                                   (a != 0 || b != 0 ? 0x100000000ll : 0));
    }
};
// chebychev: max |x - y|, NaN kept. |x - y| is +0 ... +Inf or a NaN with
// its sign bit clear, above +Inf as an integer: the integer max of the bit
// patterns is the float max, and once NaN stays NaN (as the host's loop).
// The sign bit is cleared by an integer and, not fabs: with fabs, the
// fused nearest neighbours in double lost the NaN of Inf - Inf to the
// other columns' values (so its bits were negative as an integer), where
// single and cityblock kept it (the fuzz found it).
struct maxabs {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b)
    {
        acc = __int_as_float(max(__float_as_int(acc), __float_as_int(a - b) & 0x7fffffff));
    }
    __device__ static void step(double &acc, double a, double b)
    {
        acc = __longlong_as_double(
            max(__double_as_longlong(acc), __double_as_longlong(a - b) & 0x7fffffffffffffffll));
    }
};

