/* resident.cu - matrices that stay on the device between calls: their
 * upload and download, operands in either place as an operation needs
 * them (class conversion, host copies for host code), and the operations
 * on resident data that are layout alone: transpose and squareform. */
#include "runtime/call.h"
#include "runtime/op.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

namespace {

// out (rows x cols, tight) = (To) in (ld)
template <class Ti, class To>
__global__ void convert(const Ti *__restrict__ in, int64_t ld, To *__restrict__ out,
                        int64_t rows, int64_t cols)
{
    const int64_t count = rows * cols;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x)
        out[e] = (To)in[e % rows + ld * (e / rows)];
}

// squareform, one element at a time, the same on the host and the device.
// The place of pair (i, j), i > j, in the condensed vector of n points:
__host__ __device__ inline int64_t pair_at(int64_t i, int64_t j, int64_t n)
{
    return j * n - j * (j + 1) / 2 + (i - j - 1);
}

// R(i,j) of the n x n matrix from the condensed X (element q at X[q % xr +
// ldx * (q / xr)]): x + 0, as Octave's Y + Y.' gives it (-0 becomes +0),
// and 0 on the diagonal
template <class T>
__host__ __device__ inline T matrix_element(const T *X, int64_t xr, int64_t ldx, int64_t n,
                                            int64_t i, int64_t j)
{
    if (i == j) return (T)0;
    const int64_t q = i > j ? pair_at(i, j, n) : pair_at(j, i, n);
    return X[q % xr + ldx * (q / xr)] + (T)0;
}

// X(i,j) of the n x n X (ld) into the condensed R when i > j; returns 1
// for a diagonal element that is not 0, 2 where X(i,j) and X(j,i) are not
// isequaln, else 0
template <class T>
__host__ __device__ inline int vector_element(const T *X, int64_t ld, T *R, int64_t n,
                                              int64_t i, int64_t j)
{
    const T a = X[i + ld * j];
    if (i == j) return a == (T)0 ? 0 : 1;
    if (i < j) return 0;
    const T b = X[j + ld * i];
    R[pair_at(i, j, n)] = a;
    return a == b || (a != a && b != b) ? 0 : 2;
}

template <class T>
__global__ void to_matrix(const T *__restrict__ X, int64_t xr, int64_t ldx,
                          T *__restrict__ R, int64_t n)
{
    const int64_t count = n * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x)
        R[e] = matrix_element(X, xr, ldx, n, e % n, e / n);
}

// flags[0]: a diagonal element is not 0; flags[1]: X is not isequaln to X.'
template <class T>
__global__ void to_vector(const T *__restrict__ X, int64_t ld, T *__restrict__ R,
                          int64_t n, int *flags)
{
    const int64_t count = n * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int f = vector_element(X, ld, R, n, e % n, e / n);
        if (f) atomicOr(&flags[f - 1], 1);
    }
}

template <class T>
void host_to_matrix(const T *X, int64_t xr, int64_t ldx, T *R, int64_t n)
{
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) R[i + n * j] = matrix_element(X, xr, ldx, n, i, j);
}

template <class T>
int host_to_vector(const T *X, int64_t ld, T *R, int64_t n)
{
    int flags = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) flags |= vector_element(X, ld, R, n, i, j);
    return flags;
}


} // namespace

extern "C" gd_status gd_copy_d2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t width, size_t height, cudaStream_t st)
{
    if (!width || !height) return GD_OK;
    return gd_cuda(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                     cudaMemcpyDeviceToDevice, st),
                   "device-to-device copy");
}

