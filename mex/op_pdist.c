/* op_pdist.c - gd_pdist and gd_pdist2 (octave/gd_pdist.m,
 * octave/gd_pdist2.m), through __gd__:
 *
 *   D = __gd__('pdist', X [, metric], 'Variant', name)          1 x n(n-1)/2
 *   D = __gd__('pdist2', X, Y [, metric], 'Variant', name)      mx x my
 *   [D, I, info] = __gd__('pdist2', X, Y [, metric], 'Smallest', K, ...)
 *                  (or 'Largest', K; 'IndexClass' 'double' or 'int32';
 *                  'Variant' of gd_knn)                       K x my
 *   list = __gd__('pdist', 'variants')
 *   [Idx, D, info] = __gd__('knnsearch', X, Y [, metric], 'Smallest', K, ...)
 *                  (gd_knnsearch: pdist2's form, its errors in gd_knnsearch's
 *                  names, its results my x K)
 *   list = __gd__('knn', 'variants')
 *   [D, I, N, info] = __gd__('rangesearch', X, Y [, metric], 'Radius', r, ...)
 *                  (gd_rangesearch: the hits of each query in turn, 1 x
 *                  sum (N), nearest first; N my x 1; 'IndexClass' and
 *                  'Variant' of gd_range)
 *   list = __gd__('range', 'variants')
 *
 * X and Y are Octave matrices or gdArrays; with any gdArray D is one.
 */
