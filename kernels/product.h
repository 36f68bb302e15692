/* product.h - the driver every two-operand product shares (C = A op B,
 * A m x k, B k x n, column-major): device allocations, upload, the layout
 * preparation on the device, the kernel (in blocks of C when C is large),
 * the host buffer for the result, the download of each block as soon as
 * its kernel is done, and the timings. An operation (minplus.cu, sgemm.cu) only
 * supplies kernels, their launchers and a variant table. C++, internal. */
#ifndef GD_PRODUCT_H
#define GD_PRODUCT_H

#include "gd_internal.h"

/* How a variant wants its operands on the device. */
enum gd_layout {
    GD_RAW,      /* A (m x k) and B (k x n) as Octave holds them */
    GD_PADDED,   /* Ap: A padded to mp x kp; Bp: B padded to kp x np */
    GD_PADDED_BT /* Ap: A padded to mp x kp; Bt: B transposed, np x kp */
};

/* What a launcher gets: device pointers in its layout, and sizes. */
struct gd_plan {
    const void *A, *B;
    void *C;
    int64_t m, k, n;        /* the product's sizes */
    int64_t mp, kp, np;     /* padded sizes (== m, k, n for GD_RAW) */
    int64_t lda, ldb, ldc;  /* leading dimensions of A, B (or Bt), C */
    int param;              /* the operation's option (pdist2: the metric) */
    void *work;             /* the variant's workspace (work_f bytes) */
    /* Large products run in blocks of C, each a product of its own (A a
     * block of rows, B of columns, C theirs, with their own padded sizes
     * and leading dimensions), so that the first kernels start once their
     * operands are up and each block goes down while later ones compute.
     * Blocks alternate between two streams, so that one launch's last
     * wave overlaps the next one's first. panel: the launch's place in the
     * call (0 first). */
    int panel;
    cudaStream_t st;        /* the stream to launch on */
};

typedef gd_status (*gd_launcher)(const gd_plan &);

struct gd_product_variant {
    gd_variant_info info;
    gd_layout in;
    bool padded_out;        /* C is mp x np, copied back with cudaMemcpy2D */
    int row_mult, col_mult, k_mult; /* mp, np, kp are multiples of these */
    gd_launcher run_f, run_d;       /* NULL where a class is not supported */
    /* bytes of device workspace the launcher needs for this plan (sizes
     * set, pointers not yet); NULL: none. Allocated with the operands,
     * outside the kernel's timing. */
    size_t (*work_f)(const gd_plan &);
    /* after the call's work is done (stream synchronised), before the
     * device memory goes: what the variant tells of its run (t->kernel);
     * NULL: nothing. */
    void (*after)(const gd_plan &, gd_class, gd_timing *);
    /* looks at prepared operands before any launch that uses them, on
     * p.st (p: the whole product's plan): A's block of a rows at A (NULL:
     * none this time), B's of b columns at B, in the padded layout; first
     * on the call's first look. NULL: nothing. */
    gd_status (*inspect)(const gd_plan &p, gd_class cls, const void *A, int64_t a,
                         const void *B, int64_t b, bool first);
};

/* What the operation is: its padding value (it must not change a result),
 * what an empty inner dimension gives, its variants, how 'auto' chooses
 * and its CPU implementation. */
struct gd_product_op {
    const char *name;       /* "min-plus" */
    double pad;             /* NaN for min-plus, 0 for sums of products */
    double empty_k;         /* the value of every C(i,j) when k == 0 */
    double ops_per_step;    /* operations counted per (i,j,k): 1 or 2 */
    bool b_rows;            /* B arrives as n x k, its rows the j's (pdist2's
                               Y): GD_PADDED_BT pads it instead of
                               transposing, GD_RAW passes it with ldb = n */
    const char *device_cpu; /* info.device of the cpu variant */
    /* 'auto' on a GPU: the variant for the class, or "cpu" below
     * auto_cpu_below operations (where the host beats a GPU round trip) */
    const char *auto_single, *auto_double;
    double auto_cpu_below;
    /* the cpu variant: C = A op B into host memory; GD_OK or a status
     * whose message it has set */
    gd_status (*cpu)(gd_class cls, const void *A, const void *B, void *C,
                     int64_t m, int64_t k, int64_t n, int param);
    /* whether a large C may be computed in blocks (every variant's
     * launcher then takes a block as a product of its own) */
    bool panels;
};

/* An operation's whole call: 'auto' or a name looked up in table (count
 * entries), empty results, the GPU driver or the cpu variant, timings. */
gd_status gd_product(const gd_product_op &op, const gd_product_variant *table,
                     int count, const char *name, gd_class cls, const void *A,
                     const void *B, gd_out out, int64_t m, int64_t k, int64_t n,
                     int param, gd_timing *t);

/* Runs variant v on the GPU. */
gd_status gd_run_product(const gd_product_op &op, const gd_product_variant &v,
                         gd_class cls, const void *A, const void *B, gd_out out,
                         int64_t m, int64_t k, int64_t n, int param, gd_timing *t);

/* For 'auto': whether a GPU is usable (*gpu); when none is, t->fallback
 * says why. Fails only for a device that is there but broken. */
gd_status gd_auto_device(gd_timing *t, bool *gpu);

/* Looks a name up in a table of count variants (NULL when absent). */
const gd_product_variant *gd_find_variant(const gd_product_variant *table,
                                          int count, const char *name);

/* The gd_variant_info entries of a table, copied once into infos. */
int gd_variant_infos(const gd_product_variant *table, int count,
                     gd_variant_info *infos, const gd_variant_info **list);

/* Kernel launch helpers. */
static inline unsigned gd_grid_y(int64_t tiles)
{
    return (unsigned)(tiles < 65535 ? tiles : 65535);
}
static inline int64_t gd_round_up(int64_t x, int64_t q) { return (x + q - 1) / q * q; }

/* A describing label "R (m x n single)" for messages. */
void gd_describe(char *buf, size_t len, const char *label, int64_t rows,
                 int64_t cols, gd_class cls);

#endif
