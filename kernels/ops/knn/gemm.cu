/* knn/gemm.cu - the certified 'gemm' nearest neighbours (gemm.h):
 * Euclidean and squared Euclidean, the K smallest, candidates from the
 * tensor cores, exact re-rank. kernels/NOTES.md ("certified neighbours
 * from a GEMM") has the measurements; tiles/knnbound.h the certificate.
 * The K largest are the K smallest of -f: the same passes on -f's bounds
 * (a row's parts -(n - b) up and -(n + b) down, the product's coefficient
 * +2), the cut's slack taken on |tau|, the re-rank's keys in the largest's
 * order. Below, f, U and L are those of the search's order.
 *
 *   prepare  the centre c (X's column means); each row less c, in the
 *            class, its sum of squares n by FMA, and the row rounded to
 *            TF32 (row-major, features padded to KC); the bound taken
 *            apart, (|q'| + |x'|)^2 <= 2 |q'|^2 + 2 |x'|^2, so that a row's
 *            parts of U = e + B and L = e - B are n + b and n - b, b = 2
 *            kappa r^2 (r the raised root of n), rounded outward to float;
 *            and each row as given, row-major, for the re-rank
 *   gemm     for each (query, tile of 128 points): the least U of the
 *            tile, its least L with the point, and its second least L
 *            (U = cu_q + cu_x - 2 q'.x' by one FMA rounded up, L likewise
 *            down: the epilogue's roundings need no room in kappa)
 *   select   tau: the K-th least tile-U of a query, the U of K distinct
 *            points, so at least its K-th least f (up to 512 tiles, a
 *            warp a query finds it a bit at a time from the keys in its
 *            registers; past that, a block a query, three passes of a
 *            radix select)
 *   extract  a tile's least-L point where L1 <= tau (1 + 5u), the whole
 *            tile where its second least L2 is: every point whose f can
 *            be among the K least (L <= f <= tau)
 *   rerank   each candidate's f from the rows as given, features in order
 *            by FMA ('fused''s order: its value to the bit), the distance
 *            by the same root and rescue as 'fused', sorted by (key, row)
 *
 * Cosine (tiles/knnbound.h, "Cosine"): each row's norm as 'fused' takes
 * it (row_info), the TF32 rows the rows times their norms' inverses (no
 * centre), every row's parts 1/2 +- B_cos/2 and the product's coefficient
 * -1, the re-rank 'fused''s dot product and epilogue. Rows with NaN or
 * Inf, a zero norm or one out of the bound's range are flagged as above.
 *
 * A query whose candidates pass CAP, or whose row holds NaN or Inf, is
 * flagged for the caller; X with NaN or Inf, or norms the bound cannot
 * hold in float, sends the whole search back. Double: the products from
 * the centred rows rounded to float, the bound with u = 2^-24 and u_t =
 * 2^-10 + 2^-24 (knnbound.h), the re-rank in double.
 *
 * The GEMM: TF32 mma.sync m16n8k8, block tiles of 128 queries x 128
 * points, four warps of 64 x 64, three cp.async stages of 32 features, two
 * blocks an SM. */
#include "ops/knn/gemm.h"
#include "tiles/knnbound.h"
#include "tiles/knnkey.h"
#include "tiles/metric.cuh"
#include "tiles/norm2.h"
#include "tiles/tile.cuh"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

namespace {

#include "ops/knn/gemm_kernels.cuh"

} // namespace

int gd_knn_units(int rule)
{
    long q;
    return gd_setting_int(GD_SET_KNN_UNITS, 1, GD_MAX_SIDE, &q) > 0 ? (int)q : rule;
}

// (two H200s, 10,000 queries among 10^6 points, X 512 MB from the host,
// medians of 9: 4 units 40.29 ms on one device, 24.61 on two; 8 units
// 37.83 and 22.23)
int gd_knn_gemm_units(size_t xbytes)
{
    const size_t q = xbytes / ((size_t)64 << 20);
    return gd_knn_units(q < 4 ? 4 : q > 8 ? 8 : (int)q);
}

const char *gd_knn_gemm_unfit(int64_t mx, int64_t K, int64_t d)
{
    if (d < 1) return "no features";
    if (K > KMAX) return "K above 256";
    if ((mx + TN - 1) / TN < 2 * K) return "fewer than 2K tiles of 128 points";
    return NULL;
}

