/* runtime.h - what the kernel files share with the runtime (device.cu,
 * memory.cu, copies.cu, multi.cu, resident.cu, layout.cu); not API. */
#ifndef GD_RUNTIME_H
#define GD_RUNTIME_H

#include "gd.h"

#include <cuda_runtime.h>
#include <stdio.h>
#ifdef __cplusplus
#include <limits>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Records the message for gd_last_error() and returns s. */
gd_status gd_fail(gd_status s, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* GD_OK when e is cudaSuccess, else GD_ERR_CUDA naming what failed. */
gd_status gd_cuda(cudaError_t e, const char *what);

/* ---- several devices (device.cu, multi.cu) ---- */

/* The device this host thread works on: its CUDA ordinal, and its index
 * (0-based, as gd_device_query_at counts; the same but where
 * GD_SIM_DEVICES maps every index to ordinal 0), which picks its
 * GD_GPU_MEM_LIMIT. gd_use_device_index sets both. */
int gd_ordinal(void);
void gd_use_ordinal(int ordinal);
int gd_device_index(void);
void gd_use_device_index(int index);
int gd_device_ordinal(int index);
int gd_devices_simulated(void); /* GD_SIM_DEVICES's count; 0 when unset */

/* The devices a call of work operations divides over, from its place
 * (gd_place): an explicit list as it is, 'all' as many
 * devices as get min_work each (at least one); at most most. Fills idx
 * (indices) and returns the count. */
int gd_split_devices(const gd_place *at, double work, double min_work, int64_t most,
                     int idx[GD_MAX_DEVICES]);
/* Whether a call given n devices from gd_split_devices runs elsewhere than
 * on this thread's device alone. */
int gd_split_needed(int n, const int idx[GD_MAX_DEVICES]);
/* The one rule of every operation for where a call runs: the devices it
 * divides over (gd_split_devices; idx, the count returned), or 1 with
 * idx[0] this thread's device where it stays there: resident data (an
 * operand or a result on the device) stays unless the place names its
 * devices and the operation's division takes resident data
 * (divides_resident: the products, whose panels are copied into the
 * result on the call's device). Then gd_split_needed says whether to
 * divide. */
int gd_call_devices(const gd_place *at, int resident, int divides_resident, double work,
                    double min_work, int64_t most, int idx[GD_MAX_DEVICES]);

/* Runs fn(ctx, i, n, ti) for each part i < n on device idx[i], all at
 * once, on a host thread each (one after another on this thread where the
 * devices are simulated); every part ends its own device work (freed on
 * failure as on success). t gets the parts' timings together: each phase
 * the longest part's, ops and memory summed, the devices listed. The
 * status is the first failing part's, its message naming the device. */
typedef gd_status (*gd_part_fn)(void *ctx, int part, int nparts, gd_timing *t);
gd_status gd_run_parts(int n, const int idx[GD_MAX_DEVICES], gd_part_fn fn, void *ctx,
                       gd_timing *t);
/* A divided call's resident result, after its parts (s: their status):
 * on failure every piece freed and s returned; else the pieces that hold
 * columns kept, in order. */
gd_status gd_pieces_settle(gd_pieces *P, gd_status s);

/* An operand the parts of a divided call share (the products' A, which
 * every part reads whole): each stage's section of it goes up from the host
 * once, a share of it by each part, and every part pulls the others'
 * shares from their devices, peer to peer, instead of every device
 * uploading the whole section. The parts meet in it without waiting for
 * one another's threads more than the copies need: a part puts its share
 * of a stage (gd_share_put) before it gets the others' (gd_share_get), so
 * no part waits for one that waits for it; and every part ends with
 * gd_share_end on every path, which waits until no part's pulls read its
 * memory any more. */
struct gd_share;
/* For parts on devices idx[0..n-1], each stage q < stages (at most
 * GD_MAX_SIDE): NULL where it cannot serve (fewer than two parts,
 * simulated devices, two parts on one device, a pair without peer access,
 * GD_SHARE=0); the parts then upload the operand whole, each. */
gd_share *gd_share_make(int n, const int idx[GD_MAX_DEVICES], int stages);
/* After every part's gd_share_end. */
void gd_share_free(gd_share *x);
/* part's share of stage q is at ptr on its device once the work queued
 * so far on stream st is done. */
gd_status gd_share_put(gd_share *x, int part, int q, const void *ptr, cudaStream_t st);
/* height rows of width bytes at offset from part r's share of stage q
 * (pitch spitch on r's device) into dst (pitch dpitch) on part's device
 * (this thread's), by this device's copy engine on a stream of the
 * share's; stream st waits for them. Waits on the host for r's
 * gd_share_put. Where r has failed or ended without putting stage q
 * instead: absent non-NULL, *absent is set and nothing fails (the caller
 * brings those bytes another way); else GD_ERR_INTERRUPT (the call's
 * failure is r's). */
gd_status gd_share_get(gd_share *x, int part, int r, int q, void *dst, size_t dpitch,
                       size_t offset, size_t spitch, size_t width, size_t height,
                       cudaStream_t st, bool *absent);
/* part has done with x (ok: it put every stage's share): waits until
 * every part has, and every part's pulls have finished. */
void gd_share_end(gd_share *x, int part, bool ok);
/* bytes from device src_ord's memory to device dst_ord's, on stream st
 * of dst (the current device); peer access enabled first where the pair
 * has it */
gd_status gd_peer_copy(void *dst, int dst_ord, const void *src, int src_ord, size_t bytes,
                       cudaStream_t st, const char *what);
/* height rows of width bytes (pitches dpitch, spitch) from device
 * src_ord's memory to device dst_ord's, on stream st (dst's) */
gd_status gd_peer_copy_2d(void *dst, size_t dpitch, int dst_ord, const void *src,
                          size_t spitch, int src_ord, size_t width, size_t height,
                          cudaStream_t st, const char *what);
/* t's report zeroed */
void gd_timing_reset(gd_timing *t);
/* Ends the pool of per-device host threads that run the parts (made
 * again by the next divided call): gd_release's */
void gd_workers_stop(void);
/* Bounds of part i of n of count things, each part but the last a
 * multiple of mult: [*lo, *hi). */
void gd_part_range(int64_t count, int64_t mult, int i, int n, int64_t *lo, int64_t *hi);

/* Makes the device current and the cached stream and events exist;
 * GD_ERR_NOGPU (with the reason) when there is no usable device. */
gd_status gd_device_ready(void);
cudaStream_t gd_stream(void);
/* A second stream for kernels, beside gd_stream(). */
cudaStream_t gd_stream2(void);
/* A stream of the greatest priority, for kernels on a critical path beside
 * gd_stream()'s (the block scheduler gives it the SMs first that free). */
cudaStream_t gd_stream_hi(void);
/* Work beside a launcher's stream st that should have the SMs first: the
 * side stream (of the greatest priority; one for gd_stream2, one for the
 * others) after st's work so far, NULL on failure; gd_side_end: st after
 * the side's work so far. A side's kernels launched with or after st's
 * still run first as SMs free (the block scheduler dispatches a higher
 * priority's pending blocks before the others'). */
cudaStream_t gd_side_begin(cudaStream_t st);
gd_status gd_side_end(cudaStream_t st);
int gd_sm_count(void); /* after gd_device_ready */
int gd_cc_major(void); /* the compute capability's major number, likewise */

/* What device.cu, memory.cu and copies.cu share: the copy stream, the
 * allocation stream and its events, whether the context is made; the
 * staging slots' making, dropping after a failure, and releasing; the
 * memory pool's set-up and release. */
cudaStream_t gd_copy_stream(void);
cudaStream_t gd_alloc_stream(void);
/* the streams that use allocations: gd_stream, gd_stream2, the copy stream,
 * gd_stream_hi and the second side stream (each has an allocation event) */
enum { GD_KERNEL_STREAMS = 5 };
void gd_kernel_streams(cudaStream_t *st); /* into st[GD_KERNEL_STREAMS] */
cudaEvent_t gd_alloc_event(int i); /* 0..GD_KERNEL_STREAMS-1 */
int gd_is_ready(void);
gd_status gd_copies_create(void);
void gd_copies_abort(void);   /* waits for every stream, drops the slots' work */
void gd_copies_end(void);     /* no call's timing collects copy times now */
void gd_copies_destroy(void);
void gd_pool_setup(size_t total_bytes);
void gd_pool_release(void);

/* Registers fn to run (once) at the next gd_release: cached state of an
 * operation, such as a library handle. */
void gd_on_release(void (*fn)(void));

/* Events with timing, 0..GD_NEVENTS-1: the phases of one call (a
 * gd_call's spans take them in pairs) */
enum { GD_NEVENTS = 64 };
cudaEvent_t gd_event(int i);

/* Device allocations of one call, freed together on every path (back to
 * the pool, which keeps them for the next call: see device.cu). The cap
 * GD_GPU_MEM_LIMIT (bytes, read at each allocation) bounds their sum. */
enum { GD_MAX_ALLOCS = 64 };
typedef struct {
    void *p[GD_MAX_ALLOCS];
    unsigned char pooled[GD_MAX_ALLOCS]; /* from the stream-ordered pool */
    unsigned char kept[GD_MAX_ALLOCS];   /* a resident result: freed only
                                            when the call fails */
    size_t bytes[GD_MAX_ALLOCS];
    int n;
    size_t total;
} gd_allocs;
gd_status gd_alloc(gd_allocs *a, void **p, size_t bytes, const char *what);
/* The allocation of a result the call keeps on the device (gd_out's
 * device): counted and freed on failure like the others, handed to the
 * caller (gd_dev_free) when the call succeeds. */
gd_status gd_alloc_kept(gd_allocs *a, void **p, size_t bytes, const char *what);

/* ---- operands in either place (resident.cu) ---- */

/* a as class cls, where it is: *out is a itself when it already is, else
 * a tight converted copy: in device memory (one of al's allocations) for a
 * device operand, in host memory (*host_copy, to free()) for a host one.
 * label names it in messages ("A"). */
gd_status gd_operand_class(const gd_matrix *a, gd_class cls, gd_matrix *out,
                           gd_allocs *al, void **host_copy, const char *label);
/* a whole operand on the device, tight (ld == rows), for kernels on st:
 * a resident tight matrix in place; else one of al's allocations, filled
 * by an upload (staged; st waits for event up after it) or, for a pitched
 * resident one, a copy on st. *ptr receives it. */
gd_status gd_operand_device(const gd_matrix *a, gd_allocs *al, const void **ptr, cudaEvent_t up,
                            cudaStream_t st, const char *label);
/* A resident operand on another device than this thread's: *out is a
 * tight copy of it here (one of al's allocations, copied peer to peer on
 * gd_stream(), complete when this returns); else *out is *a. */
gd_status gd_operand_here(const gd_matrix *a, gd_allocs *al, gd_matrix *out,
                          const char *label);
/* a in host memory: itself when it is there, else a tight copy
 * (*host_copy, to free()) downloaded from the device. */
gd_status gd_operand_host(const gd_matrix *a, gd_matrix *out, void **host_copy,
                          const char *label);
/* A result computed by host code: *buf receives where to write it (out's
 * host buffer, or for a resident result a host buffer that
 * gd_host_result_end uploads into the kept device allocation and frees).
 * gd_host_result_end takes the host code's status and returns the call's. */
gd_status gd_host_result_begin(gd_out *out, size_t bytes, const char *what, void **buf);
/* The results of a call with no element: each of the n outputs (NULL:
 * not asked) empty where it goes (a host array, or a gdArray); on a
 * failure the ones made before are given back. */
gd_status gd_empty_results(gd_out *const outs[], const char *const names[], int n,
                           gd_timing *t);
gd_status gd_host_result_end(gd_out *out, void *buf, size_t bytes, gd_status s,
                             gd_timing *t);
/* The second output of host code: the int32 index array idx (rows x
 * cols) into out in class cls (GD_INT32 or GD_DOUBLE: converted), through
 * gd_host_result_begin/end. When it fails, the first output's kept device
 * allocation (*first->device, if any) is freed too, so nothing of the call
 * stays. label names it in messages ("K"). */
gd_status gd_host_index_result(gd_out *out, const int32_t *idx, int64_t rows, int64_t cols,
                               gd_class cls, gd_out *first, const char *label, gd_timing *t);

/* A device-to-device copy of height rows of width bytes on st. */
gd_status gd_copy_d2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                      size_t width, size_t height, cudaStream_t st);
/* The device's free memory for a call's allocations: the driver's plus
 * what gd's memory pool holds unused. */
