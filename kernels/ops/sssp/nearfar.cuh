/* ops/sssp/nearfar.cuh - the 'gpu' variant's lengths on non-negative
 * weights (near-far buckets, a frontier a source) and its trees by
 * levels (breadth first over the tight edges, a frontier a source); W's
 * rows (out-edges) come from rows.cuh. Part of sssp.cu, which includes
 * it inside its anonymous namespace, after trees.cuh, before rows.cuh.
 *
 * The lengths: the near-far method of Davidson, Baxter, Garland and Owens
 * ("Work-efficient parallel GPU methods for single-source shortest
 * paths", IPDPS 2014), every source of a batch at once. A work item is a
 * (source, vertex) pair, k n + v; the near list holds the items whose
 * length fell below the threshold, the far list those that fell but not
 * below it. An iteration relaxes every out-edge of every near item (an
 * atomic min on the length's bits, which order as the lengths do when no
 * length is negative) and lists each target that fell, once an iteration
 * (a stamp a cell), near or far by the threshold. When the near list runs
 * dry, the threshold moves on by delta and the far list is split: the
 * items now below it go near, the rest stay, and those below the old
 * threshold are dropped (their fall put them in a near list then). A
 * warp holds the items it lists in shared memory and puts them on a list
 * 32 or more at a time (nf_hold: one atomic on the list's counter where an
 * atomic a warp an edge had bounded the iteration). A vertex of more than
 * NF_HEAVY out-edges is relaxed by a warp. Every
 * length is some walk's sum in the class, and the method ends only when no
 * edge can lower one: the fixed point every variant reaches, bit for bit.
 * The host queues iterations in batches and reads one flag a batch; the
 * device's own step kernels swap the lists and move the threshold.
 *
 * delta: 32 times the mean weight over the mean out-degree (Davidson et
 * al.'s rule: about a warp's work a vertex a bucket), scaled by
 * GD_SSSP_DELTA percent.
 *
 * The trees, where a batch's cells have no unique tight predecessor
 * (trees.cuh): level 0 the source; the vertices of level L - 1 push along
 * their tight out-edges (D(q) + W(q, u) == D(u) in the class, q != u) to
 * the vertices without a level or with level L, each taking the smallest
 * such q (an atomic min): level L, P(u) = q. That is the host's rule
 * (breadth first, the smallest tight predecessor one level nearer). */

enum { NF_HEAVY = 32, NF_THREADS = 256, NF_ROUNDS = 4 };

/* an atomic min of a length that is not negative (its bits order as an
 * integer's); whether v lowered it. read: the length read first, the
 * atomic spared where v cannot lower it (the caller that has just read it
 * says false) */
__device__ __forceinline__ bool nf_lower(float *a, float v, bool read = true)
{
    if (read && !(v < *(volatile float *)a)) return false;
    return v < __int_as_float(atomicMin((int *)a, __float_as_int(v)));
}
__device__ __forceinline__ bool nf_lower(double *a, double v, bool read = true)
{
    if (read && !(v < *(volatile double *)a)) return false;
    return v < __longlong_as_double(atomicMin((long long *)a, __double_as_longlong(v)));
}

/* W's out-edges on the device: rp (n + 1 row starts), ci (the targets), w;
 * where the vertices are renumbered (order.cuh), to_new (W's vertex ->
 * the graph's) and to_old (the inverse), else NULL */
template <class T> struct nf_graph {
    const int64_t *rp;
    const int32_t *ci;
    const T *w;
    uint32_t n;
    const int32_t *to_new, *to_old;
};

/* the lists (items k n + v of a batch): near[2] (the one relaxed, the one
 * filled), far[2] (the one kept, the one it is split into), heavy; stamp:
 * the last iteration that listed a cell near; infar: a bit a cell */
struct nf_lists {
    uint32_t *near[2], *far[2], *heavy;
    unsigned *stamp, *infar;
};

/* the state the step kernels keep on the device */
template <class T> struct nf_state {
    unsigned long long cnt[2], far[2], heavy;
    unsigned long long relaxed; /* the items relaxed */
    int p, fp, split, done;
    unsigned iter;
    T thr, old, delta;
};

/* A warp's lists held back in shared memory (NF_HELD items each) and put
 * on the global lists by one atomic a flush: the lists' counters share
 * one line of memory, and an atomic a warp an edge on them bounds an
 * iteration. n: the items held (the same in every lane). */