#include "gd_mex.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The options of pdist (OPTIONS1) and pdist2 and the nearest neighbours
 * (OPTIONS2), one list each (gd_mex_options: "=P" is the wrapper's) */
static const char *const OPTIONS1[] = {"Variant", "=P"};
static const char *const OPTIONS2[] = {"Variant", "Smallest", "Largest", "IndexClass", "=P",
                                       "=Radius"};

/* whether a names an option (any of pdist2's, 'Devices' or 'Distributed'):
 * text that does not is the metric */
static int option_name(const mxArray *a)
{
    for (size_t o = 0; o < sizeof OPTIONS2 / sizeof *OPTIONS2; ++o)
        if (gd_mex_is_string(a, OPTIONS2[o] + (OPTIONS2[o][0] == '='))) return 1;
    return gd_mex_is_string(a, "devices") || gd_mex_is_string(a, "distributed");
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

/* what a pdist, pdist2 or nearest-neighbours call asks for */
typedef struct {
    gd_matrix X, Y;
    int resident;       /* X or Y is a gdArray */
    gd_distance dist;
    char variant[32];
    int knn, largest;   /* 'Smallest' or 'Largest' given; which */
    int64_t K;
    gd_class icls;      /* the indices' class */
    int by_query;       /* gd_knnsearch's form: host results my x K */
    int range;          /* gd_rangesearch's form: the hits within r */
    double r;
} pdist_args;

/* The metric after the data (text that names no option, or a function
 * handle, refused with the metrics gd has): into *metric; returns the
 * index of the first option */
static int pdist_metric(const char *FN, int NOPERANDS, int nrhs, const mxArray *prhs[],
                        gd_metric *metric)
{
    int first = NOPERANDS;
    *metric = GD_EUCLIDEAN;
    if (nrhs > NOPERANDS) {
        const mxArray *a = prhs[NOPERANDS];
        if (mxIsFunctionHandle(a) || (mxIsChar(a) && !option_name(a)))
            *metric = gd_mex_metric(FN, prhs[first++]);
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
    return first;
}

/* The name/value options from prhs[first] on: the variant (checked
 * against the op's list, or the nearest neighbours' with 'Smallest' or
 * 'Largest'), minkowski's 'P', K and the indices' class */
static void pdist_options(const char *FN, int NOPERANDS, int nlhs, int nrhs,
                          const mxArray *prhs[], int first, pdist_args *c, int count,
                          const gd_variant_info *list)
{
    const mxArray *values[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    if (NOPERANDS == 1) {
        const mxArray *v1[2] = {NULL, NULL};
        gd_mex_options(FN, nrhs, prhs, first, 2, OPTIONS1, v1);
        values[0] = v1[0];
        values[4] = v1[1];
    } else {
        gd_mex_options(FN, nrhs, prhs, first, 6, OPTIONS2, values);
    }
    /* 'Radius': gd_rangesearch's alone, and always there */
    if (!values[5] != !c->range)
        gd_mex_error(FN, "gd:input", c->range ? "expected 'Radius', r" : "unknown option 'Radius'");
    if (c->range) {
        const mxArray *v = values[5];
        if (!(mxIsDouble(v) || mxIsSingle(v)) || mxIsComplex(v) || mxIsSparse(v) ||
            mxGetNumberOfElements(v) != 1 || !(mxGetScalar(v) >= 0))
            gd_mex_error(FN, "gd:input", "the radius r must be a real scalar, 0 or more");
        c->r = mxGetScalar(v);
        if (values[1] || values[2])
            gd_mex_error(FN, "gd:input", "'Radius' and 'Smallest' or 'Largest' cannot both be "
                         "given");
    }
    /* minkowski's exponent (gd_pdist.m passes it as 'P'): positive, real */
    c->dist.p = 2;
    if (values[4]) {
        const mxArray *v = values[4];
        if (c->dist.metric != GD_MINKOWSKI)
            gd_mex_error(FN, "gd:input", "'P' goes with the 'minkowski' metric");
        if (!(mxIsDouble(v) || mxIsSingle(v)) || mxIsComplex(v) || mxIsSparse(v) ||
            mxGetNumberOfElements(v) != 1 || !(mxGetScalar(v) > 0))
            gd_mex_error(FN, "gd:input", "minkowski's exponent P must be a positive real "
                         "scalar");
        c->dist.p = mxGetScalar(v);
    }
    snprintf(c->variant, sizeof c->variant, "auto");
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], c->variant, sizeof c->variant);
    c->knn = values[1] || values[2];
    c->largest = values[2] != NULL;
    if (values[1] && values[2])
        gd_mex_error(FN, "gd:input", "'Smallest' and 'Largest' cannot both be given");
    if (values[3] && !c->knn && !c->range)
        gd_mex_error(FN, "gd:input", "'IndexClass' goes with 'Smallest' or 'Largest' (the "
                     "indices it sets the class of)");
    if (c->range && nlhs > 4)
        gd_mex_error(FN, "gd:input", "too many outputs: [D, I, N, info]");
    if (c->range)
        count = gd_range_variants(&list);
    else if (c->knn)
        count = gd_knn_variants(&list);
    else if (NOPERANDS == 1 && nlhs > 2)
        gd_mex_error(FN, "gd:input", "too many outputs: [D, info]");
    else if (nlhs > 3)
        gd_mex_error(FN, "gd:input", "too many outputs: [D, I, info]");
    else if (NOPERANDS == 2 && nlhs == 2)
        /* info comes last, as the nearest neighbours' third output */
        gd_mex_error(FN, "gd:input", "[D, I] needs 'Smallest' or 'Largest' (I: the rows of "
                     "the nearest); the info struct is the third output, [D, ~, info]");
    gd_mex_check_variant(FN, c->variant, count, list);
    c->K = 0;
    c->icls = GD_DOUBLE;
    if (c->knn || c->range) {
        if (c->knn)
            c->K = knn_count(FN, c->by_query ? "K" : values[1] ? "Smallest" : "Largest",
                             values[1] ? values[1] : values[2]);
        char iname[16] = "double";
        if (values[3]) gd_mex_option_string(FN, "IndexClass", values[3], iname, sizeof iname);
        if (strcmp(iname, "double") && strcmp(iname, "int32"))
            gd_mex_error(FN, "gd:input", "'IndexClass' must be 'double' or 'int32', not '%s'",
                         iname);
        c->icls = strcmp(iname, "int32") ? GD_DOUBLE : GD_INT32;
    }
}

/* [D, I, info]: the K nearest (or farthest) rows of X to each row of Y */
static void run_knn(const char *FN, int nlhs, mxArray *plhs[], pdist_args *c, gd_class cls)
{
    const int64_t mx = c->X.rows, d = c->X.cols, my = c->Y.rows;
    /* K past the rows of X: all of them, as sorting the whole column */
    if (c->K > mx) c->K = mx;
    const gd_matrix *ops[2] = {&c->X, &c->Y};
    gd_mex_result D, I;
    gd_timing t = gd_mex_timing();
    const int on = gd_mex_on_device(2, ops);
    /* gd_knnsearch's results a row a query, pdist2's a column */
    const size_t r = c->by_query ? (size_t)my : (size_t)c->K,
                 cl = c->by_query ? (size_t)c->K : (size_t)my;
    gd_out dout = gd_mex_result_out(&D, c->resident, on, r, cl, cls);
    gd_out iout = gd_mex_result_out(&I, c->resident, on, r, cl, c->icls);
    gd_status s = gd_knn(c->variant, &c->X, &c->Y, c->dist, c->K, c->largest, c->by_query,
                         dout, iout, c->icls, gd_mex_place(), &t);
    gd_mex_take_pair(FN, nlhs, plhs, &D, &I, s);
    gd_mex_after_call(FN, &t);
    if (nlhs > 2) {
        const int64_t size[4] = {mx, my, d, c->K};
        plhs[2] = gd_mex_info(&t, cls, "triples/s", 4, size, 2);
    }
}

/* [D, I, N, info]: the hits within r of each query, in turn */
static void run_range(const char *FN, int nlhs, mxArray *plhs[], pdist_args *c, gd_class cls)
{
    const int64_t mx = c->X.rows, d = c->X.cols, my = c->Y.rows;
    gd_mex_result D, I, N;
    gd_timing t = gd_mex_timing();
    gd_out dout = gd_mex_result_out(&D, 0, 0, 1, GD_MEX_FROM_BYTES, cls);
    gd_out iout = gd_mex_result_out(&I, 0, 0, 1, GD_MEX_FROM_BYTES, c->icls);
    gd_out nout = gd_mex_result_out(&N, 0, 0, (size_t)my, 1, GD_DOUBLE);
    gd_status s = gd_range(c->variant, &c->X, &c->Y, c->dist, c->r, dout, iout, c->icls, nout,
                           gd_mex_place(), &t);
    if (!s && gd_interrupted()) s = GD_ERR_INTERRUPT;
    if (s || nlhs < 3) gd_mex_result_free(&N);
    gd_mex_take_pair(FN, nlhs, plhs, &D, &I, s);
    if (nlhs > 2) plhs[2] = gd_mex_result_take(FN, &N, GD_OK);
    gd_mex_after_call(FN, &t);
    if (nlhs > 3) {
        const int64_t size[3] = {mx, my, d};
        plhs[3] = gd_mex_info(&t, cls, "triples/s", 3, size, 2);
    }
}

/* [D, info]: pdist's condensed D (NOPERANDS 1) or pdist2's matrix */
static void run_pdist(const char *FN, int NOPERANDS, int nlhs, mxArray *plhs[], pdist_args *c,
                      gd_class cls)
{
    const int64_t mx = c->X.rows, d = c->X.cols, my = c->Y.rows;
    const gd_matrix *ops[2] = {&c->X, &c->Y};
    gd_mex_result D;
    gd_timing t = gd_mex_timing();
    gd_status s;
    if (NOPERANDS == 1) {
        /* D's n(n-1)/2 columns: from the bytes the kernel layer asks for
         * (it checks that count: n = 2^32 + 1 would wrap an int64), or for
         * a gdArray, counted here and used only once the call succeeded */
        const double P = mx > 1 ? (double)mx * (double)(mx - 1) / 2 : 0;
        gd_out out = gd_mex_result_out(&D, c->resident, gd_mex_on_device(1, ops), 1,
                                       c->resident ? (size_t)P : GD_MEX_FROM_BYTES, cls);
        s = gd_pdist(c->variant, &c->X, c->dist, out, gd_mex_place(), &t);
    } else {
        gd_out out = gd_mex_result_out(&D, c->resident, gd_mex_on_device(2, ops), (size_t)mx,
                                       (size_t)my, cls);
        s = gd_pdist2(c->variant, &c->X, &c->Y, c->dist, out, gd_mex_place(), &t);
    }
    plhs[0] = gd_mex_result_take(FN, &D, s);
    gd_mex_after_call(FN, &t);
    if (nlhs > 1) {
        /* pdist's info is its second output, pdist2's its third (no I) */
        const int64_t size[3] = {mx, NOPERANDS == 1 ? mx : my, d};
        const int at = NOPERANDS == 1 ? 1 : 2;
        if (at == 2) plhs[1] = mxCreateDoubleMatrix(0, 0, mxREAL);
        plhs[at] = gd_mex_info(&t, cls, "triples/s", 3, size, NOPERANDS);
    }
}

static void pdist_any(const char *FN, int NOPERANDS, int nlhs, mxArray *plhs[], int nrhs,
                      const mxArray *prhs[])
{
    const int by_query = !strcmp(FN, "gd_knnsearch"), range = !strcmp(FN, "gd_rangesearch");
    const gd_variant_info *list;
    int count = NOPERANDS == 1 ? gd_pdist_variants(&list) : gd_pdist2_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, NOPERANDS == 1 ? 2 : range ? 4 : 3,
                             count, list))
        return;
    if (nrhs < NOPERANDS)
        gd_mex_error(FN, "gd:input", NOPERANDS == 1 ? "expected a matrix X (see help %s)"
                                                    : "expected matrices X and Y (see help %s)", FN);
    pdist_args c;
    memset(&c, 0, sizeof c);
    c.by_query = by_query;
    c.range = range;
    int gx = 0, gy = 0;
    gd_mex_operand(FN, "X", prhs[0], &c.X, &gx);
    gd_mex_check_float(FN, "X", &c.X);
    c.Y = c.X;
    gy = gx;
    if (NOPERANDS == 2) {
        gd_mex_operand(FN, "Y", prhs[1], &c.Y, &gy);
        gd_mex_check_float(FN, "Y", &c.Y);
    }
    c.resident = gx || gy;
    const int first = pdist_metric(FN, NOPERANDS, nrhs, prhs, &c.dist.metric);
    pdist_options(FN, NOPERANDS, nlhs, nrhs, prhs, first, &c, count, list);
    if (c.Y.cols != c.X.cols)
        gd_mex_error(FN, "gd:size", "X and Y must have the same number of columns: "
                     "X is %lldx%lld, Y is %lldx%lld", (long long)c.X.rows, (long long)c.X.cols,
                     (long long)c.Y.rows, (long long)c.Y.cols);
    const gd_class cls = (c.X.cls == GD_SINGLE || c.Y.cls == GD_SINGLE) ? GD_SINGLE : GD_DOUBLE;
    if (c.range)
        run_range(FN, nlhs, plhs, &c, cls);
    else if (c.knn)
        run_knn(FN, nlhs, plhs, &c, cls);
    else
        run_pdist(FN, NOPERANDS, nlhs, plhs, &c, cls);
}

