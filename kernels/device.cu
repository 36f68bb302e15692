/* device.cu - the one CUDA context gd uses, its cached streams (two for
 * kernels, one for copies, one for device allocations) and events, the
 * page-locked staging slots the copies go through, per-call device
 * allocations (from the driver's memory pool, with an optional cap), and
 * error strings.
 *
 * State is cached across calls (creating a stream and events costs more
 * than a small product, page-locked memory far more, and a gigabyte of
 * cudaMalloc and cudaFree about 1.5 ms) and released by gd_release(),
 * which the gateways register with mexAtExit: it resets every pointer and
 * empties the pool, so a later call after `clear functions` starts clean.
 */
#include "gd_internal.h"

#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static char g_msg[1024];
static int g_ready;
static cudaStream_t g_stream, g_stream2, g_copy; /* kernels; kernels; copies */
static cudaStream_t g_alloc_st; /* device allocations and frees (the pool's order) */
static cudaEvent_t g_alloc_ev[3];
static cudaEvent_t g_ev[GD_NEVENTS];
static cudaEvent_t g_panel_ev[GD_MAX_PANELS];
static char g_name[256];

extern "C" const char *gd_last_error(void) { return g_msg; }

extern "C" const char *gd_status_id(gd_status s)
{
    switch (s) {
    case GD_OK: return "gd:ok";
    case GD_ERR_INPUT: return "gd:input";
    case GD_ERR_SIZE: return "gd:size";
    case GD_ERR_VARIANT: return "gd:variant";
    case GD_ERR_NOGPU: return "gd:nogpu";
    case GD_ERR_CUDA: return "gd:cuda";
    case GD_ERR_MEMORY: return "gd:memory";
    }
    return "gd:unknown";
}

extern "C" gd_status gd_fail(gd_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    return s;
}

extern "C" gd_status gd_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return GD_OK;
    if (e == cudaErrorMemoryAllocation)
        return gd_fail(GD_ERR_MEMORY, "%s: out of GPU memory", what);
    return gd_fail(GD_ERR_CUDA, "%s failed: %s (%s)", what,
                   cudaGetErrorString(e), cudaGetErrorName(e));
}

extern "C" double gd_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Why no device can be used, or NULL when one can. */
static const char *no_device_reason(char *buf, size_t len)
{
    int count = 0, driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
        cudaGetLastError();
        snprintf(buf, len, "no NVIDIA driver on this machine (libcuda not found)");
        return buf;
    }
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky-free error */
        snprintf(buf, len, "%s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
        return buf;
    }
    if (count == 0) {
        snprintf(buf, len, "no CUDA device found");
        return buf;
    }
    return NULL;
}

/* ---------------------------------------------------------------------
 * Staged copies (gd_upload, gd_download): GD_SLOTS page-locked slots of
 * SLOT_BYTES, one cudaMallocHost block made at the first large copy and
 * kept until gd_release. Slots are taken round robin, so the oldest copy
 * in flight is always the next slot's; taking a busy slot waits for its
 * transfer and, for a download, copies it out to its host destination. */
enum { GD_SLOTS = 4 };
static const size_t SLOT_BYTES = (size_t)32 << 20;
static const size_t STAGE_MIN = (size_t)1 << 20; /* smaller: direct */

struct gd_slot {
    char *buf;
    cudaEvent_t start, done;
    int busy;
    double *ms;       /* where its engine time goes */
    char *host;       /* a download's destination, NULL for an upload */
    size_t pitch, width, rows; /* of the destination's rows */
};
static gd_slot g_slot[GD_SLOTS];
static int g_next;
static char *g_stage;
static int g_stage_state; /* 0 not tried, 1 made, -1 unavailable */
static gd_timing *g_copy_t;
static double g_discard_ms;

static gd_status stage_events(void)
{
    for (int i = 0; i < GD_SLOTS; ++i) {
        gd_status s;
        if ((s = gd_cuda(cudaEventCreate(&g_slot[i].start), "cudaEventCreate")) ||
            (s = gd_cuda(cudaEventCreate(&g_slot[i].done), "cudaEventCreate")))
            return s;
    }
    return GD_OK;
}

