/* multi.cu - calls divided across devices: the devices a call's place
 * names (gd_place, GD_DEVICES), how many a call takes, and the
 * runner that gives each part a host thread of its own on its device.
 *
 * A part is a whole one-device call on a piece of the work (a panel of
 * the result, a range of queries), so it computes what one device would
 * compute for those elements, by the same kernels in the same order: the
 * parts' results put together are the one-device result, bit for bit. */
#include "runtime/op.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gd_status check_list(const gd_devices *d, const char *origin)
{
    const int count = gd_device_count();
    if (d->n < 1 || d->n > GD_MAX_DEVICES)
        return gd_fail(GD_ERR_INPUT, "%s must name 1 to %d devices, not %d", origin,
                       GD_MAX_DEVICES, d->n);
    for (int i = 0; i < d->n; ++i)
        for (int j = 0; j < i; ++j)
            if (d->idx[j] == d->idx[i])
                return gd_fail(GD_ERR_INPUT, "%s names device %d twice", origin, d->idx[i] + 1);
    for (int i = 0; i < d->n; ++i) {
        /* with no GPU the host is device 1 (the CPU runs the call), and
         * no index past it names anything */
        if (count == 0 && d->idx[i] != 0)
            return gd_fail(GD_ERR_INPUT, "%s names device %d, but gd sees no GPU: device 1, "
                           "the host, is the only one (gd_info says why)", origin,
                           d->idx[i] + 1);
        if (d->idx[i] < 0 || (count > 0 && d->idx[i] >= count))
            return gd_fail(GD_ERR_INPUT, "%s names device %d, but gd sees %d device%s "
                           "(gd_info lists them)", origin, d->idx[i] + 1, count,
                           count == 1 ? "" : "s");
    }
    return GD_OK;
}

extern "C" gd_status gd_default_devices(gd_devices *out)
{
    memset(out, 0, sizeof *out);
    const char *v = gd_setting_text(GD_SET_DEVICES);
    if (!v) return GD_OK;
    const char *q = v;
    while (isspace((unsigned char)*q) || *q == '[') ++q;
    if (!*q || !strncasecmp(q, "all", 3)) {
        const char *r = *q ? q + 3 : q;
        while (isspace((unsigned char)*r) || *r == ']') ++r;
        if (!*r) return GD_OK;
    }
    /* indices, 1-based, apart by commas or blanks, in brackets or not */
    while (*q) {
        char *end;
        long x = strtol(q, &end, 10);
        if (end == q || x < 1 || x > 1000000)
            return gd_fail(GD_ERR_INPUT, "GD_DEVICES='%.100s' must be 'all' or device indices "
                           "from 1 (\"1,2\")", v);
        if (out->n == GD_MAX_DEVICES)
            return gd_fail(GD_ERR_INPUT, "GD_DEVICES names more than %d devices", GD_MAX_DEVICES);
        out->idx[out->n++] = (int)x - 1;
        q = end;
        while (isspace((unsigned char)*q) || *q == ',' || *q == ']') ++q;
    }
    if (!out->n) return GD_OK;
    return check_list(out, "GD_DEVICES");
}

extern "C" gd_status gd_check_devices(const gd_devices *d, const char *origin)
{
    return check_list(d, origin ? origin : "the device list");
}

extern "C" void gd_timing_reset(gd_timing *t)
{
    memset(t, 0, sizeof *t);
}

extern "C" int gd_split_devices(const gd_place *at, double work, double min_work, int64_t most,
                                int idx[GD_MAX_DEVICES])
{
    gd_devices d = at->devices;
    if (!at->divide && gd_default_devices(&d)) d.n = 0; /* a bad GD_DEVICES: the caller checked */
    int n;
    if (d.n == 0) {
        n = gd_device_count();
        for (int i = 0; i < n; ++i) idx[i] = i;
        if (min_work > 0 && work < min_work * n) {
            const double fit = work / min_work;
            n = fit < 1 ? 1 : (int)fit;
        }
        if (n < 1) {
            idx[0] = gd_device_index();
            n = 1;
        }
        /* the call's own device first: one device means today's one */
        if (n == 1) idx[0] = gd_device_index();
    } else {
        n = d.n;
        memcpy(idx, d.idx, sizeof d.idx);
    }
    if (most < 1) most = 1;
    if (n > most) n = (int)most;
    return n;
}

