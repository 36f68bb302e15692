/* op_pdist.c - gd_pdist and gd_pdist2 (octave/gd_pdist.m,
 * octave/gd_pdist2.m), through __gd__:
 *
 *   D = __gd__('pdist', X [, metric], 'Variant', name)          1 x n(n-1)/2
 *   D = __gd__('pdist2', X, Y [, metric], 'Variant', name)      mx x my
 *   [D, I, info] = __gd__('pdist2', X, Y [, metric], 'Smallest', K, ...)
 *                  (or 'Largest', K; 'IndexClass' 'double' or 'int32';
 *                  'Variant' of gd_knn)                       K x my
 *   list = __gd__('pdist', 'variants')
 *   list = __gd__('knn', 'variants')
 *
 * X and Y are Octave matrices or gdArrays; with any gdArray D is one.
 */
#include "gd_mex.h"

#include <math.h>
#include <string.h>

/* whether a names one of the options (a metric never does) */
static int option_name(const mxArray *a)
{
    return gd_mex_is_string(a, "variant") || gd_mex_is_string(a, "smallest") ||
           gd_mex_is_string(a, "largest") || gd_mex_is_string(a, "indexclass") ||
           gd_mex_is_string(a, "p") || gd_mex_is_string(a, "devices");
}

/* K of 'Smallest'/'Largest': a positive whole number */
static int64_t knn_count(const char *fn, const char *name, const mxArray *v)
{
    if (!(mxIsDouble(v) || mxIsSingle(v) || mxIsInt32(v) || mxIsUint32(v) || mxIsInt64(v) ||
          mxIsUint64(v) || mxIsInt16(v) || mxIsUint16(v) || mxIsInt8(v) || mxIsUint8(v)) ||
        mxIsComplex(v) || mxIsSparse(v) || mxGetNumberOfElements(v) != 1)
        gd_mex_error(fn, "gd:input", "'%s' must be a positive whole number K (a real scalar)",
                     name);
    const double k = mxGetScalar(v);
    if (!(k >= 1) || k != floor(k) || k > 9.0e15)
        gd_mex_error(fn, "gd:input", "'%s' must be a positive whole number K, not %g", name, k);
    return (int64_t)k;
}

