/* product.cu - the shared driver of two-operand products (see product.h). */
#include "ops/product.h"
#include "runtime/call.h"
#include "runtime/layout.cuh"

#include <limits>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

// Ap[i + mp*k] = A[i + lda*k], pad outside m x k. Consecutive threads
// take consecutive i: reads and writes are coalesced.
template <class T>
__global__ void prep_pad(const T *__restrict__ A, int64_t lda, T *__restrict__ Ap, int64_t m,
                         int64_t k, int64_t mp, int64_t kp, T pad)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= mp) return;
    for (int64_t kk = blockIdx.y; kk < kp; kk += gridDim.y)
        Ap[i + mp * kk] = (i < m && kk < k) ? A[i + lda * kk] : pad;
}

template <class T>
__global__ void fill(T *C, int64_t count, T v)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x)
        C[e] = v;
}

// C (count elements of class cls) = what an empty inner dimension gives:
// op.empty_k (Inf for min-plus, 0 for sums), for the integer classes the
// class's largest value or 0 (op.empty_int_max)
struct fill_int_fn {
    void *C;
    int64_t count;
    bool max;
    unsigned blocks;
    cudaStream_t st;
    template <class S> void operator()() const
    {
        fill<S><<<blocks, 256, 0, st>>>((S *)C, count, max ? std::numeric_limits<S>::max() : (S)0);
    }
};

void fill_empty(const gd_product_op &op, gd_class cls, void *C, int64_t count, cudaStream_t st)
{
    const int threads = 256;
    const unsigned blocks = gd_blocks_for(count, threads);
    if (cls == GD_SINGLE)
        fill<float><<<blocks, threads, 0, st>>>((float *)C, count, (float)op.empty_k);
    else if (cls == GD_DOUBLE)
        fill<double><<<blocks, threads, 0, st>>>((double *)C, count, op.empty_k);
    else
        gd_with_int_class(cls, fill_int_fn{C, count, op.empty_int_max, blocks, st});
}

// Ap: A padded to mp x kp; A (a block of rows: uploaded, contiguous, or
// a resident matrix's rows in place) has leading dimension lda.
template <class T>
void launch_prep_a(const gd_product_op &op, const T *A, int64_t lda, T *Ap, const gd_plan &p,
                   cudaStream_t st)
{
    const int threads = 256;
    dim3 pgrid((unsigned)((p.mp + threads - 1) / threads), gd_grid_y(p.kp));
    prep_pad<T><<<pgrid, threads, 0, st>>>(A, lda, Ap, p.m, p.k, p.mp, p.kp, (T)op.pad);
}

// B in the variant's layout (for a block, B and Bq point at its part; B
// has leading dimension ldb).
template <class T>
void launch_prep_b(const gd_product_op &op, gd_layout in, const T *B, int64_t ldb, T *Bq,
                   const gd_plan &p, cudaStream_t st)
{
    const int threads = 256;
    if (op.b_rows) {
        dim3 bgrid((unsigned)((p.np + threads - 1) / threads), gd_grid_y(p.kp));
        prep_pad<T><<<bgrid, threads, 0, st>>>(B, ldb, Bq, p.n, p.k, p.np, p.kp, (T)op.pad);
    } else if (in == GD_PADDED) {
        dim3 bgrid((unsigned)((p.kp + threads - 1) / threads), gd_grid_y(p.np));
        prep_pad<T><<<bgrid, threads, 0, st>>>(B, ldb, Bq, p.k, p.n, p.kp, p.np, (T)op.pad);
    } else {
        dim3 tgrid((unsigned)((p.kp + 31) / 32), gd_grid_y((p.np + 31) / 32));
        prep_transpose<T><<<tgrid, dim3(32, 8), 0, st>>>(B, ldb, Bq, p.k, p.n, p.kp, p.np,
                                                         (T)op.pad);
    }
}

// The blocks of C: bi x bj. Large products of a layout whose blocks are
// products of their own get blocks of 2048 or more a side (a launch still
// fills an H100) and at most GD_MAX_SIDE a side; GD_BLOCKS=q asks for q a
// side (1 to 8, down to one tile), for tests and experiments.
// Blocks exist to overlap transfers with kernels: a product where nothing
// moves (resident operands, resident result) is one block.
struct gd_blocks {
    int bi, bj;
    /* block (i, j): rows [ri[i], ri[i + 1]), columns [cj[j], cj[j + 1]) */
    int64_t ri[GD_MAX_SIDE + 1], cj[GD_MAX_SIDE + 1];
    /* stage q's block of rows (of columns): its first and its size, the
     * end and 0 past the last */
    int64_t row0(int q) const { return q < bi ? ri[q] : ri[bi]; }
    int64_t rows(int q) const { return q < bi ? ri[q + 1] - ri[q] : 0; }
    int64_t col0(int q) const { return q < bj ? cj[q] : cj[bj]; }
    int64_t cols(int q) const { return q < bj ? cj[q + 1] - cj[q] : 0; }
};

// the boundaries of blocks of w over len; their count
static int block_bounds(int64_t len, int64_t w, int64_t *b)
{
    int nb = 0;
    b[0] = 0;
    for (int64_t e = w; b[nb] < len; e += w) b[++nb] = e < len ? e : len;
    return nb;
}

