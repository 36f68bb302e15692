/* __gd_minplus__.c - gateway of gd_minplus (octave/gd_minplus.m).
 *
 *   R = __gd_minplus__(A)            A (x) A, A square
 *   R = __gd_minplus__(A, B)         m x k (x) k x n
 *   [R, info] = __gd_minplus__(..., 'Variant', name)
 *   list = __gd_minplus__('variants')
 */
#include "gd_mex.h"

#include <string.h>

static const char FN[] = "gd_minplus";

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    gd_mex_init();
    const gd_variant_info *list;
    int count = gd_minplus_variants(&list);

    if (nrhs == 0)
        gd_mex_error(FN, "gd:input", "expected a matrix A, or A and B "
                     "(see help gd_minplus)");
    if (nrhs == 1 && gd_mex_is_string(prhs[0], "variants")) {
        if (nlhs > 1) gd_mex_error(FN, "gd:input", "too many outputs");
        plhs[0] = gd_mex_variants(FN, nlhs, count, list);
        return;
    }
    if (nlhs > 2) gd_mex_error(FN, "gd:input", "too many outputs (at most R and info)");

    const mxArray *A = prhs[0], *B = prhs[0];
    gd_mex_check_matrix(FN, "A", A);
    int first = 1;
    if (nrhs >= 2 && !mxIsChar(prhs[1])) {
        B = prhs[1];
        gd_mex_check_matrix(FN, "B", B);
        first = 2;
        if (nrhs >= 3 && !mxIsChar(prhs[2]))
            gd_mex_error(FN, "gd:input", "too many input arguments: expected "
                         "A, B and name/value options");
    } else if (mxGetM(A) != mxGetN(A)) {
        gd_mex_error(FN, "gd:size", "with one argument A must be square, "
                     "not %dx%d (use gd_minplus(A, B) for A (x) B)",
                     (int)mxGetM(A), (int)mxGetN(A));
    }

    static const char *const names[] = {"Variant"};
    const mxArray *values[1] = {NULL};
    gd_mex_options(FN, nrhs, prhs, first, 1, names, values);
    char variant[32] = "auto";
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
    gd_mex_check_variant(FN, variant, count, list);

    const int64_t m = (int64_t)mxGetM(A), k = (int64_t)mxGetN(A);
    const int64_t kb = (int64_t)mxGetM(B), n = (int64_t)mxGetN(B);
    if (k != kb)
        gd_mex_error(FN, "gd:size", "inner dimensions must agree: A is "
                     "%lldx%lld, B is %lldx%lld", (long long)m, (long long)k,
                     (long long)kb, (long long)n);

    /* single wins, as in Octave: each double operand is converted first */
    const gd_class cls = (mxIsSingle(A) || mxIsSingle(B)) ? GD_SINGLE : GD_DOUBLE;
    const void *a = gd_mex_data_as(A, cls);
    const void *b = B == A ? a : gd_mex_data_as(B, cls);
    gd_mex_out R;
    gd_timing t;
    gd_status s = gd_minplus(variant, cls, a, b, gd_mex_output(&R, (size_t)m, (size_t)n, cls),
                             m, k, n, &t);
    if (b != a) gd_mex_free_converted(B, cls, b);
    gd_mex_free_converted(A, cls, a);
    if (s) {
        if (R.array) mxDestroyArray(R.array);
        gd_mex_fail(FN, s);
    }
    gd_mex_warn_fallback(FN, &t);
    plhs[0] = R.array;
    if (nlhs > 1) {
        const int64_t size[3] = {m, k, n};
        plhs[1] = gd_mex_info(&t, cls, "min-plus/s", 3, size);
    }
}