static void release_objects(void)
{
    for (int i = 0; i < GD_NEVENTS; ++i)
        if (g_ev[i]) cudaEventDestroy(g_ev[i]);
    for (int i = 0; i < GD_MAX_PANELS; ++i)
        if (g_panel_ev[i]) cudaEventDestroy(g_panel_ev[i]);
    for (int i = 0; i < 3; ++i)
        if (g_alloc_ev[i]) cudaEventDestroy(g_alloc_ev[i]);
    memset(g_alloc_ev, 0, sizeof g_alloc_ev);
    for (int i = 0; i < GD_SLOTS; ++i) {
        if (g_slot[i].start) cudaEventDestroy(g_slot[i].start);
        if (g_slot[i].done) cudaEventDestroy(g_slot[i].done);
    }
    memset(g_ev, 0, sizeof g_ev);
    memset(g_panel_ev, 0, sizeof g_panel_ev);
    memset(g_slot, 0, sizeof g_slot);
    if (g_stage) cudaFreeHost(g_stage);
    g_stage = NULL;
    g_stage_state = 0;
    g_next = 0;
    if (g_stream) cudaStreamDestroy(g_stream);
    if (g_stream2) cudaStreamDestroy(g_stream2);
    if (g_copy) cudaStreamDestroy(g_copy);
    if (g_alloc_st) cudaStreamDestroy(g_alloc_st);
    g_stream = g_stream2 = g_copy = g_alloc_st = NULL;
}

static bool stage_ready(void)
{
    const char *env = getenv("GD_STAGE");
    if (env && strcmp(env, "0") == 0) return false;
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

static int copy_threads(void)
{
    int nt = gd_cpu_threads(); /* 1 where OMP_STACKSIZE is too small */
    return nt < 16 ? nt : 16;
}

/* rows of width bytes from src (pitch sp) to dst (pitch dp), by up to 16
 * threads: whole rows each, or, for a contiguous block, pieces that begin
 * and end on 2 MiB boundaries of dst. A fresh destination's huge page is
 * then faulted in (and cleared by the kernel) by one thread alone: pieces
 * that share a huge page make one thread wait while another clears it
 * (537 MB into fresh pages, 32 MiB at a time: 16-19 ms this way, 22-31
 * ms in 1 MiB pieces, on the H100 machine's 16 cores). */
static void parallel_copy(char *dst, size_t dp, const char *src, size_t sp,
                          size_t width, size_t rows)
{
    const size_t bytes = width * rows;
    const int nt = copy_threads();
    if (bytes < ((size_t)2 << 20) || nt < 2) {
        for (size_t r = 0; r < rows; ++r) memcpy(dst + r * dp, src + r * sp, width);
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
            if (b > a) memcpy((char *)a, src + (a - d0), b - a);
        }
        return;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t r = 0; r < (int64_t)rows; ++r) memcpy(dst + r * dp, src + r * sp, width);
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
    if (sl->host) parallel_copy(sl->host, sl->pitch, sl->buf, sl->width, sl->width, sl->rows);
    return s;
}

static gd_status slot_take(gd_slot **out)
{
    gd_slot *sl = &g_slot[g_next];
    g_next = (g_next + 1) % GD_SLOTS;
    *out = sl;
    return slot_finish(sl);
}

static void copies_abort(void)
{
    cudaStreamSynchronize(g_stream);
    cudaStreamSynchronize(g_stream2);
    cudaStreamSynchronize(g_copy);
    for (int i = 0; i < GD_SLOTS; ++i) g_slot[i].busy = 0;
    cudaGetLastError();
}

extern "C" void gd_copies_begin(gd_timing *t)
{
    g_copy_t = t;
}

static double *ms_of(int upload)
{
    if (!g_copy_t) return &g_discard_ms;
    return upload ? &g_copy_t->upload_ms : &g_copy_t->download_ms;
}

/* How a copy of height rows of width bytes goes: a contiguous block (both
 * pitches width) in slots' worth of bytes, else in whole rows; staged when
 * it is large enough and the slots exist. */
struct gd_pieces {
    bool flat, staged;
    size_t total, step;
};

static gd_pieces pieces(bool flat, size_t width, size_t height)
{
    gd_pieces q;
    q.flat = flat;
    q.total = width * height;
    q.staged = q.total >= STAGE_MIN && (flat || width <= SLOT_BYTES) && stage_ready();
    q.step = !q.staged ? q.total : flat ? SLOT_BYTES : SLOT_BYTES / width * width;
    return q;
}

