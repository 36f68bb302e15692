/* copies.cu - copies between Octave's pageable host memory and the
 * device through cached page-locked staging slots (gd_upload,
 * gd_download, gd_copies_finish: see runtime.h). The slots' buffer is
 * made at the first large copy and freed by gd_release. */
#include "runtime/runtime.h"

#include "runtime/land.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------
 * Staged copies (gd_upload, gd_download): GD_SLOTS page-locked slots of
 * SLOT_BYTES, one cudaMallocHost block made at the first large copy and
 * kept until gd_release. Slots are taken round robin, so the oldest copy
 * in flight is always the next slot's; taking a busy slot waits for its
 * transfer and, for a download, copies it out to its host destination. */
enum { GD_SLOTS = 4 };
static const size_t SLOT_BYTES = (size_t)32 << 20;
static const size_t STAGE_MIN = (size_t)1 << 20; /* smaller: direct */
static const size_t CHUNK_MIN = (size_t)8 << 20;  /* a staged chunk's least */

struct gd_slot {
    char *buf;
    cudaEvent_t start, done;
    int busy;
    double *ms;       /* where its engine time goes */
    char *host;       /* a download's destination, NULL for an upload */
    size_t pitch, width, rows; /* of the destination's rows */
    int widen;        /* a download of int32s landing as doubles */
    int32_t none;     /* (widen: the int32 that lands as none_as) */
    double none_as;
};
/* each device's slots (by CUDA ordinal) */
struct gd_staging {
    gd_slot slot[GD_SLOTS];
    int next;
    char *buf;
    int state; /* 0 not tried, 1 made, -1 unavailable */
};
static gd_staging g_stages[GD_MAX_DEVICES];
#define g_slot (g_stages[gd_ordinal()].slot)
#define g_next (g_stages[gd_ordinal()].next)
#define g_stage (g_stages[gd_ordinal()].buf)
#define g_stage_state (g_stages[gd_ordinal()].state)
/* the call this host thread times */
static __thread gd_timing *g_copy_t;
static __thread double g_discard_ms;

extern "C" gd_status gd_copies_create(void)
{
    for (int i = 0; i < GD_SLOTS; ++i) {
        gd_status s;
        if ((s = gd_cuda(cudaEventCreate(&g_slot[i].start), "cudaEventCreate")) ||
            (s = gd_cuda(cudaEventCreate(&g_slot[i].done), "cudaEventCreate")))
            return s;
    }
    return GD_OK;
}

/* the slots' events and buffer (gd_release) */
extern "C" void gd_copies_destroy(void)
{
    for (int i = 0; i < GD_SLOTS; ++i) {
        if (g_slot[i].start) cudaEventDestroy(g_slot[i].start);
        if (g_slot[i].done) cudaEventDestroy(g_slot[i].done);
    }
    memset(g_slot, 0, sizeof g_slot);
    if (g_stage) cudaFreeHost(g_stage);
    g_stage = NULL;
    g_stage_state = 0;
    g_next = 0;
}

static bool stage_ready(void)
{
    if (gd_setting_is(GD_SET_STAGE, "0")) return false;
    if (g_stage_state == 0) {
        if (cudaMallocHost(&g_stage, GD_SLOTS * SLOT_BYTES) != cudaSuccess) {
            cudaGetLastError(); /* copies go directly */
            g_stage = NULL;
            g_stage_state = -1;
            return false;
        }
        for (int i = 0; i < GD_SLOTS; ++i) g_slot[i].buf = g_stage + i * SLOT_BYTES;
        g_stage_state = 1;
    }
    return g_stage_state == 1;
}

/* set on a download's thread behind the caller (gd_download_behind) */
static thread_local bool t_behind = false;

/* the threads that copy: the OpenMP threads, at most 16; behind the
 * caller, one fewer than the cores, the caller's left to its launches */
static int copy_threads(void)
{
    int nt = gd_cpu_threads(); /* 1 where OMP_STACKSIZE is too small */
    if (t_behind && nt > 2 && nt >= omp_get_num_procs()) nt = omp_get_num_procs() - 1;
    return nt < 16 ? nt : 16;
}

