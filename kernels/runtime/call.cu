/* call.cu - one GPU call as one object (call.h). */
#include "runtime/call.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

gd_call::gd_call(gd_timing *t, const char *variant) : t_(t)
{
    for (int p = 0; p < GD_NPHASES; ++p) open_[p] = -1;
    s_ = gd_device_ready();
    if (s_) {
        finished_ = true; // nothing to release: the device never was ready
        return;
    }
    if (variant) {
        snprintf(t->variant, sizeof t->variant, "%s", variant);
        snprintf(t->device, sizeof t->device, "%s", gd_device_name());
    }
    gd_copies_begin(t);
    t0_ = gd_now_ms();
}

gd_call::~gd_call() { finish(); }

bool gd_call::go_on(cudaStream_t st, const char *what, double done, double total)
{
    return pace(&st, 1, what, done, total);
}

bool gd_call::go_on(const gd_pipeline &pl, const char *what, double done, double total)
{
    cudaStream_t st[3];
    const int n = pl.streams(st);
    return pace(st, n, what, done, total);
}

bool gd_call::pace(const cudaStream_t *st, int n, const char *what, double done, double total)
{
    if (!ok()) return false;
    if (gd_interrupted()) return fail(GD_ERR_INTERRUPT, "interrupted");
    gd_progress(what, done, total);
    if (gd_now_ms() - t0_ < 50) return true; /* a short call runs ahead freely */
    for (int i = 0; i < n; ++i) {
        cudaEvent_t &ev = pace_[i];
        if (ev) {
            cudaError_t e;
            while ((e = cudaEventQuery(ev)) == cudaErrorNotReady) {
                if (gd_interrupted()) return fail(GD_ERR_INTERRUPT, "interrupted");
                usleep(100);
            }
            if (!cuda(e, "a long call's pace")) return false;
        } else if (!cuda(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate")) {
            return false;
        }
    }
    for (int i = 0; i < n; ++i)
        if (!cuda(cudaEventRecord(pace_[i], st[i]), "a long call's pace")) return false;
    return true;
}

bool gd_call::check(gd_status s)
{
    if (s && !s_) s_ = s;
    return s_ == GD_OK;
}

bool gd_call::fail(gd_status s, const char *fmt, ...)
{
    if (!ok()) return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return check(gd_fail(s, "%s", msg));
}

void *gd_call::alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    if (ok() && !check(gd_alloc(&al_, &p, bytes, what))) p = NULL;
    return p;
}

void *gd_call::alloc_kept(gd_out &out, size_t bytes, const char *what)
{
    void *p = NULL;
    if (!ok()) return NULL;
    if (!out.device || nkept_ == MAX_KEPT) {
        fail(GD_ERR_INPUT, "internal: %s is not a kept result", what);
        return NULL;
    }
    if (!check(gd_alloc_kept(&al_, &p, bytes, what))) return NULL;
    kept_[nkept_++] = kept{out.device, p};
    return p;
}

int64_t gd_call::free_bytes()
{
    size_t fr = 0;
    if (!ok() || !check(gd_free_memory(&fr))) return 0;
    return (int64_t)fr;
}

int64_t gd_call::cap_left() const
{
    const int64_t cap = gd_mem_limit();
    return cap >= 0 ? cap - (int64_t)al_.total : INT64_MAX;
}

const void *gd_call::on_device(const gd_matrix &a, cudaEvent_t up, cudaStream_t st,
                               const char *label)
{
    const void *p = NULL;
    if (ok() && !check(gd_operand_device(&a, &al_, &p, up, st, label))) p = NULL;
    return p;
}

gd_matrix gd_call::in_class(const gd_matrix &a, gd_class cls, const char *label)
{
    gd_matrix out = a;
    if (!ok()) return out;
    if (nhost_ == MAX_HOST) {
        fail(GD_ERR_INPUT, "internal: too many host copies in one call");
        return out;
    }
    void *copy = NULL;
    check(gd_operand_class(&a, cls, &out, &al_, &copy, label));
    if (copy) host_[nhost_++] = copy;
    return out;
}