extern "C" int gd_split_needed(int n, const int idx[GD_MAX_DEVICES])
{
    return n > 1 || idx[0] != gd_device_index();
}

extern "C" int gd_call_devices(const gd_place *at, int resident, int divides_resident,
                               double work, double min_work, int64_t most,
                               int idx[GD_MAX_DEVICES])
{
    if (resident && !(divides_resident && at->divide)) {
        idx[0] = gd_device_index();
        return 1;
    }
    return gd_split_devices(at, work, min_work, most, idx);
}

extern "C" void gd_part_range(int64_t count, int64_t mult, int i, int n, int64_t *lo,
                              int64_t *hi)
{
    if (mult < 1) mult = 1;
    const int64_t units = (count + mult - 1) / mult;
    const int64_t a = units * i / n, b = units * (i + 1) / n;
    *lo = a * mult < count ? a * mult : count;
    *hi = b * mult < count ? b * mult : count;
}

struct part_job {
    int part, nparts, index;
    gd_part_fn fn;
    void *ctx;
    gd_timing t;
    gd_status s;
    char msg[1024];
    char name[256];
};

static void run_job(part_job *j)
{
    memset(&j->t, 0, sizeof j->t);
    gd_use_device_index(j->index);
    j->s = j->fn(j->ctx, j->part, j->nparts, &j->t);
    if (j->s) snprintf(j->msg, sizeof j->msg, "%s", gd_last_error());
    snprintf(j->name, sizeof j->name, "%s", gd_device_name());
}

/* ---------------------------------------------------------------------
 * The pool: a host thread per device index, made at its first part and
 * kept until gd_release, so that a call does not pay a thread's start
 * (and the OpenMP team its staging copies start on a new thread). A
 * worker waits for a job, runs it on its device, and says it is done. */
struct worker {
    pthread_t th;
    bool started, quit;
    part_job *job; /* given, not yet done */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};
static worker g_work[GD_MAX_DEVICES];
static pthread_mutex_t g_work_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker_main(void *arg)
{
    worker &w = *(worker *)arg;
    pthread_mutex_lock(&w.mu);
    for (;;) {
        while (!w.job && !w.quit) pthread_cond_wait(&w.cv, &w.mu);
        if (!w.job) break; /* quit, nothing left to run */
        part_job *j = w.job;
        pthread_mutex_unlock(&w.mu);
        run_job(j);
        pthread_mutex_lock(&w.mu);
        w.job = NULL;
        pthread_cond_broadcast(&w.cv);
    }
    pthread_mutex_unlock(&w.mu);
    return NULL;
}

/* hands j to device index's worker (made the first time); false when the
 * system refuses a thread: the caller runs j itself */
static bool give(int index, part_job *j)
{
    worker &w = g_work[index];
    pthread_mutex_lock(&g_work_lock);
    if (!w.started) {
        pthread_mutex_init(&w.mu, NULL);
        pthread_cond_init(&w.cv, NULL);
        w.quit = false;
        w.job = NULL;
        w.started = pthread_create(&w.th, NULL, worker_main, &w) == 0;
        if (!w.started) {
            pthread_cond_destroy(&w.cv);
            pthread_mutex_destroy(&w.mu);
        }
    }
    pthread_mutex_unlock(&g_work_lock);
    if (!w.started) return false;
    pthread_mutex_lock(&w.mu);
    w.job = j;
    pthread_cond_broadcast(&w.cv);
    pthread_mutex_unlock(&w.mu);
    return true;
}