enum { NF_HELD = 64 };
struct nf_held {
    uint32_t *buf;
    int n;
};
__device__ __forceinline__ void nf_flush(nf_held &h, uint32_t *list, unsigned long long *cnt)
{
    const int lane = threadIdx.x & 31;
    __syncwarp();
    unsigned long long at = 0;
    if (lane == 0 && h.n) at = atomicAdd(cnt, (unsigned long long)h.n);
    at = __shfl_sync(0xffffffffu, at, 0);
    for (int i = lane; i < h.n; i += 32) list[at + (unsigned)i] = h.buf[i];
    __syncwarp();
    h.n = 0;
}
/* nf_put through the held items: flushed once 32 are held */
__device__ __forceinline__ void nf_hold(bool want, uint32_t item, nf_held &h, uint32_t *list,
                                        unsigned long long *cnt)
{
    const unsigned m = __ballot_sync(0xffffffffu, want);
    if (!m) return;
    const int lane = threadIdx.x & 31;
    if (want) h.buf[h.n + __popc(m & ((1u << lane) - 1u))] = item;
    h.n += __popc(m);
    if (h.n >= 32) nf_flush(h, list, cnt);
}

/* the most of a lane's n over the warp */
__device__ __forceinline__ int nf_warp_max(int n)
{
    for (int o = 16; o > 0; o /= 2) {
        const int x = __shfl_xor_sync(0xffffffffu, n, o);
        n = x > n ? x : n;
    }
    return n;
}

/* an edge's relaxation: the length of cell u lowered to nd where that
 * is shorter (read: as nf_lower's); then near (stamped once an
 * iteration) or far (marked once) */
template <class T>
__device__ __forceinline__ void nf_lowered(bool have, T *dist, uint32_t u, T nd, T thr,
                                           unsigned mark, const nf_lists &L, bool &to_near,
                                           bool &to_far, bool read = true)
{
    to_near = to_far = false;
    if (have && nf_lower(dist + u, nd, read)) {
        if (nd < thr)
            to_near = atomicExch(L.stamp + u, mark) != mark;
        else {
            const unsigned bit = 1u << (u & 31);
            to_far = !(atomicOr(L.infar + (u >> 5), bit) & bit);
        }
    }
}
template <class T>
__device__ __forceinline__ void nf_edge(bool have, T *dist, uint32_t u, T nd, T thr,
                                        unsigned mark, const nf_lists &L, uint32_t *out,
                                        unsigned long long *cnt, uint32_t *far,
                                        unsigned long long *fcnt)
{
    bool to_near, to_far;
    nf_lowered(have, dist, u, nd, thr, mark, L, to_near, to_far);
    nf_put(to_near, u, out, cnt);
    nf_put(to_far, u, far, fcnt);
}

/* an iteration, edge-parallel: a warp's 32 near items' out-edges laid in
 * a row (their out-degrees scanned across the warp), 32 consecutive edges
 * a round, a lane an edge (the item an edge belongs to found by a binary
 * search over the scan, its start, length and offset by shuffles), the
 * loads of NF_ROUNDS rounds' targets and weights issued together: the
 * loads coalesce and their latency, not their bandwidth, bounds the
 * iteration (60 registers in double). A lane-an-item kernel made a lane's
 * requests one an edge, its warp in step to the largest out-degree; this
 * one keeps every lane busy on a kNN graph's 10 edges a vertex and a
 * grid's 4 alike. A heavy vertex's item is put aside for nf_relax_heavy.
 * A length read before the atomic may be older than the atomic's, never
 * shorter: it only spares the atomics that could not lower it. */