gd_blocks block_grid(const gd_product_op &op, const gd_product_variant &v, gd_class cls,
                     int64_t m, int64_t k, int64_t n, bool nothing_moves, bool witness,
                     bool scratch)
{
    gd_blocks g;
    g.bi = g.bj = 1;
    g.ri[0] = g.cj[0] = 0;
    g.ri[1] = m;
    g.cj[1] = n;
    /* the integer launchers keep their lanes in one workspace: one block */
    if (!op.panels || op.b_rows || k == 0 || (v.in != GD_PADDED_BT && v.in != GD_RAW) ||
        nothing_moves || witness || gd_class_is_int(cls) || v.one_block || scratch)
        return g;
    int64_t qi = m / 2048, qj = n / 2048;
    long asked;
    if (gd_setting_int(GD_SET_BLOCKS, 1, GD_MAX_SIDE, &asked) > 0) qi = qj = asked;
    qi = qi < 1 ? 1 : qi > GD_MAX_SIDE ? GD_MAX_SIDE : qi;
    qj = qj < 1 ? 1 : qj > GD_MAX_SIDE ? GD_MAX_SIDE : qj;
    const int64_t mi = v.in == GD_RAW ? 1 : v.row_mult, mj = v.in == GD_RAW ? 1 : v.col_mult;
    g.bi = block_bounds(m, gd_round_up((m + qi - 1) / qi, mi), g.ri);
    g.bj = block_bounds(n, gd_round_up((n + qj - 1) / qj, mj), g.cj);
    return g;
}

/* A divided product's columns: part i of n gets [*j0, *j1), whole tiles
 * of every kernel */
void part_columns(int64_t n, int i, int nparts, int64_t *j0, int64_t *j1)
{
    gd_part_range(n, 256, i, nparts, j0, j1);
}

/* One call of a product on the GPU, in pieces the scheduler
 * (gd_run_product) puts together: plan (where each operand is read from,
 * what is allocated), allocate, then per stage the operands' blocks
 * (uploaded, copied or read in place, and prepared into the variant's
 * layout) and the blocks of C they complete (compute), then the result
 * (kept on the device, or downloaded block by block). */
struct product_run {
    const gd_product_op &op;
    const gd_product_variant &v;
    const gd_class cls;
    const gd_matrix &A, &B;
    gd_out &out;
    gd_timing *t;
    size_t es;
    int64_t m, k, n, cm, cn, b_tight;
    gd_layout lay; /* the variant's layout for the class (integers: raw) */
    bool pout;     /* C padded (the variant's padded_out, not for integers) */
    bool raw, devA, devB, keep, same, copyA, copyB, a_direct, b_direct;
    /* one host array given as both operands (A (x) A; a divided call's B
     * is some of A's columns, from column jb of A): uploaded once, whole,
     * into dA (m x k, leading dimension m), stage by stage in crosses
     * (operands_cross); B's blocks are read from it */
    bool cross;
    int64_t jb;
    gd_blocks g;
    gd_call &c;
    void *dA, *dB, *dAp, *dBq, *dC, *dR;
    /* the witness: asked for (wit), its int32 array in C's layout (dK),
     * its output and class, and its kept allocation (dKR) */
    bool wit;
    gd_out kout;
    gd_class kcls;
    void *dK, *dKR;
    gd_plan p;
    cudaStream_t st, st2;
    /* the overlap of the stages' uploads, the blocks' kernels and their
     * downloads (gd_run_product's) */
    gd_pipeline *pl = NULL;
    /* a divided call's A shared by its parts (NULL: uploaded whole), and
     * this part's place among them */
    gd_share *share = NULL;
    int part = 0, nparts = 1;
    char *h = NULL; /* the host's R, made while the first kernels run */
    char what[128];
    int nb;
    gd_plan blk[GD_MAX_SIDE * GD_MAX_SIDE];
    cudaEvent_t blk_done[GD_MAX_SIDE * GD_MAX_SIDE];
    int64_t blk_i0[GD_MAX_SIDE * GD_MAX_SIDE], blk_j0[GD_MAX_SIDE * GD_MAX_SIDE];

    product_run(gd_call &c_, const gd_product_op &op_, const gd_product_variant &v_,
                gd_class cls_, const gd_matrix &A_, const gd_matrix &B_, gd_out &out_,
                gd_timing *t_)
        : op(op_), v(v_), cls(cls_), A(A_), B(B_), out(out_), t(t_), c(c_)
    {
    }

