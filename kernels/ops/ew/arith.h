/* ops/ew/arith.h - Octave's element-wise arithmetic, one element at a
 * time, the same code on the host and the device (ew.cu), so that the
 * host's loop (the no-GPU path, which the tests hold against Octave's own
 * operators) checks the device's arithmetic too.
 *
 * The rules (Octave's, measured against it in tests/check_ew.m):
 *  - single or double results: both operands in the result's class first
 *    (single + double is single (a) + single (b)), then one IEEE
 *    operation;
 *  - an integer class T with itself: the exact result, saturated to T;
 *    division rounds to the nearest, halves away from zero; x / 0 is
 *    intmax, intmin or 0 by x's sign;
 *  - T with a double (or single): the operation in double, the result
 *    rounded to the nearest (halves away from zero), saturated, NaN 0
 *    (int64 and uint64 beside a floating operand are not here: Octave's
 *    exact form needs more than a double).
 */
#ifndef GD_EW_ARITH_H
#define GD_EW_ARITH_H

#include <cmath>
#include <math.h>
#include <stdint.h>
#include <type_traits>

#ifdef __CUDACC__
#define GD_EW static __host__ __device__ __forceinline__
#else
#define GD_EW static inline
#endif

enum { EW_PLUS, EW_MINUS, EW_TIMES, EW_RDIVIDE, EW_MAX2, EW_MIN2, EW_NOPS2 };
enum { EW_NEG, EW_ABS, EW_SQRT, EW_FLOOR, EW_CEIL, EW_ROUND, EW_FIX, EW_SIGN,
       EW_EXP, EW_LOG, EW_LOG2, EW_LOG1P, EW_EXPM1, EW_SIN, EW_COS, EW_TANH, EW_NOPS1 };

template <class T> struct ew_limits;
#define GD_EW_LIMITS(T, LO, HI)                                                            \
    template <> struct ew_limits<T> {                                                      \
        GD_EW T lo() { return (T)(LO); }                                                   \
        GD_EW T hi() { return (T)(HI); }                                                   \
    };
GD_EW_LIMITS(int8_t, -128, 127)
GD_EW_LIMITS(uint8_t, 0, 255)
GD_EW_LIMITS(int16_t, -32768, 32767)
GD_EW_LIMITS(uint16_t, 0, 65535)
GD_EW_LIMITS(int32_t, -2147483647 - 1, 2147483647)
GD_EW_LIMITS(uint32_t, 0, 4294967295u)
GD_EW_LIMITS(int64_t, INT64_MIN, INT64_MAX)
GD_EW_LIMITS(uint64_t, 0, UINT64_MAX)

/* a double as Octave's integer conversion makes it: NaN 0, rounded to the
 * nearest with halves away from zero, saturated */
template <class T> GD_EW T ew_from_double(double x)
{
    if (x != x) return (T)0;
    const double r = round(x);
    if (r <= (double)ew_limits<T>::lo()) return ew_limits<T>::lo();
    if (r >= (double)ew_limits<T>::hi()) return ew_limits<T>::hi();
    return (T)r;
}

/* the exact value of an integer operation, as a 128-bit integer where the
 * class is 64-bit, saturated to T */
#ifdef __SIZEOF_INT128__
typedef __int128 ew_wide;
#else
typedef int64_t ew_wide; /* (every compiler gd builds with has __int128) */
#endif
template <class T> GD_EW T ew_saturate(ew_wide x)
{
    if (x < (ew_wide)ew_limits<T>::lo()) return ew_limits<T>::lo();
    if (x > (ew_wide)ew_limits<T>::hi()) return ew_limits<T>::hi();
    return (T)x;
}

/* x / y rounded to the nearest, halves away from zero; y = 0: by x's sign */
template <class T> GD_EW T ew_int_divide(T x, T y)
{
    if (y == 0) return x == 0 ? (T)0 : (ew_wide)x > 0 ? ew_limits<T>::hi() : ew_limits<T>::lo();
    const ew_wide a = (ew_wide)x, b = (ew_wide)y;
    ew_wide q = a / b, r = a % b;
    const ew_wide ar = r < 0 ? -r : r, ab = b < 0 ? -b : b;
    if (2 * ar >= ab) q += (a < 0) != (b < 0) ? -1 : 1;
    return ew_saturate<T>(q);
}

template <class T> GD_EW T ew_int_op(int op, T x, T y)
{
    const ew_wide a = (ew_wide)x, b = (ew_wide)y;
    switch (op) {
    case EW_PLUS: return ew_saturate<T>(a + b);
    case EW_MINUS: return ew_saturate<T>(a - b);
    case EW_TIMES:
        if constexpr (sizeof(T) == 8 && T(-1) > T(0)) { /* uint64: past int128's range */
            const unsigned __int128 p = (unsigned __int128)x * (unsigned __int128)y;
            return p > (unsigned __int128)ew_limits<T>::hi() ? ew_limits<T>::hi() : (T)p;
        } else {
            return ew_saturate<T>(a * b);
        }
    default: return ew_int_divide<T>(x, y);
    }
}

template <class C> GD_EW C ew_float_op(int op, C x, C y)
{
    switch (op) {
    case EW_PLUS: return x + y;
    case EW_MINUS: return x - y;
    case EW_TIMES: return x * y;
    default: return x / y;
    }
}

template <class TR, class TA> GD_EW TR ew_convert(TA a);

/* the larger (smaller) of two of one class as Octave's max (min) takes
 * it: x where y is NaN, else x where they tie (max ([-0 0], [0 -0]) is
 * [-0 0]; the caller swaps a scalar first operand, as Octave does) */
