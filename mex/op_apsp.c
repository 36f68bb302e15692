/* op_apsp.c - gd_apsp (octave/gd_apsp.m), through __gd__:
 *
 *   [D, P, info] = __gd__('apsp', W, 'Variant', name, 'IndexClass', c)
 *   [D, ~, info] = __gd__('apsp_info', W, ...)   the same without P
 *   list = __gd__('apsp', 'variants')
 *   [D, P, info] = __gd__('sssp', W, s, 'Variant', name, 'IndexClass', c)
 *                  (gd_apsp (W, 'Sources', s): W dense, sparse or a
 *                  gdArray, s the sources; D and P numel (s) x n,
 *                  gdArrays where W or s is one)
 *   [D, P, info] = __gd__('sssp_all', W, 1:n, ...)  the same, P 0 where no
 *                  path (gd_apsp's all pairs by every vertex a source)
 *   list = __gd__('sssp', 'variants')
 *   [P, r] = __gd__('apsp_trees', D, W, P, i0)  rows of P made trees (a rank's
 *                  rows of a gdCodistributed W's paths: __gd_ranks__; with
 *                  gdArrays on the GPU, i0 the rows' sources)
 *   [D, T] = __gd__('apsp_ranks', W, grid)  a rank's part of D (and of the
 *                  tags), the rounds across the ranks' GPUs
 *   [P, broken] = __gd__('apsp_chain', D, T, src) or ('apsp_chain', P)
 *                  the chain of a rank's rows of tags, or the jumps of P
 *
 * W is an Octave matrix (single, double or an integer class) or a
 * gdArray; with a gdArray the results are gdArrays. The integer classes
 * take 'auto', 'fw' and 'cpu' (gd_apsp in kernels/ops/apsp.cu: the GPU where
 * the weights prove single or double exact).
 */
#include "gd_mex.h"

#include <math.h>
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
        p32 = gd_mex_variant_index(FN, nrhs, prhs, 1, count, list, variant, sizeof variant) ==
              GD_INT32;
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
    gd_status s = gd_apsp(variant, &W, dout, wp ? &pout : NULL, pcls, &vertex, gd_mex_place(), &t);
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

/* gd_apsp (W, 'Sources', s): the paths from each source */
/* the vertices v (1-based, any numeric class) as 0-based int64s, each a
 * whole number in 1..n (else gd:input naming what); mxFree the result */
static int64_t *vertices_arg(const char *fn, const char *what, const mxArray *v, int64_t n)
{
    const size_t ns = mxGetNumberOfElements(v);
    int64_t *src = (int64_t *)mxMalloc(ns * 8 + 8);
    for (size_t k = 0; k < ns; ++k) {
        const double x = gd_mex_scalar_at(v, k);
        if (!(x >= 1 && x <= (double)n && x == floor(x))) {
            mxFree(src);
            gd_mex_error(fn, "gd:input", "%s must hold vertex indices in 1..%lld: element %zu "
                         "is %g", what, (long long)n, k + 1, x);
        }
        src[k] = (int64_t)x - 1;
    }
    return src;
}

/* 'Sources', or (all_pairs) every vertex a source with the all-pairs P's
 * 0 where no path */