/* rows of width bytes from src (pitch sp) to dst (pitch dp), by up to 16
 * threads: whole rows each, or, for a contiguous block, chunks that begin
 * and end on 2 MiB boundaries of dst. A fresh destination's huge page is
 * then faulted in (and cleared by the kernel) by one thread alone: chunks
 * that share a huge page make one thread wait while another clears it
 * (537 MB into fresh pages, 32 MiB at a time: 16-19 ms this way, 22-31
 * ms in 1 MiB chunks, on the H100 machine's 16 cores). out: dst is a
 * download's (gd_land_bytes). A slot that widens (sl, flat) lands its
 * int32s as doubles, dst's huge pages split among the threads alike. */
static void parallel_copy(char *dst, size_t dp, const char *src, size_t sp,
                          size_t width, size_t rows, bool out, const gd_slot *sl = NULL)
{
    const bool widen = sl && sl->widen;
    const size_t bytes = width * rows * (widen ? 2 : 1); /* (dst's) */
    const int nt = copy_threads();
    if (bytes < ((size_t)2 << 20) || nt < 2) {
        if (widen)
            gd_land_widen((double *)dst, (const int32_t *)src, width / 4, sl->none, sl->none_as);
        else
            for (size_t r = 0; r < rows; ++r) gd_land_bytes(dst + r * dp, src + r * sp, width, out);
        return;
    }
    if (rows == 1 || (dp == width && sp == width)) {
        const uintptr_t huge = (uintptr_t)2 << 20, d0 = (uintptr_t)dst;
        /* whole huge pages: at least one each, at most 16 threads */
        const size_t pages = ((d0 + bytes + huge - 1) / huge) - d0 / huge;
        const int n = pages < (size_t)nt ? (int)pages : nt;
        (void)n; /* used by the pragma alone */
#pragma omp parallel num_threads(n)
        {
            const size_t i = (size_t)omp_get_thread_num(), k = (size_t)omp_get_num_threads();
            /* thread i: huge pages [pages i / k, pages (i + 1) / k) */
            const uintptr_t first = d0 / huge;
            uintptr_t a = (first + pages * i / k) * huge, b = (first + pages * (i + 1) / k) * huge;
            if (a < d0) a = d0;
            if (b > d0 + bytes) b = d0 + bytes;
            if (b > a && widen) /* (8-byte elements: huge pages hold whole ones) */
                gd_land_widen((double *)a, (const int32_t *)src + (a - d0) / 8, (b - a) / 8, sl->none,
                           sl->none_as);
            else if (b > a)
                gd_land_bytes((char *)a, src + (a - d0), b - a, out);
        }
        return;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t r = 0; r < (int64_t)rows; ++r) gd_land_bytes(dst + r * dp, src + r * sp, width, out);
}

/* Smaller results are touched by the download's copies as before: at n =
 * 2048 (16 MiB) the early touch gained nothing measurable alone, and at
 * 1024 a bench run saw the calls slower with it (NOTES.md). */
static const size_t PREFAULT_MIN = (size_t)32 << 20;

/* the pages of [p, p + bytes) touched, a huge page a step, by up to 16
 * threads; idle: those threads at SCHED_IDLE, so that the thread that
 * feeds the GPU, the only one then running, is never kept off a core by
 * them (at their normal priority the 16 threads of a 16-core host held
 * the near-far iterations' launches back: 16 GB of results, a run's second
 * call 2.2-3.1 s against 1.5-1.9) */
static void touch_pages(void *p, size_t bytes, bool idle)
{
    const uintptr_t huge = (uintptr_t)2 << 20, small = 4096, d0 = (uintptr_t)p;
    const int nt = copy_threads();
    const uintptr_t first = d0 / huge;
    const int64_t pages = (int64_t)((d0 + bytes + huge - 1) / huge - first);
#pragma omp parallel num_threads(nt)
    {
        if (idle) {
            struct sched_param sp;
            memset(&sp, 0, sizeof sp);
            pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp); /* (refused: as it was) */
        }
#pragma omp for schedule(static)
        for (int64_t q = 0; q < pages; ++q) {
            uintptr_t a = (first + (uintptr_t)q) * huge, b = a + huge;
            if (a < d0) a = d0;
            if (b > d0 + bytes) b = d0 + bytes;
            for (uintptr_t x = a; x < b; x = (x / small + 1) * small) *(volatile char *)x = 0;
        }
    }
}