/* one piece on the copy stream, len bytes at byte offset off of a copy of
 * rows of width bytes (pitches dp and sp; both ignored when flat), timed
 * by the slot's events */
static gd_status transfer(gd_slot *sl, const gd_pieces &q, char *dst, size_t dp,
                          const char *src, size_t sp, size_t width, size_t len,
                          cudaMemcpyKind kind, const char *what)
{
    cudaEventRecord(sl->start, g_copy);
    gd_status s = q.flat ? gd_cuda(cudaMemcpyAsync(dst, src, len, kind, g_copy), what)
                         : gd_cuda(cudaMemcpy2DAsync(dst, dp, src, sp, width, len / width,
                                                     kind, g_copy), what);
    cudaEventRecord(sl->done, g_copy);
    sl->busy = 1;
    sl->ms = ms_of(kind == cudaMemcpyHostToDevice);
    sl->host = NULL;
    return s;
}

extern "C" gd_status gd_upload(void *dst, const void *src, size_t spitch, size_t width,
                               size_t height, cudaEvent_t done, const char *what)
{
    const gd_pieces q = pieces(spitch == width, width, height);
    for (size_t off = 0; off < q.total; off += q.step) {
        const size_t len = q.total - off < q.step ? q.total - off : q.step;
        gd_slot *sl;
        gd_status s = slot_take(&sl);
        if (s) return s;
        const char *from = (const char *)src + (q.flat ? off : off / width * spitch);
        if (q.staged) {
            /* gathered into the slot: from there one contiguous piece */
            parallel_copy(sl->buf, width, from, spitch, q.flat ? len : width,
                          q.flat ? 1 : len / width);
            gd_pieces one = q;
            one.flat = true;
            s = transfer(sl, one, (char *)dst + off, 0, sl->buf, 0, len, len,
                         cudaMemcpyHostToDevice, what);
        } else {
            s = transfer(sl, q, (char *)dst + off, width, from, spitch, width, len,
                         cudaMemcpyHostToDevice, what);
        }
        if (s) return s;
    }
    if (done) return gd_cuda(cudaEventRecord(done, g_copy), what);
    return GD_OK;
}

extern "C" gd_status gd_download(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t width, size_t height, cudaEvent_t after,
                                 const char *what)
{
    gd_status s;
    if (!width || !height) return GD_OK;
    if (after && (s = gd_cuda(cudaStreamWaitEvent(g_copy, after, 0), what))) return s;
    const gd_pieces q = pieces(spitch == width && dpitch == width, width, height);
    for (size_t off = 0; off < q.total; off += q.step) {
        const size_t len = q.total - off < q.step ? q.total - off : q.step;
        gd_slot *sl;
        if ((s = slot_take(&sl))) return s;
        char *host = (char *)dst + (q.flat ? off : off / width * dpitch);
        const char *from = (const char *)src + (q.flat ? off : off / width * spitch);
        /* staged: into the slot packed, copied out to host when it is done */
        s = transfer(sl, q, q.staged ? sl->buf : host, q.staged ? width : dpitch, from,
                     spitch, width, len, cudaMemcpyDeviceToHost, what);
        if (q.staged) {
            sl->host = host;
            sl->pitch = q.flat ? len : dpitch;
            sl->width = q.flat ? len : width;
            sl->rows = q.flat ? 1 : len / width;
        }
        if (s) return s;
    }
    return GD_OK;
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
 * Device memory. cudaMalloc and cudaFree of a product's gigabyte cost
 * 1.3-1.6 ms a call at n = 8192 (cudaFree waits for the whole device), so
 * where the device has a stream-ordered memory pool, allocations come
 * from its default pool on a stream of their own, and a call's memory
 * goes back to the pool, which keeps up to a quarter of the device's
 * memory for the next call. The pool is the driver's, one per device and
 * process, so every gateway shares it and gd_info's gd_pool_trim empties
 * it whatever gateway filled it. GD_MEMPOOL=0: cudaMalloc and cudaFree. */
static cudaMemPool_t g_pool;

static void pool_setup(size_t total)
{
    int ok = 0;
    g_pool = NULL;
    if (cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, 0) != cudaSuccess || !ok ||
        cudaDeviceGetDefaultMemPool(&g_pool, 0) != cudaSuccess) {
        cudaGetLastError();
        g_pool = NULL;
        return;
    }
    uint64_t keep = total / 4;
    if (cudaMemPoolSetAttribute(g_pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
        cudaGetLastError();
        g_pool = NULL;
    }
}

static bool pool_on(void)
{
    const char *env = getenv("GD_MEMPOOL");
    return g_pool && !(env && strcmp(env, "0") == 0);
}

/* what the pool holds unused goes back to the driver */
extern "C" size_t gd_pool_trim(void)
{
    if (g_ready) cudaStreamSynchronize(g_alloc_st); /* frees still queued */
    cudaMemPool_t pool;
    int ok = 0;
    uint64_t held = 0;
    if (cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && ok &&
        cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) {
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &held);
        cudaMemPoolTrimTo(pool, 0);
    }
    cudaGetLastError();
    return (size_t)held;
}