gd_status gd_free_memory(size_t *free_bytes);
/* Returns what the pool holds unused to the driver (gd_info does, before
 * it reads the free memory); the bytes it held before. */
size_t gd_pool_trim(void);
/* The bytes gd holds on the device, this process's alone (memory.cu). */
size_t gd_memory_held(void);

/* Copies between the host (Octave's pageable memory) and the device.
 * Large ones go through cached page-locked staging slots: host threads
 * (OpenMP) copy a slot's 32 MiB while the copy engine moves the slot
 * before it, so a copy runs at the bus's speed with no page-locking of
 * the caller's memory. Small copies, or all of them when GD_STAGE=0, go
 * directly (the driver's own pageable path). A call begins with
 * gd_copies_begin; the copies' engine times (events around each slot's
 * transfer, so no wait between slots counts) accumulate in t->upload_ms
 * and t->download_ms. */
void gd_copies_begin(gd_timing *t);
/* Both directions run on the copy stream, in the order asked.
 * gd_upload: height rows of width bytes from the host (pitch spitch) to
 * the device (contiguous); records done (NULL: none) after them, for the
 * kernels' stream to wait on. Returns once src has been read; the
 * transfer may still be running. */
gd_status gd_upload(void *dst, const void *src, size_t spitch, size_t width,
                    size_t height, cudaEvent_t done, const char *what);
