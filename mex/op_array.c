/* op_array.c - the gdArray class (octave/gdArray.m) and the layout
 * operations on gdArrays, through __gd__:
 *
 *   id = __gd__('upload', A)          a new table entry holding A
 *   id = __gd__('upload', A, d)       the same on device d (1-based)
 *   id = __gd__('upload', A, 'devices', L)  distributed: A's columns
 *                                     divided over the devices L ('all':
 *                                     every device), a piece on each
 *   d = __gd__('device', G)           the device G lives on (1-based; a
 *                                     distributed G's, one a piece)
 *   A = __gd__('gather', G)           G's elements as an Octave matrix
 *   __gd__('free', id)                frees a live entry (else nothing)
 *   R = __gd__('transpose', G)        G.' as a new gdArray
 *   R = __gd__('index', G, I, J, r, c) G(I, J) as a new r x c gdArray (J
 *                                     empty: G(I), linear), gathered on
 *                                     G's device
 *   R = __gd__('squareform', G, tomatrix)
 *   s = __gd__('describe', G)         "4x4 single gdArray (64 B on ...)"
 *   R = __gd__('ew2', op, A, B, cls)  A op B element-wise (0 +, 1 -, 2 .*,
 *                                     3 ./, 4 max, 5 min), Octave's broadcasting, in
 *                                     class cls (the caller's, by Octave's
 *                                     rule); A or B a gdArray
 *   R = __gd__('ew1', op, A)          op A (0 unary -, 1 abs, 2 sqrt, 3 floor,
 *                                     4 ceil, 5 round, 6 fix, 7 sign, 8 exp,
 *                                     9 log, 10 log2, 11 log1p, 12 expm1,
 *                                     13 sin, 14 cos, 15 tanh)
 *   R = __gd__('convert', A, cls)     A in class cls, as Octave converts
 *   R = __gd__('convert', A, cls, r, c)  the same, r x c (reshape)
 *   R = __gd__('cat', dim, P1, P2, ...) the parts (one class; gdArrays or
 *                                     matrices) put together along dim
 *   [R, I] = __gd__('reduce', op, A, dim)  sum (0), prod (1), max (2),
 *                                     min (3) or nnz (4) along dim (1 or
 *                                     2); I the extremes' places
 *   R = __gd__('scan', op, A, dim)    cumsum (0) or cumprod (1) along dim
 *   R = __gd__('cmp', op, A, B)       A op B, logical (0 ==, 1 ~=, 2 <, 3 <=,
 *                                     4 >, 5 >=, 6 &, 7 |)
 *   R = __gd__('test', op, A)         isnan (0), isinf (1), isfinite (2),
 *                                     logical (3) or ~ (4) of A, logical
 *   R = __gd__('assign', A, I, X)     A with A(I(k)) = X(k) (I linear, 1-based,
 *                                     distinct; X A's class, 1 or numel (I))
 *   R = __gd__('tri', A, k, upper)    triu (A, k) (upper true) or tril (A, k)
 *   R = __gd__('fill', cls, r, c, v)  an r x c gdArray of v in class cls
 *   [R, cx] = __gd__('fuse', P, k, cls, logical, A1, ...)  arrayfun's
 *                                     chain in one pass (gd_ew_fused)
 * (ew2's op 6 mod, 7 rem, 8 .^; reduce's 5 any, 6 all, logical.) A logical
 * gdArray is held as bytes of 0 and 1 (uint8) marked logical: these
 * operations, gather, transpose and indexing take and keep it; the class
 * 'logical' names it to convert and cat.
 */
#include "gd_mex.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a gdArray argument (gd:input for anything else) */
static void array_arg(const char *fn, const char *argname, int nrhs, const mxArray *prhs[],
                      gd_matrix *m)
{
    int g = 0;
    if (nrhs < 1 || !gd_mex_is_gdarray(prhs[0]))
        gd_mex_error(fn, "gd:input", "expected a gdArray");
    gd_mex_operand(fn, argname, prhs[0], m, &g);
}

