/* op_product.c - gd_minplus and gd_sgemm (octave/gd_minplus.m,
 * octave/gd_sgemm.m), through __gd__:
 *
 *   R = __gd__('minplus', A)            A (x) A, A square
 *   R = __gd__('minplus', A, B)         m x k (x) k x n
 *   [R, K, info] = __gd__('minplus', ..., 'Variant', name, 'IndexClass', c)
 *                                       K: the witness (where the minimum is)
 *   [R, ~, info] = __gd__('minplus_info', ...)   the same without K
 *   [R, K, info] = __gd__('minplus_int', A [, B], ...)   integer classes
 *   [R, ~, info] = __gd__('minplus_int_info', ...)       the same without K
 *   C = __gd__('sgemm', A, B, 'Variant', name, 'Edges', 'pad'|'guard')
 *   list = __gd__('minplus', 'variants')
 *
 * A and B are Octave matrices or gdArrays; with any gdArray the result is
 * a gdArray (on the device, or held on the host where there is no GPU).
 */
#include "gd_mex.h"

#include <stdio.h>
#include <string.h>

/* min-plus on the integer classes, with Octave's saturating addition
 * (gd_minplus.m sends integer operands here): 'v5' on the GPU
 * (minplus_int.cu: DPX tiles), 'cpu' on the host, which alone gives the
 * witness; 'auto' takes the GPU where there is one and the product is not
 * tiny, unless K is asked for. Both operands of one integer class: Octave
 * computes a sum of an integer and a double in double and rounds it, and
 * gd does not guess which the user meant. witness: K may be asked for
 * ([R, ~, info] comes through 'minplus_int_info' without it). */
