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

enum { EW_PLUS, EW_MINUS, EW_TIMES, EW_RDIVIDE, EW_MAX2, EW_MIN2, EW_MOD, EW_REM, EW_POWER, EW_NOPS2 };
enum { EW_NEG, EW_ABS, EW_SQRT, EW_FLOOR, EW_CEIL, EW_ROUND, EW_FIX, EW_SIGN,
       EW_EXP, EW_LOG, EW_LOG2, EW_LOG1P, EW_EXPM1, EW_SIN, EW_COS, EW_TANH, EW_NOPS1 };
/* the comparisons and & |: a logical result (0 or 1, a byte) */
enum { EW_EQ, EW_NE, EW_LT, EW_LE, EW_GT, EW_GE, EW_AND, EW_OR, EW_NCMP };
/* the tests of one element, a logical result: isnan, isinf, isfinite, and
 * logical and ~ (x != 0 and x == 0; NaN has no truth value: the caller's
 * error) */
enum { EW_ISNAN, EW_ISINF, EW_ISFINITE, EW_TRUTH, EW_NOT, EW_NTEST };

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

/* x rounded to the nearest (halves up), as Octave's x_nint */
template <class T> GD_EW T ew_nint(T x) { return std::isfinite(x) ? std::floor(x + (T)0.5) : x; }

/* Octave's mod and rem of single or double (lo-mappers.h): x - n y with n
 * floor (x / y) (mod) or fix (x / y) (rem), the product and the
 * difference rounded each (never fused); 0 where y is not whole and x / y
 * is within eps of a whole number; y = 0: x (mod) or NaN (rem); the
 * result's sign y's (mod) or x's (rem) unless x == y */
template <class T> GD_EW T ew_float_modrem(int op, T x, T y)
{
    const T eps = sizeof(T) == 4 ? (T)1.1920928955078125e-07 : (T)2.220446049250313e-16;
    T r;
    if (y == 0) {
        r = op == EW_MOD ? x : (T)NAN;
    } else {
        const T q = x / y, nq = ew_nint(q);
        if (ew_nint(y) != y && std::fabs((q - nq) / nq) < eps) {
            r = 0;
        } else {
            const T n = op == EW_MOD ? std::floor(q) : std::trunc(q);
#ifdef __CUDA_ARCH__
            if constexpr (sizeof(T) == 4) r = __fsub_rn(x, __fmul_rn(y, n));
            else r = __dsub_rn(x, __dmul_rn(y, n));
#else
            volatile T p = y * n;
            r = x - p;
#endif
        }
    }
    if (x != y && y != 0) r = std::copysign(r, op == EW_MOD ? y : x);
    return r;
}

/* the same of an integer class (oct-inttypes.h): rem's sign x's, mod's
 * y's; y = 0: 0 (rem) or x (mod). (intmin and -1 give 0, where C's %
 * traps: the remainder is taken one size wider) */
template <class T> GD_EW T ew_int_modrem(int op, T x, T y)
{
    typedef typename std::conditional<(sizeof(T) < 8), int64_t, ew_wide>::type W;
    if (y == 0) return op == EW_MOD ? x : (T)0;
    const W r = (W)x % (W)y;
    if (op == EW_REM || r == 0) return (T)r;
    return (T)((r < 0) != ((W)y < 0) ? r + (W)y : r);
}

/* a ^ b of an integer class (oct-inttypes' pow): by repeated squaring,
 * each product saturated; b < 0: 0, but a = -1 gives +-1 */
template <class T> GD_EW T ew_int_pow(T a, T b)
{
    if (b == 0 || a == 1) return (T)1;
    if constexpr (std::is_signed<T>::value)
        if (b < 0) return a == (T)-1 ? (b % 2 ? a : (T)1) : (T)0;
    T r = a, s = a;
    for (T e = b - 1; e != 0;) {
        if (e & 1) r = ew_int_op<T>(EW_TIMES, r, s);
        e = e >> 1;
        if (e) s = ew_int_op<T>(EW_TIMES, s, s);
    }
    return r;
}

/* a .^ b as Octave's elem_xpow gives it in class TR: the floating classes
 * x * x, x * x * x and 1 / x for the powers 2, 3 and -1, else the
 * library's pow in TR (within its ulps, the device's CUDA's); an
 * integer class with itself its pow above; an integer a and a floating b:
 * that pow where b is whole in 0 .. the class's digits - 1, else pow in
 * b's class rounded to TR; a floating a and an integer b: pow in a's
 * class rounded to TR */