template <class T>
__global__ void __launch_bounds__(NF_THREADS)
    nf_relax(nf_graph<T> g, T *dist, nf_lists L, nf_state<T> *s)
{
    const int p = s->p, fp = s->fp, lane = threadIdx.x & 31;
    const unsigned long long count = s->cnt[p];
    const T thr = s->thr;
    const unsigned mark = 2u * s->iter + 1u;
    const uint32_t *in = L.near[p];
    uint32_t *out = L.near[p ^ 1], *fout = L.far[fp];
    unsigned long long *cnt = &s->cnt[p ^ 1], *fcnt = &s->far[fp];
    __shared__ uint32_t held[NF_THREADS / 32][2][NF_HELD];
    nf_held hn = {held[threadIdx.x / 32][0], 0}, hf = {held[threadIdx.x / 32][1], 0};
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long w0 = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x - lane;
         w0 < count; w0 += step) {
        const unsigned long long t = w0 + lane;
        uint32_t it = 0, base = 0;
        int64_t e0 = 0;
        int deg = 0;
        T dv = 0;
        if (t < count) {
            it = in[t];
            const uint32_t v = it % g.n;
            base = it - v;
            e0 = g.rp[v];
            deg = (int)(g.rp[v + 1] - e0);
        }
        const bool heavy = deg > NF_HEAVY;
        nf_put(heavy, it, L.heavy, &s->heavy);
        if (heavy) deg = 0;
        if (deg) dv = __ldcg(dist + it);
        int incl = deg; /* the warp's out-degrees scanned: lane j's edges are excl_j .. incl_j - 1 */
        for (int o = 1; o < 32; o *= 2) {
            const int y = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += y;
        }
        const int excl = incl - deg, total = __shfl_sync(0xffffffffu, incl, 31);
        const int64_t off = e0 - excl; /* the row's edge e of lane j is W's edge off_j + e */
        for (int b = 0; b < total; b += 32 * NF_ROUNDS) {
            uint32_t u[NF_ROUNDS];
            T nd[NF_ROUNDS], now[NF_ROUNDS];
#pragma unroll
            for (int i = 0; i < NF_ROUNDS; ++i) {
                const int e = b + i * 32 + lane;
                int j = 0; /* the last lane whose excl <= e */
#pragma unroll
                for (int o = 16; o > 0; o /= 2) {
                    const int x = __shfl_sync(0xffffffffu, excl, j + o);
                    if (x <= e) j += o;
                }
                const int64_t oj = __shfl_sync(0xffffffffu, off, j);
                const uint32_t bj = __shfl_sync(0xffffffffu, base, j);
                const T dj = __shfl_sync(0xffffffffu, dv, j);
                const bool have = e < total;
                u[i] = have ? bj + (uint32_t)__ldg(g.ci + oj + e) : 0u;
                nd[i] = have ? (T)(dj + __ldg(g.w + oj + e)) : (T)INFINITY;
            }
#pragma unroll
            for (int i = 0; i < NF_ROUNDS; ++i) now[i] = nd[i] < (T)INFINITY ? __ldcg(dist + u[i]) : (T)0;
#pragma unroll
            for (int i = 0; i < NF_ROUNDS; ++i) {
                bool to_near, to_far;
                nf_lowered(nd[i] < now[i], dist, u[i], nd[i], thr, mark, L, to_near, to_far, false);
                nf_hold(to_near, u[i], hn, out, cnt);
                nf_hold(to_far, u[i], hf, fout, fcnt);
            }
        }
    }
    nf_flush(hn, out, cnt);
    nf_flush(hf, fout, fcnt);
}

/* the heavy vertices' items of the iteration, a warp an item */
template <class T>
__global__ void __launch_bounds__(NF_THREADS)
    nf_relax_heavy(nf_graph<T> g, T *dist, nf_lists L, nf_state<T> *s)
{
    const int p = s->p, fp = s->fp, lane = threadIdx.x & 31;
    const unsigned long long count = s->heavy;
    const T thr = s->thr;
    const unsigned mark = 2u * s->iter + 1u;
    for (unsigned long long t = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) / 32;
         t < count; t += (unsigned long long)gridDim.x * blockDim.x / 32) {
        const uint32_t it = L.heavy[t], v = it % g.n, base = it - v;
        const T dv = dist[it];
        const int64_t end = g.rp[v + 1];
        for (int64_t e0 = g.rp[v]; e0 < end; e0 += 32) {
            const int64_t e = e0 + lane;
            const bool have = e < end;
            nf_edge(have, dist, have ? base + (uint32_t)g.ci[e] : 0u,
                    have ? (T)(dv + g.w[e]) : (T)0, thr, mark, L, L.near[p ^ 1], &s->cnt[p ^ 1],
                    L.far[fp], &s->far[fp]);
        }
    }
}

/* after an iteration: the filled near list is the next to relax; where it
 * is empty, the threshold moves on and the far list is split */
template <class T> __global__ void nf_step(nf_state<T> *s)
{
    if (s->done) return;
    s->relaxed += s->cnt[s->p];
    s->p ^= 1;
    s->cnt[s->p ^ 1] = 0;
    s->heavy = 0;
    s->iter += 1;
    s->split = s->cnt[s->p] == 0;
    if (s->split) {
        s->old = s->thr;
        const T next = s->thr + s->delta;
        /* a threshold that no longer grows takes all that is left */
        s->thr = next > s->thr ? next : (T)INFINITY;
        s->far[s->fp ^ 1] = 0;
    }
}