static void minplus_int(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[], int witness)
{
    static const char FN[] = "gd_minplus";
    if (nlhs > 3) gd_mex_error(FN, "gd:input", "too many outputs (at most R, K and info)");
    if (nrhs < 1) gd_mex_error(FN, "gd:input", "expected a matrix A (see help %s)", FN);
    const mxArray *A = prhs[0];
    const mxArray *B = nrhs > 1 && !mxIsChar(prhs[1]) ? prhs[1] : NULL;
    const int first = B ? 2 : 1;
    for (int o = 0; o < first; ++o) {
        const mxArray *a = prhs[o];
        const char *name = o ? "B" : "A";
        if (gd_mex_is_gdarray(a))
            gd_mex_error(FN, "gd:input", "%s is a gdArray: gdArrays hold single or double; "
                         "integer min-plus takes Octave matrices so far", name);
        if (mxIsComplex(a) || mxIsSparse(a) || mxGetNumberOfDimensions(a) != 2)
            gd_mex_error(FN, "gd:input", "%s must be a real, full, 2-D matrix", name);
    }
    const int ca = gd_mex_int_class(A), cb = B ? gd_mex_int_class(B) : ca;
    if (ca < 0 || cb < 0 || ca != cb)
        gd_mex_error(FN, "gd:input", "A is %s and B is %s: integer min-plus takes two operands "
                     "of the same integer class (cast one; Octave computes a mixed sum in "
                     "double and rounds it)", mxGetClassName(A), B ? mxGetClassName(B) : mxGetClassName(A));
    const gd_class cls = (gd_class)ca;
    const int64_t m = (int64_t)mxGetM(A), k = (int64_t)mxGetN(A);
    const int64_t kb = B ? (int64_t)mxGetM(B) : k, n = B ? (int64_t)mxGetN(B) : k;
    if (!B && m != k)
        gd_mex_error(FN, "gd:size", "A must be square for A (x) A, not %lldx%lld",
                     (long long)m, (long long)k);
    if (kb != k)
        gd_mex_error(FN, "gd:size", "inner dimensions must agree: A is %lldx%lld, B is "
                     "%lldx%lld", (long long)m, (long long)k, (long long)kb, (long long)n);
    const gd_variant_info *list;
    const int count = gd_minplus_variants(&list);
    char variant[32];
    const int k32 = gd_mex_int_options(FN, nrhs, prhs, first, count, list, "v5", variant);
    witness = witness && nlhs > 1;
    if (witness && !strcmp(variant, "v5"))
        gd_mex_error(FN, "gd:variant", "the witness K of the integer classes comes from the 'cpu' "
                     "variant ('auto' chooses it); 'v5' computes R alone");
    if ((double)m * (double)n > 1e12)
        gd_mex_error(FN, "gd:size", "R would have %lldx%lld elements: more than host memory holds",
                     (long long)m, (long long)n);
    if (k >= INT32_MAX)
        gd_mex_error(FN, "gd:size", "the inner dimension %lld passes the witness's int32 range",
                     (long long)k);

    gd_timing t;
    memset(&t, 0, sizeof t);
    const double ops = (double)m * (double)k * (double)n, t0 = gd_mex_now_ms();
    mxArray *Kout = NULL;
    /* the GPU: asked for, or 'auto' with one there, the witness not asked
     * for and 2^17 steps or more (below, the host is done before a GPU
     * round trip would be); k == 0 is the host's (intmax) */
    int gpu = !strcmp(variant, "v5");
    if (!strcmp(variant, "auto") && !witness && ops >= (double)(1 << 17)) {
        gd_device_info d;
        gd_device_query(&d);
        gpu = d.available;
        if (!gpu) snprintf(t.fallback, sizeof t.fallback, "%s", d.reason);
    }
    mxArray *R = NULL;
    if (gpu && k > 0 && m > 0 && n > 0) {
        /* into an unfilled array of the class, made while the GPU computes */
        gd_mex_out o;
        const gd_status s = gd_minplus_int_gpu(cls, mxGetData(A), B ? mxGetData(B) : mxGetData(A),
                                               gd_mex_output(&o, (size_t)m, (size_t)n, cls), m,
                                               k, n, &t);
        if (s) {
            if (o.array) mxDestroyArray(o.array);
            gd_mex_fail(FN, s);
        }
        R = o.array;
        t.total_ms = gd_mex_now_ms() - t0;
    } else {
        R = mxCreateNumericMatrix((mwSize)m, (mwSize)n, mxGetClassID(A), mxREAL);
        int32_t *K = NULL;
        if (witness) Kout = gd_mex_index_out(m, n, k32, &K);
        const double t1 = gd_mex_now_ms();
        gd_cpu_minplus_int(cls, mxGetData(A), B ? mxGetData(B) : mxGetData(A), mxGetData(R), K,
                           m, k, n);
        t.kernel_ms = gd_mex_now_ms() - t1;
        if (Kout) gd_mex_index_done(Kout, K);
        gd_mex_host_timing(&t, ops, t0);
        if (gpu) snprintf(t.variant, sizeof t.variant, "v5");
    }
    gd_mex_warn_fallback(FN, &t);
    plhs[0] = R;
    if (nlhs > 1) plhs[1] = Kout ? Kout : mxCreateDoubleMatrix(0, 0, mxREAL);
    if (nlhs > 2) {
        const int64_t size[3] = {m, k, n};
        plhs[2] = gd_mex_info(&t, cls, "min-plus/s", 3, size, first);
    }
}

void gd_op_minplus_int(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    minplus_int(nlhs, plhs, nrhs, prhs, 1);
}

void gd_op_minplus_int_info(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    minplus_int(nlhs, plhs, nrhs, prhs, 0);
}

