/* device.cu - the one CUDA context gd uses, its cached streams (two for
 * kernels, two of the greatest priority beside them, one for copies, one
 * for device allocations) and events, error
 * strings, and the device query. The staging slots of copies are in
 * copies.cu, device memory in memory.cu.
 *
 * State is cached across calls (creating a stream and events costs more
 * than a small product, page-locked memory far more, and a gigabyte of
 * cudaMalloc and cudaFree about 1.5 ms) and released by gd_release(),
 * which the gateway registers with mexAtExit: it resets every pointer and
 * empties the pool, so a later call after `clear functions` starts clean.
 */
#include "runtime/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

/* each host thread has its own last error: the parts of a call split
 * across devices run on threads of their own (multi.cu) */
static __thread char g_msg[1024];

/* What gd keeps for one device (a CUDA ordinal): its streams, events and
 * name. A host thread works on one device at a time (gd_use_ordinal); the
 * Octave thread on ordinal 0 unless a split call's part says otherwise. */
struct dev_state {
    int ready;
    cudaStream_t stream, stream2, copy; /* kernels; kernels; copies */
    cudaStream_t hi, hi2;  /* kernels on a critical path, the greatest priority */
    cudaEvent_t side_ev[2][2]; /* the side streams' fork and join (gd_side_begin) */
    cudaStream_t alloc_st; /* device allocations and frees (the pool's order) */
    cudaEvent_t alloc_ev[GD_KERNEL_STREAMS];
    cudaEvent_t ev[GD_NEVENTS];
    cudaEvent_t panel_ev[GD_MAX_PANELS];
    char name[256];
    int sms, cc_major;
};
static dev_state g_dev[GD_MAX_DEVICES];
static __thread int t_ordinal;
static inline dev_state &cur(void) { return g_dev[t_ordinal]; }

static __thread int t_index;

extern "C" int gd_ordinal(void) { return t_ordinal; }
extern "C" int gd_device_index(void) { return t_index; }
extern "C" void gd_use_device_index(int index)
{
    t_index = index >= 0 && index < GD_MAX_DEVICES ? index : 0;
    gd_use_ordinal(gd_device_ordinal(t_index));
}
extern "C" void gd_use_ordinal(int ordinal)
{
    t_ordinal = ordinal >= 0 && ordinal < GD_MAX_DEVICES ? ordinal : 0;
}

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
    case GD_ERR_INTERRUPT: return "gd:interrupted";
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
#ifndef GD_NO_CUDA_WHY
#define GD_NO_CUDA_WHY "no nvcc when gd was built"
#endif
    snprintf(buf, len, "built without CUDA (%s)", GD_NO_CUDA_WHY);
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
    dev_state &d = cur();
    for (int i = 0; i < GD_NEVENTS; ++i)
        if (d.ev[i]) cudaEventDestroy(d.ev[i]);
    for (int i = 0; i < GD_MAX_PANELS; ++i)
        if (d.panel_ev[i]) cudaEventDestroy(d.panel_ev[i]);
    for (int i = 0; i < GD_KERNEL_STREAMS; ++i)
        if (d.alloc_ev[i]) cudaEventDestroy(d.alloc_ev[i]);
    memset(d.alloc_ev, 0, sizeof d.alloc_ev);
    memset(d.ev, 0, sizeof d.ev);
    memset(d.panel_ev, 0, sizeof d.panel_ev);
    gd_copies_destroy();
    if (d.stream) cudaStreamDestroy(d.stream);
    if (d.stream2) cudaStreamDestroy(d.stream2);
    if (d.copy) cudaStreamDestroy(d.copy);
    if (d.hi) cudaStreamDestroy(d.hi);
    if (d.hi2) cudaStreamDestroy(d.hi2);
    if (d.alloc_st) cudaStreamDestroy(d.alloc_st);
    d.stream = d.stream2 = d.copy = d.hi = d.hi2 = d.alloc_st = NULL;
}