void gd_op_upload(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    (void)nlhs;
    if (nrhs < 1 || nrhs > 3) gd_mex_error(FN, "gd:input", "expected one matrix");
    int pieces = 0; /* 'Devices': how many devices it is divided over */
    int idx[GD_MAX_DEVICES];
    if (nrhs == 3) {
        char name[16];
        gd_mex_option_string(FN, "option", prhs[1], name, sizeof name);
        if (strcmp(name, "devices"))
            gd_mex_error(FN, "gd:input", "expected 'Device', d or 'Devices', list");
        gd_mex_devices_option(FN, prhs[2]);
        const gd_place *at = gd_mex_place();
        pieces = at->devices.n ? at->devices.n : gd_device_count();
        for (int i = 0; i < pieces; ++i) idx[i] = at->devices.n ? at->devices.idx[i] : i;
        if (pieces <= 1) pieces = 0; /* one device (or none): an array of one piece */
    } else if (nrhs == 2) {
        /* 'Device', d: checked here against the devices gd sees */
        const mxArray *d = prhs[1];
        const double x = mxIsNumeric(d) && !mxIsComplex(d) && mxGetNumberOfElements(d) == 1
                             ? mxGetScalar(d) : NAN;
        if (!(x >= 1 && x <= 1e6 && x == floor(x)))
            gd_mex_error(FN, "gd:input", "'Device' must be one whole device index from 1 "
                         "(as gd_info numbers the devices)");
        if (gd_check_device((int)x - 1))
            gd_mex_error(FN, "gd:input", "'Device': %s", gd_last_error());
        gd_mex_home((int)x - 1, 1);
    }
    /* single, double and the integer classes (int8 ... uint64) */
    const int logical = mxIsLogical(prhs[0]);
    const int ic = logical ? (int)GD_UINT8 : gd_mex_int_class(prhs[0]);
    if (ic < 0 && !mxIsSingle(prhs[0]) && !mxIsDouble(prhs[0]))
        gd_mex_error(FN, "gd:input", "A must be a single, double, integer or logical matrix, not %s",
                     gd_mex_class_label(prhs[0]));
    gd_mex_check_shape(FN, "A", prhs[0]);
    const gd_class cls = ic >= 0 ? (gd_class)ic : mxIsSingle(prhs[0]) ? GD_SINGLE : GD_DOUBLE;
    const void *p = mxGetData(prhs[0]);
    const gd_matrix h = gd_host_matrix(p, cls, (int64_t)mxGetM(prhs[0]), (int64_t)mxGetN(prhs[0]));
    gd_timing t = gd_mex_timing(); /* its place: the device 'Device' named */
    void *dev = NULL;
    double id;
    if (pieces && h.cols >= 1) {
        gd_pieces P;
        const gd_status ps = gd_dev_upload_pieces(&h, pieces, idx, &P, gd_mex_place(), &t);
        if (ps) gd_mex_fail(FN, ps);
        id = gd_reg_add_pieces(&P, cls, h.rows, h.cols);
        gd_reg_held(id);
        if (logical) gd_reg_set_logical(id);
        plhs[0] = mxCreateDoubleScalar(id);
        return;
    }
    gd_status s = gd_dev_upload(&h, &dev, gd_mex_place(), &t);
    if (s == GD_ERR_NOGPU) {
        /* no GPU: the gdArray holds its data on the host, and every
         * operation on it runs on the CPU */
        snprintf(t.fallback, sizeof t.fallback, "%s", gd_last_error());
        const size_t bytes = (size_t)(h.rows * h.cols) * gd_class_bytes(cls);
        void *buf = malloc(bytes ? bytes : 1);
        if (!buf)
            gd_mex_error(FN, "gd:memory", "cannot allocate the array (%lldx%lld %s, %.1f MiB) "
                         "in host memory", (long long)h.rows, (long long)h.cols,
                         gd_mex_class_name(cls), bytes / 1048576.0);
        if (bytes) memcpy(buf, p, bytes);
        id = gd_reg_add(buf, 0, cls, h.rows, h.cols);
        gd_mex_after_call(FN, &t);
    } else {
        if (s) gd_mex_fail(FN, s);
        id = gd_reg_add(dev, 1, cls, h.rows, h.cols);
    }
    gd_reg_held(id); /* the constructor's object holds it: no claim */
    if (logical) gd_reg_set_logical(id);
    plhs[0] = mxCreateDoubleScalar(id);
}