static void wait_done(int index)
{
    worker &w = g_work[index];
    pthread_mutex_lock(&w.mu);
    while (w.job) pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
}

/* gd_release's: every worker ends (none has a job: gd_run_parts waits
 * for its parts) */
static void stop_workers(void)
{
    pthread_mutex_lock(&g_work_lock);
    for (int i = 0; i < GD_MAX_DEVICES; ++i) {
        worker &w = g_work[i];
        if (!w.started) continue;
        pthread_mutex_lock(&w.mu);
        w.quit = true;
        pthread_cond_broadcast(&w.cv);
        pthread_mutex_unlock(&w.mu);
        pthread_join(w.th, NULL);
        pthread_cond_destroy(&w.cv);
        pthread_mutex_destroy(&w.mu);
        w.started = false;
    }
    pthread_mutex_unlock(&g_work_lock);
}

extern "C" void gd_workers_stop(void) { stop_workers(); }

static double most(double a, double b) { return a > b ? a : b; }

/* t->kernel with its counts in place of the '#'s */
extern "C" void gd_kernel_text(const gd_timing *t, char *out, size_t len)
{
    if (!len) return;
    size_t o = 0;
    int q = 0;
    for (const char *c = t->kernel; *c && o + 1 < len; ++c) {
        if (*c != '#' || q >= (int)(sizeof t->counts / sizeof t->counts[0])) {
            out[o++] = *c;
            continue;
        }
        const int w = snprintf(out + o, len - o, "%lld", t->counts[q++]);
        o = w < 0 ? o : o + (size_t)w < len ? o + (size_t)w : len - 1;
    }
    out[o] = 0;
}

/* The parts' kernels (info.kernel) as one: where every part ran the same
 * kernel, its counts summed; else the parts' texts, each once, joined
 * with "; " */
static void join_kernels(const part_job *jobs, int n, gd_timing *t)
{
    bool same = true;
    for (int i = 1; i < n && same; ++i) same = !strcmp(jobs[i].t.kernel, jobs[0].t.kernel);
    if (same) {
        memcpy(t->kernel, jobs[0].t.kernel, sizeof t->kernel);
        for (int q = 0; q < (int)(sizeof t->counts / sizeof t->counts[0]); ++q)
            for (int i = 0; i < n; ++i) t->counts[q] += jobs[i].t.counts[q];
        return;
    }
    /* the texts with their counts written in (the call's counts stay 0) */
    char out[sizeof t->kernel], one[sizeof t->kernel];
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < n; ++i) {
        gd_kernel_text(&jobs[i].t, one, sizeof one);
        bool seen = !one[0];
        for (int j = 0; j < i && !seen; ++j) {
            char other[sizeof t->kernel];
            gd_kernel_text(&jobs[j].t, other, sizeof other);
            seen = !strcmp(other, one);
        }
        if (seen) continue;
        const int w = snprintf(out + o, sizeof out - o, "%s%s", o ? "; " : "", one);
        if (w < 0 || o + (size_t)w >= sizeof out) break;
        o += (size_t)w;
    }
    memcpy(t->kernel, out, sizeof t->kernel);
}