struct gd_prefault {
    pthread_t th;
    void *p;
    size_t bytes;
};

static void *prefault_thread(void *arg)
{
    gd_prefault *f = (gd_prefault *)arg;
    touch_pages(f->p, f->bytes, true);
    return NULL;
}

extern "C" gd_prefault *gd_host_prefault(void *p, size_t bytes)
{
    if (gd_setting_is(GD_SET_PREFAULT, "0") || !p || bytes < PREFAULT_MIN || copy_threads() < 2)
        return NULL;
    gd_prefault *f = (gd_prefault *)malloc(sizeof *f);
    if (f) {
        f->p = p;
        f->bytes = bytes;
        if (pthread_create(&f->th, NULL, prefault_thread, f) == 0) return f;
        free(f);
    }
    touch_pages(p, bytes, false);
    return NULL;
}

extern "C" void gd_host_prefault_wait(gd_prefault *f)
{
    if (!f) return;
    pthread_join(f->th, NULL);
    free(f);
}

static gd_status slot_finish(gd_slot *sl)
{
    gd_status s = GD_OK;
    if (!sl->busy) return s;
    sl->busy = 0;
    if ((s = gd_cuda(cudaEventSynchronize(sl->done), "a copy between host and GPU")))
        return s;
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, sl->start, sl->done) == cudaSuccess)
        *sl->ms += ms;
    else
        cudaGetLastError();
    if (sl->host) parallel_copy(sl->host, sl->pitch, sl->buf, sl->width, sl->width, sl->rows, true, sl);
    return s;
}

static gd_status slot_take(gd_slot **out)
{
    gd_slot *sl = &g_slot[g_next];
    g_next = (g_next + 1) % GD_SLOTS;
    *out = sl;
    return slot_finish(sl);
}

extern "C" void gd_copies_abort(void)
{
    cudaStream_t users[GD_KERNEL_STREAMS];
    gd_kernel_streams(users);
    for (int i = 0; i < GD_KERNEL_STREAMS; ++i) cudaStreamSynchronize(users[i]);
    for (int i = 0; i < GD_SLOTS; ++i) g_slot[i].busy = 0;
    cudaGetLastError();
}

extern "C" void gd_copies_begin(gd_timing *t)
{
    g_copy_t = t;
}

extern "C" void gd_copies_end(void)
{
    g_copy_t = NULL;
}

static double *ms_of(int upload)
{
    if (!g_copy_t) return &g_discard_ms;
    return upload ? &g_copy_t->upload_ms : &g_copy_t->download_ms;
}

/* How a copy of height rows of width bytes goes: a contiguous block (both
 * pitches width) in slots' worth of bytes, else in whole rows; staged when
 * it is large enough and the slots exist. */
struct copy_plan {
    bool flat, staged;
    size_t total, step;
};

static copy_plan plan_of(bool flat, size_t width, size_t height)
{
    copy_plan q;
    q.flat = flat;
    q.total = width * height;
    q.staged = q.total >= STAGE_MIN && (flat || width <= SLOT_BYTES) && stage_ready();
    q.step = !q.staged ? q.total : flat ? SLOT_BYTES : SLOT_BYTES / width * width;
    /* a contiguous block under the slots' bytes in up to a chunk a slot,
     * each of CHUNK_MIN or more, so that each chunk's staging overlaps the
     * one before's transfer instead of preceding it whole (H100, kNN 8192
     * x 65536 from the host, X 32 MB: 6.64 -> 5.55 ms host to host).
     * Smaller chunks lose: parallel_copy gives each thread whole huge
     * pages, so a 1 MB chunk is one thread's (sgemm 1024^3 from the host,
     * 4 MB operands in 1 MB chunks: 1.26 -> 1.55 ms) */
    if (q.staged && flat && q.total < GD_SLOTS * SLOT_BYTES) {
        size_t st = (q.total + GD_SLOTS - 1) / GD_SLOTS;
        st = (st + 4095) / 4096 * 4096;
        q.step = st < CHUNK_MIN ? CHUNK_MIN : st;
    }
    return q;
}

/* one chunk on the copy stream, len bytes at byte offset off of a copy of
 * rows of width bytes (pitches dp and sp; both ignored when flat), timed
 * by the slot's events */