extern "C" gd_status gd_operand_class(const gd_matrix *a, gd_class cls, gd_matrix *out,
                                      gd_allocs *al, void **host_copy, const char *label)
{
    *out = *a;
    *host_copy = NULL;
    if (a->cls == cls) return GD_OK;
    const int64_t count = a->rows * a->cols;
    char what[96];
    gd_describe(what, sizeof what, label, a->rows, a->cols, cls);
    void *p;
    gd_status s;
    if (a->where == GD_DEVICE) {
        if ((s = gd_alloc(al, &p, (size_t)count * gd_class_bytes(cls), what))) return s;
        const int threads = 256;
        cudaStream_t st = gd_stream();
        if (cls == GD_SINGLE)
            convert<double, float><<<gd_blocks_for(count, threads), threads, 0, st>>>(
                (const double *)a->ptr, a->ld, (float *)p, a->rows, a->cols);
        else
            convert<float, double><<<gd_blocks_for(count, threads), threads, 0, st>>>(
                (const float *)a->ptr, a->ld, (double *)p, a->rows, a->cols);
        if ((s = gd_cuda(cudaGetLastError(), "class conversion kernel"))) return s;
    } else {
        p = malloc(count ? (size_t)count * gd_class_bytes(cls) : 1);
        if (!p)
            return gd_fail(GD_ERR_MEMORY, "cannot allocate %s (%.1f MiB) in host memory", what,
                           gd_mib((size_t)count * gd_class_bytes(cls)));
        for (int64_t e = 0; e < count; ++e) {
            const int64_t src = e % a->rows + a->ld * (e / a->rows);
            if (cls == GD_SINGLE)
                ((float *)p)[e] = (float)((const double *)a->ptr)[src];
            else
                ((double *)p)[e] = (double)((const float *)a->ptr)[src];
        }
        *host_copy = p;
    }
    out->ptr = p;
    out->cls = cls;
    out->ld = a->rows;
    return GD_OK;
}

extern "C" gd_status gd_operand_device(const gd_matrix *a, gd_allocs *al, const void **ptr,
                                       cudaEvent_t up, cudaStream_t st, const char *label)
{
    const size_t es = gd_class_bytes(a->cls);
    *ptr = NULL;
    if (a->where == GD_DEVICE && a->ld == a->rows) {
        *ptr = a->ptr;
        return GD_OK;
    }
    char what[96], copy[96];
    gd_describe(what, sizeof what, label, a->rows, a->cols, a->cls);
    snprintf(copy, sizeof copy, "copy of %s to the GPU", label);
    void *p;
    gd_status s = gd_alloc(al, &p, (size_t)(a->rows * a->cols) * es, what);
    if (s) return s;
    const size_t width = (size_t)a->rows * es, pitch = (size_t)a->ld * es;
    if (a->where == GD_DEVICE)
        s = gd_copy_d2d(p, width, a->ptr, pitch, width, (size_t)a->cols, st);
    else if (a->rows * a->cols > 0 &&
             !(s = gd_upload(p, a->ptr, pitch, width, (size_t)a->cols, up, copy)))
        s = gd_cuda(cudaStreamWaitEvent(st, up, 0), copy);
    if (!s) *ptr = p;
    return s;
}

/* a distributed operand as one tight matrix on this thread's device: each
 * piece copied into its columns, peer to peer (the piece on this device
 * too: an operation reads one matrix), freed with the call's allocations */
static gd_status assemble(const gd_matrix *a, gd_allocs *al, gd_matrix *out, const char *label)
{
    gd_status s = gd_device_ready();
    if (s) return s;
    const size_t es = gd_class_bytes(a->cls), col = (size_t)a->rows * es;
    char what[96], copy[128];
    gd_describe(what, sizeof what, label, a->rows, a->cols, a->cls);
    void *p;
    if ((s = gd_alloc(al, &p, col * (size_t)a->cols, what))) return s;
    cudaStream_t st = gd_stream();
    if ((s = gd_cuda(cudaStreamSynchronize(gd_alloc_stream()), what))) return s;
    for (int i = 0; i < a->pieces->n && !s; ++i) {
        const gd_piece &pc = a->pieces->p[i];
        snprintf(copy, sizeof copy, "copy of %s's columns %lld-%lld from device %d to device %d",
                 label, (long long)pc.first + 1, (long long)(pc.first + pc.cols), pc.dev + 1,
                 gd_device_index() + 1);
        s = gd_peer_copy((char *)p + (size_t)pc.first * col, gd_ordinal(), pc.ptr,
                         gd_device_ordinal(pc.dev), (size_t)pc.cols * col, st, copy);
    }
    if (!s) s = gd_cuda(cudaStreamSynchronize(st), what);
    if (s) return s;
    out->ptr = p;
    out->ld = a->rows;
    out->dev = gd_device_index();
    out->pieces = NULL;
    return GD_OK;
}