/* m's elements (any place, any leading dimension) as a new Octave matrix */
void gd_op_gather(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gather";
    (void)nlhs;
    gd_matrix m;
    array_arg(FN, "G", nrhs, prhs, &m);
    plhs[0] = gd_mex_download(FN, &m);
    if (gd_mex_is_logical_array(prhs[0])) { /* the same bytes, logical */
        mxArray *L = mxCreateLogicalMatrix((mwSize)m.rows, (mwSize)m.cols);
        if ((size_t)(m.rows * m.cols)) memcpy(mxGetLogicals(L), mxGetData(plhs[0]), (size_t)(m.rows * m.cols));
        mxDestroyArray(plhs[0]);
        plhs[0] = L;
    }
}

/* r = __gd__('row', G, i): row i of a gdArray, as a host row (gd_path) */
void gd_op_row(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_path";
    (void)nlhs;
    gd_matrix m;
    if (nrhs != 2 || !mxIsDouble(prhs[1]) || mxGetNumberOfElements(prhs[1]) != 1)
        gd_mex_error(FN, "gd:input", "expected a gdArray and a row index");
    array_arg(FN, "P", 1, prhs, &m);
    const double i = mxGetScalar(prhs[1]);
    if (!(i >= 1 && i <= (double)m.rows && i == floor(i)))
        gd_mex_error(FN, "gd:input", "row %g is outside 1..%lld", i, (long long)m.rows);
    const size_t es = gd_class_bytes(m.cls);
    if (m.pieces) {
        /* each piece's part of the row, in its place */
        gd_mex_out R;
        gd_mex_output(&R, 1, (size_t)m.cols, m.cls);
        char *buf = (char *)gd_mex_out_alloc(&R, (size_t)m.cols * es);
        if (!buf) gd_mex_error(FN, "gd:memory", "cannot allocate the row in host memory");
        for (int p = 0; p < m.pieces->n; ++p) {
            const gd_piece *pc = &m.pieces->p[p];
            gd_matrix row = m;
            row.pieces = NULL;
            row.ptr = (const char *)pc->ptr + (size_t)(i - 1) * es;
            row.dev = pc->dev;
            row.rows = 1;
            row.cols = pc->cols;
            gd_out o = {NULL, NULL, NULL, NULL, NULL};
            o.ptr = buf + (size_t)pc->first * es;
            gd_timing t = gd_mex_timing();
            const gd_status s = gd_dev_download(&row, o, gd_mex_place(), &t);
            if (s) {
                mxDestroyArray(R.array);
                gd_mex_fail(FN, s);
            }
        }
        plhs[0] = R.array;
        return;
    }
    gd_matrix row = m;
    row.ptr = (const char *)m.ptr + (size_t)(i - 1) * es;
    row.rows = 1;
    plhs[0] = gd_mex_download(FN, &row);
}

void gd_op_free(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    (void)plhs;
    if (nrhs == 1 && mxIsDouble(prhs[0]) && !mxIsComplex(prhs[0]) &&
        mxGetNumberOfElements(prhs[0]) == 1)
        gd_reg_free(mxGetScalar(prhs[0]));
}

void gd_op_transpose(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "transpose";
    (void)nlhs;
    gd_matrix m;
    array_arg(FN, "G", nrhs, prhs, &m);
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, m.where == GD_DEVICE, (size_t)m.cols, (size_t)m.rows,
                                   m.cls);
    R.logical = gd_mex_is_logical_array(prhs[0]);
    plhs[0] = gd_mex_result_take(FN, &R, gd_transpose(&m, out, gd_mex_place(), &t));
}

/* a vector of 1-based indices, each a whole number within 1..bound, as
 * 0-based int64 (malloc'd; NULL for an empty vector) */
static int64_t *index_arg(const char *fn, const mxArray *x, int64_t bound, int64_t *count)
{
    if (!mxIsDouble(x) || mxIsComplex(x) || mxIsSparse(x))
        gd_mex_error(fn, "gd:input", "internal: indices must be a real double vector");
    const size_t n = mxGetNumberOfElements(x);
    const double *v = mxGetPr(x);
    *count = (int64_t)n;
    if (!n) return NULL;
    int64_t *out = (int64_t *)malloc(n * sizeof(int64_t));
    if (!out) gd_mex_error(fn, "gd:memory", "cannot allocate %zu indices in host memory", n);
    for (size_t i = 0; i < n; ++i) {
        if (!(v[i] >= 1 && v[i] <= (double)bound && v[i] == floor(v[i]))) {
            free(out);
            gd_mex_error(fn, "gd:input", "index %g is outside 1..%lld", v[i], (long long)bound);
        }
        out[i] = (int64_t)v[i] - 1;
    }
    return out;
}