extern "C" int gd_sm_count(void) { return cur().sms > 0 ? cur().sms : 1; }
extern "C" int gd_cc_major(void) { return cur().cc_major; }

/* the streams, events and copy slots of device state d (whose device is
 * current); the first failure's status */
static gd_status create_objects(dev_state &d, const cudaDeviceProp &p)
{
    gd_status s;
    int least = 0, greatest = 0;
    if ((s = gd_cuda(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&d.stream2, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&d.copy, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaStreamCreateWithFlags(&d.alloc_st, cudaStreamNonBlocking),
                     "cudaStreamCreate")) ||
        (s = gd_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest),
                     "cudaDeviceGetStreamPriorityRange")) ||
        (s = gd_cuda(cudaStreamCreateWithPriority(&d.hi, cudaStreamNonBlocking, greatest),
                     "cudaStreamCreateWithPriority")) ||
        (s = gd_cuda(cudaStreamCreateWithPriority(&d.hi2, cudaStreamNonBlocking, greatest),
                     "cudaStreamCreateWithPriority")))
        return s;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            if ((s = gd_cuda(cudaEventCreateWithFlags(&d.side_ev[i][j], cudaEventDisableTiming),
                             "cudaEventCreate")))
                return s;
    for (int i = 0; i < GD_KERNEL_STREAMS; ++i)
        if ((s = gd_cuda(cudaEventCreateWithFlags(&d.alloc_ev[i], cudaEventDisableTiming),
                         "cudaEventCreate")))
            return s;
    gd_pool_setup(p.totalGlobalMem);
    for (int i = 0; i < GD_NEVENTS; ++i)
        if ((s = gd_cuda(cudaEventCreate(&d.ev[i]), "cudaEventCreate"))) return s;
    for (int i = 0; i < GD_MAX_PANELS; ++i)
        if ((s = gd_cuda(cudaEventCreateWithFlags(&d.panel_ev[i], cudaEventDisableTiming),
                         "cudaEventCreate")))
            return s;
    return gd_copies_create();
}

extern "C" gd_status gd_device_ready(void)
{
    dev_state &d = cur();
    gd_status s;
    if (d.ready) return gd_cuda(cudaSetDevice(t_ordinal), "cudaSetDevice");
    char why[256];
    if (no_device_reason(why, sizeof why))
        return gd_fail(GD_ERR_NOGPU, "no usable CUDA GPU: %s", why);
    cudaDeviceProp p;
    if ((s = gd_cuda(cudaSetDevice(t_ordinal), "cudaSetDevice"))) return s;
    if ((s = gd_cuda(cudaGetDeviceProperties(&p, t_ordinal), "cudaGetDeviceProperties")))
        return s;
    snprintf(d.name, sizeof d.name, "%s", p.name);
    d.sms = p.multiProcessorCount;
    d.cc_major = p.major;
    if ((s = create_objects(d, p))) {
        release_objects();
        return s;
    }
    d.ready = 1;
    return GD_OK;
}

enum { MAX_HOOKS = 8 };
static void (*g_hooks[MAX_HOOKS])(void);
static int g_nhooks;
static pthread_mutex_t g_hooks_lock = PTHREAD_MUTEX_INITIALIZER;

extern "C" void gd_on_release(void (*fn)(void))
{
    pthread_mutex_lock(&g_hooks_lock);
    int known = 0;
    for (int i = 0; i < g_nhooks; ++i) known |= g_hooks[i] == fn;
    if (!known && g_nhooks < MAX_HOOKS) g_hooks[g_nhooks++] = fn;
    pthread_mutex_unlock(&g_hooks_lock);
}