extern "C" gd_status gd_run_parts(int n, const int idx[GD_MAX_DEVICES], gd_part_fn fn,
                                  void *ctx, gd_timing *t)
{
    part_job jobs[GD_MAX_DEVICES];
    bool given[GD_MAX_DEVICES] = {};
    const int mine = gd_device_index();
    /* simulated devices share one CUDA device, its streams and staging:
     * their parts run on their workers one after another */
    const bool serial = gd_devices_simulated() != 0;
    for (int i = 0; i < n; ++i) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].part = i;
        jobs[i].nparts = n;
        jobs[i].index = idx[i];
        jobs[i].fn = fn;
        jobs[i].ctx = ctx;
    }
    for (int i = 0; i < n; ++i) {
        given[i] = give(idx[i], &jobs[i]);
        if (!given[i]) run_job(&jobs[i]); /* no thread to be had: here */
        else if (serial) wait_done(idx[i]);
    }
    for (int i = 0; i < n; ++i)
        if (given[i]) wait_done(idx[i]);
    gd_use_device_index(mine);
    if (gd_is_ready()) cudaSetDevice(gd_ordinal());

    const double total = t->total_ms, ops = t->ops;
    const unsigned resident = t->resident;
    gd_timing_reset(t);
    t->total_ms = total;
    t->ops = ops;
    t->resident = resident;
    t->devices = n;
    bool same = true;
    for (int i = 0; i < n; ++i) {
        const gd_timing &p = jobs[i].t;
        t->device_idx[i] = idx[i];
        t->upload_ms = most(t->upload_ms, p.upload_ms);
        t->prep_ms = most(t->prep_ms, p.prep_ms);
        t->kernel_ms = most(t->kernel_ms, p.kernel_ms);
        t->download_ms = most(t->download_ms, p.download_ms);
        t->gpu_bytes += p.gpu_bytes;
        same = same && !strcmp(jobs[i].name, jobs[0].name);
    }
    snprintf(t->variant, sizeof t->variant, "%s", jobs[0].t.variant);
    join_kernels(jobs, n, t);
    if (n == 1 || same) {
        snprintf(t->device, sizeof t->device, n == 1 ? "%.200s" : "%.200s x %d", jobs[0].name, n);
    } else {
        size_t len = 0;
        for (int i = 0; i < n && len + 1 < sizeof t->device; ++i)
            len += snprintf(t->device + len, sizeof t->device - len, "%s%s", i ? " + " : "",
                            jobs[i].name);
    }
    /* a device's failure names it; a failure of the input is the input's;
     * a part that stopped (GD_ERR_INTERRUPT) may have stopped because
     * another failed (gd_share_get): it is told last */
    for (int i = 0; i < n; ++i)
        if (jobs[i].s == GD_ERR_MEMORY || jobs[i].s == GD_ERR_CUDA || jobs[i].s == GD_ERR_NOGPU)
            return gd_fail(jobs[i].s, "device %d (%s): %s", idx[i] + 1,
                           jobs[i].name[0] ? jobs[i].name : "not started", jobs[i].msg);
    for (int i = 0; i < n; ++i)
        if (jobs[i].s && jobs[i].s != GD_ERR_INTERRUPT)
            return gd_fail(jobs[i].s, "%s", jobs[i].msg);
    for (int i = 0; i < n; ++i)
        if (jobs[i].s) return gd_fail(jobs[i].s, "%s", jobs[i].msg);
    return GD_OK;
}

/* ---------------------------------------------------------------------
 * An operand shared by the parts (gd_share, runtime.h). The slots are
 * the parts' shares of each stage: where each is and the event after
 * which it is there (made on its part's device, as a stream that records
 * it must be); each part's pulls run on a stream of their own, so that a
 * pull waiting for another device's upload holds back none of this
 * device's own copies; the event at the end of a part's pulls is what the
 * others wait for before their memory goes. */
static void enable_peer(int dst_ord, int src_ord);

struct gd_share {
    int n, stages;
    int idx[GD_MAX_DEVICES], ord[GD_MAX_DEVICES];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, failed;
    bool ended[GD_MAX_DEVICES]; /* the part has called gd_share_end */
    const void *ptr[GD_MAX_SIDE][GD_MAX_DEVICES];
    bool put[GD_MAX_SIDE][GD_MAX_DEVICES];
    cudaEvent_t put_ev[GD_MAX_SIDE][GD_MAX_DEVICES]; /* on the putting part's device */
    cudaEvent_t got_ev[GD_MAX_DEVICES];              /* a part's last pull, on its device */
    cudaEvent_t end_ev[GD_MAX_DEVICES];              /* all of a part's pulls, likewise */
    cudaStream_t pull[GD_MAX_DEVICES];
};