static void sssp(int all_pairs, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_apsp";
    const gd_variant_info *list;
    const int count = gd_sssp_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, 3, count, list)) return;
    if (nrhs < 2) gd_mex_error(FN, "gd:input", "expected W and the sources s");
    gd_matrix W;
    gd_sparse S;
    int resident = 0, sparse = mxIsSparse(prhs[0]);
    memset(&W, 0, sizeof W);
    memset(&S, 0, sizeof S);
    if (sparse) {
        const mxArray *a = prhs[0];
        if (!mxIsDouble(a) || mxIsComplex(a))
            gd_mex_error(FN, "gd:input", "a sparse W must be real double");
        if (mxGetM(a) != mxGetN(a))
            gd_mex_error(FN, "gd:size", "W must be square (the weights of a graph), not %zux%zu",
                         (size_t)mxGetM(a), (size_t)mxGetN(a));
        _Static_assert(sizeof(mwIndex) == sizeof(int64_t), "Octave's sparse indices are 64-bit");
        S.n = (int64_t)mxGetN(a);
        S.colptr = (const int64_t *)mxGetJc(a);
        S.rowidx = (const int64_t *)mxGetIr(a);
        S.vals = mxGetPr(a);
        S.cls = GD_DOUBLE;
    } else {
        gd_mex_operand_int(FN, "W", prhs[0], &W, &resident);
    }
    const int64_t n = sparse ? S.n : W.rows;
    int on_device = !sparse && W.where == GD_DEVICE;
    /* MATLAB's rule: a gdArray s, as a gdArray W, gives gdArray results
     * (for a sparse W, which cannot be one, the way to keep D and P on
     * the GPU) */
    const mxArray *sv = prhs[1];
    mxArray *gathered = NULL;
    if (gd_mex_is_gdarray(sv)) {
        gd_matrix Sv;
        int g = 0;
        gd_mex_operand_int(FN, "'Sources'", sv, &Sv, &g);
        resident = 1;
        on_device |= Sv.where == GD_DEVICE;
        sv = gathered = gd_mex_download(FN, &Sv);
    }
    if (!mxIsNumeric(sv) || mxIsComplex(sv) || mxIsSparse(sv) ||
        (mxGetM(sv) > 1 && mxGetN(sv) > 1))
        gd_mex_error(FN, "gd:input", "'Sources' must be a vector of vertex indices");
    const size_t ns = mxGetNumberOfElements(sv);
    int64_t *src = vertices_arg(FN, "'Sources'", sv, n);
    if (gathered) mxDestroyArray(gathered);
    char variant[32];
    const gd_class pcls = gd_mex_variant_index(FN, nrhs, prhs, 2, count, list, variant,
                                               sizeof variant);
    const gd_class cls = sparse ? GD_DOUBLE : W.cls;
    gd_mex_result D, P;
    gd_timing t = gd_mex_timing();
    int64_t vertex = 0;
    gd_out dout = gd_mex_result_out(&D, resident, on_device, ns, (size_t)n, cls);
    gd_out pout;
    const int wp = nlhs > 1;
    if (wp) pout = gd_mex_result_out(&P, resident, on_device, ns, (size_t)n, pcls);
    gd_status s = gd_sssp(variant, sparse ? NULL : &W, sparse ? &S : NULL, src, (int64_t)ns,
                          dout, wp ? &pout : NULL, pcls, all_pairs, &vertex, gd_mex_place(), &t);
    mxFree(src);
    gd_mex_take_pair(FN, nlhs, plhs, &D, wp ? &P : NULL, s);
    gd_mex_after_call(FN, &t);
    if (nlhs > 2) {
        const int64_t size[2] = {(int64_t)ns, n};
        plhs[2] = gd_mex_info(&t, cls, "edges/s", 2, size, 1);
    }
}

void gd_op_sssp(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    sssp(0, nlhs, plhs, nrhs, prhs);
}

void gd_op_sssp_all(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    sssp(1, nlhs, plhs, nrhs, prhs);
}

/* The trees on the GPU: D, W and P gdArrays (P int32), src the rows'
 * sources (1-based, numel = rows of D): P's rows made trees, an int32
 * gdArray */
static void trees_gpu(int nlhs, mxArray *plhs[], const mxArray *prhs[])
{
    static const char FN[] = "gd_apsp";
    gd_matrix D, W, P;
    int g = 0;
    gd_mex_operand(FN, "D", prhs[0], &D, &g);
    gd_mex_operand(FN, "W", prhs[1], &W, &g);
    gd_mex_operand_int(FN, "P", prhs[2], &P, &g);
    const size_t rows = (size_t)D.rows;
    if (mxGetNumberOfElements(prhs[3]) != rows)
        gd_mex_error(FN, "gd:input", "apsp_trees: a source a row of D expected");
    int64_t *src = vertices_arg(FN, "apsp_trees: the sources", prhs[3], D.cols);
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, 1, rows, (size_t)D.cols, GD_INT32);
    int64_t repaired = 0;
    const gd_status s = gd_apsp_trees(&D, &W, &P, src, out, &repaired, gd_mex_place(), &t);
    mxFree(src);
    plhs[0] = gd_mex_result_take(FN, &R, s);
    if (nlhs > 1) plhs[1] = mxCreateDoubleScalar((double)repaired);
}

/* [D, T] = __gd__ ('apsp_ranks', W, [n b pr pc gi gj row column]): this
 * rank's part of D (and of the rounds' tags, T) by the rounds across the
 * ranks' GPUs (gd_apsp_ranks); every rank of the job calls at once
 * (__gd_ranks_grid__) */
void gd_op_apsp_ranks(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_apsp";
    if (nrhs != 2 || !mxIsDouble(prhs[1]) || mxGetNumberOfElements(prhs[1]) != 8)
        gd_mex_error(FN, "gd:input", "apsp_ranks: expected W and the grid");
    gd_matrix W;
    int g = 0;
    gd_mex_operand(FN, "W", prhs[0], &W, &g);
    const double *v = mxGetPr(prhs[1]);
    const gd_grid grid = {(int64_t)v[0], (int64_t)v[1], (int)v[2], (int)v[3],
                          (int)v[4], (int)v[5], (int)v[6] - 1, (int)v[7] - 1};
    gd_mex_result R, T;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, 1, (size_t)W.rows, (size_t)W.cols, W.cls);
    gd_out tags = {};
    if (nlhs > 1) tags = gd_mex_result_out(&T, 1, 1, (size_t)W.rows, (size_t)W.cols, GD_INT32);
    int64_t cycle = 0;
    const gd_status s = gd_apsp_ranks(&W, &grid, out, nlhs > 1 ? &tags : NULL, &cycle,
                                      gd_mex_place(), &t);
    gd_mex_take_pair(FN, nlhs, plhs, &R, nlhs > 1 ? &T : NULL, s);
}

