/* op_spmd.c - the ranks of an MPI job (octave/gd_spmd*.m), through
 * __gd__('spmd', what, ...), as MATLAB's spmd functions name them:
 *
 *   r = __gd__('spmd', 'index')              this rank, 1 ... n
 *   n = __gd__('spmd', 'size')               the ranks
 *   __gd__('spmd', 'barrier')
 *   X = __gd__('spmd', 'broadcast', src, X)  src's X on every rank (X
 *                                            only needed on src)
 *   g = __gd__('spmd', 'group', color, key)  the group of the ranks of
 *                                            this color, ordered by key
 *                                            (every rank at once)
 *   X = __gd__('spmd', 'broadcast', src, X, g)  among group g's ranks
 *                                            alone, src its rank there
 *   Y = __gd__('spmd', 'cat', X, dim, dest)  every rank's X concatenated
 *                                            along dim, on dest (0: every
 *                                            rank; [] elsewhere)
 *
 * and for gdArrays, the data moving between the GPUs by NCCL:
 *
 *   [ok, why] = __gd__('spmd', 'gpu')        whether the ranks can (every
 *                                            rank at once; the same answer
 *                                            on each)
 *   G = __gd__('spmd', 'gpu_broadcast', src, G, g)  src's gdArray G as a
 *                                            new gdArray on every rank of
 *                                            group g (0: the job)
 *   G = __gd__('spmd', 'gpu_cat', G, dim, g) the gdArrays of group g's
 *                                            ranks (0: the job's)
 *                                            concatenated along dim (1 or
 *                                            2), a new gdArray on each
 *
 * Outside a job (no launcher) there is one rank of one and each is the
 * identity. A value is a real numeric, logical or char array; each rank
 * first tells the others what it holds (class, size, or what is wrong
 * with it), so a bad value on one rank raises the same gd:input on every
 * rank, naming that rank, instead of leaving the others waiting. */
#include "gd_mex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIMS = 16 };
/* what a rank holds: fixed size, so that it goes out in one collective */
typedef struct {
    int32_t bad;                  /* 1: msg says what is wrong */
    int32_t cls;                  /* mxClassID */
    int32_t nd;
    int32_t pad;
    int64_t dims[DIMS];
    int64_t bytes;
    char msg[160];
} spmd_head;

static void describe(const mxArray *X, spmd_head *h)
{
    memset(h, 0, sizeof *h);
    if (!X) {
        h->bad = 1;
        snprintf(h->msg, sizeof h->msg, "no value given");
        return;
    }
    const int ok = (mxIsNumeric(X) || mxIsLogical(X) || mxIsChar(X)) && !mxIsSparse(X) &&
                   !mxIsComplex(X);
    const size_t nd = mxGetNumberOfDimensions(X);
    if (!ok || nd > DIMS) {
        h->bad = 1;
        snprintf(h->msg, sizeof h->msg, "must be a real, full numeric, logical or char array "
                 "of at most %d dimensions, not %s%s", DIMS, mxIsComplex(X) ? "complex " : "",
                 mxIsSparse(X) ? "sparse" : mxGetClassName(X));
        return;
    }
    h->cls = (int32_t)mxGetClassID(X);
    h->nd = (int32_t)nd;
    for (size_t k = 0; k < nd; ++k) h->dims[k] = (int64_t)mxGetDimensions(X)[k];
    h->bytes = (int64_t)(mxGetNumberOfElements(X) * mxGetElementSize(X));
}

static mxArray *make(const spmd_head *h)
{
    mwSize d[DIMS];
    for (int k = 0; k < h->nd; ++k) d[k] = (mwSize)h->dims[k];
    if (h->cls == mxLOGICAL_CLASS) return mxCreateLogicalArray((mwSize)h->nd, d);
    if (h->cls == mxCHAR_CLASS) return mxCreateCharArray((mwSize)h->nd, d);
    return mxCreateNumericArray((mwSize)h->nd, d, (mxClassID)h->cls, mxREAL);
}

static void check(const char *fn, gd_status s)
{
    if (s) gd_mex_fail(fn, s);
}

/* a rank argument: a whole number 1 ... n (or 0 where zero_ok) */
static int rank_arg(const char *fn, const char *name, const mxArray *a, int n, int zero_ok)
{
    const double x = a && mxIsNumeric(a) && !mxIsComplex(a) && mxGetNumberOfElements(a) == 1
                         ? mxGetScalar(a) : -1;
    if (!(x == (int)x && x >= (zero_ok ? 0 : 1) && x <= n))
        gd_mex_error(fn, "gd:input", "%s must be a rank, a whole number from 1 to %d%s", name, n,
                     zero_ok ? " (or omitted: every rank)" : "");
    return (int)x;
}

