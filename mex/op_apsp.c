/* op_apsp.c - gd_apsp (octave/gd_apsp.m), through __gd__:
 *
 *   [D, P, info] = __gd__('apsp', W, 'Variant', name, 'IndexClass', c)
 *   [D, ~, info] = __gd__('apsp_info', W, ...)   the same without P
 *   [D, P, info] = __gd__('apsp_int', W, ...)       integer classes
 *   [D, ~, info] = __gd__('apsp_int_info', W, ...)  the same without P
 *   list = __gd__('apsp', 'variants')
 *
 * W is an Octave matrix or a gdArray; with a gdArray the results are
 * gdArrays.
 */
#include "gd_mex.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void apsp(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[], int want_p)
{
    static const char FN[] = "gd_apsp";
    const gd_variant_info *list;
    int count = gd_apsp_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, 3, count, list)) return;
    if (nrhs < 1) gd_mex_error(FN, "gd:input", "expected a weight matrix W (see help %s)", FN);
    gd_matrix W;
    int resident = 0;
    gd_mex_operand(FN, "W", prhs[0], &W, &resident);
    if (resident && W.cls != GD_SINGLE && W.cls != GD_DOUBLE)
        gd_mex_error(FN, "gd:input", "W is a %s gdArray: shortest paths on the integer classes "
                     "run on the host, from an Octave matrix (gather (W) first)",
                     gd_mex_class_name(W.cls));
    gd_mex_check_float(FN, "W", &W); /* square: gd_apsp says so (gd:size) */
    static const char *const names[] = {"Variant", "IndexClass"};
    const mxArray *values[2] = {NULL, NULL};
    gd_mex_options(FN, nrhs, prhs, 1, 2, names, values);
    char variant[32] = "auto", pname[16] = "double";
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
    if (values[1]) gd_mex_option_string(FN, "IndexClass", values[1], pname, sizeof pname);
    gd_mex_check_variant(FN, variant, count, list);
    if (strcmp(pname, "double") && strcmp(pname, "int32"))
        gd_mex_error(FN, "gd:input", "'IndexClass' must be 'double' or 'int32', not '%s'", pname);
    const gd_class pcls = strcmp(pname, "int32") ? GD_DOUBLE : GD_INT32;

    const int on_device = W.where == GD_DEVICE;
    gd_mex_result D, P;
    gd_timing t;
    int64_t vertex = 0;
    gd_out dout = gd_mex_result_out(&D, resident, on_device, (size_t)W.rows, (size_t)W.rows, W.cls);
    gd_out pout;
    const int wp = want_p && nlhs > 1;
    if (wp) pout = gd_mex_result_out(&P, resident, on_device, (size_t)W.rows, (size_t)W.rows, pcls);
    gd_status s = gd_apsp(variant, &W, dout, wp ? &pout : NULL, pcls, &vertex, &t);
    gd_mex_take_pair(FN, nlhs, plhs, &D, wp ? &P : NULL, s);
    gd_mex_warn_fallback(FN, &t);
    if (nlhs > 2) {
        const int64_t size[1] = {W.rows};
        plhs[2] = gd_mex_info(&t, W.cls, "steps/s", 1, size, 1);
    }
}

void gd_op_apsp(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    apsp(nlhs, plhs, nrhs, prhs, 1);
}

/* [D, ~, info]: no predecessors ([] in their place) */
void gd_op_apsp_info(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    apsp(nlhs, plhs, nrhs, prhs, 0);
}

/* Shortest paths on the integer classes (gd_apsp.m sends integer W here).
 * The class's largest value is no edge, as Inf is for single and double,
 * and the length of a path to a vertex that cannot be reached; sums
 * saturate as Octave's do. 'cpu': blocked Floyd-Warshall on the host in
 * the class. 'fw': the GPU's Floyd-Warshall in double, for the classes of
 * 32 bits or fewer where the weights prove every sum exact (below);
 * 'auto' takes it from n = 128 where it may and a GPU is there. */

/* Whether Floyd-Warshall in double gives the class's result bit for bit:
 * every weight other than intmax (no edge) in [lo, hi]. Double holds
 * every sum of such weights exactly (they are below 2^32, a path has
 * fewer than 2^21 edges). Non-negative weights: a path's saturated length
 * is min(exact, intmax) in any order of its sums, and a sum past intmax
 * can only grow, so the saturated minimum is the exact one saturated.
 * Negative weights: Floyd-Warshall's lengths are those of simple paths
 * (no negative cycle, else it says so), of at most n - 1 edges, so where
 * (n - 1) max |w| stays inside the class no sum of the host's ever
 * saturates, and both are exact. */