template <class TR, class TA, class TB> GD_EW TR ew_power(TA a, TB b)
{
    if constexpr (!std::is_integral<TR>::value) {
        const TR x = (TR)a, y = (TR)b;
        /* Octave's elem_xpow: 2, 3 and -1 by products, else pow */
        if (y == 2) return x * x;
        if (y == 3) return x * x * x;
        if (y == -1) return (TR)1 / x;
        return std::pow(x, y);
    } else if constexpr (std::is_integral<TA>::value && std::is_integral<TB>::value) {
        return ew_int_pow<TR>((TR)a, (TR)b);
    } else if constexpr (std::is_integral<TA>::value) {
        const int digits = (int)(sizeof(TR) * 8) - (std::is_signed<TR>::value ? 1 : 0);
        if (b >= 0 && b < (TB)digits && b == std::round(b)) return ew_int_pow<TR>((TR)a, (TR)b);
        return ew_from_double<TR>((double)std::pow((TB)a, b));
    } else {
        return ew_from_double<TR>((double)std::pow(a, (TA)b));
    }
}

/* the order of an integer and a double as Octave's emulated comparison
 * takes them (oct-inttypes): -1, 0 or 1, 2 where y is NaN. Where the
 * double nearest x differs from y, that order; where it equals y, the two
 * as integers, but at the class's ends (x's double 2^63, or 2^64 unsigned,
 * or -2^63) the integer the larger (the smaller at -2^63) */
template <class TI> GD_EW int ew_order_int_double(TI x, double y)
{
    if (y != y) return 2;
    const double xd = (double)x;
    if (xd != y) return xd < y ? -1 : 1;
    if (sizeof(TI) < 8) return 0;
    if (std::is_signed<TI>::value) {
        if (xd == 9223372036854775808.0) return 1;
        if (xd == -9223372036854775808.0) return -1;
        const int64_t yi = (int64_t)xd, xi = (int64_t)x;
        return xi < yi ? -1 : xi > yi ? 1 : 0;
    }
    if (xd == 18446744073709551616.0) return 1;
    const uint64_t yi = (uint64_t)xd, xu = (uint64_t)x;
    return xu < yi ? -1 : xu > yi ? 1 : 0;
}

/* the order of a and b as Octave compares them: two floating classes in
 * single where either is single (Octave converts the double), two of one
 * integer class as they are, an integer class and double as above; 2
 * unordered (NaN) */
template <class TA, class TB> GD_EW int ew_order(TA a, TB b)
{
    if constexpr (std::is_integral<TA>::value && !std::is_integral<TB>::value) {
        return ew_order_int_double<TA>(a, (double)b);
    } else if constexpr (!std::is_integral<TA>::value && std::is_integral<TB>::value) {
        const int o = ew_order_int_double<TB>(b, (double)a);
        return o == 2 ? 2 : -o;
    } else if constexpr (!std::is_integral<TA>::value) {
        typedef typename std::conditional<(sizeof(TA) == 4 || sizeof(TB) == 4), float, double>::type C;
        const C x = (C)a, y = (C)b;
        return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
    } else {
        static_assert(std::is_same<TA, TB>::value, "two integer classes: one class");
        return a < b ? -1 : a > b ? 1 : 0;
    }
}

/* a comparison (or & and | of two logical bytes): 0 or 1 */
template <class TA, class TB> GD_EW uint8_t ew_compare(int op, TA a, TB b)
{
    if (op == EW_AND) return a != 0 && b != 0;
    if (op == EW_OR) return a != 0 || b != 0;
    const int o = ew_order<TA, TB>(a, b);
    switch (op) {
    case EW_EQ: return o == 0;
    case EW_NE: return o != 0;
    case EW_LT: return o == -1;
    case EW_LE: return o == -1 || o == 0;
    case EW_GT: return o == 1;
    default: return o == 1 || o == 0;
    }
}

/* a test of one element: 0 or 1 (EW_TRUTH and EW_NOT of NaN: 0, the
 * caller's to refuse by ew_nan) */