extern "C" gd_status gd_operand_here(const gd_matrix *a, gd_allocs *al, gd_matrix *out,
                                     const char *label)
{
    *out = *a;
    if (a->pieces) return assemble(a, al, out, label);
    if (a->where != GD_DEVICE || a->dev == gd_device_index()) return GD_OK;
    gd_status s = gd_device_ready();
    if (s) return s;
    const size_t es = gd_class_bytes(a->cls), width = (size_t)a->rows * es;
    char what[96], copy[128];
    gd_describe(what, sizeof what, label, a->rows, a->cols, a->cls);
    snprintf(copy, sizeof copy, "copy of %s from device %d to device %d", label, a->dev + 1,
             gd_device_index() + 1);
    void *p;
    if ((s = gd_alloc(al, &p, width * (size_t)a->cols, what))) return s;
    /* the allocation's stream first: the copy engine writes p */
    cudaStream_t st = gd_stream();
    if ((s = gd_cuda(cudaStreamSynchronize(gd_alloc_stream()), copy)) ||
        (s = gd_peer_copy_2d(p, width, gd_ordinal(), a->ptr, (size_t)a->ld * es,
                             gd_device_ordinal(a->dev), width, (size_t)a->cols, st, copy)) ||
        (s = gd_cuda(cudaStreamSynchronize(st), copy)))
        return s;
    out->ptr = p;
    out->ld = a->rows;
    out->dev = gd_device_index();
    return GD_OK;
}

extern "C" gd_status gd_operand_host(const gd_matrix *a, gd_matrix *out, void **host_copy,
                                     const char *label)
{
    *out = *a;
    *host_copy = NULL;
    if (a->where == GD_HOST) return GD_OK;
    const size_t bytes = (size_t)(a->rows * a->cols) * gd_class_bytes(a->cls);
    char what[96];
    gd_describe(what, sizeof what, label, a->rows, a->cols, a->cls);
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        return gd_fail(GD_ERR_MEMORY, "cannot allocate a host copy of %s (%.1f MiB)", what,
                       gd_mib(bytes));
    gd_out o = {p, NULL, NULL, NULL, NULL};
    gd_timing t;
    memset(&t, 0, sizeof t);
    /* after whatever the kernels' stream still does to it (a conversion) */
    gd_status s = gd_cuda(cudaStreamSynchronize(gd_stream()), "class conversion kernel");
    if (!s) s = gd_dev_download(a, o, NULL, &t);
    if (s) {
        free(p);
        return s;
    }
    *host_copy = p;
    out->ptr = p;
    out->where = GD_HOST;
    out->ld = a->rows;
    return GD_OK;
}

extern "C" gd_status gd_host_result_begin(gd_out *out, size_t bytes, const char *what,
                                          void **buf)
{
    *buf = NULL;
    if (!out->device) {
        gd_status s = gd_out_buffer(out, bytes, what);
        *buf = out->ptr;
        return s;
    }
    *out->device = NULL;
    *buf = malloc(bytes ? bytes : 1);
    if (!*buf)
        return gd_fail(GD_ERR_MEMORY, "cannot allocate %s (%.1f MiB) in host memory", what,
                       gd_mib(bytes));
    return GD_OK;
}

