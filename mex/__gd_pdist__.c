/* __gd_pdist__.c - gateways of gd_pdist and gd_pdist2 (octave/gd_pdist.m,
 * octave/gd_pdist2.m); built twice, with GD_PDIST2 defined for pdist2.
 *
 *   D = __gd_pdist__(X [, metric], 'Variant', name)          1 x n(n-1)/2
 *   D = __gd_pdist2__(X, Y [, metric], 'Variant', name)      mx x my
 *   list = __gd_pdist__('variants')
 */
#include "gd_mex.h"

#ifdef GD_PDIST2
static const char FN[] = "gd_pdist2";
enum { NOPERANDS = 2 };
#define VARIANTS gd_pdist2_variants
#else
static const char FN[] = "gd_pdist";
enum { NOPERANDS = 1 };
#define VARIANTS gd_pdist_variants
#endif

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    gd_mex_init();
    const gd_variant_info *list;
    int count = VARIANTS(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, 2, count, list)) return;
    if (nrhs < NOPERANDS)
        gd_mex_error(FN, "gd:input", NOPERANDS == 1 ? "expected a matrix X (see help %s)"
                                                    : "expected matrices X and Y (see help %s)", FN);
    const mxArray *X = prhs[0], *Y = prhs[NOPERANDS - 1];
    gd_mex_check_matrix(FN, "X", X);
    if (NOPERANDS == 2) gd_mex_check_matrix(FN, "Y", Y);
    /* a metric follows the data unless an option's name does: text that
     * names no option, or a function handle (refused, with the metrics gd
     * has) */
    int first = NOPERANDS;
    gd_metric metric = GD_EUCLIDEAN;
    if (nrhs > NOPERANDS) {
        const mxArray *a = prhs[NOPERANDS];
        if (mxIsFunctionHandle(a) || (mxIsChar(a) && !gd_mex_is_string(a, "variant")))
            metric = gd_mex_metric(FN, prhs[first++]);
        else if (!mxIsChar(a))
            gd_mex_error(FN, "gd:input", "too many input arguments: expected %s, a "
                         "metric and name/value options", NOPERANDS == 1 ? "X" : "X, Y");
    }
    if ((nrhs - first) % 2 && mxIsChar(prhs[nrhs - 1]) && !gd_mex_is_string(prhs[nrhs - 1], "variant")) {
        char m[32] = "";
        mxGetString(prhs[nrhs - 1], m, sizeof m);
        gd_mex_error(FN, "gd:input", "the metric '%s' must come right after the data, before "
                     "name/value options", m);
    }
    static const char *const names[] = {"Variant"};
    const mxArray *values[1] = {NULL};
    gd_mex_options(FN, nrhs, prhs, first, 1, names, values);
    char variant[32] = "auto";
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
    gd_mex_check_variant(FN, variant, count, list);

    const int64_t mx = (int64_t)mxGetM(X), d = (int64_t)mxGetN(X), my = (int64_t)mxGetM(Y);
    if ((int64_t)mxGetN(Y) != d)
        gd_mex_error(FN, "gd:size", "X and Y must have the same number of columns: "
                     "X is %lldx%lld, Y is %lldx%lld", (long long)mx, (long long)d,
                     (long long)my, (long long)mxGetN(Y));
    const gd_class cls = (mxIsSingle(X) || mxIsSingle(Y)) ? GD_SINGLE : GD_DOUBLE;
    const mxArray *in[2] = {X, Y};
    const void *p[2];
    gd_mex_inputs(FN, NOPERANDS, in, cls, p);
    gd_mex_out D;
    gd_timing t;
    gd_status s;
    if (NOPERANDS == 1) {
        /* D's n(n-1)/2 columns from the bytes the kernel layer asks for:
         * it checks that count (n = 2^32 + 1 would wrap an int64) */
        s = gd_pdist(variant, cls, p[0], mx, d, metric,
                     gd_mex_output(&D, 1, GD_MEX_FROM_BYTES, cls), &t);
    } else {
        s = gd_pdist2(variant, cls, p[0], p[1], mx, my, d, metric,
                      gd_mex_output(&D, (size_t)mx, (size_t)my, cls), &t);
    }
    gd_mex_free_inputs(NOPERANDS, in, cls, p);
    if (s) {
        if (D.array) mxDestroyArray(D.array);
        gd_mex_fail(FN, s);
    }
    gd_mex_warn_fallback(FN, &t);
    plhs[0] = D.array;
    if (nlhs > 1) {
        const int64_t size[3] = {mx, NOPERANDS == 1 ? mx : my, d};
        plhs[1] = gd_mex_info(&t, cls, "triples/s", 3, size);
    }
}