void gd_op_index(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    (void)nlhs;
    gd_matrix m;
    array_arg(FN, "G", nrhs, prhs, &m);
    if (nrhs != 5 || mxGetNumberOfElements(prhs[3]) != 1 || mxGetNumberOfElements(prhs[4]) != 1)
        gd_mex_error(FN, "gd:input", "internal: expected G, I, J and the result's size");
    const int linear = mxIsEmpty(prhs[2]);
    const double rr = mxGetScalar(prhs[3]), rc = mxGetScalar(prhs[4]);
    int64_t ni = 0, nj = 0;
    int64_t *I = index_arg(FN, prhs[1], linear ? m.rows * m.cols : m.rows, &ni);
    int64_t *J = linear ? NULL : index_arg(FN, prhs[2], m.cols, &nj);
    if (linear ? rr * rc != (double)ni : rr != (double)ni || rc != (double)nj) {
        free(I);
        free(J);
        gd_mex_error(FN, "gd:input", "internal: the result's size does not match the indices");
    }
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, m.where == GD_DEVICE, (size_t)rr, (size_t)rc, m.cls);
    R.logical = gd_mex_is_logical_array(prhs[0]);
    /* (J NULL with nj = 0 for an empty column list: R is ni x 0) */
    static const int64_t none = 0;
    const gd_status s = gd_index(&m, I ? I : &none, ni, linear ? NULL : J ? J : &none, nj, out, gd_mex_place(), &t);
    free(I);
    free(J);
    plhs[0] = gd_mex_result_take(FN, &R, s);
}

void gd_op_squareform(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gd_squareform";
    (void)nlhs;
    gd_matrix m;
    array_arg(FN, "D", nrhs, prhs, &m);
    gd_mex_check_float(FN, "D", &m);
    const int tomatrix = nrhs > 1 && mxIsLogicalScalarTrue(prhs[1]);
    int64_t rr = 1, rc = 0;
    if (tomatrix) {
        const double P = (double)m.rows * (double)m.cols;
        rr = rc = (int64_t)((1.0 + sqrt(1.0 + 8.0 * P)) / 2.0 + 0.5);
    } else {
        rc = m.rows > 1 ? m.rows * (m.rows - 1) / 2 : 0;
    }
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    int flags = 0;
    gd_out out = gd_mex_result_out(&R, 1, m.where == GD_DEVICE, (size_t)rr, (size_t)rc, m.cls);
    gd_status s = gd_squareform(&m, tomatrix, out, &flags, gd_mex_place(), &t);
    if (!s && (flags & 1)) {
        gd_mex_result_free(&R); /* the result was made: it goes again */
        gd_mex_error(FN, "gd:input", "the matrix has a non-zero diagonal: it is no distance matrix");
    }
    plhs[0] = gd_mex_result_take(FN, &R, s);
    if (flags & 2) {
        mxArray *args[3] = {mxCreateString("gd:symmetric"), mxCreateString("%s"),
                            mxCreateString("gd_squareform: the matrix is not symmetric: its "
                                           "lower triangle is taken")};
        mexCallMATLAB(0, NULL, 3, args, "warning");
        for (int i = 0; i < 3; ++i) mxDestroyArray(args[i]);
    }
}

void gd_op_device(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    gd_matrix m;
    array_arg("gdArray", "G", nrhs, prhs, &m);
    if (m.pieces) {
        plhs[0] = mxCreateDoubleMatrix(1, (mwSize)m.pieces->n, mxREAL);
        for (int p = 0; p < m.pieces->n; ++p) mxGetDoubles(plhs[0])[p] = m.pieces->p[p].dev + 1;
        return;
    }
    plhs[0] = mxCreateDoubleScalar(m.where == GD_DEVICE ? m.dev + 1 : 1);
}

/* __gd__ ("on_gpu", G): whether G's data is held and on a device (gpuArray's
 * existsOnGPU): false for a stale gdArray or one held in host memory */
void gd_op_on_gpu(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    const gd_matrix *m = nrhs == 1 ? gd_mex_find_array(prhs[0]) : NULL;
    plhs[0] = mxCreateLogicalScalar(m && m->where == GD_DEVICE);
}

