/* tiles/tile/witness_steps.cuh - the witness steps of min-plus: beside each minimum, the group of k-steps where it was reached.
 * Part of tile.cuh, which includes it inside namespace gd_tile, in order. */
/* The witness forms of min-plus: beside each minimum, where it was
 * reached. The k-steps are taken in groups of K; w holds the group in
 * which the running minimum last became smaller (stepw's g), which is the
 * group holding the first k that attains the final minimum (ties never
 * move it: a later equal sum leaves the minimum as it was). first_k below
 * then finds that k among the group's K sums. Tracking a group instead of
 * every k costs one compare and one select per group (groups of 4 with
 * fminf; of a whole stage, 16, with the integer min: minplus_first_stage),
 * a fraction of a per-step witness's bookkeeping (NOTES.md). NaN: a running minimum
 * that is still NaN moves w on every group; if it stays NaN to the end,
 * every term was NaN and first_k gives k = 0, as Octave's min gives index
 * 1. */
template <int G> struct minplus_first {
    enum { K = G, WITNESS = 1 };
    template <class T> __device__ static T init() { return (T)NAN; }
    template <class T, class W>
    __device__ static void stepw(T &acc, W &&w, int g, const T (&a)[G][8], const T (&b)[G][8],
                                 int r, int c)
    {
        T m = a[0][r] + b[0][c];
#pragma unroll
        for (int h = 1; h < G; ++h) m = gmin_(m, a[h][r] + b[h][c]);
        const T n = gmin_(acc, m);
        if (n != acc) w = g; // (a predicated store where w is in shared memory)
        acc = n;
    }
    __device__ static float gmin_(float x, float y) { return fminf(x, y); }
    __device__ static double gmin_(double x, double y) { return fmin(x, y); }
};
// single, no operand with its sign bit set, the group a whole stage of
// shared memory (WITNESS 2, K = BK): each output's minimum over the stage,
// m, is kept apart from the running one, a pair of k-steps one
// three-input integer min as in R alone (minplus_nonneg), and folded in at
// the stage's end: where m is below the running minimum it takes its place
// and w becomes the stage. Three instructions a stage an output beyond R's
// (16 k-steps), where groups of four k-steps cost two a group; the
// epilogue then finds the k among the stage's sums (store_first_kmajor:
// k-major operands, the stage's sums in 16-byte loads). NOTES.md, "The
// witness a stage at a time".
template <int BK> struct minplus_first_stage {
    enum { K = BK, WITNESS = 2 };
    template <class T> __device__ static T init() { return __int_as_float(0x7fffffff); }
    // open: the stage's first pair (a constant once the stage is unrolled)
    __device__ static void pair(int &m, bool open, float a0, float b0, float a1, float b1)
    {
        const int s0 = __float_as_int(a0 + b0), s1 = __float_as_int(a1 + b1);
        m = open ? min(s0, s1) : __vimin3_s32(m, s0, s1);
    }
    template <class W> __device__ static void fold(float &acc, W &&w, int g, int m)
    {
        const int o = __float_as_int(acc);
        w = m < o ? g : w;
        acc = __int_as_float(min(o, m));
    }
};