/* every device's objects (the hooks release every device's handles) */
extern "C" void gd_release(void)
{
    gd_workers_stop(); /* no part runs now: calls wait for theirs */
    for (int i = 0; i < g_nhooks; ++i) g_hooks[i]();
    g_nhooks = 0;
    const int mine = t_ordinal;
    for (int o = 0; o < GD_MAX_DEVICES; ++o) {
        if (!g_dev[o].ready) continue;
        t_ordinal = o;
        dev_state &d = cur();
        cudaSetDevice(o);
        cudaStream_t users[GD_KERNEL_STREAMS];
        gd_kernel_streams(users);
        for (int i = 0; i < GD_KERNEL_STREAMS; ++i) cudaStreamSynchronize(users[i]);
        gd_pool_release();
        release_objects();
        d.ready = 0;
    }
    t_ordinal = mine;
    cudaSetDevice(mine);
    cudaGetLastError();
}

extern "C" cudaStream_t gd_stream(void) { return cur().stream; }
extern "C" cudaStream_t gd_stream2(void) { return cur().stream2; }
extern "C" cudaStream_t gd_stream_hi(void) { return cur().hi; }
extern "C" void gd_kernel_streams(cudaStream_t *st)
{
    const dev_state &d = cur();
    st[0] = d.stream;
    st[1] = d.stream2;
    st[2] = d.copy;
    st[3] = d.hi;
    st[4] = d.hi2;
}

/* the side stream beside st, and which of the two pairs it is (the side
 * of stream2 is hi2, of any other stream hi). gd_side_begin records the
 * fork event on st and the side waits for it; gd_side_end the join, the
 * other way. An event is recorded again only after every wait on its last
 * record is queued (a wait takes the record current when it is queued),
 * so one pair a side serves every launch. */
static cudaStream_t side_of(dev_state &d, cudaStream_t st, int *i)
{
    *i = st == d.stream2 ? 1 : 0;
    return *i ? d.hi2 : d.hi;
}

extern "C" cudaStream_t gd_side_begin(cudaStream_t st)
{
    dev_state &d = cur();
    int i;
    const cudaStream_t side = side_of(d, st, &i);
    if (side == st) return st;
    if (gd_cuda(cudaEventRecord(d.side_ev[i][0], st), "cudaEventRecord") ||
        gd_cuda(cudaStreamWaitEvent(side, d.side_ev[i][0], 0), "cudaStreamWaitEvent"))
        return NULL;
    return side;
}

extern "C" gd_status gd_side_end(cudaStream_t st)
{
    dev_state &d = cur();
    int i;
    const cudaStream_t side = side_of(d, st, &i);
    if (side == st) return GD_OK;
    gd_status s;
    if ((s = gd_cuda(cudaEventRecord(d.side_ev[i][1], side), "cudaEventRecord"))) return s;
    return gd_cuda(cudaStreamWaitEvent(st, d.side_ev[i][1], 0), "cudaStreamWaitEvent");
}
extern "C" cudaStream_t gd_copy_stream(void) { return cur().copy; }
extern "C" cudaStream_t gd_alloc_stream(void) { return cur().alloc_st; }
extern "C" cudaEvent_t gd_alloc_event(int i) { return cur().alloc_ev[i]; }
extern "C" int gd_is_ready(void) { return cur().ready; }
extern "C" cudaEvent_t gd_event(int i) { return cur().ev[i]; }
extern "C" cudaEvent_t gd_panel_event(int i) { return cur().panel_ev[i]; }
extern "C" const char *gd_device_name(void) { return cur().name; }

/* what gd_device_query_at says of the device of CUDA ordinal ord */
static gd_status query_ordinal(int ord, gd_device_info *o)
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
    const int mine = t_ordinal;
    t_ordinal = ord; /* the pool trimmed is that device's */
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, ord);
    if (e == cudaSuccess) e = cudaSetDevice(ord);
    if (e == cudaSuccess) o->mem_pool = gd_pool_trim();
    if (e == cudaSuccess) e = cudaMemGetInfo(&o->mem_free, &o->mem_total);
    if (e == cudaSuccess) o->mem_held = gd_memory_held();
    t_ordinal = mine;
    cudaSetDevice(mine);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(o->reason, sizeof o->reason, "%s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
        return GD_OK;
    }
    int clk = 0, mclk = 0;
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, ord);
    cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, ord);
    o->available = 1;
    snprintf(o->name, sizeof o->name, "%s", p.name);
    o->cc_major = p.major;
    o->cc_minor = p.minor;
    o->sms = p.multiProcessorCount;
    o->clock_mhz = clk / 1000.0;
    o->mem_clock_mhz = mclk / 1000.0;
    o->bus_width = p.memoryBusWidth;
    o->ordinal = ord;
    snprintf(o->pci, sizeof o->pci, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID,
             p.pciDeviceID);
    return GD_OK;
}

