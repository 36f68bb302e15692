/* memory.cu - device memory: the per-call allocations (from the driver's
 * stream-ordered pool, with the optional cap GD_GPU_MEM_LIMIT), the end of
 * a call that frees them, resident allocations that outlive calls
 * (kept results, gd_dev_free), size checks, and the host
 * buffers of results. */
#include "runtime/runtime.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---------------------------------------------------------------------
 * Device memory. cudaMalloc and cudaFree of a product's gigabyte cost
 * 1.3-1.6 ms a call at n = 8192 (cudaFree waits for the whole device), so
 * where the device has a stream-ordered memory pool, allocations come
 * from its default pool on a stream of their own, and a call's memory
 * goes back to the pool, which keeps up to a quarter of the device's
 * memory for the next call. The pool is the driver's, one per device and
 * process, so every gateway shares it and gd_info's gd_pool_trim empties
 * it whatever gateway filled it. GD_MEMPOOL=0: cudaMalloc and cudaFree. */
static cudaMemPool_t g_pools[GD_MAX_DEVICES]; /* by CUDA ordinal */
#define g_pool g_pools[gd_ordinal()]

extern "C" void gd_pool_setup(size_t total)
{
    int ok = 0;
    g_pool = NULL;
    if (cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, gd_ordinal()) != cudaSuccess ||
        !ok || cudaDeviceGetDefaultMemPool(&g_pool, gd_ordinal()) != cudaSuccess) {
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
    return g_pool && !gd_setting_is(GD_SET_MEMPOOL, "0");
}

/* what the pool holds unused goes back to the driver */
extern "C" size_t gd_pool_trim(void)
{
    if (gd_is_ready()) cudaStreamSynchronize(gd_alloc_stream()); /* frees still queued */
    cudaMemPool_t pool;
    int ok = 0;
    uint64_t held = 0;
    if (cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, gd_ordinal()) == cudaSuccess &&
        ok && cudaDeviceGetDefaultMemPool(&pool, gd_ordinal()) == cudaSuccess) {
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &held);
        cudaMemPoolTrimTo(pool, 0);
    }
    cudaGetLastError();
    return (size_t)held;
}