extern "C" gd_status gd_host_result_end(gd_out *out, void *buf, size_t bytes, gd_status s,
                                        gd_timing *t)
{
    if (!out->device) return s;
    if (!s) {
        /* the bytes as one column of 4-byte words (results are of 4- or
         * 8-byte elements): the upload needs no other sizes */
        const gd_matrix whole = gd_host_matrix(buf, GD_SINGLE, (int64_t)(bytes / 4), 1);
        gd_timing up;
        memset(&up, 0, sizeof up);
        s = gd_dev_upload(&whole, out->device, NULL, &up);
        t->upload_ms += up.upload_ms;
        if (!s) t->kept = 1;
    }
    free(buf);
    return s;
}

extern "C" gd_status gd_empty_results(gd_out *const outs[], const char *const names[], int n,
                                      gd_timing *t)
{
    gd_status s = GD_OK;
    int made = 0;
    for (; made < n && !s; ++made) {
        if (!outs[made]) continue;
        void *buf;
        if (!(s = gd_host_result_begin(outs[made], 0, names[made], &buf)))
            s = gd_host_result_end(outs[made], buf, 0, s, t);
    }
    for (int i = 0; s && i < made - 1; ++i)
        if (outs[i] && outs[i]->device && *outs[i]->device) {
            gd_dev_free(*outs[i]->device);
            *outs[i]->device = NULL;
        }
    return s;
}

extern "C" gd_status gd_host_index_result(gd_out *out, const int32_t *idx, int64_t rows,
                                          int64_t cols, gd_class cls, gd_out *first,
                                          const char *label, gd_timing *t)
{
    const size_t bytes = (size_t)(rows * cols) * gd_class_bytes(cls);
    char what[96];
    void *buf = NULL;
    gd_describe(what, sizeof what, label, rows, cols, cls);
    gd_status s = gd_host_result_begin(out, bytes, what, &buf);
    if (!s) {
        if (cls == GD_INT32)
            memcpy(buf, idx, bytes);
        else
            for (int64_t e = 0; e < rows * cols; ++e) ((double *)buf)[e] = idx[e];
    }
    if (buf || out->device) s = gd_host_result_end(out, buf, bytes, s, t);
    if (s && first->device && *first->device) {
        gd_dev_free(*first->device);
        *first->device = NULL;
    }
    return s;
}

extern "C" gd_status gd_dev_upload(const gd_matrix *A, void **dst, const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    *dst = NULL;
    const size_t es = gd_class_bytes(A->cls);
    gd_status s = gd_check_size("the array", A->rows, A->cols, es);
    if (s) return s;
    char what[96];
    gd_describe(what, sizeof what, "the array", A->rows, A->cols, A->cls);
    {
        gd_call c(t, NULL);
        gd_out kept = {};
        kept.device = dst;
        void *p = c.alloc_kept(kept, (size_t)(A->rows * A->cols) * es, what);
        if (p && A->rows * A->cols > 0)
            c.check(gd_upload(p, A->ptr, (size_t)A->ld * es, (size_t)A->rows * es,
                              (size_t)A->cols, NULL, "copy of the array to the GPU"));
        if (c.ok()) c.check(gd_copies_finish());
        s = c.finish();
    }
    t->kept = 0; /* the array itself, not an operation's result */
    t->total_ms = gd_now_ms() - t0;
    return s;
}

/* ---- distributed matrices: a piece a device, each moved by its own */

struct piece_job {
    const gd_matrix *A; /* the whole (host, for an upload) */
    const gd_pieces *P;
    char *host;         /* the host matrix (a download) */
    gd_pieces *made;    /* the pieces made (an upload) */
};

static gd_status download_piece(void *c, int i, int, gd_timing *t)
{
    const piece_job &x = *(const piece_job *)c;
    const gd_piece &pc = x.P->p[i];
    const size_t col = (size_t)x.A->rows * gd_class_bytes(x.A->cls);
    gd_matrix one = gd_host_matrix(pc.ptr, x.A->cls, x.A->rows, pc.cols);
    one.where = GD_DEVICE;
    one.dev = pc.dev;
    gd_out o = {};
    o.ptr = x.host + (size_t)pc.first * col;
    gd_timing pt = {};
    const gd_status s = gd_dev_download(&one, o, NULL, &pt);
    t->download_ms = pt.download_ms;
    snprintf(t->device, sizeof t->device, "%s", pt.device);
    return s;
}