void gd_op_describe(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    char buf[512];
    const gd_matrix *m = nrhs == 1 ? gd_mex_find_array(prhs[0]) : NULL;
    if (!m) {
        plhs[0] = mxCreateString("gdArray whose data is gone (stale)");
        return;
    }
    const double bytes = (double)m->rows * (double)m->cols * (double)gd_class_bytes(m->cls);
    char amount[32];
    if (bytes >= 1024.0 * 1048576.0)
        snprintf(amount, sizeof amount, "%.3g GiB", bytes / (1024.0 * 1048576.0));
    else if (bytes >= 1048576.0)
        snprintf(amount, sizeof amount, "%.3g MiB", bytes / 1048576.0);
    else if (bytes >= 1024.0)
        snprintf(amount, sizeof amount, "%.3g KiB", bytes / 1024.0);
    else
        snprintf(amount, sizeof amount, "%.0f B", bytes);
    char where[300];
    gd_device_info di;
    if (m->pieces) {
        /* "devices 1 and 2: columns 1-2048 on 1, 2049-4096 on 2" */
        int o = snprintf(where, sizeof where, "devices");
        for (int p = 0; p < m->pieces->n && o < (int)sizeof where; ++p)
            o += snprintf(where + o, sizeof where - o, "%s%d",
                          p == 0 ? " " : p + 1 == m->pieces->n ? " and " : ", ",
                          m->pieces->p[p].dev + 1);
        for (int p = 0; p < m->pieces->n && o < (int)sizeof where; ++p)
            o += snprintf(where + o, sizeof where - o, "%scolumns %lld-%lld on %d",
                          p ? ", " : ": ", (long long)m->pieces->p[p].first + 1,
                          (long long)(m->pieces->p[p].first + m->pieces->p[p].cols),
                          m->pieces->p[p].dev + 1);
    } else if (m->where != GD_DEVICE)
        snprintf(where, sizeof where, "the host: no GPU");
    else if (gd_device_count() > 1 && !gd_device_query_at(m->dev, &di))
        snprintf(where, sizeof where, "device %d, %s", m->dev + 1, di.name);
    else
        snprintf(where, sizeof where, "%s", gd_device_name());
    snprintf(buf, sizeof buf, "%lldx%lld %s gdArray (%s on %s)", (long long)m->rows,
             (long long)m->cols, gd_mex_is_logical_array(prhs[0]) ? "logical" : gd_mex_class_name(m->cls),
             amount, where);
    plhs[0] = mxCreateString(buf);
}

/* the class named (gdArray.m gives Octave's own class of the result);
 * 'logical' is uint8's bytes, *logical set (where logical is not NULL) */
static gd_class class_named(const char *fn, const mxArray *a, int *logical)
{
    static const char *const names[] = {"single", "double", "int32",  "int8",  "uint8",
                                        "int16",  "uint16", "uint32", "int64", "uint64"};
    char name[16] = "";
    if (mxIsChar(a)) mxGetString(a, name, sizeof name);
    if (logical && !strcmp(name, "logical")) {
        *logical = 1;
        return GD_UINT8;
    }
    for (int c = 0; c < 10; ++c)
        if (!strcmp(name, names[c])) return (gd_class)c;
    gd_mex_error(fn, "gd:input", "internal: no class '%s'", name);
    return GD_DOUBLE;
}

static int op_arg(const char *fn, const mxArray *a, int count)
{
    const double x = mxIsNumeric(a) && mxGetNumberOfElements(a) == 1 ? mxGetScalar(a) : -1;
    if (!(x >= 0 && x < count && x == (int)x)) gd_mex_error(fn, "gd:input", "internal: operation %g", x);
    return (int)x;
}