static gd_status transfer(gd_slot *sl, const copy_plan &q, char *dst, size_t dp,
                          const char *src, size_t sp, size_t width, size_t len,
                          cudaMemcpyKind kind, const char *what)
{
    cudaEventRecord(sl->start, gd_copy_stream());
    gd_status s = q.flat ? gd_cuda(cudaMemcpyAsync(dst, src, len, kind, gd_copy_stream()), what)
                         : gd_cuda(cudaMemcpy2DAsync(dst, dp, src, sp, width, len / width,
                                                     kind, gd_copy_stream()), what);
    cudaEventRecord(sl->done, gd_copy_stream());
    sl->busy = 1;
    sl->ms = ms_of(kind == cudaMemcpyHostToDevice);
    sl->host = NULL;
    sl->widen = 0;
    return s;
}

extern "C" gd_status gd_upload_to(void *dst, size_t dpitch, const void *src, size_t spitch,
                                  size_t width, size_t height, cudaEvent_t done, const char *what)
{
    const copy_plan q = plan_of(spitch == width && dpitch == width, width, height);
    for (size_t off = 0; off < q.total; off += q.step) {
        const size_t len = q.total - off < q.step ? q.total - off : q.step;
        gd_slot *sl;
        gd_status s = slot_take(&sl);
        if (s) return s;
        const char *from = (const char *)src + (q.flat ? off : off / width * spitch);
        char *to = (char *)dst + (q.flat ? off : off / width * dpitch);
        if (q.staged) {
            /* gathered into the slot (rows packed): from there one chunk,
             * contiguous where dst is */
            parallel_copy(sl->buf, width, from, spitch, q.flat ? len : width,
                          q.flat ? 1 : len / width, false);
            copy_plan one = q;
            one.flat = dpitch == width;
            s = transfer(sl, one, to, dpitch, sl->buf, width, width, len,
                         cudaMemcpyHostToDevice, what);
        } else {
            s = transfer(sl, q, to, dpitch, from, spitch, width, len,
                         cudaMemcpyHostToDevice, what);
        }
        if (s) return s;
    }
    if (done) return gd_cuda(cudaEventRecord(done, gd_copy_stream()), what);
    return GD_OK;
}

extern "C" gd_status gd_upload(void *dst, const void *src, size_t spitch, size_t width,
                               size_t height, cudaEvent_t done, const char *what)
{
    return gd_upload_to(dst, width, src, spitch, width, height, done, what);
}

/* gd_download, or (widen: dst doubles, src contiguous int32s, width
 * their bytes, height 1) gd_download_widen */
static gd_status download(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, cudaEvent_t after, const char *what, int widen,
                          int32_t none, double none_as)
{
    gd_status s;
    if (!width || !height) return GD_OK;
    if (after && (s = gd_cuda(cudaStreamWaitEvent(gd_copy_stream(), after, 0), what))) return s;
    const copy_plan q = plan_of(spitch == width && dpitch == width, width, height);
    if (widen && !q.staged) { /* (small, or no slots: through a buffer of its own) */
        int32_t *b = (int32_t *)malloc(width);
        if (!b) return gd_fail(GD_ERR_MEMORY, "no host memory for %s (%.1f MiB)", what, gd_mib(width));
        s = gd_cuda(cudaMemcpyAsync(b, src, width, cudaMemcpyDeviceToHost, gd_copy_stream()), what);
        if (!s) s = gd_cuda(cudaStreamSynchronize(gd_copy_stream()), what);
        if (!s) gd_land_widen((double *)dst, b, width / 4, none, none_as);
        free(b);
        return s;
    }
    for (size_t off = 0; off < q.total; off += q.step) {
        const size_t len = q.total - off < q.step ? q.total - off : q.step;
        gd_slot *sl;
        if ((s = slot_take(&sl))) return s;
        char *host = (char *)dst + (widen ? 2 * off : q.flat ? off : off / width * dpitch);
        const char *from = (const char *)src + (q.flat ? off : off / width * spitch);
        /* staged: into the slot packed, copied out to host when it is done */
        s = transfer(sl, q, q.staged ? sl->buf : host, q.staged ? width : dpitch, from,
                     spitch, width, len, cudaMemcpyDeviceToHost, what);
        if (q.staged) {
            sl->host = host;
            sl->pitch = q.flat ? len : dpitch;
            sl->width = q.flat ? len : width;
            sl->rows = q.flat ? 1 : len / width;
            sl->widen = widen;
            sl->none = none;
            sl->none_as = none_as;
        }
        if (s) return s;
    }
    return GD_OK;
}