static gd_status upload_piece(void *c, int i, int, gd_timing *t)
{
    const piece_job &x = *(const piece_job *)c;
    gd_piece &pc = x.made->p[i];
    if (!pc.cols) return GD_OK;
    const size_t es = gd_class_bytes(x.A->cls);
    gd_matrix one = *x.A;
    one.ptr = (const char *)x.A->ptr + (size_t)(pc.first * x.A->ld) * es;
    one.cols = pc.cols;
    gd_timing pt = {};
    const gd_status s = gd_dev_upload(&one, &pc.ptr, NULL, &pt);
    t->upload_ms = pt.upload_ms;
    snprintf(t->device, sizeof t->device, "%s", pt.device);
    return s;
}

extern "C" void gd_pieces_free(gd_pieces *P)
{
    for (int i = 0; i < P->n; ++i)
        if (P->p[i].ptr) gd_dev_free_at(P->p[i].dev, P->p[i].ptr);
    P->n = 0;
}

gd_status gd_pieces_settle(gd_pieces *P, gd_status s)
{
    if (s) {
        gd_pieces_free(P);
        return s;
    }
    int k = 0; /* the pieces with columns, in order */
    for (int i = 0; i < P->n; ++i)
        if (P->p[i].cols) P->p[k++] = P->p[i];
    P->n = k;
    return GD_OK;
}

extern "C" gd_status gd_dev_upload_pieces(const gd_matrix *A, int n,
                                          const int idx[GD_MAX_DEVICES], gd_pieces *P,
                                          const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    memset(P, 0, sizeof *P);
    gd_status s = gd_check_size("the array", A->rows, A->cols, gd_class_bytes(A->cls));
    if (s) return s;
    if (n < 1 || n > GD_MAX_DEVICES) return gd_fail(GD_ERR_INPUT, "internal: %d pieces", n);
    P->n = n;
    for (int i = 0; i < n; ++i) {
        int64_t lo, hi;
        gd_part_range(A->cols, 1, i, n, &lo, &hi);
        P->p[i].dev = idx[i];
        P->p[i].first = lo;
        P->p[i].cols = hi - lo;
    }
    piece_job x = {A, P, NULL, P};
    if ((s = gd_pieces_settle(P, gd_run_parts(n, idx, upload_piece, &x, t)))) return s;
    t->kept = 0;
    t->total_ms = gd_now_ms() - t0;
    return GD_OK;
}

extern "C" gd_status gd_dev_download(const gd_matrix *A, gd_out out, const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    const size_t es = gd_class_bytes(A->cls);
    char what[96];
    gd_describe(what, sizeof what, "the array", A->rows, A->cols, A->cls);
    const size_t bytes = (size_t)(A->rows * A->cols) * es;
    gd_status s;
    if (A->where == GD_HOST) {
        if ((s = gd_out_buffer(&out, bytes, what))) return s;
        for (int64_t j = 0; j < A->cols; ++j)
            memcpy((char *)out.ptr + (size_t)(j * A->rows) * es,
                   (const char *)A->ptr + (size_t)(j * A->ld) * es, (size_t)A->rows * es);
        t->total_ms = gd_now_ms() - t0;
        return GD_OK;
    }
    if (A->pieces) {
        /* each piece by its own device's copy engine, all at once */
        if ((s = gd_out_buffer(&out, bytes, what))) return s;
        piece_job x = {A, A->pieces, (char *)out.ptr, NULL};
        int idx[GD_MAX_DEVICES];
        for (int i = 0; i < A->pieces->n; ++i) idx[i] = A->pieces->p[i].dev;
        s = gd_run_parts(A->pieces->n, idx, download_piece, &x, t);
        t->total_ms = gd_now_ms() - t0;
        return s;
    }
    gd_on_device there(A->dev); /* the copy engine of A's device */
    {
        gd_call c(t, NULL);
        void *h = c.host_result(out, bytes, what);
        if (h && bytes)
            c.download(h, (size_t)A->rows * es, A->ptr, (size_t)A->ld * es, (size_t)A->rows * es,
                       (size_t)A->cols, NULL, "copy of the array from the GPU");
        if (c.ok()) c.check(gd_copies_finish());
        s = c.finish();
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}

/* A layout operation's labels (on the device the call names them) */
static void layout_labels(const gd_matrix *X, gd_timing *t)
{
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "cpu");
    t->resident = X->where == GD_DEVICE ? 1 : 0;
}