/* a two-operand operation: ew2 (the class given) or cmp (logical) */
static void two_operands(int nrhs, const mxArray *prhs[], mxArray *plhs[], int cmp)
{
    static const char FN[] = "gdArray";
    if (nrhs != (cmp ? 3 : 4)) gd_mex_error(FN, "gd:input", "internal: expected op, A, B%s", cmp ? "" : " and a class");
    const int op = op_arg(FN, prhs[0], cmp ? 8 : 9);
    gd_matrix A, B;
    int ga = 0, gb = 0;
    gd_mex_operand_int(FN, "A", prhs[1], &A, &ga);
    gd_mex_operand_int(FN, "B", prhs[2], &B, &gb);
    const gd_class cls = cmp ? GD_UINT8 : class_named(FN, prhs[3], NULL);
    const int64_t rr = A.rows == 1 ? B.rows : A.rows, rc = A.cols == 1 ? B.cols : A.cols;
    const gd_matrix *ops[2] = {&A, &B};
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, ga || gb, gd_mex_on_device(2, ops), (size_t)rr, (size_t)rc, cls);
    R.logical = cmp;
    plhs[0] = gd_mex_result_take(FN, &R, cmp ? gd_ew_compare(op, &A, &B, out, gd_mex_place(), &t)
                                             : gd_ew_binary(op, &A, &B, cls, out, gd_mex_place(), &t));
}

void gd_op_ew2(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    two_operands(nrhs, prhs, plhs, 0);
}

void gd_op_cmp(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    two_operands(nrhs, prhs, plhs, 1);
}

/* a one-operand operation of A: ew1 (A's class) or test (logical) */
static void one_operand(int nrhs, const mxArray *prhs[], mxArray *plhs[], int test)
{
    static const char FN[] = "gdArray";
    if (nrhs != 2) gd_mex_error(FN, "gd:input", "internal: expected op and A");
    const int op = op_arg(FN, prhs[0], test ? 5 : 16);
    gd_matrix A;
    int ga = 0;
    gd_mex_operand_int(FN, "A", prhs[1], &A, &ga);
    const gd_matrix *ops[1] = {&A};
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, ga, gd_mex_on_device(1, ops), (size_t)A.rows, (size_t)A.cols,
                                   test ? GD_UINT8 : A.cls);
    R.logical = test;
    plhs[0] = gd_mex_result_take(FN, &R, test ? gd_ew_test(op, &A, out, gd_mex_place(), &t)
                                              : gd_ew_unary(op, &A, out, gd_mex_place(), &t));
}

void gd_op_ew1(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    one_operand(nrhs, prhs, plhs, 0);
}

void gd_op_test(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    one_operand(nrhs, prhs, plhs, 1);
}

void gd_op_convert(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    (void)nlhs;
    if (nrhs != 2 && nrhs != 4) gd_mex_error(FN, "gd:input", "internal: convert takes A and a class");
    gd_matrix A;
    int ga = 0;
    gd_mex_operand_int(FN, "A", prhs[0], &A, &ga);
    int logical = 0;
    const gd_class cls = class_named(FN, prhs[1], &logical);
    size_t r = (size_t)A.rows, c = (size_t)A.cols;
    if (nrhs == 4) {
        r = (size_t)mxGetScalar(prhs[2]);
        c = (size_t)mxGetScalar(prhs[3]);
        if ((double)r * (double)c != (double)A.rows * (double)A.cols)
            gd_mex_error(FN, "gd:input", "internal: a reshape to another number of elements");
    }
    const gd_matrix *ops[1] = {&A};
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, gd_mex_on_device(1, ops), r, c, cls);
    R.logical = logical;
    gd_status s;
    if (logical && !gd_mex_is_logical_array(prhs[0])) /* logical (A): x != 0, NaN refused */
        s = gd_ew_test(3, &A, out, gd_mex_place(), &t);
    else
        s = gd_ew_convert(&A, cls, out, gd_mex_place(), &t);
    plhs[0] = gd_mex_result_take(FN, &R, s);
}

void gd_op_cat(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    (void)nlhs;
    if (nrhs < 2) gd_mex_error(FN, "gd:input", "internal: cat takes dim and parts");
    const int dim = (int)mxGetScalar(prhs[0]), n = nrhs - 1;
    gd_matrix *m = (gd_matrix *)mxCalloc((size_t)n, sizeof(gd_matrix));
    const gd_matrix **ops = (const gd_matrix **)mxCalloc((size_t)n, sizeof(gd_matrix *));
    int64_t rows = 0, cols = 0;
    for (int p = 0; p < n; ++p) {
        int g = 0;
        gd_mex_operand_int(FN, "a part", prhs[p + 1], &m[p], &g);
        ops[p] = &m[p];
        if (dim == 2) {
            rows = m[p].rows;
            cols += m[p].cols;
        } else {
            rows += m[p].rows;
            cols = m[p].cols;
        }
    }
    int logical = 1; /* every part logical: the result */
    for (int p = 0; p < n; ++p)
        logical = logical && (mxIsLogical(prhs[p + 1]) || gd_mex_is_logical_array(prhs[p + 1]));
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, gd_mex_on_device(n, ops), (size_t)rows, (size_t)cols, m[0].cls);
    R.logical = logical;
    plhs[0] = gd_mex_result_take(FN, &R, gd_ew_cat(ops, n, dim, out, gd_mex_place(), &t));
}

