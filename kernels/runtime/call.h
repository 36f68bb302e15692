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

class gd_pipeline;

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
    /* the blocks of fn (threads a block, dyn bytes of dynamic shared
     * memory) that run at once on the device: its SMs times the blocks
     * an SM holds; 0 once failed (what: the kernel) */
    int64_t wave(const void *fn, int threads, size_t dyn, const char *what);
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
    /* Between units of a long call (rounds, stages, batches): false, the
     * call failed with GD_ERR_INTERRUPT, where the user asked to stop
     * (Ctrl-C); else unit `done` of `total` reported as progress
     * (GD_VERBOSE). Once the call has run 50 ms, the host stays one
     * unit ahead of the GPU: at each check it waits for the work queued
     * before the previous check (asking for Ctrl-C while it waits), so
     * the GPU computes one unit while the host queues the next, and an
     * interrupt leaves the running unit and at most one more. The work
     * queued before a check is that of stream st, or, given a pipeline,
     * of each of its streams (units that take the streams in turn). */
    bool go_on(cudaStream_t st, const char *what, double done, double total);
    bool go_on(const gd_pipeline &pl, const char *what, double done, double total);
    /* waits for the copies in flight and for stream st: the results are
     * in place and the phases' times known */
    bool wait(cudaStream_t st, const char *what);
    /* waits for stream st alone (not the copies): spinning, as
     * cudaStreamSynchronize does, or asleep (an event of blocking sync)
     * while a download behind the caller lands on the host's cores
     * (gd_download_behind), whose threads a spinning wait holds back */
    bool sync(cudaStream_t st, const char *what);

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
    enum { MAX_HOST = 4, MAX_KEPT = 3, MAX_SPANS = GD_NEVENTS / 2 };
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
    /* go_on's: the end of the work queued before its last check, on each
     * stream it looked at */
    bool pace(const cudaStream_t *st, int n, const char *what, double done, double total);
    cudaEvent_t pace_[3] = {};
    double t0_ = 0;
};

/* The overlap of copies with kernels, written once for every op: a call's
 * work in units (a product's sections of C, pdist's panels of the triangle,
 * kNN's units of X, apsp's results), each with its inputs from the host,
 * its launches and its outputs to the host. Unit q's inputs go up while
 * unit q - 1 computes, and its outputs come down while unit q + 1
 * computes:
 *
 *   - upload: an input of the next unit, queued on the copy engine at
 *     once; the next unit's stream waits for its arrival. Before queuing
 *     it, the outputs of the units two groups of inputs back are queued,
 *     so that the copy engine's order is in(0) in(1) out(0) in(2) out(1)
 *     ...: an input never waits behind an output whose kernel is still to
 *     come (one copy engine carries both ways).
 *   - the units' launches go to the streams in turn (two, or three), so
 *     that one unit's last, partly filled wave overlaps the next one's
 *     first; unit_done records a unit's end, the event its outputs wait
 *     for;
 *   - download: an output of a done unit, queued as above, or at end().
 *
 * The units of one stretch (units_begin .. units_end) are timed as one
 * phase of the call; between stretches the first stream may prepare what
 * the next units read (the products' stages: the next sections of A and B
 * uploaded and laid out), since the next stretch's other streams start
 * after the first stream's work.
 *
 *     gd_pipeline pl(c, st, st2);
 *     for (each stage) {
 *         pl.upload(dA, ..., "A's section");     (the stage's inputs)
 *         prep<<<..., st>>>(...);
 *         pl.units_begin(GD_PHASE_KERNEL);
 *         for (each unit of the stage) {
 *             kernel<<<..., pl.stream()>>>(...);
 *             done = pl.unit_done("kernel");
 *             pl.download(h, ..., done, "R's section");
 *         }
 *         pl.units_end();
 *     }
 *     pl.end();                                (the last outputs queued) */
class gd_pipeline {
  public:
    /* the streams the units take in turn (st3 NULL: two) */
    gd_pipeline(gd_call &c, cudaStream_t st, cudaStream_t st2, cudaStream_t st3 = NULL);
    gd_pipeline(const gd_pipeline &) = delete;
    gd_pipeline &operator=(const gd_pipeline &) = delete;

    /* height rows of width bytes from the host (pitch spitch) to dst
     * (pitch dpitch), an input of the next unit: its stream waits for it */
    bool upload(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                size_t height, const char *what);
    /* a stretch of units begins: a phase p of the call, timed on the first
     * stream, and the other streams after the first's work so far; the
     * next unit takes the first stream */
    void units_begin(gd_phase p);
    /* the stream of the next unit's launches (the first before any) */
    cudaStream_t stream() const { return st_[n_ % ns_]; }
    /* the streams the units take (into st[3]), and how many */
    int streams(cudaStream_t *st) const
    {
        for (int i = 0; i < ns_; ++i) st[i] = st_[i];
        return ns_;
    }
    /* after a unit's launches: they succeeded (what: the kernel), its end
     * recorded; the event (NULL once the call failed) */
    cudaEvent_t unit_done(const char *what);
    /* the stretch's end: the other streams joined into the first, the
     * phase ended */
    void units_end();
    /* height rows of width bytes from src (pitch spitch) to the host's dst
     * (pitch dpitch), an output of the unit whose end is done */
    bool download(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height, cudaEvent_t done, const char *what);
    /* the outputs so far queued now, where no inputs are to come before
     * them */
    void flush() { queue_outputs(groups_ + 1); }
    /* every output queued (an open stretch ended first): before the
     * call waits for its copies (nothing is queued without it) */
    void end();

  private:
    void queue_outputs(int before_group);
    gd_call &c_;
    cudaStream_t st_[3];
    int ns_, n_ = 0;
    gd_phase phase_ = GD_NPHASES; /* the open stretch's (GD_NPHASES: none) */
    /* groups of inputs so far (a group: the inputs between two units) */
    int groups_ = 0;
    bool in_group_ = false;
    enum { MAX_OUT = 128 };
    struct output {
        void *dst;
        const void *src;
        size_t dpitch, spitch, width, height;
        cudaEvent_t after;
        const char *what;
        int group; /* the groups of inputs queued when it came */
    } out_[MAX_OUT];
    int nout_ = 0, first_out_ = 0;
};

#endif