static int exact_in_double(gd_class cls, int64_t n, double lo, double hi)
{
    if (gd_class_bytes(cls) > 4) return 0;
    if (lo >= 0 || lo > hi) return 1; /* non-negative, or no edge at all */
    double cmin = 0, cmax = 0;
    switch (cls) {
    case GD_INT8: cmin = INT8_MIN; cmax = INT8_MAX; break;
    case GD_INT16: cmin = INT16_MIN; cmax = INT16_MAX; break;
    default: cmin = INT32_MIN; cmax = INT32_MAX; break;
    }
    const double most = (double)(n > 1 ? n - 1 : 1) * (hi > -lo ? hi : -lo);
    return most <= cmax && -most >= cmin;
}

/* gd_apsp's GPU Floyd-Warshall on W converted to double; D and P (of
 * class pcls, or not asked: NULL) into new arrays. Returns 0, or 1 where
 * the weights do not prove it exact (nothing made). */
static int apsp_int_gpu(const char *fn, const mxArray *W, gd_class cls, int64_t n, int wp,
                        int p32, int must, mxArray **Dout, mxArray **Pout, gd_timing *t)
{
    /* W in double: host memory of gd's own (no zeroed array: the
     * conversion writes every element) */
    double *Wd = NULL;
    if (gd_class_bytes(cls) <= 4 && !(Wd = (double *)malloc((size_t)(n * n) * 8 + 8)))
        gd_mex_error(fn, "gd:memory", "cannot allocate W in double (%lld x %lld, %.1f MiB) in host "
                     "memory", (long long)n, (long long)n, (double)(n * n) * 8 / 1048576.0);
    double lo = 0, hi = 0;
    if (Wd) gd_cpu_int_to_double(cls, mxGetData(W), Wd, n * n, &lo, &hi);
    if (!Wd || !exact_in_double(cls, n, lo, hi)) {
        free(Wd);
        if (must)
            gd_mex_error(fn, "gd:variant", "'fw' computes the integer classes in double where the "
                         "weights prove every sum exact: int64 and uint64 never, negative weights "
                         "while (n - 1) max |w| stays inside the class; this graph runs on 'cpu'");
        return 1;
    }
    const gd_matrix Wm = gd_host_matrix(Wd, GD_DOUBLE, n, n);
    const gd_class pcls = p32 ? GD_INT32 : GD_DOUBLE;
    gd_mex_out Do, Po;
    memset(&Po, 0, sizeof Po);
    gd_out dout = gd_mex_output(&Do, (size_t)n, (size_t)n, GD_DOUBLE), pout;
    if (wp) pout = gd_mex_output(&Po, (size_t)n, (size_t)n, pcls);
    int64_t vertex = 0;
    const gd_status s = gd_apsp("fw", &Wm, dout, wp ? &pout : NULL, pcls, &vertex, t);
    free(Wd);
    if (s) {
        if (Do.array) mxDestroyArray(Do.array);
        if (Po.array) mxDestroyArray(Po.array);
        gd_mex_fail(fn, s);
    }
    const double t1 = gd_mex_now_ms();
    /* D in the class: an unfilled array (the conversion writes it all) */
    gd_mex_out Di;
    const gd_out dio = gd_mex_output(&Di, (size_t)n, (size_t)n, cls);
    void *dbuf = n ? dio.fn(dio.ctx, (size_t)(n * n) * gd_class_bytes(cls)) : NULL;
    if (n && !dbuf) {
        mxDestroyArray(Do.array);
        if (Po.array) mxDestroyArray(Po.array);
        gd_mex_error(fn, "gd:memory", "cannot allocate D (%lld x %lld %s) in host memory",
                     (long long)n, (long long)n, gd_mex_class_name(cls));
    }
    mxArray *D = n ? Di.array : mxCreateNumericMatrix(0, 0, mxGetClassID(W), mxREAL);
    if (n)
        gd_cpu_double_to_int(cls, mxGetDoubles(Do.array), dbuf, n * n,
                             wp ? mxGetData(Po.array) : NULL, pcls);
    mxDestroyArray(Do.array);
    t->prep_ms += gd_mex_now_ms() - t1;
    snprintf(t->kernel, sizeof t->kernel, "double, exact");
    *Dout = D;
    *Pout = wp ? Po.array : NULL;
    return 0;
}
static void apsp_int(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[], int want_p)
{
    static const char FN[] = "gd_apsp";
    if (nlhs > 3) gd_mex_error(FN, "gd:input", "too many outputs (at most D, P and info)");
    if (nrhs < 1) gd_mex_error(FN, "gd:input", "expected a weight matrix W (see help %s)", FN);
    const mxArray *W = prhs[0];
    const int c = gd_mex_int_class(W);
    if (c < 0) gd_mex_error(FN, "gd:input", "W must be an integer matrix here, not %s", mxGetClassName(W));
    if (mxIsComplex(W) || mxIsSparse(W) || mxGetNumberOfDimensions(W) != 2)
        gd_mex_error(FN, "gd:input", "W must be a real, full, 2-D matrix");
    const int64_t n = (int64_t)mxGetM(W);
    if ((int64_t)mxGetN(W) != n)
        gd_mex_error(FN, "gd:size", "W must be square (an n x n weight matrix), not %lldx%lld",
                     (long long)n, (long long)mxGetN(W));
    const gd_variant_info *list;
    const int count = gd_apsp_variants(&list);
    char variant[32];
    const int p32 = gd_mex_int_options(FN, nrhs, prhs, 1, count, list, "fw", variant);
    if ((double)n * (double)n > 1e12)
        gd_mex_error(FN, "gd:size", "D would have %lldx%lld elements: more than host memory holds",
                     (long long)n, (long long)n);
    if (n >= INT32_MAX)
        gd_mex_error(FN, "gd:size", "W has %lld vertices: the predecessors are int32", (long long)n);

    gd_timing t;
    memset(&t, 0, sizeof t);
    const double t0 = gd_mex_now_ms();
    const int wp = want_p && nlhs > 1;
    /* the GPU: 'fw', or 'auto' from n = 128 with a GPU there */
    int gpu = !strcmp(variant, "fw") && n > 0;
    if (!strcmp(variant, "auto") && n >= 128 && gd_class_bytes((gd_class)c) <= 4) {
        gd_device_info d;
        gd_device_query(&d);
        gpu = d.available;
        if (!gpu) snprintf(t.fallback, sizeof t.fallback, "%s", d.reason);
    }
    if (gpu) {
        mxArray *Dg = NULL, *Pg = NULL;
        if (!apsp_int_gpu(FN, W, (gd_class)c, n, wp, p32, !strcmp(variant, "fw"), &Dg, &Pg, &t)) {
            t.total_ms = gd_mex_now_ms() - t0;
            gd_mex_warn_fallback(FN, &t);
            plhs[0] = Dg;
            if (nlhs > 1) plhs[1] = Pg ? Pg : mxCreateDoubleMatrix(0, 0, mxREAL);
            if (nlhs > 2) {
                const int64_t size[1] = {n};
                plhs[2] = gd_mex_info(&t, (gd_class)c, "steps/s", 1, size, 1);
            }
            return;
        }
        memset(&t, 0, sizeof t);
    }
    mxArray *D = mxCreateNumericMatrix((mwSize)n, (mwSize)n, mxGetClassID(W), mxREAL);
    mxArray *Pout = NULL;
    int32_t *P = NULL;
    if (wp) Pout = gd_mex_index_out(n, n, p32, &P);
    int64_t cycle = 0;
    const double t1 = gd_mex_now_ms();
    const int rc = gd_cpu_apsp_int((gd_class)c, mxGetData(W), n, mxGetData(D), P, n, &cycle);
    t.kernel_ms = gd_mex_now_ms() - t1;
    if (rc == 2)
        gd_mex_error(FN, "gd:negcycle", "the graph has a negative cycle: W(%lld,%lld) < 0 (a "
                     "negative self-loop)", (long long)cycle, (long long)cycle);
    if (rc == 1)
        gd_mex_error(FN, "gd:negcycle", "the graph has a negative cycle: a closed path through "
                     "vertex %lld has negative length", (long long)cycle);
    if (rc)
        gd_mex_error(FN, "gd:memory", "cannot allocate the edge counts (%lld x %lld int32) in "
                     "host memory", (long long)n, (long long)n);
    if (Pout) gd_mex_index_done(Pout, P);
    gd_mex_host_timing(&t, (double)n * (double)n * (double)n, t0);
    plhs[0] = D;
    if (nlhs > 1) plhs[1] = wp ? Pout : mxCreateDoubleMatrix(0, 0, mxREAL);
    if (nlhs > 2) {
        const int64_t size[1] = {n};
        plhs[2] = gd_mex_info(&t, (gd_class)c, "steps/s", 1, size, 1);
    }
}

void gd_op_apsp_int(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    apsp_int(nlhs, plhs, nrhs, prhs, 1);
}

/* [D, ~, info]: no predecessors */
void gd_op_apsp_int_info(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    apsp_int(nlhs, plhs, nrhs, prhs, 0);
}