static void minplus(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[], int witness)
{
    static const char FN[] = "gd_minplus";
    const gd_variant_info *list;
    int count = gd_minplus_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, 3, count, list)) return;

    gd_mex_operands o;
    gd_mex_get_operands(FN, nrhs, prhs, 1, &o);
    static const char *const names[] = {"Variant", "IndexClass"};
    const mxArray *values[2] = {NULL, NULL};
    gd_mex_options(FN, nrhs, prhs, o.first, 2, names, values);
    char variant[32] = "auto", kname[16] = "double";
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
    if (values[1]) gd_mex_option_string(FN, "IndexClass", values[1], kname, sizeof kname);
    gd_mex_check_variant(FN, variant, count, list);
    if (strcmp(kname, "double") && strcmp(kname, "int32"))
        gd_mex_error(FN, "gd:input", "'IndexClass' must be 'double' or 'int32', not '%s'", kname);
    const gd_class kcls = strcmp(kname, "int32") ? GD_DOUBLE : GD_INT32;

    const gd_matrix *ops[2] = {&o.A, &o.B};
    const int on_device = gd_mex_on_device(2, ops);
    gd_mex_result R, K;
    gd_timing t;
    gd_out out = gd_mex_result_out(&R, o.resident, on_device, (size_t)o.m, (size_t)o.n, o.cls);
    gd_status s;
    witness = witness && nlhs > 1;
    if (witness) {
        /* [R, K]: the witness, in the same place as R */
        gd_out kout = gd_mex_result_out(&K, o.resident, on_device, (size_t)o.m, (size_t)o.n, kcls);
        s = gd_minplus_witness(variant, &o.A, &o.B, out, kout, kcls, &t);
    } else {
        s = gd_minplus(variant, &o.A, &o.B, out, &t);
    }
    gd_mex_take_pair(FN, nlhs, plhs, &R, witness ? &K : NULL, s);
    gd_mex_warn_fallback(FN, &t);
    if (nlhs > 2) {
        const int64_t size[3] = {o.m, o.k, o.n};
        plhs[2] = gd_mex_info(&t, o.cls, "min-plus/s", 3, size, o.first == 2 ? 2 : 1);
    }
}

void gd_op_minplus(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    minplus(nlhs, plhs, nrhs, prhs, 1);
}

/* [R, ~, info]: the wrapper asks for info without the witness ([] in its
 * place), so that asking for the timing costs no witness */
void gd_op_minplus_info(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    minplus(nlhs, plhs, nrhs, prhs, 0);
}

void gd_op_sgemm(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_sgemm";
    const gd_variant_info *list;
    int count = gd_sgemm_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, 2, count, list)) return;

    gd_mex_operands o;
    gd_mex_get_operands(FN, nrhs, prhs, 0, &o);
    static const char *const names[] = {"Variant", "Edges"};
    const mxArray *values[2] = {NULL, NULL};
    gd_mex_options(FN, nrhs, prhs, o.first, 2, names, values);
    char variant[32] = "auto", edges[16] = "pad";
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
    if (values[1]) gd_mex_option_string(FN, "Edges", values[1], edges, sizeof edges);
    gd_mex_check_variant(FN, variant, count, list);
    if (strcmp(edges, "pad") && strcmp(edges, "guard"))
        gd_mex_error(FN, "gd:input", "'Edges' must be 'pad' or 'guard', not '%s'", edges);

    /* the S in SGEMM: double operands are converted to single first (and
     * a 1x1 operand multiplies element by element: gd.h) */
    const gd_matrix *ops[2] = {&o.A, &o.B};
    gd_mex_result C;
    gd_timing t;
    gd_out out = gd_mex_result_out(&C, o.resident, gd_mex_on_device(2, ops), (size_t)o.m,
                                   (size_t)o.n, GD_SINGLE);
    gd_status s = gd_sgemm(variant, strcmp(edges, "guard") ? GD_EDGES_PAD : GD_EDGES_GUARD,
                           &o.A, &o.B, out, &t);
    plhs[0] = gd_mex_result_take(FN, &C, s);
    gd_mex_warn_fallback(FN, &t);
    if (nlhs > 1) {
        const int64_t size[3] = {o.m, o.k, o.n};
        plhs[1] = gd_mex_info(&t, GD_SINGLE, "flop/s", 3, size, 2);
    }
}