    /* where everything is read from and written to */
    void plan(const gd_op_args &args)
    {
        es = gd_class_bytes(cls);
        lay = gd_class_is_int(cls) ? GD_RAW : v.in;
        pout = !gd_class_is_int(cls) && v.padded_out;
        st = gd_stream();
        st2 = gd_stream2();
        m = A.rows;
        k = A.cols;
        n = op.b_rows ? B.rows : B.cols;
        devA = A.where == GD_DEVICE;
        devB = B.where == GD_DEVICE;
        keep = out.device != NULL;
        raw = lay == GD_RAW;
        memset(&p, 0, sizeof p);
        p.args = args;
        if (!p.args.whole_m) {
            p.args.whole_m = m;
            p.args.whole_n = n;
        }
        p.cls = cls;
        p.st = st;
        p.m = m; p.k = k; p.n = n;
        p.mp = raw ? m : gd_round_up(m, v.row_mult);
        p.np = raw ? n : gd_round_up(n, v.col_mult);
        p.kp = raw ? k : gd_round_up(k, v.k_mult);
        cm = pout ? gd_round_up(m, v.row_mult) : m;
        cn = pout ? gd_round_up(n, v.col_mult) : n;
        wit = args.witness != NULL;
        if (wit) {
            kout = *args.witness;
            kcls = args.witness_cls;
            if (kout.device) *kout.device = NULL;
        }
        const bool scratch = v.scratch_work && v.work_f && k > 0 && v.work_f(p) > 0;
        g = block_grid(op, v, cls, m, k, n, devA && devB && keep, wit, scratch);
        /* A (x) A, the same array twice, in one block of rows: one upload
         * serves both operands */
        same = B.ptr == A.ptr && B.where == A.where && B.ld == A.ld && n == m && g.bi == 1;
        cross = false;
        jb = 0;
        if (!devA && !devB && !raw && !same && !op.b_rows && k == m && B.rows == k &&
            B.ld == A.ld && !gd_setting_is(GD_SET_SHARE, "twice")) {
            /* B is this part's columns of A, and the parts' columns
             * together are all of A's (B may also be some columns of A
             * alone: Octave's A(:, 1:7) shares A's memory) */
            const ptrdiff_t off = (const char *)B.ptr - (const char *)A.ptr;
            const ptrdiff_t col = (ptrdiff_t)((size_t)A.ld * es);
            int64_t j0, j1;
            part_columns(p.args.whole_n, part, nparts, &j0, &j1);
            cross = p.args.whole_n == k && off >= 0 && off % col == 0 && off / col == j0 &&
                    j1 - j0 == n;
            jb = cross ? j0 : 0;
        }
        /* B's rows run along its first dimension: n x k given by rows,
         * else k x n */
        b_tight = op.b_rows ? n : k;
        /* a raw layout reads resident operands in place when they are
         * tight (and A in one block of rows); else they are copied on the
         * device into the layout an upload makes */
        copyA = devA && raw && (g.bi > 1 || A.ld != m);
        copyB = devB && raw && !same && B.ld != b_tight;
        /* an operand whose sizes are already multiples of the tiles, tight
         * and in one block, is its own padded layout: no copy (B only where
         * the layout does not transpose it) */
        a_direct = !raw && g.bi == 1 && m == p.mp && k == p.kp && (!devA || A.ld == m);
        b_direct = !raw && g.bj == 1 && k == p.kp && n == p.np &&
                   (lay == GD_PADDED || op.b_rows) && (!devB || B.ld == b_tight);
        dA = dB = dAp = dBq = dC = dR = dK = dKR = NULL;
        nb = 0;
    }

    gd_status alloc(void **ptr, int64_t rows, int64_t cols, const char *label)
    {
        gd_describe(what, sizeof what, label, rows, cols, cls);
        *ptr = c.alloc((size_t)rows * (size_t)cols * es, what);
        return c.status();
    }

    gd_status allocate()
    {
        gd_status s;
        if ((!devA || copyA) && (s = alloc(&dA, m, k, "A"))) return s;
        if (same)
            dB = dA;
        else if (!cross && (!devB || copyB) && (s = alloc(&dB, k, n, "B")))
            return s;
        if (!raw && k > 0) {
            if (!a_direct && (s = alloc(&dAp, p.mp, p.kp, "padded A"))) return s;
            if (!b_direct && (s = lay == GD_PADDED ? alloc(&dBq, p.kp, p.np, "padded B")
                                                    : alloc(&dBq, p.np, p.kp, "transposed B")))
                return s;
        }
        if (keep) {
            gd_describe(what, sizeof what, "R", m, n, cls);
            if (!(dR = c.alloc_kept(out, (size_t)(m * n) * es, what))) return c.status();
        }
        /* a resident result in one block whose layout is its own is
         * computed in place */
        if (keep && g.bi * g.bj == 1 && cm == m && cn == n)
            dC = dR;
        else if ((s = alloc(&dC, cm, cn, "R")))
            return s;
        if (wit) {
            gd_describe(what, sizeof what, "K", cm, cn, GD_INT32);
            if (!(dK = c.alloc((size_t)(cm * cn) * 4, what))) return c.status();
            if (kout.device) {
                gd_describe(what, sizeof what, "K", m, n, kcls);
                if (!(dKR = c.alloc_kept(kout, (size_t)(m * n) * gd_class_bytes(kcls), what)))
                    return c.status();
            }
            p.K = (int *)dK;
        }
        p.Bk = NULL;
        p.ldbk = 0;
        /* (cross: B's columns in dA, k == m its leading dimension) */
        const void *b_dev = cross ? (const void *)((char *)dA + (size_t)(jb * m) * es) : dB;
        if (!op.b_rows && (b_dev || devB)) {
            p.Bk = b_dev ? b_dev : B.ptr;
            p.ldbk = b_dev ? b_tight : B.ld;
        }
        p.A = raw || a_direct ? (dA ? dA : A.ptr) : dAp;
        p.B = raw || b_direct ? (b_dev ? b_dev : B.ptr) : dBq;
        p.C = dC;
        p.lda = raw && !dA ? A.ld : p.mp;
        p.ldb = lay == GD_PADDED_BT ? p.np : raw && !dB ? B.ld : op.b_rows ? p.n : p.kp;
        p.ldc = cm;
        if (v.work_f && k > 0) {
            const size_t bytes = v.work_f(p);
            if (bytes) {
                gd_describe(what, sizeof what, "workspace", (int64_t)(bytes / es), 1, cls);
                if (!(p.work = c.alloc(bytes, what))) return c.status();
            }
        }
        /* GD_POISON: fill C first so that an element a kernel fails to
         * write shows (0xCD bytes: a large negative finite value) */
        c.poison(dC, (size_t)(cm * cn) * es, st, "poisoning R");
        return c.status();
    }

