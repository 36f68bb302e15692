/* runtime/op.h - what every operation's entry shares, from the checked
 * arguments to the kernels: the head (gd_op_entry: the report reset, the
 * kept results' pointers cleared, this thread on the place's device, the
 * total time on every path), the variant chosen by name or by the op's
 * one 'auto' rule (gd_op_variant), the resident operands brought to this
 * thread's device (gd_local), and the runner (gd_run_op): the empty
 * results, the host, one device or several. */
#ifndef GD_RUNTIME_OP_H
#define GD_RUNTIME_OP_H

#include "runtime/runtime.h"

#include <string.h>

/* The start of an operation's entry point: t's report reset, and this
 * thread on the device of the call's place (at; NULL: its own device)
 * until the object ends. */
struct gd_entry : gd_on_device {
    gd_entry(const gd_place *at, gd_timing *t)
        : gd_on_device(at && at->device > 0 ? at->device - 1 : gd_device_index())
    {
        gd_timing_reset(t);
    }
};
/* What the runner (gd_run_op) needs to know of one call of an operation,
 * once the operation has checked it and chosen its variant. */
struct gd_op_call {
    const char *variant;    /* the variant chosen ('auto' resolved) */
    bool gpu;               /* it runs on a GPU */
    bool empty;             /* the result has no element */
    gd_out *outs[2];        /* the results, made empty when empty (NULL: not asked) */
    const char *names[2];   /* their names ("D", "P") */
    bool resident = false;  /* an operand or a result is on the device */
    bool divides_resident = false; /* the operation divides with resident data */
    double split_min = 0;   /* the work a device must get where 'all' divide */
    int64_t units = 1;      /* the most parts the work divides into */
    /* variant v's call, empty or not, of results o0 named n0 (and o1, n1) */
    gd_op_call(const gd_variant_info &v, bool empty_, gd_out *o0, const char *n0,
               gd_out *o1 = NULL, const char *n1 = NULL)
        : variant(v.name), gpu(v.gpu != 0), empty(empty_), outs{o0, o1}, names{n0, n1}
    {
    }
};
/* One call of any operation from its variant on: the empty results; the
 * host (cpu ()); or the GPU, on the call's device (one ()) or divided
 * (split (nd, idx)) by the rule of gd_call_devices. */
template <class Cpu, class One, class Split>
gd_status gd_run_op(const gd_op_call &oc, const gd_place *at, gd_timing *t, Cpu &&cpu, One &&one,
                    Split &&split)
{
    if (oc.empty) {
        snprintf(t->variant, sizeof t->variant, "%s", oc.variant);
        return gd_empty_results(oc.outs, oc.names, 2, t);
    }
    if (!oc.gpu) return cpu();
    int idx[GD_MAX_DEVICES];
    const gd_place here = {};
    const int nd = gd_call_devices(at ? at : &here, oc.resident, oc.divides_resident, t->ops,
                                   oc.split_min, oc.units, idx);
    return gd_split_needed(nd, idx) ? split(nd, idx) : one();
}
/* One array given twice: the same descriptor, or the same memory seen the
 * same way (an operand then is uploaded, copied or converted once). */
static inline bool gd_same_matrix(const gd_matrix *a, const gd_matrix *b)
{
    return b == a || (b->ptr == a->ptr && b->pieces == a->pieces && b->where == a->where &&
                      b->dev == a->dev && b->cls == a->cls && b->rows == a->rows &&
                      b->cols == a->cols && b->ld == a->ld);
}
/* A call's resident operands on this thread's device: take() gives a
 * itself, or for one on another device a copy here (gd_operand_here);
 * the copies go when the object does (after the streams' work). take2
 * keeps one array given twice one array. */