/* gd_upload into rows of pitch dpitch on the device (a block of rows of a
 * padded matrix) */
gd_status gd_upload_to(void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t height, cudaEvent_t done, const char *what);
/* height rows of width bytes from the device (pitch spitch) to the host
 * (pitch dpitch), after event after (NULL: none). The last few chunks may
 * still be in flight: gd_copies_finish completes them. */
gd_status gd_download(void *dst, size_t dpitch, const void *src, size_t spitch,
                      size_t width, size_t height, cudaEvent_t after, const char *what);
/* gd_download of count int32s (contiguous) landing as doubles, none as
 * none_as: half the bytes over the bus where a result's values fit */
gd_status gd_download_widen(double *dst, const int32_t *src, size_t count, int32_t none,
                            double none_as, cudaEvent_t after, const char *what);
/* Waits for every copy in flight and lands the downloads in host memory. */
gd_status gd_copies_finish(void);
/* Touches every page of a fresh host result of 32 MiB or more (the
 * system clears each page at its first touch), by up to 16 threads on
 * whole huge pages, on a thread of its own while the caller goes on (the
 * kernels run): it takes the first touch off the download's path, whose
 * copies out of the slots then write touched memory. The handle is for
 * gd_host_prefault_wait, which must come before anything else writes the
 * memory or frees it; NULL: nothing to wait for (too small, GD_PREFAULT=0,
 * or done before the return where no thread could be made). */