    /* rows [r0, r1) and columns [c0, c1) of the host's A to dst (leading
     * dimension ld) */
    bool upload_a_to(const char *dst, int64_t ld, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
    {
        if (r1 <= r0 || c1 <= c0) return true;
        return pl->upload((void *)dst, (size_t)ld * es,
                          (const char *)A.ptr + (size_t)(r0 + c0 * A.ld) * es, (size_t)A.ld * es,
                          (size_t)(r1 - r0) * es, (size_t)(c1 - c0), "copy of A to the GPU");
    }
    /* ... into their place in the whole A at dA (leading dimension m) */
    bool upload_a(int64_t r0, int64_t r1, int64_t c0, int64_t c1)
    {
        return upload_a_to((const char *)dA + (size_t)(r0 + c0 * m) * es, m, r0, r1, c0, c1);
    }
    /* ... columns [c0, c1) of the block of rows i0 .. i0+mi-1 into their
     * place in the tight block at blk (leading dimension mi) */
    bool upload_block(const char *blk, int64_t i0, int64_t mi, int64_t c0, int64_t c1)
    {
        return upload_a_to(blk + (size_t)(c0 * mi) * es, mi, i0, i0 + mi, c0, c1);
    }

    /* Stage q of one array given as both operands (cross): every part
     * uploads its own columns of A, [jb, jb + n), once in all: B's block
     * of columns from row i0 down (the rows above came with the blocks of
     * rows before), and the block of rows i0 .. i0+mi-1 in its columns
     * past that block. Then the block of rows is complete here in this
     * part's columns, and on every other part's device in that part's:
     * those come peer to peer (gd_share_get), or from the host where
     * the call has no share or that part has dropped out. B's blocks are
     * then read from dA; only A's block of rows crosses between devices. */
    gd_status operands_cross(int q, int64_t i0, int64_t mi, int64_t j0, int64_t nj,
                             const char **a_blk, int64_t *a_ld, const char **b_blk, int64_t *b_ld)
    {
        gd_status s;
        const int64_t c0 = jb + j0, c1 = jb + j0 + nj;
        if (!upload_a(i0, m, c0, c1) || !upload_a(i0, i0 + mi, c1, jb + n)) return c.status();
        if (share && (s = gd_share_put(share, part, q, dA, gd_copy_stream()))) return s;
        for (int r = 0; r < nparts; ++r) {
            int64_t o0, o1;
            part_columns(p.args.whole_n, r, nparts, &o0, &o1);
            if (r == part || o1 <= o0 || mi == 0) continue;
            const size_t at = (size_t)(i0 + o0 * m) * es;
            bool absent = !share;
            if (share && (s = gd_share_get(share, part, r, q, (char *)dA + at, (size_t)m * es, at,
                                           (size_t)m * es, (size_t)mi * es, (size_t)(o1 - o0), st,
                                           &absent)))
                return s;
            if (absent && !upload_a(i0, i0 + mi, o0, o1)) return c.status();
        }
        *a_blk = (const char *)dA + (size_t)i0 * es;
        *a_ld = m;
        *b_blk = nj ? (const char *)dA + (size_t)((jb + j0) * m) * es : NULL;
        *b_ld = m;
        return GD_OK;
    }

    /* Stage q's block of A (rows i0 .. i0+mi-1) and of B (columns j0 ..
     * j0+nj-1) on the device, in the variant's layout. An uploaded A is
     * kept as blocks of rows, each contiguous (mi x k at i0 k; padded,
     * mpi x kp at i0 kp), or whole (cross); B's blocks of columns are
     * contiguous already (transposed: npj x kp at j0 kp). A resident
     * operand's blocks are read in place (leading dimension A.ld or
     * B.ld). */
    gd_status operands(int q, int64_t i0, int64_t mi, int64_t j0, int64_t nj)
    {
        gd_status s;
        const char *a_blk = NULL, *b_blk = NULL;
        int64_t a_ld = mi, b_ld = b_tight;
        if (cross) {
            if ((s = operands_cross(q, i0, mi, j0, nj, &a_blk, &a_ld, &b_blk, &b_ld))) return s;
        } else if (mi && k) {
            if (!devA && share) {
                /* this part's share of the block's columns (contiguous
                 * in it), from the host; the others' come from their
                 * devices below, once B's block is on its way */
                a_blk = (const char *)dA + (size_t)(i0 * k) * es;
                int64_t k0, k1;
                gd_part_range(k, 1, part, nparts, &k0, &k1);
                if (!upload_block(a_blk, i0, mi, k0, k1)) return c.status();
                if ((s = gd_share_put(share, part, q, a_blk + (size_t)(k0 * mi) * es,
                                      gd_copy_stream())))
                    return s;
            } else if (!devA) {
                a_blk = (const char *)dA + (size_t)(i0 * k) * es;
                if (!upload_block(a_blk, i0, mi, 0, k)) return c.status();
            } else if (copyA) {
                a_blk = (const char *)dA + (size_t)(i0 * k) * es;
                if ((s = gd_copy_d2d((void *)a_blk, (size_t)mi * es,
                                     (const char *)A.ptr + (size_t)i0 * es, (size_t)A.ld * es,
                                     (size_t)mi * es, (size_t)k, st)))
                    return s;
            } else {
                a_blk = (const char *)A.ptr + (size_t)i0 * es;
                a_ld = A.ld;
            }
        }
        if (nj && k && !cross) {
            const int64_t b_off = op.b_rows ? 0 : j0; /* b_rows: one block */
            const size_t rows = (size_t)(op.b_rows ? k : nj);
            if (same) {
                b_blk = a_blk;
                b_ld = a_ld;
            } else if (!devB) {
                /* a tight B's block of columns is one piece */
                const bool flat = B.ld == b_tight;
                const size_t width = flat ? rows * b_tight * es : (size_t)b_tight * es;
                b_blk = (const char *)dB + (size_t)(b_off * k) * es;
                if (!pl->upload((void *)b_blk, width,
                                (const char *)B.ptr + (size_t)(b_off * B.ld) * es,
                                flat ? width : (size_t)B.ld * es, width, flat ? 1 : rows,
                                "copy of B to the GPU"))
                    return c.status();
            } else if (copyB) {
                b_blk = (const char *)dB + (size_t)(b_off * k) * es;
                if ((s = gd_copy_d2d((void *)b_blk, (size_t)b_tight * es,
                                     (const char *)B.ptr + (size_t)(b_off * B.ld) * es,
                                     (size_t)B.ld * es, (size_t)b_tight * es, rows, st)))
                    return s;
            } else {
                b_blk = (const char *)B.ptr + (size_t)(b_off * B.ld) * es;
                b_ld = B.ld;
            }
        }
        if (mi && k && !devA && share && !cross)
            for (int r = 0; r < nparts; ++r) {
                int64_t k0, k1;
                gd_part_range(k, 1, r, nparts, &k0, &k1);
                if (r == part || k1 <= k0) continue;
                char *theirs = (char *)a_blk + (size_t)(k0 * mi) * es;
                const size_t bytes = (size_t)((k1 - k0) * mi) * es;
                bool absent = false;
                if ((s = gd_share_get(share, part, r, q, theirs, bytes, 0, bytes, bytes, 1, st,
                                      &absent)))
                    return s;
                /* (r dropped out: its columns from the host) */
                if (absent && !upload_block(a_blk, i0, mi, k0, k1)) return c.status();
            }
        c.begin(GD_PHASE_PREP, st);
        if (k > 0 && !raw) {
            gd_plan b = p;
            if (mi && !a_direct) {
                b.m = mi;
                b.mp = gd_round_up(mi, v.row_mult);
                if (cls == GD_SINGLE)
                    launch_prep_a<float>(op, (const float *)a_blk, a_ld, (float *)dAp + i0 * p.kp, b, st);
                else
                    launch_prep_a<double>(op, (const double *)a_blk, a_ld, (double *)dAp + i0 * p.kp, b, st);
            }
            if (nj && !b_direct) {
                b.n = nj;
                b.np = gd_round_up(nj, v.col_mult);
                /* only GD_PADDED_BT comes in blocks: the others start at 0 */
                if (cls == GD_SINGLE)
                    launch_prep_b<float>(op, lay, (const float *)b_blk, b_ld, (float *)dBq + j0 * p.kp, b, st);
                else
                    launch_prep_b<double>(op, lay, (const double *)b_blk, b_ld, (double *)dBq + j0 * p.kp, b, st);
            }
            if ((s = gd_cuda(cudaGetLastError(), "layout preparation kernel"))) return s;
            /* (the same array twice is looked at as both: B's prepared
             * layout is another matrix, its columns A's) */
            if (v.inspect &&
                (s = v.inspect(p, cls, mi ? (const char *)p.A + (size_t)(i0 * p.kp) * es : NULL,
                               mi ? gd_round_up(mi, v.row_mult) : 0, i0,
                               nj ? (const char *)p.B + (size_t)(j0 * p.kp) * es : NULL,
                               nj ? gd_round_up(nj, v.col_mult) : 0, j0, q == 0)))
                return s;
        }
        c.end(GD_PHASE_PREP, st);
        return c.status();
    }

    /* every block of C that stage q completes (max(i, j) == q): block
     * (i, j) is cmi x cnj at j0 cm + i0 cnj of C (with one block, C's own
     * layout); launches alternate between the two streams, and each block
     * goes down to the host's R once its kernel is done (the pipeline
     * queues the copy after the next stage's uploads) */
    gd_status compute(int q, gd_launcher run)
    {
        gd_status s;
        pl->units_begin(GD_PHASE_KERNEL);
        snprintf(what, sizeof what, "%s kernel launch", op.name);
        for (int i = 0; i < g.bi; ++i)
            for (int j = 0; j < g.bj; ++j) {
                if ((i > j ? i : j) != q) continue;
                gd_plan &b = blk[nb];
                b = p;
                const int64_t bi0 = g.ri[i], bj0 = g.cj[j];
                b.i0 = bi0;
                b.j0 = bj0;
                b.m = g.ri[i + 1] - bi0;
                b.n = g.cj[j + 1] - bj0;
                if (g.bi * g.bj > 1) {
                    b.mp = raw ? b.m : gd_round_up(b.m, v.row_mult);
                    b.np = raw ? b.n : gd_round_up(b.n, v.col_mult);
                    const int64_t cmi = pout ? b.mp : b.m, cnj = pout ? b.np : b.n;
                    /* raw blocks: A's copied or uploaded block (ld b.m);
                     * B's columns in place or uploaded (ld k) */
                    b.A = (const char *)p.A + (size_t)(bi0 * (raw ? k : p.kp)) * es;
                    b.B = (const char *)p.B + (size_t)(bj0 * (raw ? p.ldb : p.kp)) * es;
                    b.C = (char *)dC + (size_t)(bj0 * cm + bi0 * cnj) * es;
                    b.lda = b.mp;
                    b.ldb = raw ? p.ldb : b.np;
                    b.ldc = cmi;
                }
                b.panel = nb;
                b.st = pl->stream();
                blk_i0[nb] = bi0;
                blk_j0[nb] = bj0;
                if (k == 0) {
                    const int threads = 256;
                    fill_empty(op, cls, dC, cm * cn, b.st);
                    if (wit)
                        fill<int><<<gd_blocks_for(cm * cn, threads), threads, 0, b.st>>>((int *)dK, cm * cn, 0);
                } else if ((s = run(b))) {
                    c.check(s);
                    return s;
                }
                if (!(blk_done[nb] = pl->unit_done(what))) return c.status();
                if (!keep && !down(nb)) return c.status();
                ++nb;
            }
        pl->units_end();
        return c.status();
    }

    /* block b of C to its place in the host's R, made at the first block
     * (while its kernel runs: the host threads that copy the blocks out of
     * the staging slots touch R's fresh pages for the first time) */
    bool down(int b)
    {
        if (!h) {
            char label[96]; /* (what names the kernel launches) */
            gd_describe(label, sizeof label, "R", m, n, cls);
            if (!(h = (char *)c.host_result(out, (size_t)(m * n) * es, label))) return false;
        }
        const gd_plan &bp = blk[b];
        return pl->download(h + (size_t)(blk_i0[b] + blk_j0[b] * m) * es, (size_t)m * es, bp.C,
                            (size_t)bp.ldc * es, (size_t)bp.m * es, (size_t)bp.n, blk_done[b],
                            "copy of the result from the GPU");
    }

    /* the witness into its class, tight, at dst (on st) */
    void widen(void *dst) { gd_launch_widen(kcls, (const int *)dK, cm, dst, m, n, st); }

    /* the witness, once C is computed: kept (dKR), or downloaded into
     * its host buffer from a tight copy in its class */
    gd_status witness_result()
    {
        if (kout.device) {
            widen(dKR);
            return gd_cuda(cudaGetLastError(), "the witness's conversion");
        }
        void *tight;
        gd_describe(what, sizeof what, "K", m, n, kcls);
        const size_t bytes = (size_t)(m * n) * gd_class_bytes(kcls);
        if (!(tight = c.alloc(bytes, what))) return c.status();
        widen(tight);
        if (!c.launched("the witness's conversion")) return c.status();
        const cudaEvent_t widened = c.event();
        cudaEventRecord(widened, st);
        void *hk = c.host_result(kout, bytes, what);
        if (hk) c.download(hk, bytes, tight, bytes, bytes, 1, widened,
                          "copy of the witness from the GPU");
        return c.status();
    }

    /* the witness, and a kept result (out of the kernel's layout into
     * its own where they differ, timed as preparation); a host result's
     * blocks are on their way already (compute) */
    gd_status result()
    {
        gd_status s;
        if (wit && (s = witness_result())) return s;
        if (keep) {
            c.begin(GD_PHASE_PREP, st);
            if (dC != dR)
                for (int b = 0; b < nb; ++b) {
                    const gd_plan &bp = blk[b];
                    if (!c.check(gd_copy_d2d((char *)dR + (size_t)(blk_i0[b] + blk_j0[b] * m) * es,
                                             (size_t)m * es, bp.C, (size_t)bp.ldc * es,
                                             (size_t)bp.m * es, (size_t)bp.n, st)))
                        return c.status();
                }
            c.end(GD_PHASE_PREP, st);
            return c.status();
        }
        return c.status();
    }
};

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
        /* stage q: A's block q and B's block q are made ready, then every
         * block of C they complete is computed */
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


const gd_product_variant *gd_find_variant(const gd_product_variant *table,
                                          int count, const char *name)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(table[i].info.name, name) == 0) return &table[i];
    return NULL;
}

