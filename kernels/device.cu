/* device.cu - the one CUDA context gd uses, its cached streams (two for
 * kernels, one for copies, one for device allocations) and events, error
 * strings, and the device query. The staging slots of copies are in
 * copies.cu, device memory in memory.cu.
 *
 * State is cached across calls (creating a stream and events costs more
 * than a small product, page-locked memory far more, and a gigabyte of
 * cudaMalloc and cudaFree about 1.5 ms) and released by gd_release(),
 * which the gateway registers with mexAtExit: it resets every pointer and
 * empties the pool, so a later call after `clear functions` starts clean.
 */
#include "gd_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char g_msg[1024];
static int g_ready;
static cudaStream_t g_stream, g_stream2, g_copy; /* kernels; kernels; copies */
static cudaStream_t g_stream_hi; /* kernels on a critical path, the greatest priority */
static cudaStream_t g_alloc_st; /* device allocations and frees (the pool's order) */
static cudaEvent_t g_alloc_ev[GD_KERNEL_STREAMS];
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
    case GD_ERR_NEGCYCLE: return "gd:negcycle";
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
#ifdef GD_NO_CUDA
    snprintf(buf, len, "built without CUDA (no nvcc when gd was built)");
    return buf;
#endif
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

static void release_objects(void)
{
    for (int i = 0; i < GD_NEVENTS; ++i)
        if (g_ev[i]) cudaEventDestroy(g_ev[i]);
    for (int i = 0; i < GD_MAX_PANELS; ++i)
        if (g_panel_ev[i]) cudaEventDestroy(g_panel_ev[i]);
    for (int i = 0; i < GD_KERNEL_STREAMS; ++i)
        if (g_alloc_ev[i]) cudaEventDestroy(g_alloc_ev[i]);
    memset(g_alloc_ev, 0, sizeof g_alloc_ev);
    memset(g_ev, 0, sizeof g_ev);
    memset(g_panel_ev, 0, sizeof g_panel_ev);
    gd_copies_destroy();
    if (g_stream) cudaStreamDestroy(g_stream);
    if (g_stream2) cudaStreamDestroy(g_stream2);
    if (g_copy) cudaStreamDestroy(g_copy);
    if (g_stream_hi) cudaStreamDestroy(g_stream_hi);
    if (g_alloc_st) cudaStreamDestroy(g_alloc_st);
    g_stream = g_stream2 = g_copy = g_stream_hi = g_alloc_st = NULL;
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
    int least = 0, greatest = 0;
    if ((s = gd_cuda(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&g_stream2, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&g_copy, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&g_alloc_st, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest),
                     "cudaDeviceGetStreamPriorityRange")) ||
        (s = gd_cuda(cudaStreamCreateWithPriority(&g_stream_hi, cudaStreamNonBlocking, greatest),
                     "cudaStreamCreateWithPriority")))
        goto fail;
    for (int i = 0; i < GD_KERNEL_STREAMS; ++i)
        if ((s = gd_cuda(cudaEventCreateWithFlags(&g_alloc_ev[i], cudaEventDisableTiming),
                         "cudaEventCreate")))
            goto fail;
    gd_pool_setup(p.totalGlobalMem);
    for (int i = 0; i < GD_NEVENTS; ++i)
        if ((s = gd_cuda(cudaEventCreate(&g_ev[i]), "cudaEventCreate"))) goto fail;
    for (int i = 0; i < GD_MAX_PANELS; ++i)
        if ((s = gd_cuda(cudaEventCreateWithFlags(&g_panel_ev[i], cudaEventDisableTiming),
                         "cudaEventCreate")))
            goto fail;
    if ((s = gd_copies_create())) goto fail;
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
    cudaStreamSynchronize(g_stream_hi);
    cudaStreamSynchronize(g_copy);
    gd_pool_release();
    release_objects();
    g_ready = 0;
}

extern "C" cudaStream_t gd_stream(void) { return g_stream; }
extern "C" cudaStream_t gd_stream2(void) { return g_stream2; }
extern "C" cudaStream_t gd_stream_hi(void) { return g_stream_hi; }
extern "C" cudaStream_t gd_copy_stream(void) { return g_copy; }
extern "C" cudaStream_t gd_alloc_stream(void) { return g_alloc_st; }
extern "C" cudaEvent_t gd_alloc_event(int i) { return g_alloc_ev[i]; }
extern "C" int gd_is_ready(void) { return g_ready; }
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