typedef struct gd_prefault gd_prefault;
gd_prefault *gd_host_prefault(void *p, size_t bytes);
void gd_host_prefault_wait(gd_prefault *f);
/* A download behind the caller: gd_download and gd_copies_finish on a
 * thread of its own, which first waits for touch (taken; NULL: none), its
 * engine time in t->download_ms; meanwhile the caller may launch kernels
 * that leave src and dst alone, but must not copy through the slots.
 * *out, for gd_download_behind_wait (on every path, before src or dst is
 * freed): NULL where no thread could be made and the copy is done. */
typedef struct gd_behind gd_behind;
gd_status gd_download_behind(gd_behind **out, void *dst, size_t dpitch, const void *src,
                             size_t spitch, size_t width, size_t height, cudaEvent_t after,
                             gd_prefault *touch, gd_timing *t, const char *what);
/* joins the thread (NULL: nothing); its status, its message raised again */
gd_status gd_download_behind_wait(gd_behind *b);
/* whether a download behind its caller is landing on this device's slots */
int gd_download_behind_running(void);

/* Events without timing, for ordering one stream after another:
 * 0..GD_MAX_PANELS-1, which a gd_call hands out in order (gd_call::event).
 * A product in sections (at most GD_MAX_SIDE a side) takes one a section, two
 * a stage for the uploads of A's and B's sections and two a stage for its
 * stretch of units: 97 in 8 x 8 blocks. */
enum { GD_MAX_PANELS = 128 }; /* (GD_MAX_SIDE: gd.h) */
cudaEvent_t gd_panel_event(int i);

/* The end of every GPU call, on every path: after a failure (s != GD_OK)
 * waits for both streams and drops the copies in flight, so none still
 * reads or writes a buffer; then records the call's device memory in
 * t->gpu_bytes and frees it. Returns s. */
gd_status gd_end_call(gd_status s, gd_allocs *a, gd_timing *t);

/* Every size product a call makes (elements, padded sizes, bytes) stays
 * far inside int64_t when each array it holds is below GD_MAX_BYTES:
 * GD_OK when rows x cols elements of elem bytes, each side rounded up to
 * a multiple of 256, are fewer bytes than that; else GD_ERR_SIZE naming
 * what (no memory has that much). */
#define GD_MAX_BYTES ((int64_t)1 << 56)
gd_status gd_check_size(const char *what, int64_t rows, int64_t cols, size_t elem);

/* GD_GPU_MEM_LIMIT in bytes, -1 when unset or unreadable. */
int64_t gd_mem_limit(void);

double gd_now_ms(void);

/* bytes as MiB, for messages */
static inline double gd_mib(size_t bytes) { return bytes / 1048576.0; }

