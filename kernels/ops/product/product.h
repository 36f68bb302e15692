/* ops/product/product.h - the driver every two-operand product shares (C = A op B,
 * A m x k, B k x n, column-major): class conversion, device allocations,
 * the upload of host operands (resident ones are read where they are),
 * the layout preparation on the device, the kernel (in sections of C when C
 * is large and has to move), the host buffer for the result and the
 * download of each block as soon as its kernel is done (or the result
 * kept on the device), and the timings. An operation (minplus.cu,
 * sgemm.cu, pdist.cu's pdist2) only supplies kernels, their launchers and
 * a variant table. C++, internal. */
#ifndef GD_PRODUCT_H
#define GD_PRODUCT_H

#include "runtime/op.h"

/* How a variant wants its operands on the device. */
enum gd_layout {
    GD_RAW,      /* A (m x k) and B (k x n) as Octave holds them */
    GD_PADDED,   /* Ap: A padded to mp x kp; Bp: B padded to kp x np */
    GD_PADDED_BT /* Ap: A padded to mp x kp; Bt: B transposed, np x kp */
};

/* The operation's own arguments beside the operands (pdist2: the
 * metric), passed through to its launchers and its CPU implementation. */
struct gd_op_args {
    gd_metric metric;
    double p; /* the metric's parameter (minkowski's exponent) */
    /* min-plus's witness: where the second output goes (NULL: not asked
     * for) and its class (GD_DOUBLE or GD_INT32) */
    const gd_out *witness;
    gd_class witness_cls;
    /* the whole result's sizes where this product is one device's panel of
     * it (0: the product is the whole): choices that change a result's
     * bits (sgemm's split-k) are made from these, so that a result does
     * not depend on how many devices or blocks computed it (set by the
     * driver; callers leave them 0) */
    int64_t whole_m, whole_n;
};

/* What a launcher gets: device pointers in its layout, and sizes. */
struct gd_plan {
    const void *A, *B;
    void *C;
    int64_t m, k, n;        /* the product's sizes */
    int64_t mp, kp, np;     /* padded sizes (== m, k, n for GD_RAW) */
    int64_t lda, ldb, ldc;  /* leading dimensions of A, B (or Bt), C */
    gd_op_args args;        /* the operation's own arguments */
    void *work;             /* the variant's workspace (work_f bytes) */
    int *K;                 /* the witness (k + 1 of each C(i,j), int32, in
                               C's layout and leading dimension), or NULL */
    const void *Bk;         /* B in its own layout (k x n, column-major,
                               leading dimension ldbk) where the device has
                               it so (uploaded, or resident), else NULL */
    int64_t ldbk;
    /* Large products run in sections of C, each a product of its own (A a
     * block of rows, B of columns, C theirs, with their own padded sizes
     * and leading dimensions), so that the first kernels start once their
     * operands are up and each block goes down while later ones compute.
     * Blocks alternate between two streams, so that one launch's last
     * wave overlaps the next one's first. panel: the launch's place in the
     * call (0 first). */
    int panel;
    int64_t i0, j0;         /* the block's first row and column in the product */
    cudaStream_t st;        /* the stream to launch on */
    gd_class cls;           /* the operands' class */
};

typedef gd_status (*gd_launcher)(const gd_plan &);
/* bytes of device workspace the launcher needs for this plan (sizes set,
 * pointers not yet) */
typedef size_t (*gd_work_fn)(const gd_plan &);
/* after the call's work is done (stream synchronised), before the device
 * memory goes: what the variant tells of its run (t->kernel) */
typedef void (*gd_after_fn)(const gd_plan &, gd_class, gd_timing *);
/* looks at prepared operands before any launch that uses them, on p.st
 * (p: the whole product's plan): A's section of a rows at A (NULL: none this
 * time), its first row i0 in the product, B's of b columns at B, its first
 * column j0, in the padded layout; first on the call's first look */
