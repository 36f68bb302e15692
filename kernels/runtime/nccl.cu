/* nccl.cu - NCCL, loaded at run time: device data between the ranks of
 * an MPI job (gd.h's gd_nccl_*), MPI carrying the rest (mpi.c).
 *
 * libnccl.so.2 is opened with dlopen the first time it is asked for, so
 * gd builds and runs where there is none; its ABI (the 128-byte id, the
 * communicator a pointer, ncclUint8 = 1) is declared here, no nccl.h is
 * needed to build. The job's communicator is made once every rank has
 * said it can take part (gd_nccl_ready: NCCL there, a GPU, none shared
 * with another rank of the host), each rank on its device index 0; rank 0
 * makes the id and MPI broadcasts it. A group of ranks (gd_mpi_group:
 * a grid's row or column) gets its communicator by ncclCommSplit with
 * the group's color and key the first time a collective uses it (every
 * rank of the job calls the collectives at once, so every rank splits at
 * once).
 *
 * No rank waits for ever: the collectives are queued on the call's
 * stream and the host polls it, and a rank that has left the job (mpi.c's
 * LEAVING message; two seconds' grace, as mpi.c gives), NCCL's own error
 * or Ctrl-C aborts every communicator (ncclCommAbort ends the kernels
 * waiting for a peer) and fails the call; NCCL is then off for the rest
 * of the job, and says why. */
#include "runtime/runtime.h"
#include "runtime/call.h"
#include "runtime/op.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

namespace {

typedef int nccl_result;
typedef struct {
    char internal[128];
} nccl_id;
typedef void *nccl_comm;
enum { NCCL_UINT8 = 1, NCCL_IN_PROGRESS = 7 };

struct nccl_lib {
    int tried;
    void *lib;
    char what[128];
    nccl_result (*version)(int *);
    nccl_result (*get_id)(nccl_id *);
    nccl_result (*init_rank)(nccl_comm *, int, nccl_id, int);
    nccl_result (*split)(nccl_comm, int, int, nccl_comm *, void *);
    nccl_result (*bcast)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
    nccl_result (*group_start)(void), (*group_end)(void);
    nccl_result (*abort)(nccl_comm);
    nccl_result (*async_error)(nccl_comm, nccl_result *);
    nccl_result (*count)(nccl_comm, int *), (*user_rank)(nccl_comm, int *);
    const char *(*error_string)(nccl_result);
    /* the job's state: 0 not asked yet, 1 joined (or a job of one), -1 off */
    int state;
    char why[256];
    int ordinal;
    nccl_comm world, groups[GD_MPI_GROUPS];
};
nccl_lib N;

void *sym(const char *name) { return N.lib ? dlsym(N.lib, name) : NULL; }

int load(void)
{
    if (N.tried) return N.lib != NULL;
    N.tried = 1;
    N.lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!N.lib) {
        snprintf(N.what, sizeof N.what, "not found (libnccl.so.2)");
        return 0;
    }
    N.version = (nccl_result(*)(int *))sym("ncclGetVersion");
    N.get_id = (nccl_result(*)(nccl_id *))sym("ncclGetUniqueId");
    N.init_rank = (nccl_result(*)(nccl_comm *, int, nccl_id, int))sym("ncclCommInitRank");
    N.split = (nccl_result(*)(nccl_comm, int, int, nccl_comm *, void *))sym("ncclCommSplit");
    N.bcast = (nccl_result(*)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t))sym(
        "ncclBroadcast");
    N.group_start = (nccl_result(*)(void))sym("ncclGroupStart");
    N.group_end = (nccl_result(*)(void))sym("ncclGroupEnd");
    N.abort = (nccl_result(*)(nccl_comm))sym("ncclCommAbort");
    N.async_error = (nccl_result(*)(nccl_comm, nccl_result *))sym("ncclCommGetAsyncError");
    N.count = (nccl_result(*)(nccl_comm, int *))sym("ncclCommCount");
    N.user_rank = (nccl_result(*)(nccl_comm, int *))sym("ncclCommUserRank");
    N.error_string = (const char *(*)(nccl_result))sym("ncclGetErrorString");
    int v = 0;
    if (!N.version || !N.get_id || !N.init_rank || !N.split || !N.bcast || !N.group_start ||
        !N.group_end || !N.abort || !N.async_error || !N.count || !N.user_rank ||
        !N.error_string || N.version(&v)) {
        snprintf(N.what, sizeof N.what, "libnccl.so.2 found, but older than NCCL 2.18 "
                 "(ncclCommSplit)");
        dlclose(N.lib);
        N.lib = NULL;
        return 0;
    }
    snprintf(N.what, sizeof N.what, "NCCL %d.%d.%d (libnccl.so.2)", v / 10000, v / 100 % 100,
             v % 100);
    return 1;
}