/* The result of a layout operation on the device: kept, or a temporary
 * downloaded into out's host buffer at the end */
static void *layout_result(gd_call &c, gd_out &out, size_t bytes, const char *what)
{
    return out.device ? c.alloc_kept(out, bytes, what) : c.alloc(bytes, what);
}

/* the kernel (between begin and here, on st) done: the result kept, or
 * downloaded */
static gd_status layout_finish(gd_call &c, gd_out &out, void *dR, int64_t rows, int64_t cols,
                               size_t es, const char *what)
{
    cudaStream_t st = gd_stream();
    c.end(GD_PHASE_KERNEL, st);
    if (!out.device) {
        const cudaEvent_t done = c.event();
        c.cuda(cudaEventRecord(done, st), what);
        const size_t bytes = (size_t)(rows * cols) * es;
        void *h = c.host_result(out, bytes, what);
        if (h && bytes)
            c.download(h, (size_t)rows * es, dR, (size_t)rows * es, (size_t)rows * es,
                       (size_t)cols, done, "copy of the result from the GPU");
    }
    c.wait(st, what);
    return c.finish();
}

/* A layout operation's frame: R (rr x rc, A's class) from A by host(buf)
 * where A is on the host, else on the device by dev(c, A here, dR, st),
 * which queues its kernel phase's work (begun by it, ended here) */
template <class Host, class Dev>
static gd_status layout_op(const gd_matrix *A, gd_out R, int64_t rr, int64_t rc,
                           const char *what, gd_timing *t, Host host, Dev dev)
{
    const double t0 = gd_now_ms();
    const size_t es = gd_class_bytes(A->cls), bytes = (size_t)(rr * rc) * es;
    layout_labels(A, t);
    gd_status s;
    if (A->where == GD_HOST) {
        void *buf;
        if (!(s = gd_host_result_begin(&R, bytes, what, &buf))) host((char *)buf, es);
        s = gd_host_result_end(&R, buf, bytes, s, t);
    } else {
        gd_call c(t, "gpu");
        gd_matrix Ah; /* A on this device */
        c.check(gd_operand_here(A, c.allocs(), &Ah, "A"));
        void *dR = layout_result(c, R, bytes, what);
        dev(c, Ah, dR, gd_stream());
        s = layout_finish(c, R, dR, rr, rc, es, what);
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}

extern "C" gd_status gd_transpose(const gd_matrix *A, gd_out R, const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const int64_t m = A->rows, n = A->cols;
    char what[96];
    gd_describe(what, sizeof what, "the transpose", n, m, A->cls);
    return layout_op(
        A, R, n, m, what, t,
        [&](char *buf, size_t es) { gd_cpu_transpose(es, A->ptr, A->ld, m, n, buf); },
        [&](gd_call &c, const gd_matrix &Ah, void *dR, cudaStream_t st) {
            c.begin(GD_PHASE_KERNEL, st);
            if (dR && m * n > 0) gd_launch_transpose(A->cls, Ah.ptr, Ah.ld, dR, m, n, st);
            c.launched("transpose kernel");
        });
}

/* R(q) = A(I(q mod ri), J(q div ri)), or A at the linear position I(q)
 * (J NULL), for q < total; E holds an element's bytes */
template <class E>
__global__ void gather_kernel(const E *A, int64_t lda, int64_t m, const int64_t *I,
                              const int64_t *J, int64_t ri, int64_t total, E *R)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
         q += (int64_t)gridDim.x * blockDim.x) {
        int64_t row, col;
        if (J) {
            row = I[q % ri];
            col = J[q / ri];
        } else {
            row = I[q] % m;
            col = I[q] / m;
        }
        R[q] = A[row + lda * col];
    }
}

