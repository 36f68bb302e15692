/* ops/product/prep.cuh - the operands' preparation (padding, fills, the empty inner dimension), the product's sections of C and a divided product's columns.
 * Part of product.cu, which includes it inside its anonymous namespace. */

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

// The sections of C: bi x bj. Large products of a layout whose sections
// are products of their own get sections of 2048 or more a side (a launch
// still fills an H100) and at most GD_MAX_SIDE a side; GD_BLOCKS=q asks
// for q a side (1 to 8, down to one tile), for tests and experiments.
// Sections exist to overlap transfers with kernels: a product where
// nothing moves (resident operands, resident result) is one section.
struct gd_blocks {
    int bi, bj;
    /* section (i, j): rows [ri[i], ri[i + 1]), columns [cj[j], cj[j + 1]) */
    int64_t ri[GD_MAX_SIDE + 1], cj[GD_MAX_SIDE + 1];
    /* stage q's section of rows (of columns): its first and its size, the
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