void gd_op_reduce(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    if (nrhs != 3) gd_mex_error(FN, "gd:input", "internal: reduce takes op, A and dim");
    const int op = op_arg(FN, prhs[0], 7);
    gd_matrix A;
    int ga = 0;
    gd_mex_operand_int(FN, "A", prhs[1], &A, &ga);
    const int dim = (int)mxGetScalar(prhs[2]);
    const gd_class cls = op >= 5 ? GD_UINT8 : op == 4 ? GD_DOUBLE : op >= 2 ? A.cls
                         : A.cls == GD_SINGLE ? GD_SINGLE : GD_DOUBLE;
    const size_t r = dim == 1 ? 1 : (size_t)A.rows, c = dim == 1 ? (size_t)A.cols : 1;
    const gd_matrix *ops[1] = {&A};
    const int dev = gd_mex_on_device(1, ops), want_i = (op == 2 || op == 3) && nlhs > 1;
    gd_mex_result R, I;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, dev, r, c, cls);
    R.logical = op >= 5 || ((op == 2 || op == 3) && gd_mex_is_logical_array(prhs[1]));
    gd_out iout;
    if (want_i) iout = gd_mex_result_out(&I, 1, dev, r, c, GD_DOUBLE);
    const gd_status s = gd_ew_reduce(op, &A, dim, out, want_i ? &iout : NULL, gd_mex_place(), &t);
    gd_mex_take_pair(FN, nlhs, plhs, &R, want_i ? &I : NULL, s);
    gd_mex_after_call("gdArray reduction", &t);
}

void gd_op_scan(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    (void)nlhs;
    if (nrhs != 3) gd_mex_error(FN, "gd:input", "internal: scan takes op, A and dim");
    const int op = op_arg(FN, prhs[0], 2);
    gd_matrix A;
    int ga = 0;
    gd_mex_operand_int(FN, "A", prhs[1], &A, &ga);
    const int dim = (int)mxGetScalar(prhs[2]);
    const gd_matrix *ops[1] = {&A};
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, gd_mex_on_device(1, ops), (size_t)A.rows, (size_t)A.cols,
                                   A.cls == GD_SINGLE ? GD_SINGLE : GD_DOUBLE);
    plhs[0] = gd_mex_result_take(FN, &R, gd_ew_scan(op, &A, dim, out, gd_mex_place(), &t));
}

void gd_op_assign(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    (void)nlhs;
    gd_matrix A, X;
    array_arg(FN, "G", nrhs, prhs, &A);
    if (nrhs != 3) gd_mex_error(FN, "gd:input", "internal: expected G, I and X");
    int gx = 0;
    gd_mex_operand_int(FN, "X", prhs[2], &X, &gx);
    int64_t n = 0;
    int64_t *I = index_arg(FN, prhs[1], A.rows * A.cols, &n);
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    const gd_matrix *ops[2] = {&A, &X};
    gd_out out = gd_mex_result_out(&R, 1, gd_mex_on_device(2, ops), (size_t)A.rows, (size_t)A.cols, A.cls);
    R.logical = gd_mex_is_logical_array(prhs[0]);
    static const int64_t none = 0;
    const gd_status s = gd_ew_assign(&A, I ? I : &none, n, &X, out, gd_mex_place(), &t);
    free(I);
    plhs[0] = gd_mex_result_take(FN, &R, s);
}

void gd_op_tri(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    (void)nlhs;
    gd_matrix A;
    array_arg(FN, "G", nrhs, prhs, &A);
    if (nrhs != 3) gd_mex_error(FN, "gd:input", "internal: expected G, k and upper");
    const double k = mxGetScalar(prhs[1]);
    const int upper = mxIsLogicalScalarTrue(prhs[2]);
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, A.where == GD_DEVICE, (size_t)A.rows, (size_t)A.cols, A.cls);
    R.logical = gd_mex_is_logical_array(prhs[0]);
    plhs[0] = gd_mex_result_take(FN, &R, gd_ew_tri(&A, (int64_t)k, upper, out, gd_mex_place(), &t));
}