static void share_objects_free(gd_share *x)
{
    int here = 0;
    cudaGetDevice(&here);
    for (int p = 0; p < x->n; ++p) {
        cudaSetDevice(x->ord[p]);
        for (int q = 0; q < x->stages; ++q)
            if (x->put_ev[q][p]) cudaEventDestroy(x->put_ev[q][p]);
        if (x->got_ev[p]) cudaEventDestroy(x->got_ev[p]);
        if (x->end_ev[p]) cudaEventDestroy(x->end_ev[p]);
        if (x->pull[p]) cudaStreamDestroy(x->pull[p]);
    }
    cudaSetDevice(here);
    cudaGetLastError();
}

extern "C" gd_share *gd_share_make(int n, const int idx[GD_MAX_DEVICES], int stages)
{
    if (n < 2 || stages < 1 || stages > GD_MAX_SIDE || gd_devices_simulated() ||
        gd_setting_is(GD_SET_SHARE, "0"))
        return NULL;
    int ord[GD_MAX_DEVICES];
    for (int p = 0; p < n; ++p) {
        ord[p] = gd_device_ordinal(idx[p]);
        for (int r = 0; r < p; ++r)
            if (ord[r] == ord[p]) return NULL;
    }
    for (int p = 0; p < n; ++p)
        for (int r = 0; r < n; ++r) {
            int can = 0;
            if (r != p && (cudaDeviceCanAccessPeer(&can, ord[p], ord[r]) != cudaSuccess || !can)) {
                cudaGetLastError();
                return NULL;
            }
        }
    gd_share *x = (gd_share *)calloc(1, sizeof *x);
    if (!x) return NULL;
    x->n = n;
    x->stages = stages;
    memcpy(x->idx, idx, sizeof x->idx);
    memcpy(x->ord, ord, sizeof ord);
    int here = 0;
    cudaGetDevice(&here);
    bool ok = true;
    for (int p = 0; p < n && ok; ++p) {
        for (int r = 0; r < p; ++r) enable_peer(ord[p], ord[r]);
        ok = cudaSetDevice(ord[p]) == cudaSuccess &&
             cudaStreamCreateWithFlags(&x->pull[p], cudaStreamNonBlocking) == cudaSuccess &&
             cudaEventCreateWithFlags(&x->got_ev[p], cudaEventDisableTiming) == cudaSuccess &&
             cudaEventCreateWithFlags(&x->end_ev[p], cudaEventDisableTiming) == cudaSuccess;
        for (int q = 0; q < stages && ok; ++q)
            ok = cudaEventCreateWithFlags(&x->put_ev[q][p], cudaEventDisableTiming) == cudaSuccess;
    }
    cudaSetDevice(here);
    if (!ok) { /* no share: the parts upload A whole, as without one */
        cudaGetLastError();
        share_objects_free(x);
        free(x);
        return NULL;
    }
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->cv, NULL);
    return x;
}

extern "C" void gd_share_free(gd_share *x)
{
    if (!x) return;
    share_objects_free(x);
    pthread_cond_destroy(&x->cv);
    pthread_mutex_destroy(&x->mu);
    free(x);
}

extern "C" gd_status gd_share_put(gd_share *x, int part, int q, const void *ptr, cudaStream_t st)
{
    if (q < 0 || q >= x->stages)
        return gd_fail(GD_ERR_INPUT, "internal: stage %d of a share of %d", q, x->stages);
    const gd_status s = gd_cuda(cudaEventRecord(x->put_ev[q][part], st), "sharing A's section");
    pthread_mutex_lock(&x->mu);
    if (s) {
        x->failed = 1;
    } else {
        x->ptr[q][part] = ptr;
        x->put[q][part] = true;
    }
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
    return s;
}