extern "C" void gd_pool_release(void)
{
    if (!g_pool) return;
    cudaStreamSynchronize(gd_alloc_stream());
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

/* ---------------------------------------------------------------------
 * What gd holds on a device (gd_info's memory_held): the pool's memory in
 * use, and the bytes gd took by plain cudaMalloc (GD_MEMPOOL=0, or a
 * device without a pool), counted here: a call's by its gd_allocs, a
 * kept one's (no pool: a resident result) in a table until gd_dev_free.
 * Unlike memory_free it is this process's alone, whatever else runs on
 * the device. */
static int64_t g_direct[GD_MAX_DEVICES]; /* by CUDA ordinal; __atomic */
enum { KEPT_DIRECT = 1024 };
static struct {
    void *p;
    size_t bytes;
    int ord;
} g_kept_direct[KEPT_DIRECT];
static pthread_mutex_t g_kept_lock = PTHREAD_MUTEX_INITIALIZER;

static void direct_count(int64_t bytes, int ord = -1)
{
    __atomic_add_fetch(&g_direct[ord < 0 ? gd_ordinal() : ord], bytes, __ATOMIC_RELAXED);
}

/* a kept cudaMalloc'd allocation remembered (a full table: counted held
 * until the process ends, which errs toward a leak reported) */
static void kept_direct_note(void *p, size_t bytes)
{
    pthread_mutex_lock(&g_kept_lock);
    for (int i = 0; i < KEPT_DIRECT; ++i)
        if (!g_kept_direct[i].p) {
            g_kept_direct[i].p = p;
            g_kept_direct[i].bytes = bytes;
            g_kept_direct[i].ord = gd_ordinal();
            break;
        }
    pthread_mutex_unlock(&g_kept_lock);
}

static void kept_direct_forget(void *p)
{
    pthread_mutex_lock(&g_kept_lock);
    for (int i = 0; i < KEPT_DIRECT; ++i)
        if (g_kept_direct[i].p == p) {
            direct_count(-(int64_t)g_kept_direct[i].bytes, g_kept_direct[i].ord);
            g_kept_direct[i].p = NULL;
            break;
        }
    pthread_mutex_unlock(&g_kept_lock);
}

extern "C" size_t gd_memory_held(void)
{
    uint64_t used = 0;
    if (g_pool && cudaMemPoolGetAttribute(g_pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        cudaGetLastError();
        used = 0;
    }
    const int64_t direct = __atomic_load_n(&g_direct[gd_ordinal()], __ATOMIC_RELAXED);
    return (size_t)used + (size_t)(direct > 0 ? direct : 0);
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

/* GD_GPU_MEM_LIMIT: bytes, a cap on every device; or "i:bytes,j:bytes",
 * caps on devices i and j (1-based, as gd_info numbers them) alone. The
 * cap of device mine (1-based; 0: none asked), -1 where none applies;
 * -2 where the value is neither form. */
static int64_t mem_limit_of(const char *v, long long mine)
{
    char *end;
    errno = 0;
    if (!strchr(v, ':')) {
        long long x = strtoll(v, &end, 10);
        if (errno || end == v || *end || x < 0) return -2;
        return x;
    }
    int64_t cap = -1;
    for (const char *q = v; *q;) {
        errno = 0;
        long long dev = strtoll(q, &end, 10);
        if (errno || end == q || *end != ':' || dev < 1) return -2;
        const char *at = end + 1;
        long long x = strtoll(at, &end, 10);
        if (errno || end == at || (*end && *end != ',') || x < 0) return -2;
        if (dev == mine && cap < 0) cap = x;
        q = *end ? end + 1 : end;
        if (*end && !*q) return -2; /* a trailing comma */
    }
    return cap;
}

/* The cap of the device this thread works on (gd_device_index); -1 where
 * none applies or the value is malformed (gd_mem_limit_malformed) */
extern "C" int64_t gd_mem_limit(void)
{
    const char *v = gd_setting_text(GD_SET_GPU_MEM_LIMIT);
    if (!v || !*v) return -1;
    const int64_t x = mem_limit_of(v, gd_device_index() + 1);
    return x < 0 ? -1 : x;
}

extern "C" int gd_mem_limit_malformed(void)
{
    const char *v = gd_setting_text(GD_SET_GPU_MEM_LIMIT);
    return v && *v && mem_limit_of(v, 0) == -2;
}

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
                       "memory", what, gd_mib(bytes));
    return GD_OK;
}

/* one device allocation: from the pool, usable by the three streams once
 * they have waited for its place in the pool's order; else cudaMalloc */
static cudaError_t device_malloc(void **p, size_t bytes, bool pooled)
{
    if (!pooled) return cudaMalloc(p, bytes);
    cudaError_t e = cudaMallocAsync(p, bytes, gd_alloc_stream());
    if (e == cudaErrorMemoryAllocation) {
        /* what the pool holds may be in fragments too small: return it */
        cudaGetLastError();
        cudaStreamSynchronize(gd_alloc_stream());
        cudaMemPoolTrimTo(g_pool, 0);
        e = cudaMallocAsync(p, bytes, gd_alloc_stream());
    }
    if (e != cudaSuccess) return e;
    cudaStream_t users[GD_KERNEL_STREAMS];
    gd_kernel_streams(users);
    if ((e = cudaEventRecord(gd_alloc_event(0), gd_alloc_stream())) != cudaSuccess) return e;
    for (int i = 0; i < GD_KERNEL_STREAMS; ++i)
        if ((e = cudaStreamWaitEvent(users[i], gd_alloc_event(0), 0)) != cudaSuccess) return e;
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
                       "GD_GPU_MEM_LIMIT allows%s",
                       what, gd_mib(bytes), gd_mib(a->total + bytes), gd_mib(cap),
                       strchr(gd_setting_text(GD_SET_GPU_MEM_LIMIT), ':') ? " this device" : "");
    cudaError_t e = device_malloc(p, bytes ? bytes : 1, pooled);
    if (e != cudaSuccess) {
        if (*p) {
            pooled ? cudaFreeAsync(*p, gd_alloc_stream()) : cudaFree(*p);
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
                       what, gd_mib(bytes), gd_mib(a->total + bytes), gd_mib(fr),
                       gd_mib(tot), cudaGetErrorString(e));
    }
    a->pooled[a->n] = pooled;
    a->kept[a->n] = kept;
    a->bytes[a->n] = bytes ? bytes : 1;
    if (!pooled) direct_count((int64_t)a->bytes[a->n]);
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
    cudaStream_t users[GD_KERNEL_STREAMS];
    gd_kernel_streams(users);
    for (int i = 0; i < GD_KERNEL_STREAMS; ++i) {
        cudaEventRecord(gd_alloc_event(i), users[i]);
        cudaStreamWaitEvent(gd_alloc_stream(), gd_alloc_event(i), 0);
    }
}

extern "C" gd_status gd_end_call(gd_status s, gd_allocs *a, gd_timing *t)
{
    if (s) gd_copies_abort();
    gd_copies_end();
    t->gpu_bytes = (double)a->total;
    bool pooled = false;
    for (int i = 0; i < a->n; ++i) pooled = pooled || (a->pooled[i] && (s || !a->kept[i]));
    if (pooled) frees_after_streams();
    for (int i = 0; i < a->n; ++i) {
        if (a->kept[i] && !s) {
            if (!a->pooled[i]) kept_direct_note(a->p[i], a->bytes[i]);
            continue;
        }
        a->pooled[i] ? cudaFreeAsync(a->p[i], gd_alloc_stream()) : cudaFree(a->p[i]);
        if (!a->pooled[i]) direct_count(-(int64_t)a->bytes[i]);
    }
    /* done before the call returns, so that memory a reading of gd_info
     * counts as used is memory a call holds */
    if (pooled) cudaStreamSynchronize(gd_alloc_stream());
    cudaGetLastError();
    a->n = 0;
    a->total = 0;
    return s;
}

extern "C" void gd_dev_free_at(int dev, void *p)
{
    if (!p) return;
    gd_on_device there(dev);
    gd_dev_free(p);
}

extern "C" void gd_dev_free(void *p)
{
    if (!p) return;
    if (gd_is_ready() && g_pool) {
        frees_after_streams();
        cudaFreeAsync(p, gd_alloc_stream());
    } else {
        cudaFree(p);
        kept_direct_forget(p);
    }
    cudaGetLastError();
}