/* every communicator aborted (a peer gone, an error, Ctrl-C): NCCL is off
 * for the rest of the job */
void abort_all(const char *why)
{
    for (int g = 0; g < GD_MPI_GROUPS; ++g)
        if (N.groups[g]) {
            N.abort(N.groups[g]);
            N.groups[g] = NULL;
        }
    if (N.world) N.abort(N.world);
    N.world = NULL;
    N.state = -1;
    snprintf(N.why, sizeof N.why, "NCCL was ended by an earlier failure (%s)", why);
}

/* what each rank says before the job's communicator is made */
struct offer {
    int32_t ok;
    char gpu[96]; /* host and PCI bus id of its device index 0 */
    char why[152];
};

nccl_comm comm_of(int group, gd_status *s)
{
    *s = GD_OK;
    if (N.state != 1 || !N.world) {
        *s = gd_fail(GD_ERR_INPUT, "device data between ranks: %s",
                     N.why[0] ? N.why : "NCCL is not joined (gd_nccl_ready)");
        return NULL;
    }
    if (group < 0) return N.world;
    int color, key;
    if (group >= GD_MPI_GROUPS || !gd_mpi_group_made(group, &color, &key)) {
        *s = gd_fail(GD_ERR_INPUT, "internal: no group %d of ranks", group);
        return NULL;
    }
    if (!N.groups[group]) {
        cudaSetDevice(N.ordinal);
        const nccl_result r = N.split(N.world, color, key, &N.groups[group], NULL);
        if (r) {
            N.groups[group] = NULL;
            *s = gd_fail(GD_ERR_CUDA, "NCCL: ncclCommSplit: %s", N.error_string(r));
            abort_all("a group's communicator could not be made");
            return NULL;
        }
    }
    return N.groups[group];
}

double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* waits for st's collectives (or, where ev is given, for ev), polling
 * (see the top) */