/* the groups made here: this rank's place in each and their sizes */
static struct {
    int n, rank[GD_MPI_GROUPS], size[GD_MPI_GROUPS];
} G;

static void group(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    if (nrhs != 2 || !mxIsNumeric(prhs[0]) || !mxIsNumeric(prhs[1]) ||
        mxGetNumberOfElements(prhs[0]) != 1 || mxGetNumberOfElements(prhs[1]) != 1)
        gd_mex_error("gd_spmd", "gd:input", "a group takes a color and a key");
    int g, r, n;
    check("gd_spmd", gd_mpi_group((int)mxGetScalar(prhs[0]), (int)mxGetScalar(prhs[1]), &g, &r, &n));
    if (g >= 0 && g < GD_MPI_GROUPS) {
        G.rank[g] = r;
        G.size[g] = n;
        if (g >= G.n) G.n = g + 1;
    }
    plhs[0] = mxCreateDoubleScalar(g + 1);
}

/* src's value to every rank, or (a fourth argument: a group) to every
 * rank of the group, src its rank there */
static void broadcast(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_spmdBroadcast";
    (void)nlhs;
    int n = gd_mpi_size(), me = gd_mpi_rank() + 1, g = -1;
    if (nrhs > 2) {
        const double x = mxIsNumeric(prhs[2]) && mxGetNumberOfElements(prhs[2]) == 1
                             ? mxGetScalar(prhs[2]) : 0;
        g = (int)x - 1;
        if (!(x == (int)x && g >= 0 && (g < G.n || gd_mpi_size() == 1)))
            gd_mex_error(FN, "gd:input", "internal: no group %g", x);
        if (gd_mpi_size() > 1) {
            n = G.size[g];
            me = G.rank[g] + 1;
        }
    }
    const int src = rank_arg(FN, "the source", nrhs > 0 ? prhs[0] : NULL, n, 0);
    spmd_head h;
    if (me == src) describe(nrhs > 1 ? prhs[1] : NULL, &h);
    check(FN, g < 0 ? gd_mpi_bcast(&h, sizeof h, src - 1) : gd_mpi_bcast_in(&h, sizeof h, src - 1, g));
    if (h.bad) gd_mex_error(FN, "gd:input", "rank %d's value %s", src, h.msg);
    plhs[0] = me == src ? mxDuplicateArray(prhs[1]) : make(&h);
    check(FN, g < 0 ? gd_mpi_bcast(mxGetData(plhs[0]), (size_t)h.bytes, src - 1)
                    : gd_mpi_bcast_in(mxGetData(plhs[0]), (size_t)h.bytes, src - 1, g));
}