template <class E>
static void launch_gather(const gd_matrix &A, const int64_t *I, const int64_t *J, int64_t ri,
                          int64_t total, void *R, cudaStream_t st)
{
    const int threads = 256;
    int64_t blocks = gd_blocks_for(total, threads);
    if (blocks > 65535) blocks = 65535;
    gather_kernel<E><<<(unsigned)blocks, threads, 0, st>>>((const E *)A.ptr, A.ld, A.rows, I, J,
                                                          ri, total, (E *)R);
}

extern "C" gd_status gd_index(const gd_matrix *A, const int64_t *I, int64_t ni, const int64_t *J,
                              int64_t nj, gd_out R, const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const int64_t total = J ? ni * nj : ni, rr = J ? ni : total;
    char what[96];
    gd_describe(what, sizeof what, "the indexed elements", total, 1, A->cls);
    return layout_op(
        A, R, rr, rr ? total / rr : 0, what, t,
        [&](char *buf, size_t es) {
            for (int64_t q = 0; q < total; ++q) {
                const int64_t row = J ? I[q % ni] : I[q] % A->rows;
                const int64_t col = J ? J[q / ni] : I[q] / A->rows;
                memcpy(buf + (size_t)q * es, (const char *)A->ptr + (size_t)(row + A->ld * col) * es,
                       es);
            }
        },
        [&](gd_call &c, const gd_matrix &Ah, void *dR, cudaStream_t st) {
            /* the indices: ni (+ nj) int64 */
            const size_t ib = (size_t)(ni + (J ? nj : 0)) * sizeof(int64_t);
            int64_t *dI = (int64_t *)c.alloc(ib ? ib : 1, "the indices");
            if (dI && ni)
                c.cuda(cudaMemcpyAsync(dI, I, (size_t)ni * 8, cudaMemcpyHostToDevice, st),
                       "the indices");
            if (dI && J && nj)
                c.cuda(cudaMemcpyAsync(dI + ni, J, (size_t)nj * 8, cudaMemcpyHostToDevice, st),
                       "the indices");
            c.begin(GD_PHASE_KERNEL, st);
            if (c.ok() && total > 0) {
                const int64_t *dJ = J ? dI + ni : NULL;
                switch (gd_class_bytes(A->cls)) {
                case 1: launch_gather<unsigned char>(Ah, dI, dJ, ni, total, dR, st); break;
                case 2: launch_gather<unsigned short>(Ah, dI, dJ, ni, total, dR, st); break;
                case 4: launch_gather<unsigned int>(Ah, dI, dJ, ni, total, dR, st); break;
                default: launch_gather<unsigned long long>(Ah, dI, dJ, ni, total, dR, st); break;
                }
            }
            c.launched("the gather kernel");
        });
}

