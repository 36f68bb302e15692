/* op_product.c - gd_minplus and gd_sgemm (octave/gd_minplus.m,
 * octave/gd_sgemm.m), through __gd__:
 *
 *   R = __gd__('minplus', A)            A (x) A, A square
 *   R = __gd__('minplus', A, B)         m x k (x) k x n
 *   [R, K, info] = __gd__('minplus', ..., 'Variant', name, 'IndexClass', c)
 *                                       K: the witness (where the minimum is)
 *   [R, ~, info] = __gd__('minplus_info', ...)   the same without K
 *   C = __gd__('sgemm', A, B, 'Variant', name, 'Edges', 'pad'|'guard')
 *   C = __gd__('dgemm', A, B)           gdArray's * of double matrices
 *   list = __gd__('minplus', 'variants')
 *
 * A and B are Octave matrices or gdArrays; with any gdArray the result is
 * a gdArray (on the device, or held on the host where there is no GPU).
 * min-plus takes the integer classes too (both operands of one class:
 * the kernel layer says to cast otherwise).
 */
#include "gd_mex.h"

#include <stdio.h>
#include <string.h>

static void minplus(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[], int witness)
{
    static const char FN[] = "gd_minplus";
    const gd_variant_info *list;
    int count = gd_minplus_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, 3, count, list)) return;

    gd_mex_operands o;
    gd_mex_get_operands_int(FN, nrhs, prhs, 1, &o);
    char variant[32];
    const gd_class kcls = gd_mex_variant_index(FN, nrhs, prhs, o.first, count, list, variant,
                                               sizeof variant);

    const gd_matrix *ops[2] = {&o.A, &o.B};
    const int on_device = gd_mex_on_device(2, ops);
    gd_mex_result R, K;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, o.resident, on_device, (size_t)o.m, (size_t)o.n, o.cls);
    gd_status s;
    witness = witness && nlhs > 1;
    if (witness) {
        /* [R, K]: the witness, in the same place as R */
        gd_out kout = gd_mex_result_out(&K, o.resident, on_device, (size_t)o.m, (size_t)o.n, kcls);
        s = gd_minplus_witness(variant, &o.A, &o.B, out, kout, kcls, gd_mex_place(), &t);
    } else {
        s = gd_minplus(variant, &o.A, &o.B, out, gd_mex_place(), &t);
    }
    gd_mex_take_pair(FN, nlhs, plhs, &R, witness ? &K : NULL, s);
    gd_mex_after_call(FN, &t);
    if (nlhs > 2) {
        const int64_t size[3] = {o.m, o.k, o.n};
        plhs[2] = gd_mex_info(&t, o.cls, "steps/s", 3, size, o.first == 2 ? 2 : 1);
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
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&C, o.resident, gd_mex_on_device(2, ops), (size_t)o.m,
                                   (size_t)o.n, GD_SINGLE);
    gd_status s = gd_sgemm(variant, strcmp(edges, "guard") ? GD_EDGES_PAD : GD_EDGES_GUARD,
                           &o.A, &o.B, out, gd_mex_place(), &t);
    plhs[0] = gd_mex_result_take(FN, &C, s);
    gd_mex_after_call(FN, &t);
    if (nlhs > 1) {
        const int64_t size[3] = {o.m, o.k, o.n};
        plhs[1] = gd_mex_info(&t, GD_SINGLE, "flop/s", 3, size, 2);
    }
}

/* C = __gd__ ('dgemm', A, B): gdArray's * of double matrices (gd_dgemm:
 * cuBLAS where a GPU is usable, else Octave's BLAS) */
void gd_op_dgemm(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "mtimes";
    (void)nlhs;
    if (nrhs != 2) gd_mex_error(FN, "gd:input", "dgemm: expected A and B");
    gd_mex_operands o;
    gd_mex_get_operands(FN, nrhs, prhs, 0, &o);
    if (o.A.cls != GD_DOUBLE || o.B.cls != GD_DOUBLE)
        gd_mex_error(FN, "gd:input", "dgemm: A and B must be double");
    const gd_matrix *ops[2] = {&o.A, &o.B};
    gd_mex_result C;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&C, o.resident, gd_mex_on_device(2, ops), (size_t)o.m,
                                   (size_t)o.n, GD_DOUBLE);
    gd_status s = gd_dgemm(&o.A, &o.B, out, gd_mex_place(), &t);
    plhs[0] = gd_mex_result_take(FN, &C, s);
    gd_mex_after_call(FN, &t);
}