gd_status wait_on(cudaStream_t st, nccl_comm cm, const char *what, cudaEvent_t ev = NULL)
{
    double gone_at = 0;
    for (unsigned spin = 0;; ++spin) {
        const cudaError_t e = ev ? cudaEventQuery(ev) : cudaStreamQuery(st);
        if (e == cudaSuccess) return GD_OK;
        if (e != cudaErrorNotReady) return gd_cuda(e, what);
        nccl_result ae = 0;
        if (!N.async_error(cm, &ae) && ae && ae != NCCL_IN_PROGRESS) {
            const gd_status s = gd_fail(GD_ERR_CUDA, "NCCL: %s in %s", N.error_string(ae), what);
            abort_all(N.error_string(ae));
            return s;
        }
        const int gone = gd_mpi_left();
        if (gone && !gone_at) gone_at = now_s();
        if (gone && now_s() - gone_at > 2.0) {
            const gd_status s = gd_fail(GD_ERR_INPUT, "rank %d has left the job (its Octave ended) "
                                        "while this rank waited for it in %s", gone, what);
            abort_all("a rank left");
            return s;
        }
        if (gd_interrupted()) {
            abort_all("interrupted");
            return gd_fail(GD_ERR_INTERRUPT, "interrupted");
        }
        if (spin > 1000) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

/* a tight copy of a on this device (a gdArray's own memory where it is
 * one here) */
const void *tight_here(gd_call &c, const gd_matrix *a, const char *what)
{
    gd_matrix h;
    if (!c.check(gd_operand_here(a, c.allocs(), &h, what))) return NULL;
    if (h.ld == h.rows || h.cols <= 1) return h.ptr;
    const size_t es = gd_class_bytes(h.cls);
    void *p = c.alloc((size_t)(h.rows * h.cols) * es, what);
    if (p)
        c.cuda(cudaMemcpy2DAsync(p, (size_t)h.rows * es, h.ptr, (size_t)h.ld * es, (size_t)h.rows * es,
                                 (size_t)h.cols, cudaMemcpyDeviceToDevice, gd_stream()),
               what);
    return p;
}

void labels(gd_timing *t)
{
    snprintf(t->variant, sizeof t->variant, "nccl");
    snprintf(t->device, sizeof t->device, "%d", gd_device_index() + 1);
    t->resident = 1;
}

} // namespace

extern "C" const char *gd_nccl_found(void)
{
    /* in use: what load found; else a look that leaves nothing loaded
     * (NCCL's libraries map much memory, and touch the device's) */
    if (N.tried) return N.what;
    static char what[128];
    if (!what[0]) {
        void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
        nccl_result (*version)(int *) = h ? (nccl_result(*)(int *))dlsym(h, "ncclGetVersion") : NULL;
        int v = 0;
        if (!h)
            snprintf(what, sizeof what, "not found (libnccl.so.2)");
        else if (!version || version(&v))
            snprintf(what, sizeof what, "libnccl.so.2 (its version unknown)");
        else
            snprintf(what, sizeof what, "NCCL %d.%d.%d (libnccl.so.2)", v / 10000, v / 100 % 100, v % 100);
        if (h) dlclose(h);
    }
    return what;
}

extern "C" int gd_nccl_ready(char *why, size_t len)
{
    if (gd_mpi_size() <= 1) return 1;
    if (N.state) {
        snprintf(why, len, "%s", N.why);
        return N.state == 1;
    }
    offer mine;
    memset(&mine, 0, sizeof mine);
    char host[48] = "";
    gethostname(host, sizeof host - 1);
    if (!load()) {
        snprintf(mine.why, sizeof mine.why, "NCCL %s", N.what);
    } else if (gd_device_count() < 1) {
        snprintf(mine.why, sizeof mine.why, "it has no GPU");
    } else {
        char bus[32] = "";
        N.ordinal = gd_device_ordinal(0);
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, N.ordinal) != cudaSuccess) {
            cudaGetLastError();
            snprintf(mine.why, sizeof mine.why, "its GPU does not say its PCI bus id");
        } else {
            snprintf(mine.gpu, sizeof mine.gpu, "%s %s", host, bus);
            mine.ok = 1;
        }
    }
    const int n = gd_mpi_size();
    offer *all = (offer *)calloc((size_t)n, sizeof(offer));
    if (!all || gd_mpi_allgather(&mine, sizeof mine, all)) {
        free(all);
        snprintf(why, len, "the ranks could not say what they hold");
        return 0; /* (not kept: a gather that failed is the job's end) */
    }
    N.state = 1;
    for (int r = 0; r < n && N.state == 1; ++r) {
        if (!all[r].ok) {
            snprintf(N.why, sizeof N.why, "rank %d: %s", r + 1, all[r].why);
            N.state = -1;
        }
        for (int q = 0; q < r && N.state == 1; ++q)
            if (!strcmp(all[q].gpu, all[r].gpu)) {
                snprintf(N.why, sizeof N.why, "ranks %d and %d share one GPU (%s), which NCCL "
                         "refuses (GD_RANK_DEVICES)", q + 1, r + 1, all[r].gpu);
                N.state = -1;
            }
    }
    free(all);
    if (N.state == 1) {
        nccl_id id;
        memset(&id, 0, sizeof id);
        int ok = gd_mpi_rank() != 0 || !N.get_id(&id);
        if (gd_mpi_bcast(&id, sizeof id, 0) || gd_mpi_bcast(&ok, sizeof ok, 0)) {
            N.state = -1;
            snprintf(N.why, sizeof N.why, "the NCCL id could not be sent");
        } else if (!ok) {
            N.state = -1;
            snprintf(N.why, sizeof N.why, "rank 1 could not make an NCCL id");
        } else {
            cudaSetDevice(N.ordinal);
            const nccl_result r = N.init_rank(&N.world, n, id, gd_mpi_rank());
            int fine = r == 0, every[GD_MPI_MOST];
            if (gd_mpi_allgather(&fine, sizeof fine, every)) every[0] = 0;
            for (int q = 0; q < n && N.state == 1; ++q)
                if (!every[q]) {
                    snprintf(N.why, sizeof N.why, "rank %d could not join NCCL%s%s", q + 1,
                             fine ? "" : ": ", fine ? "" : N.error_string(r));
                    if (N.world) N.abort(N.world);
                    N.world = NULL;
                    N.state = -1;
                }
        }
    }
    snprintf(why, len, "%s", N.why);
    return N.state == 1;
}