extern "C" gd_status gd_device_query(gd_device_info *o)
{
    return query_ordinal(t_ordinal, o);
}

/* ---------------------------------------------------------------------
 * Several devices. GD_SIM_DEVICES=N (for tests: a machine with one GPU
 * then checks how calls divide) makes gd see N devices that are all
 * CUDA's first: the parts of a split call then run one after another on
 * it. */
static int sim_devices(void)
{
    long n = 0;
    return gd_setting_int(GD_SET_SIM_DEVICES, 0, GD_MAX_DEVICES, &n) > 0 ? (int)n : 0;
}

extern "C" int gd_devices_simulated(void)
{
    char why[256];
    return no_device_reason(why, sizeof why) ? 0 : sim_devices();
}

/* ---------------------------------------------------------------------
 * The ranks of an MPI job on one host share its GPUs: rank l of the L
 * on the host (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK and _SIZE) sees the
 * GPUs j with j mod L == l, in CUDA's order (one rank a host: all of
 * them; one rank a GPU: its own), or, with more ranks than GPUs, GPU
 * l mod N alone. GD_RANK_DEVICES=all: every rank sees every GPU. The
 * map is made once; gd's device indices (gd_info's, 'Devices') are the
 * rank's. */
static struct {
    int made, n, ord[GD_MAX_DEVICES];
} g_map;

static void make_map(void)
{
    if (g_map.made) return;
    g_map.made = 1;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        n = 0;
    }
    if (n > GD_MAX_DEVICES) n = GD_MAX_DEVICES;
    long l = 0, L = 1;
    const int shared = gd_setting_int(GD_SET_LOCAL_RANK, 0, 1 << 20, &l) > 0 &&
                       gd_setting_int(GD_SET_LOCAL_SIZE, 1, 1 << 20, &L) > 0 && L > 1 &&
                       !gd_setting_is(GD_SET_RANK_DEVICES, "all") && n > 0;
    g_map.n = 0;
    for (int j = 0; j < n; ++j)
        if (!shared || (L <= n ? j % L == l : j == l % n)) g_map.ord[g_map.n++] = j;
}

extern "C" int gd_device_count(void)
{
    char why[256];
    if (no_device_reason(why, sizeof why)) return 0;
    const int sim = sim_devices();
    if (sim) return sim;
    make_map();
    return g_map.n;
}

extern "C" int gd_device_ordinal(int index)
{
    if (gd_devices_simulated()) return 0;
    make_map();
    return index >= 0 && index < g_map.n ? g_map.ord[index] : index;
}

extern "C" gd_status gd_device_query_at(int index, gd_device_info *o)
{
    const int n = gd_device_count();
    if (index < 0 || index >= n) {
        memset(o, 0, sizeof *o);
        return gd_fail(GD_ERR_INPUT, "there is no device %d: gd sees %d", index + 1, n);
    }
    gd_status s = query_ordinal(gd_device_ordinal(index), o);
    for (int j = 0; j < n && !s && o->available; ++j) {
        int can = 0;
        if (j != index && !gd_devices_simulated() &&
            cudaDeviceCanAccessPeer(&can, o->ordinal, gd_device_ordinal(j)) != cudaSuccess) {
            cudaGetLastError();
            can = 0;
        }
        if (can) o->peer |= 1u << j;
    }
    if (!s && gd_devices_simulated()) {
        char name[256];
        snprintf(name, sizeof name, "%s", o->name);
        snprintf(o->name, sizeof o->name, "%.200s (simulated %d)", name, index + 1);
    }
    return s;
}
