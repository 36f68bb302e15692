/* op_apsp.c - gd_apsp (octave/gd_apsp.m), through __gd__:
 *
 *   [D, P, info] = __gd__('apsp', W, 'Variant', name, 'IndexClass', c)
 *   [D, ~, info] = __gd__('apsp_info', W, ...)   the same without P
 *   list = __gd__('apsp', 'variants')
 *
 * W is an Octave matrix (single, double or an integer class) or a
 * gdArray; with a gdArray the results are gdArrays. The integer classes
 * take 'auto', 'fw' and 'cpu' (gd_apsp in kernels/ops/apsp.cu: the GPU where
 * the weights prove single or double exact).
 */
#include "gd_mex.h"

#include <stdint.h>
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
    gd_mex_operand_int(FN, "W", prhs[0], &W, &resident);
    const int ints = W.cls != GD_SINGLE && W.cls != GD_DOUBLE;
    char variant[32] = "auto";
    int p32 = 0;
    if (ints) {
        /* square: gd_apsp says so (gd:size) */
        p32 = gd_mex_int_options(FN, nrhs, prhs, 1, count, list, "fw", variant);
        const int64_t n = W.rows;
        if (n == W.cols && (double)n * (double)n > 1e12)
            gd_mex_error(FN, "gd:size", "D would have %lldx%lld elements: more than memory holds",
                         (long long)n, (long long)n);
        if (n == W.cols && n >= INT32_MAX)
            gd_mex_error(FN, "gd:size", "W has %lld vertices: the predecessors are int32",
                         (long long)n);
    } else {
        static const char *const names[] = {"Variant", "IndexClass"};
        const mxArray *values[2] = {NULL, NULL};
        gd_mex_options(FN, nrhs, prhs, 1, 2, names, values);
        char pname[16] = "double";
        if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
        if (values[1]) gd_mex_option_string(FN, "IndexClass", values[1], pname, sizeof pname);
        gd_mex_check_variant(FN, variant, count, list);
        if (strcmp(pname, "double") && strcmp(pname, "int32"))
            gd_mex_error(FN, "gd:input", "'IndexClass' must be 'double' or 'int32', not '%s'",
                         pname);
        p32 = !strcmp(pname, "int32");
    }
    const gd_class pcls = p32 ? GD_INT32 : GD_DOUBLE;
    /* (the device options' parser takes 'Distributed' for every function) */
    if (gd_mex_distributed())
        gd_mex_error(FN, "gd:input", "'Distributed', true: gd_apsp's D and P come back whole "
                     "(a gdArray's on one device); 'Devices' divides the work");

    const int on_device = W.where == GD_DEVICE;
    gd_mex_result D, P;
    gd_timing t = gd_mex_timing();
    int64_t vertex = 0;
    gd_out dout = gd_mex_result_out(&D, resident, on_device, (size_t)W.rows, (size_t)W.rows, W.cls);
    gd_out pout;
    const int wp = want_p && nlhs > 1;
    if (wp) pout = gd_mex_result_out(&P, resident, on_device, (size_t)W.rows, (size_t)W.rows, pcls);
    gd_status s = gd_apsp(variant, &W, dout, wp ? &pout : NULL, pcls, &vertex, &t);
    gd_mex_take_pair(FN, nlhs, plhs, &D, wp ? &P : NULL, s);
    gd_mex_after_call(FN, &t);
    if (nlhs > 2) {
        const int64_t size[1] = {W.rows};
        plhs[2] = gd_mex_info(&t, W.cls, "steps/s", 1, size, 1);
    }
}

void gd_op_apsp(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    apsp(nlhs, plhs, nrhs, prhs, 1);
}

/* [D, ~, info]: the caller ignores P, so none is computed */
void gd_op_apsp_info(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    apsp(nlhs, plhs, nrhs, prhs, 0);
}