template <class T> GD_EW uint8_t ew_test(int op, T x)
{
    if constexpr (std::is_integral<T>::value) {
        return op == EW_ISFINITE || (op == EW_TRUTH && x != 0) || (op == EW_NOT && x == 0);
    } else {
        switch (op) {
        case EW_ISNAN: return std::isnan(x);
        case EW_ISINF: return std::isinf(x);
        case EW_ISFINITE: return std::isfinite(x);
        case EW_TRUTH: return x == x && x != 0;
        default: return x == 0;
        }
    }
}

/* what an element of A (of TA) and of B (of TB) give in the result's
 * class TR: the three rules above; max and min (two arrays) take both in
 * TR first, as Octave converts them */
template <class TR, class TA, class TB> struct ew_binary {
    GD_EW TR apply(int op, TA a, TB b)
    {
        if (op == EW_MAX2 || op == EW_MIN2)
            return ew_max_min<TR>(op, ew_convert<TR, TA>(a), ew_convert<TR, TB>(b));
        if (op == EW_POWER) return ew_power<TR, TA, TB>(a, b);
        if (op == EW_MOD || op == EW_REM) { /* (an integer result: the floating */
            if constexpr (std::is_integral<TR>::value) /* operand converted first) */
                return ew_int_modrem<TR>(op, ew_convert<TR, TA>(a), ew_convert<TR, TB>(b));
            else
                return ew_float_modrem<TR>(op, (TR)a, (TR)b);
        }
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

enum { EW_SUM, EW_PROD, EW_MAX, EW_MIN, EW_NNZ, EW_ANY, EW_ALL, EW_NREDUCE };

#ifdef __CUDACC__
#define GD_EW_M __host__ __device__ __forceinline__
#else
#define GD_EW_M inline
#endif

/* one output of a reduction, or a partial of it over some of its elements
 * (the host's loop; the device's parts, ops/ew/reduce.cu): sum and prod
 * in order in the result's class (each element converted first), fed the
 * elements in order; max and min the first extreme, NaN skipped unless
 * every element is NaN (then the first), w its place (0-based); nnz the
 * count of elements that are not 0 (NaN is not); any and all as Octave's
 * (any takes NaN as false, all as true), a logical byte. Within a partial
 * the places rise; partials of max, min, nnz, any and all merged in any
 * order give the whole's answer (the first place among equal extremes). */
#define EW_EMPTY INT64_MAX
template <class TR, class TA> struct ew_reducer {
    TR acc;
    TA m;
    int64_t w; /* EW_EMPTY: no element yet */
    GD_EW_M void start(int op)
    {
        acc = op == EW_PROD || op == EW_ALL ? (TR)1 : (TR)0;
        m = TA(0);
        w = EW_EMPTY;
    }
    GD_EW_M void add(int op, TA x, int64_t at)
    {
        if (op == EW_SUM) acc = acc + (TR)x;
        else if (op == EW_PROD) acc = acc * (TR)x;
        else if (op == EW_NNZ) acc += !(x == 0);
        else if (op == EW_ANY) acc = acc || (x == x && !(x == 0));
        else if (op == EW_ALL) acc = acc && !(x == 0);
        else if (w == EW_EMPTY || (!(x != x) && (m != m || (op == EW_MAX ? x > m : x < m)))) {
            m = x;
            w = at;
        }
    }
    /* another partial's acc, m and w (not sum or prod: they keep an order) */
    GD_EW_M void merge(int op, TR bacc, TA bm, int64_t bw)
    {
        if (op == EW_NNZ) acc += bacc;
        else if (op == EW_ANY) acc = acc || bacc;
        else if (op == EW_ALL) acc = acc && bacc;
        else if (bw != EW_EMPTY) {
            const bool an = m != m, bn = bm != bm;
            if (w == EW_EMPTY || (an != bn ? an : an ? bw < w
                                           : (op == EW_MAX ? bm > m : bm < m) || (bm == m && bw < w))) {
                m = bm;
                w = bw;
            }
        }
    }
    GD_EW_M TR result(int op) const { return op == EW_MAX || op == EW_MIN ? (TR)m : acc; }
};

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

/* the unary operations: -, abs, sqrt, floor, ceil, round (halves away
 * from zero), fix, sign (0 for -0, NaN for NaN). In single each is the
 * double one rounded to single: exact for these (sqrt's double result
 * rounds to single correctly). An integer class: - and abs saturated,
 * sign -1, 0 or 1, the roundings itself (sqrt is the caller's, in double). */
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