/* squareform of a resident X on the device */
static gd_status squareform_gpu(const gd_matrix *X, int tomatrix, gd_out R, int *flags,
                                int64_t rr, int64_t rc, const char *what, gd_timing *t)
{
    const int64_t n = tomatrix ? rr : X->rows;
    const size_t es = gd_class_bytes(X->cls), bytes = (size_t)(rr * rc) * es;
    const int threads = 256;
    gd_call c(t, "gpu");
    cudaStream_t st = gd_stream();
    gd_matrix Xh; /* X on this device */
    c.check(gd_operand_here(X, c.allocs(), &Xh, "X"));
    X = &Xh;
    void *dR = layout_result(c, R, bytes, what);
    c.begin(GD_PHASE_KERNEL, st);
    if (!c.ok()) return c.finish();
    if (tomatrix) {
        if (X->cls == GD_SINGLE)
            to_matrix<float><<<gd_blocks_for(n * n, threads), threads, 0, st>>>(
                (const float *)X->ptr, X->rows ? X->rows : 1, X->ld, (float *)dR, n);
        else
            to_matrix<double><<<gd_blocks_for(n * n, threads), threads, 0, st>>>(
                (const double *)X->ptr, X->rows ? X->rows : 1, X->ld, (double *)dR, n);
    } else if (n > 0) {
        int host_flags[2] = {0, 0};
        int *dF = (int *)c.alloc(2 * sizeof(int), "squareform's checks");
        if (!dF || !c.cuda(cudaMemsetAsync(dF, 0, 2 * sizeof(int), st), "squareform's checks"))
            return c.finish();
        if (X->cls == GD_SINGLE)
            to_vector<float><<<gd_blocks_for(n * n, threads), threads, 0, st>>>(
                (const float *)X->ptr, X->ld, (float *)dR, n, dF);
        else
            to_vector<double><<<gd_blocks_for(n * n, threads), threads, 0, st>>>(
                (const double *)X->ptr, X->ld, (double *)dR, n, dF);
        if (c.launched("squareform kernel") &&
            c.cuda(cudaMemcpyAsync(host_flags, dF, sizeof host_flags, cudaMemcpyDeviceToHost, st),
                   "squareform's checks") &&
            c.cuda(cudaStreamSynchronize(st), "squareform kernel"))
            *flags = (host_flags[0] ? 1 : 0) | (host_flags[1] ? 2 : 0);
    }
    c.launched("squareform kernel");
    return layout_finish(c, R, dR, rr, rc, es, "squareform kernel");
}

extern "C" gd_status gd_squareform(const gd_matrix *X, int tomatrix, gd_out R, int *flags,
                                   const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    *flags = 0;
    const size_t es = gd_class_bytes(X->cls);
    int64_t n;
    if (tomatrix) {
        const int64_t P = X->rows * X->cols;
        n = (int64_t)((1.0 + sqrt(1.0 + 8.0 * (double)P)) / 2.0 + 0.5);
        if (n * (n - 1) / 2 != P)
            return gd_fail(GD_ERR_SIZE, "a vector of %lld elements is no n*(n-1)/2",
                           (long long)P);
    } else {
        n = X->rows;
        if (X->rows != X->cols)
            return gd_fail(GD_ERR_SIZE, "'tovector' takes a square matrix, not %lldx%lld",
                           (long long)X->rows, (long long)X->cols);
    }
    const int64_t rr = tomatrix ? n : 1, rc = tomatrix ? n : n * (n - 1) / 2;
    gd_status s;
    if ((s = gd_check_size("the result", rr, rc, es))) return s;
    layout_labels(X, t);
    const size_t bytes = (size_t)(rr * rc) * es;
    char what[96];
    gd_describe(what, sizeof what, "the result", rr, rc, X->cls);
    if (X->where == GD_HOST) {
        void *buf;
        if (!(s = gd_host_result_begin(&R, bytes, what, &buf))) {
            if (tomatrix && X->cls == GD_SINGLE)
                host_to_matrix<float>((const float *)X->ptr, X->rows, X->ld, (float *)buf, n);
            else if (tomatrix)
                host_to_matrix<double>((const double *)X->ptr, X->rows, X->ld, (double *)buf, n);
            else if (X->cls == GD_SINGLE)
                *flags = host_to_vector<float>((const float *)X->ptr, X->ld, (float *)buf, n);
            else
                *flags = host_to_vector<double>((const double *)X->ptr, X->ld, (double *)buf, n);
        }
        s = gd_host_result_end(&R, buf, bytes, s, t);
        t->total_ms = gd_now_ms() - t0;
        return s;
    }
    s = squareform_gpu(X, tomatrix, R, flags, rr, rc, what, t);
    t->total_ms = gd_now_ms() - t0;
    return s;
}