/* the far list split by the new threshold (where nf_step moved it) */
template <class T>
__global__ void __launch_bounds__(NF_THREADS) nf_split(const T *dist, nf_lists L, nf_state<T> *s)
{
    if (!s->split) return;
    const int p = s->p, fp = s->fp, lane = threadIdx.x & 31;
    const unsigned long long count = s->far[fp];
    const T thr = s->thr, old = s->old;
    const unsigned mark = 2u * s->iter;
    __shared__ uint32_t held[NF_THREADS / 32][2][NF_HELD];
    nf_held hn = {held[threadIdx.x / 32][0], 0}, hk = {held[threadIdx.x / 32][1], 0};
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long w0 = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x - lane;
         w0 < count; w0 += step) {
        const unsigned long long t = w0 + lane;
        bool to_near = false, keep = false;
        uint32_t u = 0;
        if (t < count) {
            u = L.far[fp][t];
            const T d = dist[u];
            if (d < thr) {
                atomicAnd(L.infar + (u >> 5), ~(1u << (u & 31)));
                to_near = d >= old && atomicExch(L.stamp + u, mark) != mark;
            } else
                keep = true;
        }
        nf_hold(to_near, u, hn, L.near[p], &s->cnt[p]);
        nf_hold(keep, u, hk, L.far[fp ^ 1], &s->far[fp ^ 1]);
    }
    nf_flush(hn, L.near[p], &s->cnt[p]);
    nf_flush(hk, L.far[fp ^ 1], &s->far[fp ^ 1]);
}

template <class T> __global__ void nf_step_split(nf_state<T> *s)
{
    if (!s->split) return;
    s->fp ^= 1;
    s->split = 0;
    s->done = s->cnt[s->p] == 0 && s->far[s->fp] == 0;
}

/* the batch's lengths Inf but 0 at its sources, which are the first near
 * list; src: the batch's sources */
template <class T>
__global__ void nf_start(T *__restrict__ dist, uint32_t n, uint32_t nb, const int64_t *src,
                         uint32_t *near)
{
    const uint64_t total = (uint64_t)n * nb;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < total;
         i += (uint64_t)gridDim.x * blockDim.x)
        dist[i] = (T)INFINITY;
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < nb;
         k += (uint64_t)gridDim.x * blockDim.x)
        near[k] = (uint32_t)(k * n + (uint64_t)src[k]);
}
template <class T> __global__ void nf_sources(const uint32_t *near, uint32_t nb, T *dist)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nb) dist[near[k]] = 0;
}

/* ---- the trees: a level a round, a frontier a source ------------------ */
struct nf_bfs {
    unsigned long long cnt[2];
    int p, done;
    int32_t level;
};

/* A frontier's round (round L, its items at level L - 1) over their
 * out-edges in g, a lane an item, the warp's lanes in step; the policy F
 * reads an item (F::item, its vertex q in g) and says of an edge whether
 * its target joins the next frontier, and as what item */
template <class T, class F>
__device__ __forceinline__ void nf_round(const nf_graph<T> &g, const F &f, uint32_t *front0,
                                         uint32_t *front1, nf_bfs *s)
{
    const int p = s->p, lane = threadIdx.x & 31;
    const unsigned long long count = s->cnt[p];
    const int32_t L = s->level;
    const uint32_t *in = p ? front1 : front0;
    uint32_t *out = p ? front0 : front1;
    __shared__ uint32_t held[NF_THREADS / 32][NF_HELD];
    nf_held h = {held[threadIdx.x / 32], 0};
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long w0 = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x - lane;
         w0 < count; w0 += step) {
        const unsigned long long t = w0 + lane;
        typename F::item x = {};
        int64_t e0 = 0;
        int deg = 0;
        if (t < count) {
            x = f.load(in[t]);
            e0 = g.rp[x.q];
            deg = (int)(g.rp[x.q + 1] - e0);
        }
        const int most = nf_warp_max(deg);
        for (int j = 0; j < most; ++j) {
            uint32_t next = 0;
            const bool first = j < deg && f.visit(x, e0 + j, L, &next);
            nf_hold(first, next, h, out, &s->cnt[p ^ 1]);
        }
    }
    nf_flush(h, out, &s->cnt[p ^ 1]);
}

/* the trees' levels: an item k n + q; an edge q -> u that is tight
 * (dist of source k, vertex v at dist[k sk + v sv]) takes u, not yet
 * levelled or levelled in this round, to level L, its candidate the
 * smallest such q in W's numbering (P's rule) */