void gd_op_pdist(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    pdist_any("gd_pdist", 1, nlhs, plhs, nrhs, prhs);
}

void gd_op_pdist2(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    pdist_any("gd_pdist2", 2, nlhs, plhs, nrhs, prhs);
}

/* gd_knnsearch: pdist2's 'Smallest' form under its own name, its results
 * a row a query (my x K) */
void gd_op_knnsearch(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    pdist_any("gd_knnsearch", 2, nlhs, plhs, nrhs, prhs);
}

/* the kNN forms' variant table (gd_knnsearch ('variants')) */
void gd_op_knn(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const gd_variant_info *list;
    const int count = gd_knn_variants(&list);
    if (!gd_mex_variants_call("gd_knnsearch", nlhs, plhs, nrhs, prhs, 1, count, list) || nrhs != 1)
        gd_mex_error("gd_knnsearch", "gd:input", "expected 'variants'");
}

/* gd_rangesearch: pdist2's form with 'Radius', the hits of each query */
void gd_op_rangesearch(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    pdist_any("gd_rangesearch", 2, nlhs, plhs, nrhs, prhs);
}

/* the range search's variant table (gd_rangesearch ('variants')) */
void gd_op_range(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    const gd_variant_info *list;
    const int count = gd_range_variants(&list);
    if (!gd_mex_variants_call("gd_rangesearch", nlhs, plhs, nrhs, prhs, 1, count, list) ||
        nrhs != 1)
        gd_mex_error("gd_rangesearch", "gd:input", "expected 'variants'");
}