extern "C" gd_status gd_nccl_bcast(const gd_matrix *mine, int root, int group, int64_t rows,
                                   int64_t cols, gd_class cls, gd_out R, const gd_place *at,
                                   gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    labels(t);
    const size_t bytes = (size_t)(rows * cols) * gd_class_bytes(cls);
    gd_status s = GD_OK;
    nccl_comm cm = gd_mpi_size() > 1 ? comm_of(group, &s) : NULL;
    if (s) return s;
    int me = root;
    if (cm) N.user_rank(cm, &me);
    cudaStream_t st = gd_stream();
    gd_call c(t, "nccl");
    if (cm && gd_ordinal() != N.ordinal)
        c.check(gd_fail(GD_ERR_INPUT, "device data between ranks moves on each rank's first "
                        "device alone"));
    void *dR = c.ok() ? c.alloc_kept(R, bytes ? bytes : 1, "the broadcast's copy") : NULL;
    const void *src = me == root && c.ok() ? tight_here(c, mine, "the broadcast's source") : NULL;
    c.begin(GD_PHASE_KERNEL, st);
    if (src && dR && bytes)
        c.cuda(cudaMemcpyAsync(dR, src, bytes, cudaMemcpyDeviceToDevice, st), "the broadcast's copy");
    if (cm && c.ok() && bytes) {
        const nccl_result r = N.bcast(dR, dR, bytes, NCCL_UINT8, root, cm, st);
        if (r) c.check(gd_fail(GD_ERR_CUDA, "NCCL: ncclBroadcast: %s", N.error_string(r)));
    }
    c.end(GD_PHASE_KERNEL, st);
    if (cm) c.check(wait_on(st, cm, "a broadcast of device data"));
    c.wait(st, "the broadcast");
    s = c.finish();
    t->total_ms = gd_now_ms() - t0;
    return s;
}