template <class T> struct nf_tight {
    nf_graph<T> g;
    const T *dist;
    int64_t sk, sv;
    int32_t *lvl, *cand;
    struct item {
        uint32_t q, k, base;
        T dq;
    };
    __device__ item load(uint32_t it) const
    {
        const uint32_t q = it % g.n, k = it / g.n;
        return item{q, k, it - q, dist[k * sk + q * sv]};
    }
    __device__ bool visit(const item &x, int64_t e, int32_t L, uint32_t *next) const
    {
        const uint32_t u = (uint32_t)g.ci[e];
        if (u == x.q) return false;
        const int32_t lu = lvl[x.base + u];
        if (!(lu < 0 || lu == L)) return false;
        const T du = dist[x.k * sk + u * sv];
        const int32_t qw = g.to_old ? g.to_old[x.q] : (int32_t)x.q;
        if (!(sssp_tight(x.dq, g.w[e], du) && du != (T)INFINITY &&
              atomicMin(cand + x.base + u, qw) == INT32_MAX))
            return false;
        lvl[x.base + u] = L;
        *next = x.base + u;
        return true;
    }
};
template <class T>
__global__ void __launch_bounds__(NF_THREADS)
    nf_level(nf_graph<T> g, const T *__restrict__ dist, int64_t sk, int64_t sv, int32_t *lvl,
             int32_t *cand, uint32_t *front0, uint32_t *front1, nf_bfs *s)
{
    nf_round(g, nf_tight<T>{g, dist, sk, sv, lvl, cand}, front0, front1, s);
}

__global__ void nf_level_step(nf_bfs *s)
{
    if (s->done) return;
    s->p ^= 1;
    s->cnt[s->p ^ 1] = 0;
    s->level += 1;
    s->done = s->cnt[s->p] == 0;
}

/* the levels -1 but 0 at the batch's sources, the candidates none; the
 * first frontier the sources */
__global__ void nf_bfs_start(int32_t *lvl, int32_t *cand, uint64_t total)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < total;
         i += (uint64_t)gridDim.x * blockDim.x) {
        lvl[i] = -1;
        cand[i] = INT32_MAX;
    }
}
__global__ void nf_bfs_sources(int32_t *lvl, uint32_t n, uint32_t nb, const int64_t *src,
                               uint32_t *front)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nb) return;
    const uint32_t c = (uint32_t)(k * (uint64_t)n + (uint64_t)src[k]);
    lvl[c] = 0;
    front[k] = c;
}

/* P of the batch (rows k0 .. of the ns x n result, or rows[k] of it where
 * rows is given; class PT): 0 at a source, none where no path, else the
 * candidate (W's vertex) + 1; its columns W's vertices where the graph's
 * are renumbered (to_old) */
template <class PT>
__global__ void nf_out_p(const int32_t *__restrict__ lvl, const int32_t *__restrict__ cand,
                         uint32_t n, uint32_t nb, int64_t ns, PT *P, PT none, const int64_t *rows,
                         const int32_t *__restrict__ to_old)
{
    const uint64_t total = (uint64_t)n * nb;
    for (uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; t < total;
         t += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t k = t % nb, v = t / nb, c = k * n + v;
        const uint64_t r = rows ? (uint64_t)rows[k] : k, j = to_old ? (uint64_t)to_old[v] : v;
        P[r + (uint64_t)ns * j] = lvl[c] < 0 ? none : lvl[c] == 0 ? (PT)0 : (PT)(cand[c] + 1);
    }
}

/* a batch's lengths (nb rows of n, the graph's order) in W's: out[k n + v]
 * = dist[k n + to_new[v]] */
template <class T>
__global__ void nf_unlabel(const T *__restrict__ dist, T *__restrict__ out, uint32_t n,
                           uint32_t nb, const int32_t *__restrict__ to_new)
{
    const uint64_t total = (uint64_t)n * nb;
    for (uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; t < total;
         t += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t k = t / n, v = t % n;
        out[t] = dist[k * n + (uint64_t)to_new[v]];
    }
}

/* ---- the drivers -------------------------------------------------------- */

/* a grid for a list's kernel: one wave, as many blocks of NF_THREADS as
 * fit every SM at once (a second, partial wave of a grid-stride loop's
 * blocks would run after the first's whole share) */