extern "C" gd_status gd_share_get(gd_share *x, int part, int r, int q, void *dst, size_t dpitch,
                                  size_t offset, size_t spitch, size_t width, size_t height,
                                  cudaStream_t st, bool *absent)
{
    pthread_mutex_lock(&x->mu);
    while (!x->put[q][r] && !x->failed && !x->ended[r]) pthread_cond_wait(&x->cv, &x->mu);
    const bool there = x->put[q][r];
    const void *src = (const char *)x->ptr[q][r] + offset;
    pthread_mutex_unlock(&x->mu);
    if (!there && absent) {
        *absent = true;
        return GD_OK;
    }
    if (!there)
        return gd_fail(GD_ERR_INTERRUPT, "stopped: another device's part of the call failed");
    char what[96];
    snprintf(what, sizeof what, "copy of a shared operand from device %d to device %d",
             x->idx[r] + 1, x->idx[part] + 1);
    const cudaStream_t pl = x->pull[part];
    gd_status s;
    if ((s = gd_cuda(cudaStreamWaitEvent(pl, x->put_ev[q][r], 0), what)) ||
        (s = gd_peer_copy_2d(dst, dpitch, x->ord[part], src, spitch, x->ord[r], width, height,
                             pl, what)) ||
        (s = gd_cuda(cudaEventRecord(x->got_ev[part], pl), what)) ||
        (s = gd_cuda(cudaStreamWaitEvent(st, x->got_ev[part], 0), what)))
        return s;
    return GD_OK;
}

extern "C" void gd_share_end(gd_share *x, int part, bool ok)
{
    /* the end of this part's pulls (on an idle stream: at once); where it
     * cannot be recorded, the pulls are waited for here */
    if (cudaEventRecord(x->end_ev[part], x->pull[part]) != cudaSuccess)
        cudaStreamSynchronize(x->pull[part]);
    cudaGetLastError();
    pthread_mutex_lock(&x->mu);
    ++x->done;
    x->ended[part] = true;
    if (!ok) x->failed = 1;
    pthread_cond_broadcast(&x->cv);
    while (x->done < x->n) pthread_cond_wait(&x->cv, &x->mu);
    pthread_mutex_unlock(&x->mu);
    /* no part's pulls read this part's memory after this, nor write it
     * (its own: on a failed call its kernels' streams, which wait for
     * them, are not waited for) */
    for (int r = 0; r < x->n; ++r) cudaEventSynchronize(x->end_ev[r]);
    cudaGetLastError();
}

/* copies between devices: peer access is enabled once for each pair that
 * has it, both ways (then the copy engines move the bytes over NVLink or
 * PCIe directly); without it the driver stages through host memory.
 * Memory from a device's stream-ordered pool (memory.cu) is not covered
 * by cudaDeviceEnablePeerAccess: the pool itself is opened to the peer
 * (cudaMemPoolSetAccess), else a copy between two pools' memory may not
 * go directly (NOTES.md, "several devices"). */
static unsigned char g_peer_tried[GD_MAX_DEVICES][GD_MAX_DEVICES];
static pthread_mutex_t g_peer_lock = PTHREAD_MUTEX_INITIALIZER;

/* device user's kernels and copy engines may read and write what owner's
 * pool holds */
static void open_pool(int owner_ord, int user_ord)
{
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, owner_ord) == cudaSuccess) {
        cudaMemAccessDesc ad;
        memset(&ad, 0, sizeof ad);
        ad.location.type = cudaMemLocationTypeDevice;
        ad.location.id = user_ord;
        ad.flags = cudaMemAccessFlagsProtReadWrite;
        cudaMemPoolSetAccess(pool, &ad, 1);
    }
    cudaGetLastError(); /* no pool, or not to be had: the copy goes anyway */
}