struct gd_local {
    gd_allocs al = {};
    gd_status take(const gd_matrix *a, gd_matrix *out, const char *label)
    {
        return gd_operand_here(a, &al, out, label);
    }
    gd_status take2(const gd_matrix *a, const gd_matrix *b, gd_matrix *ah, gd_matrix *bh,
                    const char *la = "A", const char *lb = "B")
    {
        gd_status s = take(a, ah, la);
        if (s) return s;
        if (gd_same_matrix(a, b)) {
            *bh = *ah;
            return GD_OK;
        }
        return take(b, bh, lb);
    }
    ~gd_local()
    {
        if (!al.n) return;
        gd_timing t = {};
        gd_end_call(GD_OK, &al, &t);
    }
};
/* An operation's operands from its head on: the report's steps and
 * where the operands were (t->ops, t->resident: bit 0 the first, bit 1 the
 * second), then a and b, the operands on this thread's device (gd_local;
 * b only with a second operand, labels la and lb in messages). */
struct gd_op_operands : gd_local {
    gd_matrix a = {}, b = {};
    gd_status take(gd_timing *t, double ops, const gd_matrix *A, const char *la,
                   const gd_matrix *B = NULL, const char *lb = NULL)
    {
        t->ops = ops;
        t->resident = (A->where == GD_DEVICE ? 1u : 0u) | (B && B->where == GD_DEVICE ? 2u : 0u);
        return B ? take2(A, B, &a, &b, la, lb) : gd_local::take(A, &a, la);
    }
};

/* Whether cls is an integer class (GD_INT8 ... GD_UINT64, GD_INT32
 * included): an operand of those runs a variant's run_i. */
static inline bool gd_class_is_int(gd_class c) { return c != GD_SINGLE && c != GD_DOUBLE; }

/* An operation's entry, from its first line to its return: gd_entry,
 * the results' kept pointers cleared (outs that are not asked: NULL), and
 * on every path out the call's total time. */
struct gd_op_entry : gd_entry {
    gd_timing *t;
    double t0;
    gd_op_entry(const gd_place *at, gd_timing *t_, const gd_out *a, const gd_out *b = NULL)
        : gd_entry(at, t_), t(t_), t0(gd_now_ms())
    {
        if (a && a->device) *a->device = NULL;
        if (b && b->device) *b->device = NULL;
    }
    ~gd_op_entry() { t->total_ms = gd_now_ms() - t0; }
};

/* For 'auto': whether a GPU is usable (*gpu); when none is, t->fallback
 * says why. Fails only for a device that is there but broken. */
gd_status gd_auto_device(gd_timing *t, bool *gpu);

/* Whether anything of a call is resident: an operand on the device or a
 * result to keep there ('auto' then runs on the GPU whatever the size). */
bool gd_any_resident(const gd_matrix *A, const gd_matrix *B, const gd_out &out);

/* a variant row's name: a gd_variant_info's, or that of the one a row
 * holds as .info */
static inline const char *gd_row_name(const gd_variant_info &r) { return r.name; }
template <class Row> const char *gd_row_name(const Row &r) { return r.info.name; }

/* The row of rows[0, n) named name (NULL: none is) */
template <class Row> const Row *gd_row_named(const Row *rows, int n, const char *name)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(gd_row_name(rows[i]), name) == 0) return &rows[i];
    return NULL;
}

/* The row of rows[0, n) named name; for "auto", the row the op's rule
 * names: rule (gpu), gpu whether a GPU serves this call (gd_auto_device).
 * NULL with *s set where there is none (GD_ERR_VARIANT). */
template <class Row, class Rule>
const Row *gd_op_variant(const Row *rows, int n, const char *name, gd_timing *t, gd_status *s,
                         Rule &&rule)
{
    *s = GD_OK;
    if (strcmp(name, "auto") == 0) {
        bool gpu;
        if ((*s = gd_auto_device(t, &gpu))) return NULL;
        name = rule(gpu);
    }
    const Row *r = gd_row_named(rows, n, name);
    if (!r) *s = gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
    return r;
}

/* The gd_variant_info of each of count rows, copied once into infos
 * (the list gd_*_variants gives). */
template <class Row>
int gd_variant_infos(const Row *rows, int count, gd_variant_info *infos,
                     const gd_variant_info **list)
{
    if (!infos[0].name)
        for (int i = 0; i < count; ++i) infos[i] = rows[i].info;
    *list = infos;
    return count;
}

#endif