template <class T> GD_EW T ew_max_min(int op, T x, T y)
{
    if (y != y) return x;
    return (op == EW_MAX2 ? x >= y : x <= y) ? x : y;
}

/* what an element of A (of TA) and of B (of TB) give in the result's
 * class TR: the three rules above; max and min (two arrays) take both in
 * TR first, as Octave converts them */
template <class TR, class TA, class TB> struct ew_binary {
    GD_EW TR apply(int op, TA a, TB b)
    {
        if (op == EW_MAX2 || op == EW_MIN2)
            return ew_max_min<TR>(op, ew_convert<TR, TA>(a), ew_convert<TR, TB>(b));
        if constexpr (!std::is_integral<TR>::value) {
            return ew_float_op<TR>(op, (TR)a, (TR)b);
        } else if constexpr (std::is_integral<TA>::value && std::is_integral<TB>::value) {
            return ew_int_op<TR>(op, (TR)a, (TR)b);
        } else {
            return ew_from_double<TR>(ew_float_op<double>(op, (double)a, (double)b));
        }
    }
};

/* an element of class TA as class TR, as Octave converts it: to an
 * integer class rounded to the nearest (halves away from zero), saturated,
 * NaN 0; to single or double rounded to the nearest */
template <class TR, class TA> GD_EW TR ew_convert(TA a)
{
    if constexpr (std::is_integral<TR>::value && std::is_integral<TA>::value) {
        return ew_saturate<TR>((ew_wide)a);
    } else if constexpr (std::is_integral<TR>::value) {
        return ew_from_double<TR>((double)a);
    } else {
        return (TR)a;
    }
}

enum { EW_SUM, EW_PROD, EW_MAX, EW_MIN, EW_NNZ, EW_NREDUCE };

/* one output of a reduction over n elements a step apart, as Octave's
 * loops go: sum and prod in order in the result's class (each element
 * converted first); max and min the first extreme, NaN skipped unless
 * every element is NaN (then the first), *at its place (0-based) */
template <class TR, class TA>
GD_EW TR ew_reduce_one(int op, const TA *a, int64_t n, int64_t step, int64_t *at)
{
    if (op == EW_NNZ) { /* the elements that are not 0 (NaN is not) */
        TR count = 0;
        for (int64_t k = 0; k < n; ++k) count += !(a[k * step] == 0);
        return count;
    }
    if (op == EW_SUM || op == EW_PROD) {
        TR acc = op == EW_SUM ? (TR)0 : (TR)1;
        for (int64_t k = 0; k < n; ++k) acc = op == EW_SUM ? acc + (TR)a[k * step] : acc * (TR)a[k * step];
        return acc;
    }
    TA m = a[0];
    int64_t w = 0;
    for (int64_t k = 1; k < n; ++k) {
        const TA x = a[k * step];
        if (!(x != x) && (m != m || (op == EW_MAX ? x > m : x < m))) {
            m = x;
            w = k;
        }
    }
    *at = w;
    return (TR)m;
}

/* the unary operations: -, abs, sqrt, floor, ceil, round (halves away
 * from zero), fix, sign (0 for -0, NaN for NaN). In single each is the
 * double one rounded to single: exact for these (sqrt's double result
 * rounds to single correctly). An integer class: - and abs saturated,
 * sign -1, 0 or 1, the roundings itself (sqrt is the caller's, in double). */
/* one line of a cumulative sum (op EW_SUM) or product (EW_PROD), in
 * order, each partial written */
template <class TR, class TA>
GD_EW void ew_scan_line(int op, const TA *a, int64_t n, int64_t step, TR *r, int64_t rstep)
{
    TR acc = op == EW_SUM ? (TR)0 : (TR)1;
    for (int64_t k = 0; k < n; ++k) {
        acc = op == EW_SUM ? acc + (TR)a[k * step] : acc * (TR)a[k * step];
        r[k * rstep] = acc;
    }
}

template <class T> GD_EW T ew_unary_op(int op, T x)
{
    if constexpr (std::is_integral<T>::value) {
        const ew_wide a = (ew_wide)x;
        switch (op) {
        case EW_NEG: return ew_saturate<T>(-a);
        case EW_ABS: return ew_saturate<T>(a < 0 ? -a : a);
        case EW_SIGN: return (T)(a > 0 ? 1 : a < 0 ? -1 : 0);
        default: return x; /* (the roundings; the functions are the caller's, in double) */
        }
    } else {
        const double d = (double)x;
        switch (op) {
        case EW_NEG: return -x;
        case EW_ABS: return (T)fabs(d);
        case EW_SQRT: return (T)sqrt(d);
        case EW_FLOOR: return (T)floor(d);
        case EW_CEIL: return (T)ceil(d);
        case EW_ROUND: return (T)round(d);
        case EW_FIX: return (T)trunc(d);
        case EW_SIGN: return x > 0 ? (T)1 : x < 0 ? (T)-1 : x == 0 ? (T)0 : x;
        /* the library's function in the class's own precision (Octave's
         * std::exp of a float is expf); the device's is CUDA's, within its
         * documented ulps */
        case EW_EXP: return std::exp(x);
        case EW_LOG: return std::log(x);
        case EW_LOG2: return std::log2(x);
        case EW_LOG1P: return std::log1p(x);
        case EW_EXPM1: return std::expm1(x);
        case EW_SIN: return std::sin(x);
        case EW_COS: return std::cos(x);
        default: return std::tanh(x);
        }
    }
}

#endif