int64_t gd_call::wave(const void *fn, int threads, size_t dyn, const char *what)
{
    int per_sm = 0;
    if (!cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, dyn), what))
        return 0;
    const int sms = gd_sm_count();
    return (int64_t)(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
}

void *gd_call::host_alloc(size_t bytes, const char *what)
{
    if (!ok()) return NULL;
    if (nhost_ == MAX_HOST) {
        fail(GD_ERR_INPUT, "internal: too many host buffers in one call");
        return NULL;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fail(GD_ERR_MEMORY, "cannot allocate %s (%.1f MiB) in host memory", what, gd_mib(bytes));
        return NULL;
    }
    host_[nhost_++] = p;
    return p;
}

cudaEvent_t gd_call::event()
{
    if (next_event_ == GD_MAX_PANELS) {
        fail(GD_ERR_INPUT, "internal: a call took more than %d events", GD_MAX_PANELS);
        next_event_ = 0;
    }
    return gd_panel_event(next_event_++);
}

/* Adds every closed span's time to its phase's field (after waiting for
 * its end) and frees the spans: called when the spans run out and at the
 * end of the call. An open span stays where it is. */
void gd_call::fold()
{
    double *field[GD_NPHASES] = {&t_->prep_ms, &t_->kernel_ms};
    int keep = 0;
    for (int i = 0; i < nspans_; ++i) {
        const span &sp = spans_[i];
        if (!sp.closed) {
            keep = i + 1;
            continue;
        }
        float ms = 0.0f;
        if (ok() && cuda(cudaEventSynchronize(gd_event(2 * i + 1)), "a timed phase") &&
            cuda(cudaEventElapsedTime(&ms, gd_event(2 * i), gd_event(2 * i + 1)), "a phase's time"))
            *field[sp.phase] += ms;
        spans_[i].closed = false;
        spans_[i].phase = GD_NPHASES; // free
    }
    nspans_ = keep;
}

void gd_call::begin(gd_phase p, cudaStream_t st)
{
    if (!ok()) return;
    if (open_[p] >= 0) {
        fail(GD_ERR_INPUT, "internal: a phase begun twice");
        return;
    }
    if (nspans_ == MAX_SPANS) fold();
    if (nspans_ == MAX_SPANS) {
        fail(GD_ERR_INPUT, "internal: more than %d phases open", (int)MAX_SPANS);
        return;
    }
    const int i = nspans_++;
    spans_[i] = span{p, false};
    open_[p] = i;
    cuda(cudaEventRecord(gd_event(2 * i), st), "a phase's start");
}

void gd_call::end(gd_phase p, cudaStream_t st)
{
    if (!ok()) return;
    const int i = open_[p];
    if (i < 0) {
        fail(GD_ERR_INPUT, "internal: a phase ended that had not begun");
        return;
    }
    open_[p] = -1;
    spans_[i].closed = true;
    cuda(cudaEventRecord(gd_event(2 * i + 1), st), "a phase's end");
}

void gd_call::poison(void *p, size_t bytes, cudaStream_t st, const char *what)
{
    if (ok() && p && gd_setting_text(GD_SET_POISON)) cuda(cudaMemsetAsync(p, 0xCD, bytes, st), what);
}

void *gd_call::host_result(gd_out &out, size_t bytes, const char *what)
{
    if (!ok() || !check(gd_out_buffer(&out, bytes, what))) return NULL;
    return out.ptr;
}

bool gd_call::download(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, cudaEvent_t after, const char *what)
{
    return ok() && check(gd_download(dst, dpitch, src, spitch, width, height, after, what));
}

bool gd_call::wait(cudaStream_t st, const char *what)
{
    return ok() && check(gd_copies_finish()) && cuda(cudaStreamSynchronize(st), what);
}

bool gd_call::sync(cudaStream_t st, const char *what)
{
    if (!ok()) return false;
    if (!gd_download_behind_running()) return cuda(cudaStreamSynchronize(st), what);
    cudaEvent_t ev;
    if (!cuda(cudaEventCreateWithFlags(&ev, cudaEventBlockingSync | cudaEventDisableTiming), what))
        return false;
    cuda(cudaEventRecord(ev, st), what);
    if (ok()) cuda(cudaEventSynchronize(ev), what);
    cudaEventDestroy(ev);
    return ok();
}