static void enable_peer(int dst_ord, int src_ord)
{
    pthread_mutex_lock(&g_peer_lock);
    if (!g_peer_tried[dst_ord][src_ord]) {
        int here = 0;
        cudaGetDevice(&here);
        const int pair[2] = {dst_ord, src_ord};
        for (int w = 0; w < 2; ++w) {
            const int a = pair[w], b = pair[1 - w];
            int can = 0;
            if (cudaDeviceCanAccessPeer(&can, a, b) == cudaSuccess && can &&
                cudaSetDevice(a) == cudaSuccess) {
                cudaDeviceEnablePeerAccess(b, 0);
                open_pool(b, a);
            }
            cudaGetLastError(); /* enabled already, or not to be had */
            g_peer_tried[a][b] = 1;
        }
        cudaSetDevice(here);
    }
    pthread_mutex_unlock(&g_peer_lock);
}

extern "C" gd_status gd_peer_copy(void *dst, int dst_ord, const void *src, int src_ord,
                                  size_t bytes, cudaStream_t st, const char *what)
{
    if (dst_ord == src_ord)
        return gd_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st), what);
    enable_peer(dst_ord, src_ord);
    return gd_cuda(cudaMemcpyPeerAsync(dst, dst_ord, src, src_ord, bytes, st), what);
}

extern "C" gd_status gd_peer_copy_2d(void *dst, size_t dpitch, int dst_ord, const void *src,
                                     size_t spitch, int src_ord, size_t width, size_t height,
                                     cudaStream_t st, const char *what)
{
    if (!width || !height) return GD_OK;
    if (dst_ord == src_ord)
        return gd_copy_d2d(dst, dpitch, src, spitch, width, height, st);
    /* both sides tight (a whole gdArray, a panel of its columns): one
     * linear peer copy rather than the driver's pitched path between
     * devices */
    if (height == 1 || (spitch == width && dpitch == width))
        return gd_peer_copy(dst, dst_ord, src, src_ord, width * height, st, what);
    enable_peer(dst_ord, src_ord);
    cudaMemcpy3DPeerParms q;
    memset(&q, 0, sizeof q);
    q.srcPtr = make_cudaPitchedPtr((void *)src, spitch, width, height);
    q.srcDevice = src_ord;
    q.dstPtr = make_cudaPitchedPtr(dst, dpitch, width, height);
    q.dstDevice = dst_ord;
    q.extent = make_cudaExtent(width, height, 1);
    return gd_cuda(cudaMemcpy3DPeerAsync(&q, st), what);
}

/* ---------------------------------------------------------------------
 * The thread's current device: where its calls run unless divided, and
 * where their resident results stay. */
extern "C" int gd_get_device(void) { return gd_device_index(); }

extern "C" gd_status gd_check_device(int index)
{
    /* device 0: always (without a GPU, the host memory gd works in) */
    const int count = index == 0 ? 1 : gd_device_count();
    if (index < 0 || index >= GD_MAX_DEVICES || index >= (count > 0 ? count : 1))
        return count > 0 ? gd_fail(GD_ERR_INPUT, "there is no device %d: gd sees %d device%s "
                                   "(gd_info lists them)", index + 1, count, count == 1 ? "" : "s")
                         : gd_fail(GD_ERR_INPUT, "there is no device %d: gd sees no GPU (its "
                                   "data stays in host memory, as device 1)", index + 1);
    return GD_OK;
}

extern "C" gd_status gd_set_device(int index)
{
    const gd_status s = gd_check_device(index);
    if (s) return s;
    gd_use_device_index(index);
    if (gd_is_ready()) cudaSetDevice(gd_ordinal());
    return GD_OK;
}

gd_status gd_auto_device(gd_timing *t, bool *gpu)
{
    gd_status s = gd_device_ready();
    *gpu = s == GD_OK;
    if (s == GD_ERR_NOGPU) {
        snprintf(t->fallback, sizeof t->fallback, "%s", gd_last_error());
        return GD_OK;
    }
    return s;
}

bool gd_any_resident(const gd_matrix *A, const gd_matrix *B, const gd_out &out)
{
    return out.device || A->where == GD_DEVICE || (B && B->where == GD_DEVICE);
}