/* [P, broken] = __gd__ ('apsp_chain', D, T, src): the chain of the tags'
 * rows T (int32 gdArray) of the sources src (1-based) against D whole (a
 * gdArray); [P, broken] = __gd__ ('apsp_chain', P): the jumps of P whole
 * (gd_apsp_chain) */
void gd_op_apsp_chain(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_apsp";
    if (nrhs != 1 && nrhs != 3)
        gd_mex_error(FN, "gd:input", "apsp_chain: expected D, T and the sources, or P");
    gd_matrix D, T;
    memset(&D, 0, sizeof D);
    int g = 0;
    if (nrhs == 3) gd_mex_operand(FN, "D", prhs[0], &D, &g);
    gd_mex_operand_int(FN, "T", prhs[nrhs == 3 ? 1 : 0], &T, &g);
    const size_t rows = (size_t)T.rows;
    int64_t *src = NULL;
    if (nrhs == 3) {
        if (mxGetNumberOfElements(prhs[2]) != rows)
            gd_mex_error(FN, "gd:input", "apsp_chain: a source a row of T expected");
        src = vertices_arg(FN, "apsp_chain: the sources", prhs[2], T.cols);
    }
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, 1, rows, (size_t)T.cols, GD_INT32);
    int broken = 0;
    const gd_status s = gd_apsp_chain(&D, &T, src, out, &broken, gd_mex_place(), &t);
    if (src) mxFree(src);
    plhs[0] = gd_mex_result_take(FN, &R, s);
    if (nlhs > 1) plhs[1] = mxCreateLogicalScalar(broken != 0);
}

/* [P, repaired] = __gd__ ('apsp_trees', D, W, P, i0): the rows of the
 * sources i0 .. i0 + rows (D) - 1 of P made shortest-path trees as
 * gd_apsp's own are (gd_cpu_apsp_trees): D those sources' rows of the
 * lengths (single or double, rows x n), W the whole n x n weights in
 * D's class, P their predecessors (double, 1-based, 0 for none). For
 * gd_apsp on a gdCodistributed W, each rank its rows (__gd_ranks__). */
void gd_op_apsp_trees(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_apsp";
    if (nrhs != 4) gd_mex_error(FN, "gd:input", "apsp_trees: expected D, W, P and i0");
    if (gd_mex_is_gdarray(prhs[0])) {
        trees_gpu(nlhs, plhs, prhs);
        return;
    }
    const mxArray *D = prhs[0], *W = prhs[1], *P = prhs[2];
    const int single = mxIsSingle(D);
    const size_t rows = mxGetM(D), n = mxGetN(D);
    if (!(single || mxIsDouble(D)) || mxIsComplex(D) || mxIsSparse(D) ||
        mxGetClassID(W) != mxGetClassID(D) || mxIsComplex(W) || mxIsSparse(W) ||
        mxGetM(W) != n || mxGetN(W) != n || !mxIsDouble(P) || mxIsComplex(P) ||
        mxIsSparse(P) || mxGetM(P) != rows || mxGetN(P) != n)
        gd_mex_error(FN, "gd:input", "apsp_trees: D (rows x n, single or double), W (n x n, "
                     "D's class) and P (rows x n, double) expected");
    const double i0 = gd_mex_scalar_at(prhs[3], 0);
    if (!(i0 >= 1 && i0 + (double)rows - 1 <= (double)n && i0 == floor(i0)))
        gd_mex_error(FN, "gd:input", "apsp_trees: i0 must be a row of W, its rows inside W's");
    int32_t *p = (int32_t *)mxMalloc(rows * n * 4 + 4);
    const double *pin = mxGetPr(P);
    for (size_t e = 0; e < rows * n; ++e) p[e] = (int32_t)pin[e];
    int64_t repaired = 0;
    const int rc =
        single ? gd_cpu_apsp_trees_f((const float *)mxGetData(D), (int64_t)rows,
                                     (const float *)mxGetData(W), (int64_t)n, p, (int64_t)rows,
                                     (int64_t)n, (int64_t)i0 - 1, (int64_t)rows, &repaired)
               : gd_cpu_apsp_trees_d(mxGetPr(D), (int64_t)rows, mxGetPr(W), (int64_t)n, p,
                                     (int64_t)rows, (int64_t)n, (int64_t)i0 - 1, (int64_t)rows,
                                     &repaired);
    if (rc) {
        mxFree(p);
        gd_mex_error(FN, "gd:memory", "cannot allocate the predecessors' work space in host "
                     "memory");
    }
    plhs[0] = mxCreateDoubleMatrix(rows, n, mxREAL);
    double *pout = mxGetPr(plhs[0]);
    for (size_t e = 0; e < rows * n; ++e) pout[e] = p[e];
    mxFree(p);
    if (nlhs > 1) plhs[1] = mxCreateDoubleScalar((double)repaired);
}