gd_pipeline::gd_pipeline(gd_call &c, cudaStream_t st, cudaStream_t st2, cudaStream_t st3)
    : c_(c), st_{st, st2, st3}, ns_(st3 ? 3 : 2)
{
}

void gd_pipeline::queue_outputs(int before_group)
{
    for (; first_out_ < nout_ && out_[first_out_].group < before_group; ++first_out_) {
        const output &o = out_[first_out_];
        if (!c_.download(o.dst, o.dpitch, o.src, o.spitch, o.width, o.height, o.after, o.what))
            break;
    }
}

bool gd_pipeline::upload(void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, const char *what)
{
    if (!in_group_) {
        in_group_ = true;
        ++groups_;
        /* the outputs of the units two groups back go first */
        queue_outputs(groups_ - 1);
    }
    const cudaEvent_t up = c_.event();
    return up && c_.check(gd_upload_to(dst, dpitch, src, spitch, width, height, up, what)) &&
           c_.cuda(cudaStreamWaitEvent(stream(), up, 0), what);
}

void gd_pipeline::units_begin(gd_phase p)
{
    if (phase_ != GD_NPHASES) units_end();
    n_ = 0;
    phase_ = p;
    c_.begin(p, st_[0]);
    const cudaEvent_t ready = c_.event();
    if (!ready || !c_.cuda(cudaEventRecord(ready, st_[0]), "a stretch of units' start")) return;
    for (int i = 1; i < ns_; ++i)
        c_.cuda(cudaStreamWaitEvent(st_[i], ready, 0), "a stretch of units' start");
}

cudaEvent_t gd_pipeline::unit_done(const char *what)
{
    const cudaStream_t s = stream();
    ++n_;
    in_group_ = false;
    if (!c_.launched(what)) return NULL;
    const cudaEvent_t done = c_.event();
    if (done) c_.cuda(cudaEventRecord(done, s), what);
    return c_.ok() ? done : NULL;
}

void gd_pipeline::units_end()
{
    if (phase_ == GD_NPHASES) return;
    for (int i = 1; i < ns_; ++i) {
        const cudaEvent_t join = c_.event();
        if (!join) break;
        c_.cuda(cudaEventRecord(join, st_[i]), "a stretch of units' end");
        c_.cuda(cudaStreamWaitEvent(st_[0], join, 0), "a stretch of units' end");
    }
    c_.end(phase_, st_[0]);
    phase_ = GD_NPHASES;
    n_ = 0;
}

bool gd_pipeline::download(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t width, size_t height, cudaEvent_t done, const char *what)
{
    if (!c_.ok()) return false;
    if (nout_ == MAX_OUT) {
        queue_outputs(groups_ + 1);
        if (!c_.ok()) return false;
        nout_ = first_out_ = 0;
    }
    out_[nout_++] = output{dst, src, dpitch, spitch, width, height, done, what, groups_};
    return true;
}

void gd_pipeline::end()
{
    units_end();
    queue_outputs(groups_ + 1);
    nout_ = first_out_ = 0;
}

gd_status gd_call::finish()
{
    if (finished_) return s_;
    finished_ = true;
    for (cudaEvent_t &ev : pace_) {
        if (ev) cudaEventDestroy(ev);
        ev = NULL;
    }
    for (int p = 0; p < GD_NPHASES; ++p)
        if (open_[p] >= 0) fail(GD_ERR_INPUT, "internal: a phase never ended");
    if (ok()) fold();
    for (int i = 0; i < nhost_; ++i) free(host_[i]);
    nhost_ = 0;
    s_ = gd_end_call(s_, &al_, t_);
    for (int i = 0; i < nkept_; ++i) *kept_[i].to = s_ ? NULL : kept_[i].p;
    if (!s_ && nkept_) t_->kept = 1;
    return s_;
}