template <class K> unsigned nf_wave(gd_call &c, K kernel)
{
    const int64_t w = c.wave((const void *)kernel, NF_THREADS, 0, "a list kernel's occupancy");
    return (unsigned)(w > 0 ? w : 1);
}

/* a frontier kernel's rounds (its last argument the state ds, *h the
 * host's copy) until one lists nothing: launched in batches, the state
 * read a batch */
template <class K, class... A>
void nf_rounds(gd_call &c, K kernel, nf_bfs *ds, nf_bfs *h, const char *what, A... args)
{
    cudaStream_t st = gd_stream();
    const unsigned big = nf_wave(c, kernel);
    int done = 0;
    for (int batch = 8; c.ok() && !done; batch = batch < 64 ? 2 * batch : 64) {
        for (int b = 0; b < batch; ++b) {
            kernel<<<big, NF_THREADS, 0, st>>>(args..., ds);
            nf_level_step<<<1, 1, 0, st>>>(ds);
        }
        c.launched(what);
        c.cuda(cudaMemcpyAsync(h, ds, sizeof *h, cudaMemcpyDeviceToHost, st), what);
        c.sync(st, what);
        done = h->done;
        if (c.ok() && gd_interrupted()) c.check(gd_fail(GD_ERR_INTERRUPT, "interrupted"));
    }
}

/* The lengths from the nb sources src (on the device) into dist (n x nb,
 * a source a column); the iterations into *iters */
template <class T>
void nf_lengths(gd_call &c, const nf_graph<T> &g, const int64_t *src, uint32_t nb, T *dist,
                const nf_lists &L, nf_state<T> *ds, T delta, int64_t *iters, int64_t *relaxed)
{
    cudaStream_t st = gd_stream();
    const uint64_t cells = (uint64_t)g.n * nb;
    if (c.ok()) {
        nf_start<T><<<sssp_grid((int64_t)cells), 256, 0, st>>>(dist, g.n, nb, src, L.near[0]);
        nf_sources<T><<<(nb + 255) / 256, 256, 0, st>>>(L.near[0], nb, dist);
    }
    c.cuda(cudaMemsetAsync(L.stamp, 0, cells * 4, st), "the near lists' stamps");
    c.cuda(cudaMemsetAsync(L.infar, 0, (cells + 31) / 32 * 4, st), "the far list's marks");
    nf_state<T> h;
    memset(&h, 0, sizeof h);
    h.cnt[0] = nb;
    h.iter = 1;
    h.thr = h.delta = delta;
    c.cuda(cudaMemcpyAsync(ds, &h, sizeof h, cudaMemcpyHostToDevice, st), "the near-far state");
    const unsigned big = nf_wave(c, nf_relax<T>), heavy = nf_wave(c, nf_relax_heavy<T>) / 2,
                   split = nf_wave(c, nf_split<T>);
    int done = 0;
    for (int batch = 8; c.ok() && !done; batch = batch < 64 ? 2 * batch : 64) {
        for (int b = 0; b < batch; ++b) {
            nf_relax<T><<<big, NF_THREADS, 0, st>>>(g, dist, L, ds);
            nf_relax_heavy<T><<<heavy, NF_THREADS, 0, st>>>(g, dist, L, ds);
            nf_step<T><<<1, 1, 0, st>>>(ds);
            nf_split<T><<<split, NF_THREADS, 0, st>>>(dist, L, ds);
            nf_step_split<T><<<1, 1, 0, st>>>(ds);
        }
        c.launched("the near-far iterations");
        c.cuda(cudaMemcpyAsync(&h, ds, sizeof h, cudaMemcpyDeviceToHost, st), "the near-far state");
        c.cuda(cudaStreamSynchronize(st), "the near-far iterations");
        done = h.done;
        if (c.ok() && gd_interrupted()) c.check(gd_fail(GD_ERR_INTERRUPT, "interrupted"));
    }
    *iters += (int64_t)h.iter - 1;
    *relaxed += (int64_t)h.relaxed;
}

/* The trees of the nb sources src: lvl and cand (n x nb, a source a
 * column) from the lengths (source k's vertex v at dist[k sk + v sv]);
 * front0, front1: two lists of n nb; the levels into *levels */
