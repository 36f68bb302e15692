/* ops/product/product.cu - the shared driver of two-operand products (see product.h). */
#include "ops/product/product.h"
#include "runtime/call.h"
#include "runtime/layout.cuh"

#include <limits>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {
#include "ops/product/prep.cuh"
#include "ops/product/plan.cuh"
#include "ops/product/sections.cuh"
#include "ops/product/run.cuh"
} // namespace

gd_status gd_run_product(const gd_product_op &op, const gd_product_variant &v,
                         gd_class cls, const gd_matrix &A0, const gd_matrix &B0, gd_out out,
                         const gd_op_args &args, gd_timing *t, gd_share *share, int part,
                         int nparts)
{
    gd_launcher run = cls == GD_SINGLE ? v.run_f : cls == GD_DOUBLE ? v.run_d : v.run_i;
    if (!run) {
        if (share) gd_share_end(share, part, false);
        return gd_fail(GD_ERR_VARIANT, "variant '%s' has no %s kernel", v.info.name,
                       gd_class_name(cls));
    }
    if (out.device) *out.device = NULL;
    gd_call c(t, v.info.name);
    /* the call's end: a share's parts meet first (none frees what another
     * still pulls from) */
    auto finish = [&] {
        if (share) gd_share_end(share, part, c.ok());
        return c.finish();
    };
    if (!c.ok()) return finish();
    /* a part on another device than its resident operands': its pieces
     * of them copied here, peer to peer */
    gd_local here;
    gd_matrix A, B;
    if (!c.check(here.take2(&A0, &B0, &A, &B))) return finish();
    product_run r(c, op, v, cls, A, B, out, t);
    r.share = share;
    r.part = part;
    r.nparts = nparts;
    r.plan(args);
    gd_pipeline pl(c, r.st, r.st2);
    r.pl = &pl;
    const int stages = r.g.bi > r.g.bj ? r.g.bi : r.g.bj;
    /* (every step's status is the call's: c.check keeps the first
     * failure, and the steps after it do nothing) */
    if (c.check(r.allocate())) {
        /* stage q: A's section q and B's section q are made ready, then every
         * section of C they complete is computed */
        for (int q = 0; q < stages && c.go_on(pl, "stage", q, stages); ++q) {
            if (c.check(r.operands(q, r.g.row0(q), r.g.rows(q), r.g.col0(q), r.g.cols(q))))
                c.check(r.compute(q, run));
        }
        pl.end();
        if (c.ok()) c.check(r.result());
        char what[64];
        snprintf(what, sizeof what, "%s kernel", op.name);
        if (c.wait(r.st, what) && v.after && r.k > 0) v.after(r.p, cls, t);
    }
    return finish();
}


/* The cpu variant: resident operands come to the host first, a resident
 * result goes up after. */
static gd_status run_cpu(const gd_product_op &op, gd_class cls, const gd_matrix &A,
                         const gd_matrix &B, gd_out out, const gd_op_args &args, gd_timing *t)
{
    const int64_t m = A.rows, k = A.cols, n = op.b_rows ? B.rows : B.cols;
    char what[96];
    gd_describe(what, sizeof what, "R", m, n, cls);
    const size_t bytes = (size_t)(m * n) * gd_class_bytes(cls);
    gd_matrix Ah, Bh;
    void *ha = NULL, *hb = NULL, *buf = NULL;
    int *K = NULL;
    /* the witness: int32 from the CPU code, then in its class where it goes */
    gd_out kout = {};
    gd_status s;
    if (args.witness) {
        kout = *args.witness;
        if (kout.device) *kout.device = NULL;
        if (!(K = (int *)malloc((size_t)(m * n) * 4 + 1)))
            return gd_fail(GD_ERR_MEMORY, "out of host memory for the witness (%lld x %lld)",
                           (long long)m, (long long)n);
    }
    if (!(s = gd_operand_host(&A, &Ah, &ha, "A")) &&
        !(s = gd_operand_host(&B, &Bh, &hb, "B")) &&
        !(s = gd_host_result_begin(&out, bytes, what, &buf))) {
        /* the CPU code takes tight operands */
        if (Ah.ld != Ah.rows || Bh.ld != Bh.rows)
            s = gd_fail(GD_ERR_INPUT, "internal: the cpu variant takes tight operands");
        double t0 = gd_now_ms();
        if (!s) s = op.cpu(cls, Ah.ptr, Bh.ptr, buf, K, m, k, n, args);
        t->kernel_ms = gd_now_ms() - t0;
        /* Ctrl-C: the results are partial; nothing more is made of them
         * (the witness's conversion would touch a fresh array of m x n) */
        if (!s && gd_interrupted()) s = gd_fail(GD_ERR_INTERRUPT, "interrupted");
    }
    if (buf || out.device) s = gd_host_result_end(&out, buf, bytes, s, t);
    if (K && !s) s = gd_host_index_result(&kout, K, m, n, args.witness_cls, &out, "K", t);
    free(K);
    free(ha);
    free(hb);
    if (s) return s;
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "%s", op.device_cpu);
    return GD_OK;
}