/* The host buffer of a result (see gd_out); GD_ERR_MEMORY when the
 * allocator fails. A large one is advised to use huge pages (its pages
 * are usually fresh: touched first by the download, in parallel). */
gd_status gd_out_buffer(gd_out *o, size_t bytes, const char *what);

#ifdef __cplusplus
}

/* a type's range as constants device code can read */
template <class T> struct gd_limits {
    static constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
};

/* fn.template operator()<S>() for the element type S of an integer class */
template <class Fn> auto gd_with_int_class(gd_class cls, Fn &&fn)
{
    switch (cls) {
    case GD_INT8: return fn.template operator()<int8_t>();
    case GD_UINT8: return fn.template operator()<uint8_t>();
    case GD_INT16: return fn.template operator()<int16_t>();
    case GD_UINT16: return fn.template operator()<uint16_t>();
    case GD_INT32: return fn.template operator()<int32_t>();
    case GD_UINT32: return fn.template operator()<uint32_t>();
    case GD_INT64: return fn.template operator()<int64_t>();
    default: return fn.template operator()<uint64_t>();
    }
}
/* This thread works on device index i while the object lives (a
 * resident matrix's device), then on the one before. */
struct gd_on_device {
    int saved;
    explicit gd_on_device(int i) : saved(gd_device_index()) { gd_use_device_index(i); }
    ~gd_on_device()
    {
        gd_use_device_index(saved);
        if (gd_is_ready()) cudaSetDevice(gd_ordinal());
    }
    gd_on_device(const gd_on_device &) = delete;
    gd_on_device &operator=(const gd_on_device &) = delete;
};
/* A kernel's dynamic shared memory beyond the default 48 KB: set once per
 * kernel and device (cudaFuncSetAttribute is a driver call; a launch needs
 * it only the first time on each device). K: the kernel itself. */
template <auto K> cudaError_t gd_dynamic_smem(int bytes)
{
    static bool set[GD_MAX_DEVICES]; /* by CUDA ordinal */
    const int o = gd_ordinal();
    if (set[o]) return cudaSuccess;
    const cudaError_t e = cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e == cudaSuccess) set[o] = true;
    return e;
}

/* Kernel launch helpers. */
static inline unsigned gd_grid_y(int64_t tiles)
{
    return (unsigned)(tiles < 65535 ? tiles : 65535);
}
static inline int64_t gd_round_up(int64_t x, int64_t q) { return (x + q - 1) / q * q; }
/* blocks of threads for a grid-stride loop over work elements */
static inline unsigned gd_blocks_for(int64_t work, int threads)
{
    int64_t b = (work + threads - 1) / threads;
    return (unsigned)(b < 65536 * 4 ? (b > 0 ? b : 1) : 65536 * 4);
}

/* NCCL for an op's own rounds (runtime/nccl.cu): a group of gd_mpi_group
 * (-1: the job) as a communicator, its size and this rank's place; a
 * broadcast queued on a stream (every rank of the group queuing the same
 * ones in the same order); a wait for a stream (or an event of it, ev)
 * that polls as the collectives' do (a rank gone, NCCL's error, Ctrl-C).
 * In a job of one rank comm is NULL and nothing moves. */
struct gd_nccl_group {
    void *comm;
    int size, me;
};
gd_status gd_nccl_group_of(int group, gd_nccl_group *g);
gd_status gd_nccl_bcast_on(const gd_nccl_group *g, void *buf, size_t bytes, int root,
                           cudaStream_t st);
gd_status gd_nccl_wait(const gd_nccl_group *g, cudaStream_t st, cudaEvent_t ev,
                       const char *what);

/* R (cols x rows, tight) = A.' (rows x cols, leading dimension lda) on st:
 * the driver's transposing preparation, without padding. */
void gd_launch_transpose(gd_class cls, const void *A, int64_t lda, void *R, int64_t rows,
                         int64_t cols, cudaStream_t st);

/* out (m x n, tight, class to: GD_DOUBLE or GD_INT32) = K (int32, leading
 * dimension ldk), on st: an index result in the class asked for. */
void gd_launch_widen(gd_class to, const int *K, int64_t ldk, void *out, int64_t m, int64_t n,
                     cudaStream_t st);

/* The class's name as Octave spells it ("single", "uint16"). */
const char *gd_class_name(gd_class cls);

/* A describing label "R (m x n single)" for messages. */
void gd_describe(char *buf, size_t len, const char *label, int64_t rows,
                 int64_t cols, gd_class cls);
#endif /* __cplusplus */

#endif