template <class T>
void nf_trees(gd_call &c, const nf_graph<T> &g, const T *dist, int64_t sk, int64_t sv,
              const int64_t *src, uint32_t nb, int32_t *lvl, int32_t *cand, uint32_t *front0,
              uint32_t *front1, nf_bfs *ds, int64_t *levels)
{
    cudaStream_t st = gd_stream();
    const uint64_t cells = (uint64_t)g.n * nb;
    if (c.ok()) {
        nf_bfs_start<<<sssp_grid((int64_t)cells), 256, 0, st>>>(lvl, cand, cells);
        nf_bfs_sources<<<(nb + 255) / 256, 256, 0, st>>>(lvl, g.n, nb, src, front0);
    }
    nf_bfs h;
    memset(&h, 0, sizeof h);
    h.cnt[0] = nb;
    h.level = 1;
    c.cuda(cudaMemcpyAsync(ds, &h, sizeof h, cudaMemcpyHostToDevice, st), "the levels' state");
    nf_rounds(c, nf_level<T>, ds, &h, "the levels", g, dist, sk, sv, lvl, cand, front0, front1);
    const int64_t made = (int64_t)h.level - 2; /* the last level that listed a vertex */
    *levels = made > *levels ? made : *levels;
}

/* The trees by levels of the batch's sources tied (0 .. b - 1 of the
 * batch k0 ..; their lengths at dist, a source a row): the whole batch
 * where every source is, else their rows gathered into the far lists
 * first (the candidates then in the heavy list); how many */
template <class T, class PT>
int64_t nf_tied(gd_call &c, const nf_graph<T> &g, const T *dist, int64_t n, int64_t ns, int64_t k0,
                uint32_t b, const int64_t *dsrc, const std::vector<int64_t> &tied,
                const nf_lists &L, nf_bfs *bs, PT *dP, PT none, int64_t *levels)
{
    cudaStream_t st = gd_stream();
    const uint64_t cells = (uint64_t)n * b;
    const uint32_t nt = (uint32_t)tied.size();
    int32_t *lvl = (int32_t *)L.stamp;
    if (nt == b) {
        int32_t *cand = (int32_t *)L.far[0];
        nf_trees<T>(c, g, dist, n, 1, dsrc + k0, b, lvl, cand, L.near[0], L.near[0] + cells, bs, levels);
        if (c.ok())
            nf_out_p<PT><<<sssp_grid((int64_t)b * n), 256, 0, st>>>(lvl, cand, (uint32_t)n, b, ns, dP + k0, none, (const int64_t *)NULL, g.to_old);
        c.launched("P");
        return nt;
    }
    /* the tied sources' vertices, then their rows of P */
    int64_t *sel = (int64_t *)c.alloc((size_t)nt * 16 + 16, "the tied sources");
    std::vector<int64_t> rows((size_t)nt);
    T *d = (T *)L.far[0];
    for (uint32_t i = 0; i < nt && c.ok(); ++i) {
        rows[i] = k0 + tied[i];
        c.cuda(cudaMemcpyAsync(d + (size_t)i * n, dist + (size_t)tied[i] * n, (size_t)n * sizeof(T),
                               cudaMemcpyDeviceToDevice, st), "a tied source's lengths");
        c.cuda(cudaMemcpyAsync(sel + i, dsrc + rows[i], 8, cudaMemcpyDeviceToDevice, st), "a tied source");
    }
    c.cuda(cudaMemcpyAsync(sel + nt, rows.data(), (size_t)nt * 8, cudaMemcpyHostToDevice, st), "the tied sources' rows");
    int32_t *cand = (int32_t *)L.heavy;
    nf_trees<T>(c, g, d, n, 1, sel, nt, lvl, cand, L.near[0], L.near[0] + cells, bs, levels);
    if (c.ok())
        nf_out_p<PT><<<sssp_grid((int64_t)nt * n), 256, 0, st>>>(lvl, cand, (uint32_t)n, nt, ns, dP, none, sel + nt, g.to_old);
    c.launched("P");
    c.sync(st, "the tied sources' trees"); /* (rows outlives its copy) */
    return nt;
}

/* The 'gpu' variant on non-negative weights: the sources in batches whose
 * work fits the device (and whose items fit 32 bits), each batch's
 * lengths by near-far, its rows of D (in W's order where g's vertices are
 * renumbered, transposed into the ns x n result), then its rows of P
 * (class PT, none where no path): from unique tight predecessors (u: W's
 * columns, trees.cuh), else by levels. dsrc: the sources in g's order;
 * d_done, called once all of D is queued, before the last batch's trees */