/* [D, I] = __gd__('knn_merge', D, I, K, lens, first, largest, by_query):
 * the ranks' lists of a search merged (octave/private/__gd_ranks__.m):
 * the parts' lists side by side in D and I (Octave matrices, or gdArrays
 * on one device: the results are then gdArrays there), part p's lens(p)
 * candidates a query, its rows counted after first(p) */
void gd_op_knn_merge(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_knnsearch";
    if (nrhs != 7 || nlhs != 2 || mxGetNumberOfElements(prhs[3]) != mxGetNumberOfElements(prhs[4]) ||
        !mxIsDouble(prhs[3]) || !mxIsDouble(prhs[4]) || mxGetNumberOfElements(prhs[3]) < 1)
        gd_mex_error(FN, "gd:input", "internal: knn_merge takes D, I, K, lens, first, largest, by_query");
    gd_matrix D, I;
    int gD = 0, gI = 0;
    gd_mex_operand(FN, "D", prhs[0], &D, &gD);
    gd_mex_operand_int(FN, "I", prhs[1], &I, &gI);
    const int np = (int)mxGetNumberOfElements(prhs[3]);
    int64_t *lens = (int64_t *)mxCalloc((size_t)np, sizeof(int64_t));
    int64_t *first = (int64_t *)mxCalloc((size_t)np, sizeof(int64_t));
    for (int p = 0; p < np; ++p) {
        lens[p] = (int64_t)mxGetPr(prhs[3])[p];
        first[p] = (int64_t)mxGetPr(prhs[4])[p];
    }
    const int64_t K = (int64_t)mxGetScalar(prhs[2]);
    const int by_query = mxGetScalar(prhs[6]) != 0;
    const int64_t q = by_query ? D.rows : D.cols;
    const size_t m = (size_t)(by_query ? q : K), n = (size_t)(by_query ? K : q);
    const int resident = gD || gI, on_device = D.where == GD_DEVICE;
    gd_mex_result RD, RI;
    gd_timing t = gd_mex_timing();
    gd_out od = gd_mex_result_out(&RD, resident, on_device, m, n, D.cls);
    gd_out oi = gd_mex_result_out(&RI, resident, on_device, m, n, I.cls);
    const gd_status s = gd_knn_merge(&D, &I, K, np, lens, first, mxGetScalar(prhs[5]) != 0,
                                     by_query, od, oi, gd_mex_place(), &t);
    gd_mex_take_pair(FN, nlhs, plhs, &RD, &RI, s);
}
