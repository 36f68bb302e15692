/* op_apsp.c - gd_apsp (octave/gd_apsp.m), through __gd__:
 *
 *   [D, P, info] = __gd__('apsp', W, 'Variant', name, 'IndexClass', c)
 *   [D, ~, info] = __gd__('apsp_info', W, ...)   the same without P
 *   list = __gd__('apsp', 'variants')
 *
 * W is an Octave matrix or a gdArray; with a gdArray the results are
 * gdArrays.
 */
#include "gd_mex.h"

#include <math.h>
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