template <class T, class PT>
void nf_device(gd_call &c, const nf_graph<T> &g, const sssp_up<T> &u, int64_t ns,
               const int64_t *dsrc, T *dD, PT *dP, PT none, T delta, gd_timing *t,
               const std::function<void()> &d_done)
{
    const int64_t n = g.n;
    cudaStream_t st = gd_stream();
    /* a cell's bytes: its length, stamp, near lists, far lists (which the
     * transpose reuses), heavy list and far mark */
    const double cell = (double)sizeof(T) + 4 + 8 + 8 + 4 + 0.125;
    size_t avail = 0;
    if (!c.check(gd_free_memory(&avail))) return;
    const int64_t cap = gd_mem_limit(); /* GD_GPU_MEM_LIMIT bounds the call's allocations */
    if (cap >= 0) {
        const int64_t left = cap - (int64_t)c.allocs()->total;
        avail = left <= 0 ? 0 : (size_t)left < avail ? (size_t)left : avail;
    }
    int64_t nb = ns;
    const double fit = 0.85 * (double)avail / (cell * (double)n);
    if ((double)nb > fit) nb = (int64_t)fit;
    if (nb * n > (int64_t)UINT32_MAX) nb = (int64_t)UINT32_MAX / n;
    if (nb < 1) nb = 1;
    const size_t cells = (size_t)(nb * n);
    T *dist = (T *)c.alloc(cells * sizeof(T) + 8, "the sources' lengths");
    unsigned *stamp = (unsigned *)c.alloc(cells * 4 + 4, "the near lists' stamps");
    uint32_t *near = (uint32_t *)c.alloc(cells * 8 + 8, "the near lists");
    uint32_t *far = (uint32_t *)c.alloc(cells * 8 + 8, "the far lists");
    uint32_t *heavy = (uint32_t *)c.alloc(cells * 4 + 4, "the heavy vertices' items");
    unsigned *infar = (unsigned *)c.alloc((cells + 31) / 32 * 4 + 4, "the far list's marks");
    nf_state<T> *ds = (nf_state<T> *)c.alloc(sizeof(nf_state<T>), "the near-far state");
    nf_bfs *bs = (nf_bfs *)c.alloc(sizeof(nf_bfs), "the levels' state");
    if (!c.ok()) return;
    const nf_lists L = {{near, near + cells}, {far, far + cells}, heavy, stamp, infar};
    int64_t iters = 0, levels = 0, relaxed = 0, by_levels = 0, chained = 0;
    std::vector<int64_t> tied;
    for (int64_t k0 = 0; k0 < ns && c.ok(); k0 += nb) {
        const uint32_t b = (uint32_t)(ns - k0 < nb ? ns - k0 : nb);
        nf_lengths<T>(c, g, dsrc + k0, b, dist, L, ds, delta, &iters, &relaxed);
        /* D's rows of the batch: the transpose, through the far lists
         * where the batch is not all of D */
        if (!c.ok()) break;
        const gd_class cls = sizeof(T) == 4 ? GD_SINGLE : GD_DOUBLE;
        const T *rows = dist; /* the batch's rows in W's order */
        if (g.to_new) {
            nf_unlabel<T><<<sssp_grid(n * (int64_t)b), 256, 0, st>>>(dist, (T *)far, (uint32_t)n, b, g.to_new);
            rows = (const T *)far;
        }
        T *tp = b == ns ? dD : (T *)(g.to_new ? (void *)near : (void *)far);
        gd_launch_transpose(cls, rows, n, tp, n, b, st);
        if (b != ns)
            c.cuda(cudaMemcpy2DAsync(dD + k0, (size_t)ns * sizeof(T), tp, (size_t)b * sizeof(T),
                                     (size_t)b * sizeof(T), (size_t)n, cudaMemcpyDeviceToDevice, st),
                   "D's rows");
        if (c.launched("D's rows") && k0 + b == ns) d_done();
        /* (the far lists free until the levels: the tied cells' scratch) */
        if (dP &&
            sssp_trees_unique<T, PT>(c, u, n, ns, k0, b, dD, dP, none, &tied, &chained, far, cells * 8) &&
            !tied.empty())
            by_levels += nf_tied<T, PT>(c, g, dist, n, ns, k0, b, dsrc, tied, L, bs, dP, none, &levels);
    }
    snprintf(t->kernel, sizeof t->kernel,
             "near-far, %lld source%s a batch%s, # iterations, # levels, # items relaxed",
             (long long)nb, nb == 1 ? "" : "s", g.to_new ? ", the vertices renumbered" : "");
    if (dP) sssp_trees_said(t, by_levels, ns, chained);
    t->counts[0] = iters;
    t->counts[1] = levels;
    t->counts[2] = relaxed;
}