void gd_op_fill(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    (void)nlhs;
    if (nrhs != 4 && nrhs != 5) gd_mex_error(FN, "gd:input", "internal: expected a class, r, c and v");
    int logical = 0;
    const gd_class cls = class_named(FN, prhs[0], &logical);
    const double r = mxGetScalar(prhs[1]), c = mxGetScalar(prhs[2]), v = mxGetScalar(prhs[3]);
    if (!(r >= 0 && c >= 0 && r == floor(r) && c == floor(c) && r * c < 9e15))
        gd_mex_error(FN, "gd:input", "internal: a size of %g x %g", r, c);
    if (nrhs == 5) gd_mex_home((int)mxGetScalar(prhs[4]) - 1, 1); /* (its device, 1-based) */
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, 1, gd_device_count() > 0, (size_t)r, (size_t)c, cls);
    R.logical = logical;
    plhs[0] = gd_mex_result_take(FN, &R, gd_ew_fill(cls, (int64_t)r, (int64_t)c, v, out, gd_mex_place(), &t));
}

/* [R, complex] = __gd__ ('fuse', P, k, cls, logical, A1, A2, ...): gdArray's
 * arrayfun in one pass (gd_ew_fused): P the program, a row an instruction
 * (op, kind, arg, swap), k its constants, cls the class it computes in,
 * logical whether R is logical; complex 1 where an element's result would
 * be complex (the caller refuses R) */
void gd_op_fuse(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    static const char FN[] = "gdArray";
    if (nrhs < 5 || nrhs > 4 + GD_FUSE_INPUTS)
        gd_mex_error(FN, "gd:input", "internal: fuse takes a program, constants, a class and inputs");
    const mxArray *P = prhs[0], *K = prhs[1];
    const size_t n = mxGetM(P), nk = mxGetNumberOfElements(K);
    if (!mxIsInt32(P) || mxGetN(P) != 4 || n < 1 || n > GD_FUSE_MOST || !mxIsDouble(K) ||
        mxIsComplex(K) || nk > GD_FUSE_CONSTS)
        gd_mex_error(FN, "gd:input", "internal: a fused program of %d rows", (int)n);
    gd_fuse_program prog;
    memset(&prog, 0, sizeof prog);
    prog.n = (int)n;
    prog.nk = (int)nk;
    const int32_t *p = (const int32_t *)mxGetData(P);
    for (size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 4; ++c)
            if (p[i + n * c] < -128 || p[i + n * c] > 127)
                gd_mex_error(FN, "gd:input", "internal: instruction %d", (int)i + 1);
        prog.op[i] = (signed char)p[i];
        prog.kind[i] = (signed char)p[i + n];
        prog.arg[i] = (signed char)p[i + 2 * n];
        prog.swap[i] = (signed char)p[i + 3 * n];
    }
    for (size_t i = 0; i < nk; ++i) prog.k[i] = mxGetPr(K)[i];
    const gd_class cls = class_named(FN, prhs[2], NULL);
    const int logical = mxGetScalar(prhs[3]) != 0;
    const int nin = nrhs - 4;
    gd_matrix in[GD_FUSE_INPUTS];
    const gd_matrix *ops[GD_FUSE_INPUTS];
    int resident = 0;
    for (int k = 0; k < nin; ++k) {
        int g = 0;
        gd_mex_operand_int(FN, "an input", prhs[4 + k], &in[k], &g);
        resident |= g;
        ops[k] = &in[k];
    }
    gd_mex_result R;
    gd_timing t = gd_mex_timing();
    gd_out out = gd_mex_result_out(&R, resident, gd_mex_on_device(nin, ops), (size_t)in[0].rows,
                                   (size_t)in[0].cols, logical ? GD_UINT8 : cls);
    R.logical = logical;
    int bad = 0;
    plhs[0] = gd_mex_result_take("arrayfun", &R, gd_ew_fused(&prog, cls, logical, in, nin, out,
                                                             &bad, gd_mex_place(), &t));
    gd_mex_after_call("arrayfun", &t);
    if (nlhs > 1) plhs[1] = mxCreateDoubleScalar(bad);
}