static void cat(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_spmdCat";
    (void)nlhs;
    const int n = gd_mpi_size(), me = gd_mpi_rank() + 1;
    double dim = 1;
    if (nrhs > 1 && !mxIsEmpty(prhs[1])) {
        dim = mxIsNumeric(prhs[1]) && mxGetNumberOfElements(prhs[1]) == 1 ? mxGetScalar(prhs[1]) : 0;
        if (!(dim >= 1 && dim <= DIMS && dim == (int)dim))
            gd_mex_error(FN, "gd:input", "DIM must be a whole number from 1 to %d", DIMS);
    }
    const int dest = nrhs > 2 && !mxIsEmpty(prhs[2]) ? rank_arg(FN, "the destination", prhs[2], n, 0) : 0;
    spmd_head mine, *all = (spmd_head *)mxCalloc((size_t)n, sizeof(spmd_head));
    describe(nrhs > 0 ? prhs[0] : NULL, &mine);
    check(FN, gd_mpi_allgather(&mine, sizeof mine, all));
    /* every rank sees every rank's head: the same error everywhere */
    for (int r = 0; r < n; ++r)
        if (all[r].bad) gd_mex_error(FN, "gd:input", "rank %d's value %s", r + 1, all[r].msg);
    const int d = (int)dim - 1;
    for (int r = 1; r < n; ++r) {
        if (all[r].cls != all[0].cls)
            gd_mex_error(FN, "gd:input", "rank %d's value is %s where rank 1's is %s", r + 1,
                         all[r].cls == mxLOGICAL_CLASS ? "logical" : "another class",
                         all[0].cls == mxLOGICAL_CLASS ? "logical" : "another class");
        const int nd = all[r].nd > all[0].nd ? all[r].nd : all[0].nd;
        for (int k = 0; k < nd && k < DIMS; ++k) {
            const int64_t a = k < all[0].nd ? all[0].dims[k] : 1, b = k < all[r].nd ? all[r].dims[k] : 1;
            if (k != d && a != b)
                gd_mex_error(FN, "gd:size", "rank %d's value is not the size of rank 1's but "
                             "along dimension %d", r + 1, d + 1);
        }
    }
    size_t *counts = (size_t *)mxCalloc((size_t)n, sizeof(size_t)), total = 0;
    for (int r = 0; r < n; ++r) total += counts[r] = (size_t)all[r].bytes;
    const int here = dest == 0 || dest == me;
    char *buf = (char *)mxMalloc(total ? total : 1);
    check(FN, gd_mpi_gatherv(mxGetData(prhs[0]), (size_t)mine.bytes, buf, counts, dest - 1,
                             dest == 0));
    if (!here) {
        plhs[0] = mxCreateDoubleMatrix(0, 0, mxREAL);
        return;
    }
    /* the parts, then Octave's own cat along dim */
    mxArray **args = (mxArray **)mxCalloc((size_t)n + 1, sizeof(mxArray *));
    args[0] = mxCreateDoubleScalar(dim);
    size_t off = 0;
    for (int r = 0; r < n; ++r) {
        args[r + 1] = make(&all[r]);
        memcpy(mxGetData(args[r + 1]), buf + off, counts[r]);
        off += counts[r];
    }
    mexCallMATLAB(1, plhs, n + 1, args, "cat");
}

/* group argument g (1-based; 0: the job): the group's 0-based index (-1:
 * the job), with this rank's place and the group's size */
static int group_arg(const char *fn, const mxArray *a, int *me, int *n)
{
    const double x = a && mxIsNumeric(a) && mxGetNumberOfElements(a) == 1 ? mxGetScalar(a) : -1;
    const int g = (int)x - 1;
    if (!(x == (int)x && x >= 0 && (g < G.n || gd_mpi_size() == 1)))
        gd_mex_error(fn, "gd:input", "internal: no group %g", x);
    *me = gd_mpi_rank();
    *n = gd_mpi_size();
    if (g >= 0 && gd_mpi_size() > 1) {
        *me = G.rank[g];
        *n = G.size[g];
    }
    return g;
}

/* what a rank's gdArray is, for the others: class and size, or why not */
typedef struct {
    int32_t bad, cls;
    int64_t rows, cols;
    char msg[112];
} gpu_head;

static void gpu_describe(const char *fn, const mxArray *a, gd_matrix *m, gpu_head *h)
{
    memset(h, 0, sizeof *h);
    const gd_matrix *found = a && gd_mex_is_gdarray(a) ? gd_mex_find_array(a) : NULL;
    if (!found || found->where != GD_DEVICE || found->pieces) {
        h->bad = 1;
        snprintf(h->msg, sizeof h->msg, "must be a gdArray on a GPU%s",
                 found && found->pieces ? " of one device" : found ? " (it is held on the host)" : "");
        return;
    }
    int g = 0;
    gd_mex_operand(fn, "G", a, m, &g);
    h->cls = (int32_t)m->cls;
    h->rows = m->rows;
    h->cols = m->cols;
}

static void gpu_ready(int nlhs, mxArray *plhs[])
{
    char why[256] = "";
    const int ok = gd_nccl_ready(why, sizeof why);
    plhs[0] = mxCreateLogicalScalar(ok != 0);
    if (nlhs > 1) plhs[1] = mxCreateString(why);
}

static void gpu_broadcast(int nrhs, const mxArray *prhs[], mxArray *plhs[])
{
    static const char FN[] = "gd_spmdBroadcast";
    int me, n;
    const int g = group_arg(FN, nrhs > 2 ? prhs[2] : NULL, &me, &n);
    const int src = rank_arg(FN, "the source", nrhs > 0 ? prhs[0] : NULL, n, 0);
    gd_matrix m;
    memset(&m, 0, sizeof m);
    gpu_head h;
    if (me + 1 == src) gpu_describe(FN, nrhs > 1 ? prhs[1] : NULL, &m, &h);
    check(FN, g < 0 ? gd_mpi_bcast(&h, sizeof h, src - 1) : gd_mpi_bcast_in(&h, sizeof h, src - 1, g));
    if (h.bad) gd_mex_error(FN, "gd:input", "rank %d's value %s", src, h.msg);
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, 1, (size_t)h.rows, (size_t)h.cols, (gd_class)h.cls);
    plhs[0] = gd_mex_result_take(FN, &R, gd_nccl_bcast(me + 1 == src ? &m : NULL, src - 1, g, h.rows,
                                                       h.cols, (gd_class)h.cls, out,
                                                       gd_mex_place(), &t));
}