extern "C" gd_status gd_nccl_cat(const gd_matrix *mine, int dim, const int64_t *ext, int64_t other,
                                 int group, gd_out R, const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    labels(t);
    gd_status s = GD_OK;
    nccl_comm cm = gd_mpi_size() > 1 ? comm_of(group, &s) : NULL;
    if (s) return s;
    int n = 1, me = 0;
    if (cm) {
        N.count(cm, &n);
        N.user_rank(cm, &me);
    }
    const size_t es = gd_class_bytes(mine->cls);
    int64_t total = 0;
    for (int r = 0; r < n; ++r) total += ext[r];
    const size_t bytes = (size_t)(total * other) * es;
    cudaStream_t st = gd_stream();
    gd_call c(t, "nccl");
    if (cm && gd_ordinal() != N.ordinal)
        c.check(gd_fail(GD_ERR_INPUT, "device data between ranks moves on each rank's first "
                        "device alone"));
    char *dR = c.ok() ? (char *)c.alloc_kept(R, bytes ? bytes : 1, "the parts together") : NULL;
    /* columns: the parts one after another, as they lie; rows: gathered
     * so, then each part's rows put in place */
    char *dS = dim == 1 && n > 1 && c.ok() ? (char *)c.alloc(bytes ? bytes : 1, "the parts") : dR;
    const char *src = c.ok() && ext[me] * other > 0 ? (const char *)tight_here(c, mine, "this rank's part") : NULL;
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && !cm && bytes)
        c.cuda(cudaMemcpyAsync(dR, src, bytes, cudaMemcpyDeviceToDevice, st), "the part");
    if (c.ok() && cm) {
        N.group_start();
        size_t off = 0;
        nccl_result r = 0;
        for (int q = 0; q < n && !r; ++q) {
            const size_t b = (size_t)(ext[q] * other) * es;
            if (b) r = N.bcast(q == me ? src : NULL, dS + off, b, NCCL_UINT8, q, cm, st);
            off += b;
        }
        const nccl_result e = N.group_end();
        if (r || e) c.check(gd_fail(GD_ERR_CUDA, "NCCL: a gather: %s", N.error_string(r ? r : e)));
        if (dS != dR) {
            size_t boff = 0;
            int64_t row = 0;
            for (int q = 0; q < n && c.ok(); ++q) {
                if (ext[q] && other)
                    c.cuda(cudaMemcpy2DAsync(dR + (size_t)row * es, (size_t)total * es, dS + boff,
                                             (size_t)ext[q] * es, (size_t)ext[q] * es, (size_t)other,
                                             cudaMemcpyDeviceToDevice, st),
                           "a part's rows");
                boff += (size_t)(ext[q] * other) * es;
                row += ext[q];
            }
        }
    }
    c.end(GD_PHASE_KERNEL, st);
    if (cm) c.check(wait_on(st, cm, "a gather of device data"));
    c.wait(st, "the gather");
    s = c.finish();
    t->total_ms = gd_now_ms() - t0;
    return s;
}

/* An op's own collectives (ops/apsp's rounds across ranks): the group's
 * communicator (-1: the job; none in a job of one rank), its size and
 * this rank's place in it */
gd_status gd_nccl_group_of(int group, gd_nccl_group *g)
{
    g->comm = NULL;
    g->size = 1;
    g->me = 0;
    if (gd_mpi_size() <= 1) return GD_OK;
    gd_status s = GD_OK;
    nccl_comm cm = comm_of(group, &s);
    if (s) return s;
    if (gd_ordinal() != N.ordinal)
        return gd_fail(GD_ERR_INPUT, "device data between ranks moves on each rank's first "
                       "device alone");
    g->comm = cm;
    N.count(cm, &g->size);
    N.user_rank(cm, &g->me);
    return GD_OK;
}

/* bytes of buf from the group's rank root into buf on every other, queued
 * on st (nothing in a group of one) */
gd_status gd_nccl_bcast_on(const gd_nccl_group *g, void *buf, size_t bytes, int root,
                           cudaStream_t st)
{
    if (!g->comm || g->size <= 1 || !bytes) return GD_OK;
    const nccl_result r = N.bcast(buf, buf, bytes, NCCL_UINT8, root, (nccl_comm)g->comm, st);
    return r ? gd_fail(GD_ERR_CUDA, "NCCL: ncclBroadcast: %s", N.error_string(r)) : GD_OK;
}

/* st's work (or ev, where given) waited for, polling as every
 * collective's wait does */
gd_status gd_nccl_wait(const gd_nccl_group *g, cudaStream_t st, cudaEvent_t ev, const char *what)
{
    if (!g->comm) return gd_cuda(ev ? cudaEventSynchronize(ev) : cudaStreamSynchronize(st), what);
    return wait_on(st, (nccl_comm)g->comm, what, ev);
}

extern "C" void gd_nccl_end(void)
{
    /* (aborted, not destroyed: local, so that a rank gone first cannot
     * hold this one's exit) */
    for (int g = 0; g < GD_MPI_GROUPS; ++g)
        if (N.groups[g]) N.abort(N.groups[g]);
    if (N.world) N.abort(N.world);
    memset(N.groups, 0, sizeof N.groups);
    N.world = NULL;
    N.state = 0;
    N.why[0] = 0;
}