/* ---------------------------------------------------------------------
 * A product across devices: each takes a panel of the result's columns
 * (B's columns, or pdist2's Y's rows), whole A, and computes its panel as
 * a product of its own, into its place in the host result (a panel of
 * columns is contiguous in column-major order). A resident result is
 * made on this thread's device first; each part computes its panel into
 * a resident panel of its own and copies it into its place, peer to
 * peer. Resident operands are read where they are: a part on another
 * device copies its pieces of them (gd_run_product). */
namespace {
#include "ops/product/devices.cuh"
} // namespace

/* A on the host is shared by the parts where each has columns to
 * compute (a part that computes nothing would put no share) and the
 * devices allow it (gd_share_make); the stages are A's sections of rows,
 * the same in every part (the blocks of rows depend on m alone) */
static gd_share *share_a(const split_ctx &x, int nd, const int *idx)
{
    if (x.A->where != GD_HOST || x.A->cols == 0) return NULL;
    for (int i = 0; i < nd; ++i) {
        int64_t j0, j1;
        part_columns(x.n, i, nd, &j0, &j1);
        if (j1 == j0) return NULL;
    }
    return gd_share_make(nd, idx, GD_MAX_SIDE);
}

static gd_status split_product(const gd_product_op &op, const gd_product_variant &v,
                               gd_class cls, const gd_matrix &A, const gd_matrix &B, gd_out out,
                               const gd_op_args &args, int nd, const int *idx, gd_timing *t)
{
    split_ctx x;
    memset(&x, 0, sizeof x);
    x.op = &op;
    x.v = &v;
    x.cls = cls;
    x.A = &A;
    x.B = &B;
    x.args = &args;
    x.m = A.rows;
    x.n = op.b_rows ? B.rows : B.cols;
    x.out = out;
    x.home = gd_device_index();
    x.home_ord = gd_ordinal();
    const size_t cells = (size_t)(x.m * x.n);
    char what[96];
    gd_status s;
    if (out.device && out.pieces && (!args.witness || args.witness->pieces)) {
        /* distributed: each part's panels where it computed them */
        if ((s = gd_device_ready())) return s;
        x.rp = out.pieces;
        x.kp = args.witness ? args.witness->pieces : NULL;
        memset(x.rp, 0, sizeof *x.rp);
        if (x.kp) memset(x.kp, 0, sizeof *x.kp);
        x.rp->n = nd;
        if (x.kp) x.kp->n = nd;
        x.share = share_a(x, nd, idx);
        s = gd_run_parts(nd, idx, product_part, &x, t);
        gd_share_free(x.share);
        gd_pieces *ps[2] = {x.rp, x.kp};
        for (gd_pieces *p : ps)
            if (p) gd_pieces_settle(p, s);
        if (s) return s;
        t->kept = 1;
        *out.device = NULL;
        if (args.witness) *args.witness->device = NULL;
        return GD_OK;
    }
    if (out.device) {
        /* resident: R (and K) made here, on the result's device */
        gd_allocs al = {};
        if ((s = gd_device_ready())) return s;
        gd_describe(what, sizeof what, "R", x.m, x.n, cls);
        s = gd_alloc_kept(&al, &x.dR, cells * gd_class_bytes(cls), what);
        if (!s && args.witness) {
            gd_describe(what, sizeof what, "K", x.m, x.n, args.witness_cls);
            s = gd_alloc_kept(&al, &x.dK, cells * gd_class_bytes(args.witness_cls), what);
        }
        /* the allocations are done before another device's copy engine
         * writes them */
        if (!s) s = gd_cuda(cudaStreamSynchronize(gd_alloc_stream()), "device allocation");
        if (!s) {
            x.share = share_a(x, nd, idx);
            s = gd_run_parts(nd, idx, product_part, &x, t);
            gd_share_free(x.share);
        }
        gd_timing et = {};
        s = gd_end_call(s, &al, &et); /* kept on success, freed on failure */
        if (s) return s;
        t->gpu_bytes += et.gpu_bytes;
        t->kept = 1;
        *out.device = x.dR;
        if (args.witness) *args.witness->device = x.dK;
        return GD_OK;
    }
    gd_describe(what, sizeof what, "R", x.m, x.n, cls);
    s = gd_out_buffer(&x.out, cells * gd_class_bytes(cls), what);
    if (!s && args.witness) {
        x.kout = *args.witness;
        gd_describe(what, sizeof what, "K", x.m, x.n, args.witness_cls);
        s = gd_out_buffer(&x.kout, cells * gd_class_bytes(args.witness_cls), what);
    }
    if (s) return s;
    x.share = share_a(x, nd, idx);
    s = gd_run_parts(nd, idx, product_part, &x, t);
    gd_share_free(x.share);
    return s;
}

