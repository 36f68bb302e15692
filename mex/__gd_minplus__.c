/* __gd_minplus__.c - gateway of gd_minplus (octave/gd_minplus.m).
 *
 *   R = __gd_minplus__(A)            A (x) A, A square
 *   R = __gd_minplus__(A, B)         m x k (x) k x n
 *   [R, info] = __gd_minplus__(..., 'Variant', name)
 *   list = __gd_minplus__('variants')
 */
#include "gd_mex.h"

static const char FN[] = "gd_minplus";

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    gd_mex_init();
    const gd_variant_info *list;
    int count = gd_minplus_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, 2, count, list)) return;

    gd_mex_operands o;
    gd_mex_get_operands(FN, nrhs, prhs, 1, &o);
    static const char *const names[] = {"Variant"};
    const mxArray *values[1] = {NULL};
    gd_mex_options(FN, nrhs, prhs, o.first, 1, names, values);
    char variant[32] = "auto";
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
    gd_mex_check_variant(FN, variant, count, list);

    const mxArray *in[2] = {o.A, o.B};
    const void *p[2];
    gd_mex_inputs(FN, 2, in, o.cls, p);
    gd_mex_out R;
    gd_timing t;
    gd_status s = gd_minplus(variant, o.cls, p[0], p[1],
                             gd_mex_output(&R, (size_t)o.m, (size_t)o.n, o.cls),
                             o.m, o.k, o.n, &t);
    gd_mex_free_inputs(2, in, o.cls, p);
    if (s) {
        if (R.array) mxDestroyArray(R.array);
        gd_mex_fail(FN, s);
    }
    gd_mex_warn_fallback(FN, &t);
    plhs[0] = R.array;
    if (nlhs > 1) {
        const int64_t size[3] = {o.m, o.k, o.n};
        plhs[1] = gd_mex_info(&t, o.cls, "min-plus/s", 3, size);
    }
}