static void pdist_any(const char *FN, int NOPERANDS, int nlhs, mxArray *plhs[], int nrhs,
                      const mxArray *prhs[])
{
    const gd_variant_info *list;
    int count = NOPERANDS == 1 ? gd_pdist_variants(&list) : gd_pdist2_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, NOPERANDS == 1 ? 2 : 3, count, list))
        return;
    if (nrhs < NOPERANDS)
        gd_mex_error(FN, "gd:input", NOPERANDS == 1 ? "expected a matrix X (see help %s)"
                                                    : "expected matrices X and Y (see help %s)", FN);
    gd_matrix X, Y;
    int gx = 0, gy = 0;
    gd_mex_operand(FN, "X", prhs[0], &X, &gx);
    gd_mex_check_float(FN, "X", &X);
    Y = X;
    gy = gx;
    if (NOPERANDS == 2) {
        gd_mex_operand(FN, "Y", prhs[1], &Y, &gy);
        gd_mex_check_float(FN, "Y", &Y);
    }
    /* a metric follows the data unless an option's name does: text that
     * names no option, or a function handle (refused, with the metrics gd
     * has) */
    int first = NOPERANDS;
    gd_metric metric = GD_EUCLIDEAN;
    if (nrhs > NOPERANDS) {
        const mxArray *a = prhs[NOPERANDS];
        if (mxIsFunctionHandle(a) || (mxIsChar(a) && !option_name(a)))
            metric = gd_mex_metric(FN, prhs[first++]);
        else if (!mxIsChar(a))
            gd_mex_error(FN, "gd:input", "too many input arguments: expected %s, a "
                         "metric and name/value options", NOPERANDS == 1 ? "X" : "X, Y");
    }
    if ((nrhs - first) % 2 && mxIsChar(prhs[nrhs - 1]) && !option_name(prhs[nrhs - 1])) {
        char m[32] = "";
        mxGetString(prhs[nrhs - 1], m, sizeof m);
        gd_mex_error(FN, "gd:input", "the metric '%s' must come right after the data, before "
                     "name/value options", m);
    }
    static const char *const names1[] = {"Variant", "P"};
    static const char *const names[] = {"Variant", "Smallest", "Largest", "IndexClass", "P"};
    const mxArray *values[5] = {NULL, NULL, NULL, NULL, NULL};
    if (NOPERANDS == 1) {
        const mxArray *v1[2] = {NULL, NULL};
        gd_mex_options(FN, nrhs, prhs, first, 2, names1, v1);
        values[0] = v1[0];
        values[4] = v1[1];
    } else {
        gd_mex_options(FN, nrhs, prhs, first, 5, names, values);
    }
    /* minkowski's exponent (gd_pdist.m passes it as 'P'): positive, real */
    gd_distance dist = {metric, 2};
    if (values[4]) {
        const mxArray *v = values[4];
        if (metric != GD_MINKOWSKI)
            gd_mex_error(FN, "gd:input", "'P' goes with the 'minkowski' metric");
        if (!(mxIsDouble(v) || mxIsSingle(v)) || mxIsComplex(v) || mxIsSparse(v) ||
            mxGetNumberOfElements(v) != 1 || !(mxGetScalar(v) > 0))
            gd_mex_error(FN, "gd:input", "minkowski's exponent P must be a positive real "
                         "scalar");
        dist.p = mxGetScalar(v);
    }
    char variant[32] = "auto";
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
    const int knn = values[1] || values[2];
    if (values[1] && values[2])
        gd_mex_error(FN, "gd:input", "'Smallest' and 'Largest' cannot both be given");
    if (values[3] && !knn)
        gd_mex_error(FN, "gd:input", "'IndexClass' goes with 'Smallest' or 'Largest' (the "
                     "indices it sets the class of)");
    if (knn) count = gd_knn_variants(&list);
    else if (nlhs > 2)
        gd_mex_error(FN, "gd:input", "too many outputs: [D, info] (three with 'Smallest' or "
                     "'Largest': [D, I, info])");
    gd_mex_check_variant(FN, variant, count, list);
    int64_t K = 0;
    gd_class icls = GD_DOUBLE;
    if (knn) {
        K = knn_count(FN, values[1] ? "Smallest" : "Largest", values[1] ? values[1] : values[2]);
        char iname[16] = "double";
        if (values[3]) gd_mex_option_string(FN, "IndexClass", values[3], iname, sizeof iname);
        if (strcmp(iname, "double") && strcmp(iname, "int32"))
            gd_mex_error(FN, "gd:input", "'IndexClass' must be 'double' or 'int32', not '%s'",
                         iname);
        icls = strcmp(iname, "int32") ? GD_DOUBLE : GD_INT32;
    }

    const int64_t mx = X.rows, d = X.cols, my = Y.rows;
    if (Y.cols != d)
        gd_mex_error(FN, "gd:size", "X and Y must have the same number of columns: "
                     "X is %lldx%lld, Y is %lldx%lld", (long long)mx, (long long)d,
                     (long long)my, (long long)Y.cols);
    const gd_class cls = (X.cls == GD_SINGLE || Y.cls == GD_SINGLE) ? GD_SINGLE : GD_DOUBLE;
    const gd_matrix *ops[2] = {&X, &Y};
    const int resident = gx || gy;
    gd_mex_result D;
    gd_timing t;
    gd_status s;
    if (knn) {
        /* K past the rows of X: all of them, as sorting the whole column */
        if (K > mx) K = mx;
        gd_mex_result I;
        const int on = gd_mex_on_device(2, ops);
        gd_out dout = gd_mex_result_out(&D, resident, on, (size_t)K, (size_t)my, cls);
        gd_out iout = gd_mex_result_out(&I, resident, on, (size_t)K, (size_t)my, icls);
        s = gd_knn(variant, &X, &Y, dist, K, values[2] != NULL, dout, iout, icls, &t);
        gd_mex_take_pair(FN, nlhs, plhs, &D, &I, s);
        gd_mex_warn_fallback(FN, &t);
        if (nlhs > 2) {
            const int64_t size[4] = {mx, my, d, K};
            plhs[2] = gd_mex_info(&t, cls, "triples/s", 4, size, 2);
        }
        return;
    }
    if (NOPERANDS == 1) {
        /* D's n(n-1)/2 columns: from the bytes the kernel layer asks for
         * (it checks that count: n = 2^32 + 1 would wrap an int64), or for
         * a gdArray, counted here and used only once the call succeeded */
        const double P = mx > 1 ? (double)mx * (double)(mx - 1) / 2 : 0;
        gd_out out = gd_mex_result_out(&D, resident, gd_mex_on_device(1, ops), 1,
                                       resident ? (size_t)P : GD_MEX_FROM_BYTES, cls);
        s = gd_pdist(variant, &X, dist, out, &t);
    } else {
        gd_out out = gd_mex_result_out(&D, resident, gd_mex_on_device(2, ops), (size_t)mx,
                                       (size_t)my, cls);
        s = gd_pdist2(variant, &X, &Y, dist, out, &t);
    }
    plhs[0] = gd_mex_result_take(FN, &D, s);
    gd_mex_warn_fallback(FN, &t);
    if (nlhs > 1) {
        const int64_t size[3] = {mx, NOPERANDS == 1 ? mx : my, d};
        plhs[1] = gd_mex_info(&t, cls, "triples/s", 3, size, NOPERANDS);
    }
}

void gd_op_pdist(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    pdist_any("gd_pdist", 1, nlhs, plhs, nrhs, prhs);
}

void gd_op_pdist2(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    pdist_any("gd_pdist2", 2, nlhs, plhs, nrhs, prhs);
}

/* the kNN forms' variant table (gd_knnsearch ('variants')) */
void gd_op_knn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const gd_variant_info *list;
    const int count = gd_knn_variants(&list);
    if (!gd_mex_variants_call("gd_knnsearch", nlhs, plhs, nrhs, prhs, 1, count, list) || nrhs != 1)
        gd_mex_error("gd_knnsearch", "gd:input", "expected 'variants'");
}