namespace {
/* The class a product computes in (*cls): an integer class where the op
 * takes them and both operands have it; single where the op computes
 * only single or an operand is single; else double */
gd_status product_class(const gd_product_op &op, const gd_matrix &A, const gd_matrix &B,
                        gd_class *cls)
{
    const bool ints = gd_class_is_int(A.cls) || gd_class_is_int(B.cls);
    if (ints && !op.auto_int)
        return gd_fail(GD_ERR_INPUT, "%s takes single or double, not %s", op.name,
                       gd_class_name(gd_class_is_int(A.cls) ? A.cls : B.cls));
    if (ints && A.cls != B.cls)
        return gd_fail(GD_ERR_INPUT, "A is %s and B is %s: integer %s takes two operands of "
                       "the same integer class (cast one; Octave computes a mixed sum in double "
                       "and rounds it)", gd_class_name(A.cls), gd_class_name(B.cls), op.name);
    *cls = ints ? A.cls
           : op.single_only || A.cls == GD_SINGLE || B.cls == GD_SINGLE ? GD_SINGLE : GD_DOUBLE;
    return GD_OK;
}

/* The operands' sizes: inner dimensions that agree, arrays memory can
 * address (of es bytes an element) */
gd_status product_sizes(const gd_product_op &op, const gd_matrix &A, const gd_matrix &B,
                        size_t es)
{
    const int64_t m = A.rows, k = A.cols, n = op.b_rows ? B.rows : B.cols;
    gd_status s;
    if ((op.b_rows ? B.cols : B.rows) != k)
        return gd_fail(GD_ERR_SIZE, "inner dimensions must agree: A is %lldx%lld, B is %lldx%lld",
                       (long long)m, (long long)k, (long long)B.rows, (long long)B.cols);
    if ((s = gd_check_size("A", m, k, es)) || (s = gd_check_size("B", k, n, es)))
        return s;
    return gd_check_size("the result", m, n, es);
}

/* Whether variant v of the table computes what the call asks: an integer
 * class (ints), a witness (the second output) */
gd_status variant_serves(const gd_product_op &op, const gd_product_variant *table, int count,
                         const gd_product_variant &v, bool ints, bool witness)
{
    if (ints && v.info.gpu && !v.run_i)
        return gd_fail(GD_ERR_VARIANT, "variant '%s' computes single and double; the integer "
                       "classes run on '%s' (the GPU) and 'cpu' ('auto' chooses)", v.info.name,
                       op.auto_int);
    if (!witness || v.witness) return GD_OK;
    char can[160] = "";
    for (int i = 0; i < count; ++i)
        if (table[i].witness)
            snprintf(can + strlen(can), sizeof can - strlen(can), "'%s', ", table[i].info.name);
    return gd_fail(GD_ERR_VARIANT, "variant '%s' gives no witness (second output); %s and "
                   "'auto' do", v.info.name, can);
}

/* The operands on this thread's device (resident ones on another device
 * copied here first; the result stays here), then in the class of the
 * computation where they are: a and b; the conversions end with the
 * object (after the kernels' stream), their bytes counted in t. A
 * distributed B of the computation's class stays in its pieces, whose
 * columns a divided call's parts read where they are (product_part), one
 * device bringing them together otherwise (gd_run_product). */
struct product_operands {
    gd_op_operands here;
    gd_allocs conv = {};
    gd_matrix a = {}, b = {};
    void *ha = NULL, *hb = NULL;
    gd_timing *t = NULL;
    gd_status take(const gd_product_op &op, const gd_matrix *A0, const gd_matrix *B0,
                   gd_class cls, double ops, gd_timing *t_)
    {
        t = t_;
        gd_status s;
        if (B0->pieces && B0 != A0 && B0->pieces != A0->pieces && B0->cls == cls && !op.b_rows) {
            s = here.take(t, ops, A0, "A");
            here.b = *B0;
            t->resident |= B0->where == GD_DEVICE ? 2u : 0u;
        } else {
            s = here.take(t, ops, A0, "A", B0, "B");
        }
        if (s || (s = gd_operand_class(&here.a, cls, &a, &conv, &ha, "A"))) return s;
        if (gd_same_matrix(&here.a, &here.b)) {
            b = a; /* the same array twice: converted once */
            return GD_OK;
        }
        return gd_operand_class(&here.b, cls, &b, &conv, &hb, "B");
    }
    ~product_operands()
    {
        if (conv.n) { /* the conversions ran on the kernels' stream */
            gd_timing ct;
            memset(&ct, 0, sizeof ct);
            cudaStreamSynchronize(gd_stream());
            gd_end_call(GD_OK, &conv, &ct);
            if (t) t->gpu_bytes += ct.gpu_bytes;
        }
        free(ha);
        free(hb);
    }
};
} // namespace