namespace {
/* The search's device memory beside X: one allocation for the rows' forms
 * and the bound's parts (a call holds few allocations): Xt, Yt (TF32
 * rows), Xr, Yr (the rows as given, by rows), the bound's parts, the
 * centre, the flags, cosine's norms, inverses and NaN flags, each at
 * off[i]; and, for each query of a batch, its
 * records (one a tile of points) and candidates */
struct gemm_memory {
    size_t off[11], forms, per_query;
    gemm_memory(int64_t mx, int64_t my, int64_t d, size_t es, bool cosine)
    {
        const int64_t ntiles = (mx + TN - 1) / TN, np = ntiles * TN;
        const int64_t mq = (my + TM - 1) / TM * TM, dp = (d + KC - 1) / KC * KC;
        // ... then cosine's (none for Euclidean): the rows' norms and
        // their inverses (X's np, Y's mq), their NaN flags
        const size_t sz[11] = {(size_t)(np * dp) * 4, (size_t)(mq * dp) * 4,
                               (size_t)(mx * d) * es, (size_t)(my * d) * es,
                               (size_t)(2 * np + 2 * mq) * 4, (size_t)d * es, (size_t)(2 * my),
                               sizeof(int), cosine ? (size_t)(2 * np + 2 * mq) * es : 0,
                               cosine ? (size_t)(np + mq) : 0, 0};
        forms = 0;
        for (int i = 0; i < 11; ++i) {
            off[i] = forms;
            forms += (sz[i] + 255) / 256 * 256;
        }
        per_query = (size_t)ntiles * (sizeof(float) + sizeof(lrec)) + CAP * 4 + 16;
    }
};
} // namespace

size_t gd_knn_gemm_bytes(int64_t mx, int64_t my, int64_t d, size_t es, bool cosine,
                         int64_t batch)
{
    const gemm_memory g(mx, my, d, es, cosine);
    return g.forms + (size_t)(batch > TM ? batch : TM) * g.per_query;
}