static void pool_release(void)
{
    if (!g_pool) return;
    cudaStreamSynchronize(g_alloc_st);
    cudaMemPoolTrimTo(g_pool, 0);
    cudaGetLastError();
    g_pool = NULL;
}

/* Free device memory: the driver's plus what the pool holds unused. */
extern "C" gd_status gd_free_memory(size_t *free_bytes)
{
    size_t fr = 0, tot = 0;
    gd_status s = gd_cuda(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
    if (s) return s;
    uint64_t reserved = 0, used = 0;
    if (g_pool &&
        cudaMemPoolGetAttribute(g_pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
        cudaMemPoolGetAttribute(g_pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess &&
        reserved > used)
        fr += (size_t)(reserved - used);
    cudaGetLastError();
    *free_bytes = fr;
    return GD_OK;
}

static int g_sms;
extern "C" int gd_sm_count(void) { return g_sms > 0 ? g_sms : 1; }

extern "C" gd_status gd_device_ready(void)
{
    if (g_ready) return GD_OK;
    char why[256];
    if (no_device_reason(why, sizeof why))
        return gd_fail(GD_ERR_NOGPU, "no usable CUDA GPU: %s", why);
    gd_status s;
    if ((s = gd_cuda(cudaSetDevice(0), "cudaSetDevice"))) return s;
    cudaDeviceProp p;
    if ((s = gd_cuda(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties")))
        return s;
    snprintf(g_name, sizeof g_name, "%s", p.name);
    g_sms = p.multiProcessorCount;
    if ((s = gd_cuda(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&g_stream2, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&g_copy, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&g_alloc_st, cudaStreamNonBlocking),
                     "cudaStreamCreate")))
        goto fail;
    for (int i = 0; i < 3; ++i)
        if ((s = gd_cuda(cudaEventCreateWithFlags(&g_alloc_ev[i], cudaEventDisableTiming),
                         "cudaEventCreate")))
            goto fail;
    pool_setup(p.totalGlobalMem);
    for (int i = 0; i < GD_NEVENTS; ++i)
        if ((s = gd_cuda(cudaEventCreate(&g_ev[i]), "cudaEventCreate"))) goto fail;
    for (int i = 0; i < GD_MAX_PANELS; ++i)
        if ((s = gd_cuda(cudaEventCreateWithFlags(&g_panel_ev[i], cudaEventDisableTiming),
                         "cudaEventCreate")))
            goto fail;
    if ((s = stage_events())) goto fail;
    g_ready = 1;
    return GD_OK;
fail:
    release_objects();
    return s;
}

enum { MAX_HOOKS = 8 };
static void (*g_hooks[MAX_HOOKS])(void);
static int g_nhooks;

extern "C" void gd_on_release(void (*fn)(void))
{
    for (int i = 0; i < g_nhooks; ++i)
        if (g_hooks[i] == fn) return;
    if (g_nhooks < MAX_HOOKS) g_hooks[g_nhooks++] = fn;
}

extern "C" void gd_release(void)
{
    for (int i = 0; i < g_nhooks; ++i) g_hooks[i]();
    g_nhooks = 0;
    if (!g_ready) return;
    cudaStreamSynchronize(g_stream);
    cudaStreamSynchronize(g_stream2);
    cudaStreamSynchronize(g_copy);
    pool_release();
    release_objects();
    g_ready = 0;
}

extern "C" cudaStream_t gd_stream(void) { return g_stream; }
extern "C" cudaStream_t gd_stream2(void) { return g_stream2; }
extern "C" cudaEvent_t gd_event(int i) { return g_ev[i]; }
extern "C" cudaEvent_t gd_panel_event(int i) { return g_panel_ev[i]; }
extern "C" const char *gd_device_name(void) { return g_name; }

extern "C" double gd_elapsed(int from, int to)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, g_ev[from], g_ev[to]) != cudaSuccess) {
        cudaGetLastError();
        return -1.0;
    }
    return ms;
}

extern "C" gd_status gd_check_size(const char *what, int64_t rows, int64_t cols, size_t elem)
{
    const double r = (double)rows, c = (double)cols;
    if (rows < 0 || cols < 0)
        return gd_fail(GD_ERR_SIZE, "%s would be %.0fx%.0f: negative size", what, r, c);
    /* in double first: the int64_t products below may not overflow */
    const double padded = (r + 256.0) * (c + 256.0) * (double)elem;
    if (padded >= (double)GD_MAX_BYTES)
        return gd_fail(GD_ERR_SIZE, "%s would be %.0fx%.0f (%.4g elements of %zu bytes): "
                       "larger than any memory gd can address (2^56 bytes)",
                       what, r, c, r * c, elem);
    return GD_OK;
}

extern "C" int64_t gd_mem_limit(void)
{
    const char *v = getenv("GD_GPU_MEM_LIMIT");
    if (!v || !*v) return -1;
    errno = 0;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (errno || *end || x < 0) return -1;
    return x;
}

static double mib(size_t b) { return b / 1048576.0; }

/* Advice only: where the kernel has transparent huge pages in madvise
 * mode, a fresh buffer's first touch then costs one fault per 2 MiB
 * instead of one per 4 KiB (on the H100 machine 7.5 against 27 ms for
 * 256 MiB, touched by 16 threads). Nothing changes if it is refused. */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (bytes < 4 * huge) return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

extern "C" gd_status gd_out_buffer(gd_out *o, size_t bytes, const char *what)
{
    if (!o->ptr && o->fn) {
        o->ptr = o->fn(o->ctx, bytes);
        if (o->ptr) advise_huge(o->ptr, bytes);
    }
    if (!o->ptr && bytes)
        return gd_fail(GD_ERR_MEMORY, "cannot allocate %s (%.1f MiB) in host "
                       "memory", what, mib(bytes));
    return GD_OK;
}

/* one device allocation: from the pool, usable by the three streams once
 * they have waited for its place in the pool's order; else cudaMalloc */
static cudaError_t device_malloc(void **p, size_t bytes, bool pooled)
{
    if (!pooled) return cudaMalloc(p, bytes);
    cudaError_t e = cudaMallocAsync(p, bytes, g_alloc_st);
    if (e == cudaErrorMemoryAllocation) {
        /* what the pool holds may be in pieces too small: return it */
        cudaGetLastError();
        cudaStreamSynchronize(g_alloc_st);
        cudaMemPoolTrimTo(g_pool, 0);
        e = cudaMallocAsync(p, bytes, g_alloc_st);
    }
    if (e != cudaSuccess) return e;
    cudaStream_t users[3] = {g_stream, g_stream2, g_copy};
    if ((e = cudaEventRecord(g_alloc_ev[0], g_alloc_st)) != cudaSuccess) return e;
    for (int i = 0; i < 3; ++i)
        if ((e = cudaStreamWaitEvent(users[i], g_alloc_ev[0], 0)) != cudaSuccess) return e;
    return cudaSuccess;
}

static gd_status alloc_one(gd_allocs *a, void **p, size_t bytes, const char *what,
                           bool pooled, bool kept)
{
    *p = NULL;
    if (a->n == GD_MAX_ALLOCS)
        return gd_fail(GD_ERR_CUDA, "internal: too many allocations");
    int64_t cap = gd_mem_limit();
    if (cap >= 0 && (int64_t)(a->total + bytes) > cap)
        return gd_fail(GD_ERR_MEMORY,
                       "cannot allocate %s (%.1f MiB) on the GPU: the call "
                       "needs at least %.1f MiB, over the %.1f MiB that "
                       "GD_GPU_MEM_LIMIT allows",
                       what, mib(bytes), mib(a->total + bytes), mib(cap));
    cudaError_t e = device_malloc(p, bytes ? bytes : 1, pooled);
    if (e != cudaSuccess) {
        if (*p) {
            pooled ? cudaFreeAsync(*p, g_alloc_st) : cudaFree(*p);
            *p = NULL;
        }
        cudaGetLastError();
        size_t fr = 0, tot = 0;
        cudaMemGetInfo(&fr, &tot);
        if (e != cudaErrorMemoryAllocation)
            return gd_cuda(e, "device allocation");
        return gd_fail(GD_ERR_MEMORY,
                       "cannot allocate %s (%.1f MiB) on the GPU: the call "
                       "needs at least %.1f MiB; %.1f MiB of %.1f MiB are free "
                       "(%s)",
                       what, mib(bytes), mib(a->total + bytes), mib(fr),
                       mib(tot), cudaGetErrorString(e));
    }
    a->pooled[a->n] = pooled;
    a->kept[a->n] = kept;
    a->p[a->n++] = *p;
    a->total += bytes;
    return GD_OK;
}

extern "C" gd_status gd_alloc(gd_allocs *a, void **p, size_t bytes,
                              const char *what)
{
    return alloc_one(a, p, bytes, what, pool_on(), false);
}

/* A kept allocation comes from the pool whenever there is one (whatever
 * GD_MEMPOOL says), so that gd_dev_free knows how to return it. */
extern "C" gd_status gd_alloc_kept(gd_allocs *a, void **p, size_t bytes,
                                   const char *what)
{
    return alloc_one(a, p, bytes, what, g_pool != NULL, true);
}

/* the pool's frees come after everything the streams still run */
static void frees_after_streams(void)
{
    cudaStream_t users[3] = {g_stream, g_stream2, g_copy};
    for (int i = 0; i < 3; ++i) {
        cudaEventRecord(g_alloc_ev[i], users[i]);
        cudaStreamWaitEvent(g_alloc_st, g_alloc_ev[i], 0);
    }
}

extern "C" gd_status gd_end_call(gd_status s, gd_allocs *a, gd_timing *t)
{
    if (s) copies_abort();
    g_copy_t = NULL;
    t->gpu_bytes = (double)a->total;
    bool pooled = false;
    for (int i = 0; i < a->n; ++i) pooled = pooled || (a->pooled[i] && (s || !a->kept[i]));
    if (pooled) frees_after_streams();
    for (int i = 0; i < a->n; ++i) {
        if (a->kept[i] && !s) continue;
        a->pooled[i] ? cudaFreeAsync(a->p[i], g_alloc_st) : cudaFree(a->p[i]);
    }
    /* done before the call returns, so that memory a reading of gd_info
     * counts as used is memory a call holds */
    if (pooled) cudaStreamSynchronize(g_alloc_st);
    cudaGetLastError();
    a->n = 0;
    a->total = 0;
    return s;
}

extern "C" gd_status gd_dev_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    gd_status s = gd_device_ready();
    if (s) return s;
    gd_allocs al = {};
    if ((s = gd_alloc_kept(&al, p, bytes, what))) return s;
    /* usable by every stream once they have waited (device_malloc) */
    return GD_OK;
}

extern "C" void gd_dev_free(void *p)
{
    if (!p) return;
    if (g_ready && g_pool) {
        frees_after_streams();
        cudaFreeAsync(p, g_alloc_st);
    } else {
        cudaFree(p);
    }
    cudaGetLastError();
}

extern "C" gd_status gd_device_query(gd_device_info *o)
{
    memset(o, 0, sizeof *o);
    o->mem_limit = gd_mem_limit();
    cudaRuntimeGetVersion(&o->runtime_version);
    if (cudaDriverGetVersion(&o->driver_version) != cudaSuccess) {
        cudaGetLastError();
        o->driver_version = 0;
    }
    const char *why = no_device_reason(o->reason, sizeof o->reason);
    if (why) return GD_OK;
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, 0);
    if (e == cudaSuccess) e = cudaSetDevice(0);
    if (e == cudaSuccess) o->mem_pool = gd_pool_trim();
    if (e == cudaSuccess) e = cudaMemGetInfo(&o->mem_free, &o->mem_total);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(o->reason, sizeof o->reason, "%s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
        return GD_OK;
    }
    int clk = 0, mclk = 0;
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, 0);
    o->available = 1;
    snprintf(o->name, sizeof o->name, "%s", p.name);
    o->cc_major = p.major;
    o->cc_minor = p.minor;
    o->sms = p.multiProcessorCount;
    o->clock_mhz = clk / 1000.0;
    o->mem_clock_mhz = mclk / 1000.0;
    o->bus_width = p.memoryBusWidth;
    return GD_OK;
}