gd_status gd_product(const gd_product_op &op, const gd_product_variant *table,
                     int count, const char *name, const gd_matrix *A0,
                     const gd_matrix *B0, gd_out out, const gd_op_args &args,
                     const gd_place *at, gd_timing *t)
{
    gd_op_entry entry(at, t, &out);
    gd_class cls;
    gd_status s;
    if ((s = product_class(op, *A0, *B0, &cls)) ||
        (s = product_sizes(op, *A0, *B0, gd_class_bytes(cls))))
        return s;
    const bool ints = gd_class_is_int(cls);
    const int64_t m = A0->rows, k = A0->cols, n = op.b_rows ? B0->rows : B0->cols;
    product_operands o;
    if ((s = o.take(op, A0, B0, cls, op.ops_per_step * (double)m * (double)n * (double)k, t)))
        return s;
    /* 'auto': the op's own variant for the class; the host below
     * auto_cpu_below, unless something is resident (then auto_small) */
    const gd_product_variant *v = gd_op_variant(table, count, name, t, &s, [&](bool gpu) {
        const char *best = ints ? op.auto_int : cls == GD_SINGLE ? op.auto_single : op.auto_double;
        const bool small = t->ops < op.auto_cpu_below;
        if (gpu && small && gd_any_resident(&o.here.a, &o.here.b, out))
            return op.auto_small && !ints ? op.auto_small : best;
        return !gpu || small ? "cpu" : best;
    });
    if (!v || (s = variant_serves(op, table, count, *v, ints, args.witness != NULL))) return s;
    /* R and K in different places: one device (as if resident there) */
    const bool mixed = args.witness && !out.device != !args.witness->device;
    gd_out kout = args.witness ? *args.witness : gd_out{}; /* for its empty result */
    gd_op_call oc(v->info, m == 0 || n == 0, &out, "R", args.witness ? &kout : NULL, "K");
    oc.resident = gd_any_resident(&o.a, &o.b, out) || (args.witness && args.witness->device) ||
                  mixed;
    oc.divides_resident = !mixed;
    /* (a double step costs some 3 single ones: min-plus at n = 8192 on an
     * H100, 114 against 35 ms; two H100s from the host gained 1.22-1.28x
     * at n = 2048 in double, 1.08x in single) */
    oc.split_min = cls == GD_DOUBLE ? op.split_min / 8 : op.split_min;
    oc.units = (n + 255) / 256;
    return gd_run_op(oc, at, t, [&] { return run_cpu(op, cls, o.a, o.b, out, args, t); },
        [&] { return gd_run_product(op, *v, cls, o.a, o.b, out, args, t); },
        [&](int nd, const int *idx) {
            return split_product(op, *v, cls, o.a, o.b, out, args, nd, idx, t);
        });
}
