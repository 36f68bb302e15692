/* gd_internal.h - what the kernel files share with device.cu; not API. */
#ifndef GD_INTERNAL_H
#define GD_INTERNAL_H

#include "gd.h"

#include <cuda_runtime.h>

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

/* Makes the device current and the cached stream and events exist;
 * GD_ERR_NOGPU (with the reason) when there is no usable device. */
gd_status gd_device_ready(void);
cudaStream_t gd_stream(void);
const char *gd_device_name(void);
int gd_sm_count(void); /* after gd_device_ready */

/* Registers fn to run (once) at the next gd_release: cached state of an
 * operation, such as a library handle. */
void gd_on_release(void (*fn)(void));

/* Events for timing the phases of one call: 0..GD_NEVENTS-1. */
enum { GD_NEVENTS = 7 };
cudaEvent_t gd_event(int i);
/* Milliseconds between two recorded events (after they completed). */
double gd_elapsed(int from, int to);

/* Device allocations of one call, freed together on every path. The cap
 * GD_GPU_MEM_LIMIT (bytes, read at each allocation) bounds their sum. */
enum { GD_MAX_ALLOCS = 8 };
typedef struct {
    void *p[GD_MAX_ALLOCS];
    int n;
    size_t total;
} gd_allocs;
gd_status gd_alloc(gd_allocs *a, void **p, size_t bytes, const char *what);

/* Host buffers page-locked for one call (cudaHostRegister), so that their
 * copies run asynchronously at the bus's speed instead of through the
 * driver's pageable staging. gd_pin leaves a buffer pageable (and copies
 * still work) when it is small (under 4 MiB, where locking costs more than
 * it saves), already pinned in s, refused by the driver, or when GD_PIN=0.
 * gd_end_call releases them after the last copy has completed. */
enum { GD_MAX_PINS = 4 };
typedef struct {
    void *p[GD_MAX_PINS];
    int n;
} gd_pins;
void gd_pin(gd_pins *s, const void *ptr, size_t bytes);

/* The end of every GPU call, on every path: after a failure (s != GD_OK)
 * waits for the stream, so no copy still reads or writes a buffer; then
 * unlocks the pinned host buffers, records the call's device memory in
 * t->gpu_bytes and frees it. Returns s. */
gd_status gd_end_call(gd_status s, gd_allocs *a, gd_pins *p, gd_timing *t);

/* GD_GPU_MEM_LIMIT in bytes, -1 when unset or unreadable. */
int64_t gd_mem_limit(void);

double gd_now_ms(void);

/* The host buffer of a result (see gd_out); GD_ERR_MEMORY when the
 * allocator fails. */
gd_status gd_out_buffer(gd_out *o, size_t bytes, const char *what);

#ifdef __cplusplus
}
#endif
#endif