extern "C" gd_status gd_download(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t width, size_t height, cudaEvent_t after,
                                 const char *what)
{
    return download(dst, dpitch, src, spitch, width, height, after, what, 0, 0, 0.0);
}

extern "C" gd_status gd_download_widen(double *dst, const int32_t *src, size_t count, int32_t none,
                                       double none_as, cudaEvent_t after, const char *what)
{
    return download(dst, count * 4, src, count * 4, count * 4, 1, after, what, 1, none, none_as);
}

extern "C" gd_status gd_copies_finish(void)
{
    gd_status first = GD_OK;
    for (int i = 0; i < GD_SLOTS; ++i) {
        gd_slot *sl;
        gd_status s = slot_take(&sl);
        if (s && !first) first = s;
    }
    return first;
}


/* ---------------------------------------------------------------------
 * A download behind the caller (gd_download_behind): a thread of its own
 * takes the device's slots, waits for the destination's touching, then
 * downloads and lands the copy, while the caller goes on with kernels
 * that neither read nor write the destination nor take the slots. */
struct gd_behind {
    pthread_t th;
    int index;
    gd_prefault *touch;
    void *dst;
    const void *src;
    size_t dpitch, spitch, width, height;
    cudaEvent_t after;
    gd_timing *t;
    const char *what;
    gd_status s;
    char msg[1024];
};

/* the downloads behind their callers now running, by CUDA ordinal */
static int g_behind_running[GD_MAX_DEVICES];

extern "C" int gd_download_behind_running(void)
{
    return __atomic_load_n(&g_behind_running[gd_ordinal()], __ATOMIC_ACQUIRE);
}

static void *behind_main(void *arg)
{
    gd_behind *b = (gd_behind *)arg;
    t_behind = true;
    gd_use_device_index(b->index);
    b->s = gd_cuda(cudaSetDevice(gd_ordinal()), "cudaSetDevice");
    gd_copies_begin(b->t);
    gd_host_prefault_wait(b->touch);
    if (!b->s) b->s = gd_download(b->dst, b->dpitch, b->src, b->spitch, b->width, b->height, b->after, b->what);
    const gd_status f = gd_copies_finish();
    if (!b->s) b->s = f;
    if (b->s) snprintf(b->msg, sizeof b->msg, "%s", gd_last_error());
    gd_copies_end();
    __atomic_sub_fetch(&g_behind_running[gd_ordinal()], 1, __ATOMIC_RELEASE);
    return NULL;
}

extern "C" gd_status gd_download_behind(gd_behind **out, void *dst, size_t dpitch,
                                     const void *src, size_t spitch, size_t width,
                                     size_t height, cudaEvent_t after, gd_prefault *touch,
                                     gd_timing *t, const char *what)
{
    *out = NULL;
    gd_behind *b = (gd_behind *)calloc(1, sizeof *b);
    if (b) {
        b->index = gd_device_index();
        b->touch = touch;
        b->dst = dst;
        b->src = src;
        b->dpitch = dpitch;
        b->spitch = spitch;
        b->width = width;
        b->height = height;
        b->after = after;
        b->t = t;
        b->what = what;
        __atomic_add_fetch(&g_behind_running[gd_ordinal()], 1, __ATOMIC_RELEASE);
        if (pthread_create(&b->th, NULL, behind_main, b) == 0) {
            *out = b;
            return GD_OK;
        }
        __atomic_sub_fetch(&g_behind_running[gd_ordinal()], 1, __ATOMIC_RELEASE);
        free(b);
    }
    /* no thread: the download here and now */
    gd_host_prefault_wait(touch);
    const gd_status s = gd_download(dst, dpitch, src, spitch, width, height, after, what);
    return s ? s : gd_copies_finish();
}

extern "C" gd_status gd_download_behind_wait(gd_behind *b)
{
    if (!b) return GD_OK;
    pthread_join(b->th, NULL);
    const gd_status s = b->s;
    if (s) gd_fail(s, "%s", b->msg);
    free(b);
    return s;
}