static void gpu_cat(int nrhs, const mxArray *prhs[], mxArray *plhs[])
{
    static const char FN[] = "gd_spmdCat";
    int me, n;
    const int g = group_arg(FN, nrhs > 2 ? prhs[2] : NULL, &me, &n);
    const double dim = nrhs > 1 && mxIsNumeric(prhs[1]) && mxGetNumberOfElements(prhs[1]) == 1
                           ? mxGetScalar(prhs[1]) : 0;
    if (dim != 1 && dim != 2) gd_mex_error(FN, "gd:input", "DIM must be 1 or 2 for gdArrays");
    gd_matrix m;
    memset(&m, 0, sizeof m);
    gpu_head mine, *all = (gpu_head *)mxCalloc((size_t)n, sizeof(gpu_head));
    gpu_describe(FN, nrhs > 0 ? prhs[0] : NULL, &m, &mine);
    /* every rank of the group hears every head: a group's own gather is
     * the job's, one rank's head at a time */
    for (int q = 0; q < n; ++q) {
        if (q == me) all[q] = mine;
        check(FN, g < 0 ? gd_mpi_bcast(&all[q], sizeof all[q], q)
                        : gd_mpi_bcast_in(&all[q], sizeof all[q], q, g));
    }
    int64_t *ext = (int64_t *)mxCalloc((size_t)n, sizeof(int64_t)), total = 0;
    const int64_t other = dim == 1 ? all[0].cols : all[0].rows;
    for (int q = 0; q < n; ++q) {
        if (all[q].bad) gd_mex_error(FN, "gd:input", "rank %d's value %s", q + 1, all[q].msg);
        if (all[q].cls != all[0].cls)
            gd_mex_error(FN, "gd:input", "rank %d's gdArray is %s where the first's is %s", q + 1,
                         gd_mex_class_name((gd_class)all[q].cls), gd_mex_class_name((gd_class)all[0].cls));
        if ((dim == 1 ? all[q].cols : all[q].rows) != other)
            gd_mex_error(FN, "gd:size", "rank %d's gdArray is not the size of the first's but "
                         "along dimension %d", q + 1, (int)dim);
        total += ext[q] = dim == 1 ? all[q].rows : all[q].cols;
    }
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, 1, (size_t)(dim == 1 ? total : other),
                                   (size_t)(dim == 1 ? other : total), (gd_class)all[0].cls);
    plhs[0] = gd_mex_result_take(FN, &R, gd_nccl_cat(&m, (int)dim, ext, other, g, out,
                                                     gd_mex_place(), &t));
}

void gd_op_spmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    char what[16];
    if (nrhs < 1 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], what, sizeof what))
        gd_mex_error("gd_spmd", "gd:input", "expected what to do");
    const gd_status s = gd_mpi_join();
    if (s) gd_mex_fail("gd_spmd", s);
    if (!strcmp(what, "index")) {
        plhs[0] = mxCreateDoubleScalar(gd_mpi_rank() + 1);
    } else if (!strcmp(what, "size")) {
        plhs[0] = mxCreateDoubleScalar(gd_mpi_size());
    } else if (!strcmp(what, "barrier")) {
        check("gd_spmdBarrier", gd_mpi_barrier());
    } else if (!strcmp(what, "group")) {
        group(nlhs, plhs, nrhs - 1, prhs + 1);
    } else if (!strcmp(what, "broadcast")) {
        broadcast(nlhs, plhs, nrhs - 1, prhs + 1);
    } else if (!strcmp(what, "cat")) {
        cat(nlhs, plhs, nrhs - 1, prhs + 1);
    } else if (!strcmp(what, "gpu")) {
        gpu_ready(nlhs, plhs);
    } else if (!strcmp(what, "gpu_broadcast")) {
        gpu_broadcast(nrhs - 1, prhs + 1, plhs);
    } else if (!strcmp(what, "gpu_cat")) {
        gpu_cat(nrhs - 1, prhs + 1, plhs);
    } else {
        gd_mex_error("gd_spmd", "gd:input", "unknown '%s'", what);
    }
}
