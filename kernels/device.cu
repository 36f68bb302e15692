/* device.cu - the one CUDA context gd uses, its cached stream and events,
 * per-call device allocations with an optional cap, and error strings.
 *
 * State is cached across calls (creating a stream and events costs more
 * than a small product) and released by gd_release(), which the gateways
 * register with mexAtExit: it resets every pointer, so a later call after
 * `clear functions` starts clean.
 */
#include "gd_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char g_msg[1024];
static int g_ready;
static cudaStream_t g_stream;
static cudaEvent_t g_ev[GD_NEVENTS];
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
                     "cudaStreamCreate")))
        return s;
    for (int i = 0; i < GD_NEVENTS; ++i) {
        if ((s = gd_cuda(cudaEventCreate(&g_ev[i]), "cudaEventCreate"))) {
            while (i-- > 0) cudaEventDestroy(g_ev[i]);
            cudaStreamDestroy(g_stream);
            g_stream = NULL;
            return s;
        }
    }
    g_ready = 1;
    return GD_OK;
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
    for (int i = 0; i < GD_NEVENTS; ++i) {
        cudaEventDestroy(g_ev[i]);
        g_ev[i] = NULL;
    }
    cudaStreamDestroy(g_stream);
    g_stream = NULL;
    g_ready = 0;
}

extern "C" cudaStream_t gd_stream(void) { return g_stream; }
extern "C" cudaEvent_t gd_event(int i) { return g_ev[i]; }
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

extern "C" gd_status gd_out_buffer(gd_out *o, size_t bytes, const char *what)
{
    if (!o->ptr && o->fn) o->ptr = o->fn(o->ctx, bytes);
    if (!o->ptr && bytes)
        return gd_fail(GD_ERR_MEMORY, "cannot allocate %s (%.1f MiB) in host "
                       "memory", what, mib(bytes));
    return GD_OK;
}

extern "C" gd_status gd_alloc(gd_allocs *a, void **p, size_t bytes,
                              const char *what)
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
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        *p = NULL;
        cudaGetLastError();
        size_t fr = 0, tot = 0;
        cudaMemGetInfo(&fr, &tot);
        return gd_fail(GD_ERR_MEMORY,
                       "cannot allocate %s (%.1f MiB) on the GPU: the call "
                       "needs at least %.1f MiB; %.1f MiB of %.1f MiB are free "
                       "(%s)",
                       what, mib(bytes), mib(a->total + bytes), mib(fr),
                       mib(tot), cudaGetErrorString(e));
    }
    a->p[a->n++] = *p;
    a->total += bytes;
    return GD_OK;
}

extern "C" void gd_pin(gd_pins *s, const void *ptr, size_t bytes)
{
    const char *env = getenv("GD_PIN");
    if (!ptr || bytes < ((size_t)4 << 20) || s->n == GD_MAX_PINS || (env && strcmp(env, "0") == 0))
        return;
    for (int i = 0; i < s->n; ++i)
        if (s->p[i] == ptr) return;
    if (cudaHostRegister((void *)ptr, bytes, cudaHostRegisterDefault) != cudaSuccess) {
        cudaGetLastError(); /* stays pageable */
        return;
    }
    s->p[s->n++] = (void *)ptr;
}

extern "C" gd_status gd_end_call(gd_status s, gd_allocs *a, gd_pins *p, gd_timing *t)
{
    if (s) cudaStreamSynchronize(gd_stream());
    for (int i = 0; i < p->n; ++i) cudaHostUnregister(p->p[i]);
    p->n = 0;
    t->gpu_bytes = (double)a->total;
    for (int i = 0; i < a->n; ++i) cudaFree(a->p[i]);
    a->n = 0;
    a->total = 0;
    return s;
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