int gd_variant_infos(const gd_product_variant *table, int count,
                     gd_variant_info *infos, const gd_variant_info **list)
{
    if (!infos[0].name)
        for (int i = 0; i < count; ++i) infos[i] = table[i].info;
    *list = infos;
    return count;
}

gd_status gd_auto_device(gd_timing *t, bool *gpu)
{
    gd_status s = gd_device_ready();
    *gpu = s == GD_OK;
    if (s == GD_ERR_NOGPU) {
        snprintf(t->fallback, sizeof t->fallback, "%s", gd_last_error());
        return GD_OK;
    }
    return s;
}

bool gd_any_resident(const gd_matrix *A, const gd_matrix *B, const gd_out &out)
{
    return out.device || A->where == GD_DEVICE || (B && B->where == GD_DEVICE);
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
struct split_ctx {
    const gd_product_op *op;
    const gd_product_variant *v;
    gd_class cls;
    const gd_matrix *A, *B;
    gd_out out, kout;
    const gd_op_args *args;
    int64_t m, n;
    /* a resident result: R and K on device home (CUDA ordinal home_ord) */
    void *dR, *dK;
    int home, home_ord;
    /* A on the host, uploaded once in all (NULL: by every part whole) */
    gd_share *share;
    /* a distributed result: each part's panels of R (and K) stay on its
     * device, as piece `part` (NULL: R made whole) */
    gd_pieces *rp, *kp;
};

/* a part's resident panel (bytes at src, on this thread's device) into
 * its place at dst on the result's device; src freed after */
gd_status panel_home(const split_ctx &x, void *dst, void *src, size_t bytes, const char *label)
{
    char what[96];
    snprintf(what, sizeof what, "copy of %s's panel from device %d to device %d", label,
             gd_device_index() + 1, x.home + 1);
    cudaStream_t st = gd_stream();
    gd_status s = gd_peer_copy(dst, x.home_ord, src, gd_ordinal(), bytes, st, what);
    if (!s) s = gd_cuda(cudaStreamSynchronize(st), what);
    gd_dev_free(src);
    return s;
}

gd_status product_part(void *c, int i, int nparts, gd_timing *t)
{
    const split_ctx &x = *(const split_ctx *)c;
    int64_t j0, j1;
    part_columns(x.n, i, nparts, &j0, &j1);
    const size_t es = gd_class_bytes(x.cls);
    gd_matrix B = *x.B;
    gd_pieces sub = {};
    if (B.pieces) {
        /* a distributed B: the pieces of its columns [j0, j1); the part's
         * own device's piece read in place where it holds them all */
        const size_t col = (size_t)B.rows * es;
        for (int p = 0; p < B.pieces->n; ++p) {
            const gd_piece &pc = B.pieces->p[p];
            const int64_t lo = j0 > pc.first ? j0 : pc.first;
            const int64_t hi = j1 < pc.first + pc.cols ? j1 : pc.first + pc.cols;
            if (hi > lo)
                sub.p[sub.n++] = {(char *)pc.ptr + (size_t)(lo - pc.first) * col, pc.dev, lo - j0,
                                  hi - lo};
        }
        B.cols = j1 - j0;
        if (sub.n == 1 && sub.p[0].dev == gd_device_index()) {
            B.ptr = sub.p[0].ptr;
            B.ld = B.rows;
            B.dev = sub.p[0].dev;
            B.pieces = NULL;
        } else {
            B.pieces = &sub;
        }
    } else if (x.op->b_rows) {
        B.ptr = (const char *)B.ptr + (size_t)j0 * es;
        B.rows = j1 - j0;
    } else {
        B.ptr = (const char *)B.ptr + (size_t)(j0 * B.ld) * es;
        B.cols = j1 - j0;
    }
    gd_op_args args = *x.args;
    args.whole_m = x.m;
    args.whole_n = x.n;
    const size_t kes = args.witness ? gd_class_bytes(args.witness_cls) : 0;
    if (j1 == j0) return GD_OK;
    gd_out out = {}, kout = {};
    void *pR = NULL, *pK = NULL;
    if (x.dR || x.rp) {
        out.device = &pR;
        kout.device = &pK;
    } else {
        out.ptr = (char *)x.out.ptr + (size_t)(j0 * x.m) * es;
        kout.ptr = args.witness ? (char *)x.kout.ptr + (size_t)(j0 * x.m) * kes : NULL;
    }
    if (args.witness) args.witness = &kout;
    gd_status s = gd_run_product(*x.op, *x.v, x.cls, *x.A, B, out, args, t, x.share, i, nparts);
    if (!s && x.rp) { /* the panels stay here */
        x.rp->p[i] = {pR, gd_device_index(), j0, j1 - j0};
        if (x.kp) x.kp->p[i] = {pK, gd_device_index(), j0, j1 - j0};
        return s;
    }
    if (s || !x.dR) return s;
    const size_t cells = (size_t)((j1 - j0) * x.m);
    s = panel_home(x, (char *)x.dR + (size_t)(j0 * x.m) * es, pR, cells * es, "R");
    if (pK) {
        gd_status sk = panel_home(x, (char *)x.dK + (size_t)(j0 * x.m) * kes, pK, cells * kes, "K");
        if (!s) s = sk;
    }
    return s;
}
} // namespace

