/* call.h - one GPU call on this thread's device, as one object: its
 * device allocations and host copies, its events, its timed phases and the
 * hand-over of results kept on the device. A driver makes one, takes its
 * steps through it and returns finish(); whatever path it leaves by (a
 * failed step, an early return), the call's memory is released, the copies
 * in flight dropped, and nothing of a kept result stays behind on failure.
 *
 * A failed step is kept: every step after it does nothing (returns NULL or
 * false) and finish() returns the first failure, so a driver reads as the
 * sequence of its steps with a check where a value is needed:
 *
 *     gd_call c(t, "tuned");
 *     const void *dX = c.on_device(X, c.event(), st, "X");
 *     T *dD = (T *)c.alloc(bytes, "D");
 *     if (!c.ok()) return c.finish();
 *     c.begin(GD_PHASE_KERNEL, st);
 *     kernel<<<...>>>(...);
 *     c.launched("pdist kernel");
 *     c.end(GD_PHASE_KERNEL, st);
 *     c.download(out, dD, bytes, "D");
 *     return c.finish();
 *
 * Phases are named, not numbered events: begin/end pairs on a stream whose
 * times add up into the timing's field for the phase (prep_ms, kernel_ms)
 * once the call has waited for them. C++ only (the .cu files). */
#ifndef GD_CALL_H
#define GD_CALL_H

#include "runtime/runtime.h"

/* what a phase's time adds to in gd_timing */
enum gd_phase { GD_PHASE_PREP, GD_PHASE_KERNEL, GD_NPHASES };

class gd_call {
  public:
    /* the device this thread works on made ready, the timing's variant
     * and device named (variant NULL: left as they are), the call's
     * copies timed into t */
    gd_call(gd_timing *t, const char *variant);
    ~gd_call();
    gd_call(const gd_call &) = delete;
    gd_call &operator=(const gd_call &) = delete;

    bool ok() const { return s_ == GD_OK; }
    gd_status status() const { return s_; }
    /* keeps s when it is the call's first failure; whether the call is ok */
    bool check(gd_status s);
    bool cuda(cudaError_t e, const char *what) { return ok() ? check(gd_cuda(e, what)) : false; }
    /* the last launch on this thread succeeded (what: the kernel) */
    bool launched(const char *what) { return cuda(cudaGetLastError(), what); }
    /* fails the call with a message (as gd_fail); false */
    bool fail(gd_status s, const char *fmt, ...)
#ifdef __GNUC__
        __attribute__((format(printf, 3, 4)))
#endif
        ;

    /* device memory of the call: freed when it ends; NULL once failed */
    void *alloc(size_t bytes, const char *what);
    /* a result's memory, handed to *out.device when the call succeeds
     * (out.device must be set); freed when it fails */
    void *alloc_kept(gd_out &out, size_t bytes, const char *what);
    /* the call's allocation list, for code that allocates through
     * gd_alloc and gd_alloc_kept itself (a kept result there is handed
     * over by that code) */
    gd_allocs *allocs() { return &al_; }
    /* bytes the call's allocations hold */
    size_t allocated() const { return al_.total; }
    /* the device's free memory (the pool's unused included); 0 once
     * failed */
    int64_t free_bytes();
    /* what GD_GPU_MEM_LIMIT leaves the call beyond what it holds; INT64_MAX
     * without a limit */
    int64_t cap_left() const;

    /* operand a on the device, tight (gd_operand_device): in place when it
     * is resident, else uploaded (st waits for event up after it) */
    const void *on_device(const gd_matrix &a, cudaEvent_t up, cudaStream_t st,
                          const char *label);
    /* operand a in class cls (gd_operand_class): itself, or a converted
     * copy the call frees */
    gd_matrix in_class(const gd_matrix &a, gd_class cls, const char *label);
    /* a host buffer of bytes the call frees (NULL once failed) */
    void *host_alloc(size_t bytes, const char *what);

    /* an event for ordering streams, fresh until reuse_events (each call
     * has GD_MAX_PANELS) */
    cudaEvent_t event();
    /* the events from event() may be taken again: every wait on them is
     * queued and every copy after them issued */
    void reuse_events() { next_event_ = 0; }

    /* a phase on st: its time from begin to end adds to the timing's field
     * (phases of one name may run several times; the times add up) */
    void begin(gd_phase p, cudaStream_t st);
    void end(gd_phase p, cudaStream_t st);

    /* with GD_POISON set: bytes at p filled with 0xCD on st, so that a
     * result element no kernel wrote shows */
    void poison(void *p, size_t bytes, cudaStream_t st, const char *what);

    /* the host buffer of result out (gd_out_buffer); NULL once failed */
    void *host_result(gd_out &out, size_t bytes, const char *what);
    /* height rows of width bytes from the device to the host, after event
     * after (gd_download) */
    bool download(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height, cudaEvent_t after, const char *what);
    /* waits for the copies in flight and for stream st: the results are
     * in place and the phases' times known */
    bool wait(cudaStream_t st, const char *what);

    /* the end of the call: after a failure the streams are waited for and
     * the copies dropped; memory freed (kept results handed over on
     * success); the phases' times added to the timing. Returns the call's
     * status. Once: the destructor does it where a driver did not. */
    gd_status finish();

  private:
    void fold();
    gd_timing *t_;
    gd_status s_ = GD_OK;
    gd_allocs al_ = {};
    bool finished_ = false;
    enum { MAX_HOST = 4, MAX_KEPT = 3, MAX_SPANS = (GD_EV_UNPACK) / 2 };
    void *host_[MAX_HOST] = {};
    int nhost_ = 0;
    struct kept {
        void **to;
        void *p;
    } kept_[MAX_KEPT] = {};
    int nkept_ = 0;
    struct span {
        gd_phase phase;
        bool closed;
    } spans_[MAX_SPANS] = {};
    int nspans_ = 0, open_[GD_NPHASES];
    int next_event_ = 0;
};

/* One stage of a call's kernels, the overlap the products and pdist share:
 * its units (a block of C, a panel of the triangle) queued on two streams
 * in turn, so that one unit's last, partly filled wave overlaps the next
 * one's first; each unit's end is an event its download waits for (the
 * copy engine then takes a unit down while the next ones compute); the
 * stage ends when both streams are through it. Timed as the call's kernel
 * phase.
 *
 *     gd_stage sg(c, st, st2);
 *     for (each unit) {
 *         kernel<<<..., sg.stream()>>>(...);
 *         done[u] = sg.unit_done("pdist kernel");
 *     }
 *     sg.end();
 *     (downloads of unit u after done[u]) */
class gd_stage {
  public:
    gd_stage(gd_call &c, cudaStream_t st, cudaStream_t st2);
    /* the stream of the next unit's launches */
    cudaStream_t stream() const { return n_ % 2 ? st2_ : st_; }
    /* after a unit's launches: they succeeded (what: the kernel), its
     * end recorded; the event (NULL once the call failed) */
    cudaEvent_t unit_done(const char *what);
    /* the second stream joined into the first, the phase ended */
    void end();

  private:
    gd_call &c_;
    cudaStream_t st_, st2_;
    int n_ = 0;
};

#endif