typedef gd_status (*gd_inspect_fn)(const gd_plan &p, gd_class cls, const void *A, int64_t a,
                                   int64_t i0, const void *B, int64_t b, int64_t j0,
                                   bool first);

struct gd_product_variant { /* a row: designated initializers, the rest as here */
    gd_variant_info info;
    gd_layout in = GD_RAW;
    bool padded_out = false; /* C is mp x np, copied back with cudaMemcpy2D */
    int row_mult = 1, col_mult = 1, k_mult = 1; /* mp, np, kp are multiples of these */
    gd_launcher run_f = NULL, run_d = NULL;     /* NULL where a class is not supported */
    gd_work_fn work_f = NULL; /* NULL: no workspace; allocated with the
                                 operands, outside the kernel's timing */
    gd_after_fn after = NULL;     /* NULL: nothing */
    gd_inspect_fn inspect = NULL; /* NULL: nothing */
    bool witness = false;         /* its launchers write p.K when it is set */
    /* the integer classes (int8 ... uint64; p.cls says which), NULL where
     * the variant computes single and double alone. Integer operands come
     * in the raw layout (A m x k, B k x n, as Octave holds them, with their
     * leading dimensions) in one block, and C is m x n in their class. */
    gd_launcher run_i = NULL;
    /* sections of C (op.panels) are not made for this variant: where its
     * sums depend on the launch's shape (cuBLAS chooses its kernel by
     * it), or, with scratch_work, where the plan needs a workspace, which
     * is then each launch's scratch (sgemm's split-k slices) while blocks
     * run side by side on two streams */
    bool one_block = false, scratch_work = false;
};

/* What the operation is: its padding value (it must not change a result),
 * what an empty inner dimension gives, its variants, how 'auto' chooses
 * and its CPU implementation. Designated initializers; a field left out is
 * 0, false or NULL. */
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
    /* the cpu variant: C = A op B into host memory (and the witness into
     * K, int32, when the call asks for one); GD_OK or a status whose
     * message it has set */
    gd_status (*cpu)(gd_class cls, const void *A, const void *B, void *C, int *K,
                     int64_t m, int64_t k, int64_t n, const gd_op_args &args);
    /* whether a large C may be computed in blocks (every variant's
     * launcher then takes a block as a product of its own) */
    bool panels;
    /* computed in single whatever the operands' class (sgemm) */
    bool single_only;
    /* 'auto' below auto_cpu_below operations when something is resident
     * (the data is on the GPU, so the GPU computes): a variant that reads
     * its operands in place and needs no preparation; NULL: the best */
    const char *auto_small;
    /* operations a device must get before 'all' devices divide a product
     * (fewer: fewer devices); 0: every device */
    double split_min;
    /* 'auto' on a GPU for the integer classes (NULL: the operation takes
     * single and double alone) */
    const char *auto_int;
    /* what an empty inner dimension gives in the integer classes: the
     * class's largest value (min-plus: Inf has no integer value), else 0 */
    bool empty_int_max;
};

/* An operation's whole call: sizes, the class, 'auto' or a name looked
 * up in table (count entries), empty results, the GPU driver or the cpu
 * variant (on host copies of resident operands), timings. A is m x k, B
 * k x n (n x k with op.b_rows). */
gd_status gd_product(const gd_product_op &op, const gd_product_variant *table,
                     int count, const char *name, const gd_matrix *A,
                     const gd_matrix *B, gd_out out, const gd_op_args &args,
                     const gd_place *at, gd_timing *t);

/* Runs variant v on the GPU; A and B are of class cls (host or device).
 * As part part of nparts of a divided call, A on the host may be shared
 * (gd_share, runtime.h): each stage's section of A is uploaded a share by
 * each part, the rest pulled from the others. */
gd_status gd_run_product(const gd_product_op &op, const gd_product_variant &v,
                         gd_class cls, const gd_matrix &A, const gd_matrix &B, gd_out out,
                         const gd_op_args &args, gd_timing *t, gd_share *share = NULL,
                         int part = 0, int nparts = 1);

#endif