namespace {
/* One search (gd_knn_gemm): its sizes and bound's constants, its device
 * memory, and its steps: prepare the rows, the GEMM pass over tiles of
 * points, X from the host in units, the batches of queries, the flags
 * read back. */
template <class T> struct gemm_search {
    gd_call &c;
    const gd_knn_gemm_args &a;
    const int64_t mx, my, d, K, ntiles, np, mq, dp;
    const double kappa;
    float cu_ok, cl_ok, coef; /* cosine's parts; the product's coefficient */
    const gemm_memory mem;
    const T *X;
    int64_t ldx, batch = 0;
    /* the forms and the bound's parts (gemm_memory) */
    float *Xt, *Yt, *cux, *clx, *cuq, *clq;
    T *Xr, *Yr, *ctr, *nX, *nY, *invX, *invY;
    unsigned char *qbad, *dfell, *nanX, *nanY;
    int *xbad;
    /* a batch's records and candidates */
    float *U, *tau;
    lrec *R;
    int *cand, *count, *entries;
    size_t gsm, rsm; /* the GEMM pass's and the re-rank's shared memory */

    gemm_search(gd_call &c_, const gd_knn_gemm_args &a_)
        : c(c_), a(a_), mx(a.mx), my(a.my), d(a.d), K(a.K), ntiles((mx + TN - 1) / TN),
          np(ntiles * TN), mq((my + TM - 1) / TM * TM), dp((d + KC - 1) / KC * KC),
          kappa(gd_knn_kappa(d, 0x1p-24, ut())), mem(mx, my, d, sizeof(T), a.cosine),
          X((const T *)a.X), ldx(a.Xh ? mx : a.ldx)
    {
        /* cosine: every row's parts, 1/2 +- B_cos/2 (the largest's: -1/2
         * +- B_cos/2), in float outward */
        const double bcos = gd_knn_cos_bound(d, sizeof(T) == 4 ? 0x1p-24 : 0x1p-53, ut());
        const double cu_d = a.largest ? (bcos - 1) / 2 : (1 + bcos) / 2,
                     cl_d = a.largest ? (-1 - bcos) / 2 : (1 - bcos) / 2;
        cu_ok = (float)cu_d;
        cl_ok = (float)cl_d;
        if ((double)cu_ok < cu_d) cu_ok = nextafterf(cu_ok, INFINITY);
        if ((double)cl_ok > cl_d) cl_ok = nextafterf(cl_ok, -INFINITY);
        coef = a.cosine ? (a.largest ? 1.0f : -1.0f) : (a.largest ? 2.0f : -2.0f);
    }
    /* the TF32 product's unit roundoff (double's rows rounded to float
     * first) */
    static double ut() { return sizeof(T) == 4 ? 0x1p-10 : 0x1p-10 + 0x1p-24; }

    /* the forms; the records of a batch of query tiles within a quarter
     * of what is free (and half the cap), the candidates beside them; the
     * kernels' shared memory */
    bool alloc()
    {
        char what[128];
        const size_t *off = mem.off;
        gd_describe(what, sizeof what, "the TF32 rows, the rows and the bound", np + mq, dp, GD_SINGLE);
        char *w = (char *)c.alloc(mem.forms, what);
        if (!c.ok()) return false;
        Xt = (float *)(w + off[0]);
        Yt = (float *)(w + off[1]);
        Xr = (T *)(w + off[2]);
        Yr = (T *)(w + off[3]);
        cux = (float *)(w + off[4]);
        clx = cux + np;
        cuq = cux + 2 * np;
        clq = cuq + mq;
        ctr = (T *)(w + off[5]);
        qbad = (unsigned char *)(w + off[6]);
        dfell = qbad + my;
        xbad = (int *)(w + off[7]);
        nX = (T *)(w + off[8]);
        nY = nX + np;
        invX = nY + mq;
        invY = invX + np;
        nanX = (unsigned char *)(w + off[9]);
        nanY = nanX + np;
        int64_t budget = c.free_bytes() / 4;
        if (c.cap_left() / 2 < budget) budget = c.cap_left() / 2;
        batch = budget / (int64_t)mem.per_query / TM * TM;
        batch = batch < TM ? TM : batch > mq ? mq : batch;
        gd_describe(what, sizeof what, "the tiles' records and the candidates", batch, ntiles, GD_SINGLE);
        U = (float *)c.alloc((size_t)batch * mem.per_query, what);
        if (!c.ok()) return false;
        R = (lrec *)(U + batch * ntiles);
        cand = (int *)((char *)U + (size_t)(batch * ntiles) * (sizeof(float) + sizeof(lrec)));
        tau = (float *)(cand + batch * CAP);
        count = (int *)tau + batch;
        entries = (int *)tau + 2 * batch;
        gsm = (size_t)ST * STAGE_FLOATS * 4;
        rsm = (size_t)CAP * (8 + 4) + (size_t)RB * (KR + 1) * sizeof(T);
        const cudaStream_t st = gd_stream();
        return c.cuda(cudaFuncSetAttribute(gemm_pass, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)gsm), "the GEMM pass's shared memory") &&
               c.cuda(cudaFuncSetAttribute(rerank<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)rsm), "the re-rank's shared memory") &&
               c.cuda(cudaMemsetAsync(qbad, 0, (size_t)(2 * my), st), "clearing the queries' flags") &&
               c.cuda(cudaMemsetAsync(xbad, 0, sizeof(int), st), "clearing X's flag");
    }

    /* the GEMM pass over point tiles t0 .. t1 for queries q0 .. q0 + nb:
     * about eight blocks an SM's two slots over the launch, so that its
     * last wave is short */
    void gemm(int64_t q0, int64_t nb, int64_t t0, int64_t t1, cudaStream_t s)
    {
        const int64_t qt = (nb + TM - 1) / TM, nt = t1 - t0;
        int64_t splits = (8 * 2 * (int64_t)gd_sm_count() + qt - 1) / qt;
        if (splits > nt) splits = nt;
        const int64_t per = (nt + splits - 1) / splits;
        const dim3 grid((unsigned)qt, (unsigned)((nt + per - 1) / per));
        gemm_pass<<<grid, NT, gsm, s>>>(Yt + q0 * dp, Xt, nb, ntiles, dp, cuq + q0, clq + q0, cux,
                                        clx, U, R, t0, t1, per, coef);
    }

    /* rows r0 .. r1 of A (to r1p past the last), its parts at cu, cl (and
     * its bad rows flagged in bad, or any in any_bad), its TF32 and
     * by-rows forms at At, Ar; cosine's norms, inverses and NaN flags at
     * nA, iA, fA; on s */
    void prep(const T *A, int64_t ld, int64_t r0, int64_t r1, int64_t r1p, float *cu, float *cl,
              unsigned char *bad, int *any_bad, float *At, T *Ar, T *nA, T *iA, unsigned char *fA,
              cudaStream_t s)
    {
        A += r0;
        const unsigned nb = gd_blocks_for(r1p - r0, 128);
        if (a.cosine) {
            row_info<T><<<gd_blocks_for(r1 - r0, 256), 256, 0, s>>>(A, ld, r1 - r0, d, nA + r0, fA + r0);
            cos_bounds<T><<<nb, 128, 0, s>>>(nA + r0, fA + r0, r1 - r0, r1p - r0, cu_ok, cl_ok,
                                             iA + r0, cu + r0, cl + r0, bad, any_bad);
        } else {
            row_bounds<T><<<nb, 128, 0, s>>>(A, ld, r1 - r0, r1p - r0, d, ctr, kappa, a.largest,
                                             cu + r0, cl + r0, bad, any_bad);
        }
        rows_by_rows<T><<<dim3((unsigned)((r1p - r0) / 32), (unsigned)(dp / 32)), dim3(32, 8), 0, s>>>(
            A, ld, r1 - r0, r1p - r0, d, dp, a.cosine ? (const T *)NULL : ctr,
            a.cosine ? iA + r0 : (const T *)NULL, At + r0 * dp, Ar + r0 * d);
    }
    void prep_x(int64_t r0, int64_t r1, int64_t r1p, cudaStream_t s)
    {
        prep(X, ldx, r0, r1, r1p, cux, clx, NULL, xbad, Xt, Xr, nX, invX, nanX, s);
    }
    /* on the first stream: the centre from X's first rows (any centre
     * keeps the bound), the queries' rows, and with all, X's */
    void prepare(int64_t rows, bool all)
    {
        const cudaStream_t st = gd_stream();
        c.begin(GD_PHASE_PREP, st);
        if (!a.cosine) centre<T><<<(unsigned)d, 256, 0, st>>>(X, ldx, rows, ctr);
        if (all) prep_x(0, mx, np, st);
        prep((const T *)a.Y, a.ldy, 0, my, mq, cuq, clq, qbad, NULL, Yt, Yr, nY, invY, nanY, st);
        c.launched("preparing the rows");
        c.end(GD_PHASE_PREP, st);
    }

    /* rows r0 .. r1 of X from the host, an input of the pipeline's next
     * unit */
    bool up(gd_pipeline &pl, int64_t r0, int64_t r1)
    {
        const size_t es = sizeof(T);
        return pl.upload((char *)a.X + (size_t)r0 * es, (size_t)mx * es,
                         (const char *)a.Xh->ptr + (size_t)r0 * es, (size_t)a.Xh->ld * es,
                         (size_t)(r1 - r0) * es, (size_t)d, "copy of X to the GPU");
    }
    /* unit p of X (rows r0 .. r1) with its upload shared: part q's share
     * rows s(q) .. s(q + 1); this part's from the host, put once there;
     * the others' pulled from their devices, or from the host where a
     * part has left the share (failed, or its search took another way) */
    bool up_shared(gd_pipeline &pl, gd_knn_share &sh, int p, int64_t r0, int64_t r1)
    {
        const size_t es = sizeof(T);
        auto s_of = [&](int q) { return r0 + (r1 - r0) * q / sh.n; };
        if (!up(pl, s_of(sh.part), s_of(sh.part + 1)) ||
            !c.check(gd_share_put(sh.x, sh.part, p, (const char *)a.X + (size_t)s_of(sh.part) * es,
                                  gd_copy_stream())))
            return false;
        for (int q = 0; q < sh.n && c.ok(); ++q) {
            if (q == sh.part) continue;
            bool absent = false;
            char *at = (char *)a.X + (size_t)s_of(q) * es;
            if (c.check(gd_share_get(sh.x, sh.part, q, p, at, (size_t)mx * es, 0, (size_t)mx * es,
                                     (size_t)(s_of(q + 1) - s_of(q)) * es, (size_t)d,
                                     pl.stream(), &absent)) &&
                absent)
                up(pl, s_of(q), s_of(q + 1));
        }
        return c.ok();
    }
    /* X from the host in units of whole tiles, each a pipeline's unit:
     * its rows prepared and its tiles through the GEMM pass for the first
     * batch of queries while the next unit is on its way. (Four units
     * from 16 MB, one a 64 MB up to 8: H100, 8192 x 65536 x 128, X 32 MB,
     * each copy's staging beside its transfer, one unit 5.55 ms host to
     * host, two 5.21, four 4.94; shared: the units the share was made
     * for, on every part) */
    void from_host()
    {
        gd_knn_share *sh = a.share;
        const size_t xb = (size_t)(mx * d) * sizeof(T);
        const int units = sh ? sh->units
                           : batch == mq && xb >= ((size_t)16 << 20) ? gd_knn_gemm_units(xb)
                                                                     : gd_knn_units(1);
        gd_pipeline pl(c, gd_stream(), gd_stream2(), gd_stream_hi());
        int put = 0; /* the units whose share this part has put */
        for (int p = 0; p < units && c.ok(); ++p) {
            const int64_t t0 = ntiles * p / units, t1 = ntiles * (p + 1) / units;
            const int64_t r0 = t0 * TN, r1 = t1 * TN < mx ? t1 * TN : mx;
            if (!(sh ? up_shared(pl, *sh, p, r0, r1) : up(pl, r0, r1))) break;
            put += sh != NULL;
            if (p == 0) { /* before the units: the others start after it */
                prepare(r1, false);
                pl.units_begin(GD_PHASE_KERNEL);
            }
            prep_x(r0, r1, t1 * TN, pl.stream());
            gemm(0, batch, t0, t1, pl.stream());
            pl.unit_done("the certified neighbours' product");
        }
        pl.end();
        if (sh) sh->leave(c.ok() && put == units); /* (waits for the others' pulls) */
    }

    /* every batch of queries from q_first through the GEMM pass (those
     * before: done by from_host), then tau, the candidates and the
     * re-rank */
    void batches(int64_t q_first)
    {
        const cudaStream_t st = gd_stream();
        c.begin(GD_PHASE_KERNEL, st);
        for (int64_t q0 = 0; q0 < my && c.go_on(st, "query batch", (double)q0, (double)my);
             q0 += batch) {
            const int64_t nb = my - q0 < batch ? my - q0 : batch;
            if (q0 >= q_first) gemm(q0, nb, 0, ntiles, st);
            if (ntiles <= 32 * 16)
                select_tau_warp<16><<<(unsigned)((nb + 7) / 8), 256, 0, st>>>(U, ntiles, K, nb, tau);
            else
                select_tau<<<(unsigned)nb, 256, 0, st>>>(U, ntiles, K, tau);
            extract<<<(unsigned)((nb + 7) / 8), 256, 0, st>>>(R, nb, ntiles, tau, qbad + q0, count,
                                                             cand, entries);
            rerank<T><<<(unsigned)nb, RB, rsm, st>>>(Yr, Xr, mx, d, q0, count, entries, cand, K,
                                                     a.root, a.largest, (T *)a.D, a.I, dfell,
                                                     a.cosine ? nX : (const T *)NULL, nY);
            c.launched("the certified neighbours");
        }
        c.end(GD_PHASE_KERNEL, st);
    }

    /* the queries' flags into fell; how many are set (-1: the call
     * failed, or X holds NaN or Inf: *all) */
    int64_t flags(unsigned char *fell, bool *all)
    {
        const cudaStream_t st = gd_stream();
        int bad = 0;
        if (!c.cuda(cudaMemcpyAsync(fell, dfell, (size_t)my, cudaMemcpyDeviceToHost, st),
                    "the queries' flags") ||
            !c.cuda(cudaMemcpyAsync(&bad, xbad, sizeof bad, cudaMemcpyDeviceToHost, st), "X's flag") ||
            !c.cuda(cudaStreamSynchronize(st), "the certified neighbours"))
            return -1;
        if (bad) { /* X holds NaN or Inf: what ran is void */
            *all = true;
            return -1;
        }
        int64_t n = 0;
        for (int64_t j = 0; j < my; ++j) n += fell[j] != 0;
        return n;
    }
};
} // namespace

template <class T>
int64_t gd_knn_gemm(gd_call &c, const gd_knn_gemm_args &a, unsigned char *fell, bool *all)
{
    *all = false;
    gemm_search<T> g(c, a);
    if (!g.alloc()) return -1;
    if (a.Xh)
        g.from_host();
    else
        g.prepare(g.mx, true);
    g.batches(a.Xh ? g.batch : 0);
    return g.flags(fell, all);
}

template int64_t gd_knn_gemm<float>(gd_call &, const gd_knn_gemm_args &, unsigned char *, bool *);
template int64_t gd_knn_gemm<double>(gd_call &, const gd_knn_gemm_args &, unsigned char *, bool *);