/* A on the host is shared by the parts where each has columns to
 * compute (a part that computes nothing would put no share) and the
 * devices allow it (gd_share_make); the stages are A's blocks of rows,
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

gd_status gd_product(const gd_product_op &op, const gd_product_variant *table,
                     int count, const char *name, const gd_matrix *A0,
                     const gd_matrix *B0, gd_out out, const gd_op_args &args,
                     gd_timing *t)
{
    gd_entry entry(t);
    double t0 = gd_now_ms();
    if (out.device) *out.device = NULL;
    const bool ints = gd_class_is_int(A0->cls) || gd_class_is_int(B0->cls);
    if (ints && (!op.auto_int || A0->cls != B0->cls)) {
        if (!op.auto_int)
            return gd_fail(GD_ERR_INPUT, "%s takes single or double, not %s",
                           op.name, gd_class_name(gd_class_is_int(A0->cls) ? A0->cls : B0->cls));
        return gd_fail(GD_ERR_INPUT, "A is %s and B is %s: integer %s takes two operands of "
                       "the same integer class (cast one; Octave computes a mixed sum in double "
                       "and rounds it)", gd_class_name(A0->cls), gd_class_name(B0->cls), op.name);
    }
    const gd_class cls = ints ? A0->cls
                         : op.single_only || A0->cls == GD_SINGLE || B0->cls == GD_SINGLE
                             ? GD_SINGLE : GD_DOUBLE;
    const int64_t m = A0->rows, k = A0->cols, n = op.b_rows ? B0->rows : B0->cols;
    if ((op.b_rows ? B0->cols : B0->rows) != k)
        return gd_fail(GD_ERR_SIZE, "inner dimensions must agree: A is %lldx%lld, B is %lldx%lld",
                       (long long)m, (long long)k, (long long)B0->rows, (long long)B0->cols);
    t->ops = op.ops_per_step * (double)m * (double)n * (double)k;
    t->resident = (A0->where == GD_DEVICE ? 1u : 0u) | (B0->where == GD_DEVICE ? 2u : 0u);
    const size_t es = gd_class_bytes(cls);
    gd_status s;
    if ((s = gd_check_size("A", m, k, es)) || (s = gd_check_size("B", k, n, es)) ||
        (s = gd_check_size("the result", m, n, es)))
        return s;
    /* resident operands on another device than this thread's: copied
     * here first (the result stays here); but a distributed B of the
     * computation's class stays in its pieces, whose columns a divided
     * call's parts read where they are (product_part), one device
     * bringing them together otherwise (gd_run_product) */
    gd_local here;
    gd_matrix Ah, Bh;
    if (B0->pieces && B0 != A0 && B0->pieces != A0->pieces && B0->cls == cls && !op.b_rows) {
        if ((s = here.take(A0, &Ah, "A"))) return s;
        Bh = *B0;
    } else if ((s = here.take2(A0, B0, &Ah, &Bh))) {
        return s;
    }
    A0 = &Ah;
    B0 = &Bh;
    const gd_product_variant *v;
    if (strcmp(name, "auto") == 0) {
        bool gpu;
        if ((s = gd_auto_device(t, &gpu))) return s;
        const char *best = ints ? op.auto_int : cls == GD_SINGLE ? op.auto_single : op.auto_double;
        const bool small = t->ops < op.auto_cpu_below;
        if (gpu && small && gd_any_resident(A0, B0, out))
            best = op.auto_small && !ints ? op.auto_small : best;
        else if (!gpu || small)
            best = "cpu";
        v = gd_find_variant(table, count, best);
    } else if (!(v = gd_find_variant(table, count, name))) {
        return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
    }
    if (ints && v->info.gpu && !v->run_i)
        return gd_fail(GD_ERR_VARIANT, "variant '%s' computes single and double; the integer "
                       "classes run on '%s' (the GPU) and 'cpu' ('auto' chooses)", v->info.name,
                       op.auto_int);
    if (args.witness && !v->witness) {
        char can[160] = "";
        for (int i = 0; i < count; ++i)
            if (table[i].witness)
                snprintf(can + strlen(can), sizeof can - strlen(can), "'%s', ",
                         table[i].info.name);
        return gd_fail(GD_ERR_VARIANT,
                       "variant '%s' gives no witness (second output); %s and 'auto' do",
                       v->info.name, can);
    }
    /* operands in the class of the computation, where they are */
    gd_allocs conv = {};
    gd_matrix A, B;
    void *ha = NULL, *hb = NULL;
    if (!(s = gd_operand_class(A0, cls, &A, &conv, &ha, "A"))) {
        if (gd_same_matrix(A0, B0))
            B = A; /* the same array twice: converted once */
        else
            s = gd_operand_class(B0, cls, &B, &conv, &hb, "B");
    }
    if (!s) {
        /* R and K in different places: one device (as if resident there) */
        const bool mixed = args.witness && !out.device != !args.witness->device;
        gd_out kout = {}; /* the witness, for its empty result */
        if (args.witness) kout = *args.witness;
        gd_op_call oc = {};
        oc.variant = v->info.name;
        oc.gpu = v->info.gpu;
        oc.empty = m == 0 || n == 0;
        oc.outs[0] = &out;
        oc.outs[1] = args.witness ? &kout : NULL;
        oc.names[0] = "R";
        oc.names[1] = "K";
        oc.resident = gd_any_resident(&A, &B, out) || (args.witness && args.witness->device) ||
                      mixed;
        oc.divides_resident = !mixed;
        /* (a double step costs some 3 single ones: min-plus at n = 8192
         * on an H100, 114 against 35 ms; two H100s from the host gained
         * 1.22-1.28x at n = 2048 in double, 1.08x in single) */
        oc.split_min = cls == GD_DOUBLE ? op.split_min / 8 : op.split_min;
        oc.units = (n + 255) / 256;
        s = gd_run_op(
            oc, t, [&] { return run_cpu(op, cls, A, B, out, args, t); },
            [&] { return gd_run_product(op, *v, cls, A, B, out, args, t); },
            [&](int nd, const int *idx) {
                return split_product(op, *v, cls, A, B, out, args, nd, idx, t);
            });
    }
    if (conv.n) {
        /* the conversions ran on the kernels' stream: done with the call */
        gd_timing ct;
        memset(&ct, 0, sizeof ct);
        cudaStreamSynchronize(gd_stream());
        gd_end_call(GD_OK, &conv, &ct);
        t->gpu_bytes += ct.gpu_bytes;
    }
    free(ha);
    free(hb);
    t->total_ms = gd_now_ms() - t0;
    return s;
}
