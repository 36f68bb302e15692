/* gd.h - the whole C API of gd's kernel layer.
 *
 * Everything here is plain C callable from the MEX gateways (mex/) and from
 * C programs; no Octave headers. Functions return a gd_status; on failure
 * gd_last_error() gives a message that says what and why (sizes, CUDA's
 * error string). Nothing here exits or prints.
 *
 * Matrices are column-major, as Octave stores them, and described by a
 * gd_matrix: where the elements live (host or device memory), their class,
 * rows, columns and leading dimension (A(i,k) is at ptr[i + ld*k]). Sizes
 * are int64_t throughout. An operation takes operands in either place and
 * puts its result where its gd_out says: in host memory, or in a new
 * device allocation that outlives the call (a resident result, freed with
 * gd_dev_free). Nothing resident is uploaded again; nothing asked to stay
 * on the device is downloaded.
 */
#ifndef GD_H
#define GD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GD_OK = 0,
    GD_ERR_INPUT,   /* a bad argument (gd:input) */
    GD_ERR_SIZE,    /* sizes that disagree or overflow (gd:size) */
    GD_ERR_VARIANT, /* unknown variant name (gd:variant) */
    GD_ERR_NOGPU,   /* no usable CUDA device (gd:nogpu) */
    GD_ERR_CUDA,    /* a CUDA call failed (gd:cuda) */
    GD_ERR_MEMORY,  /* device or host memory does not suffice (gd:memory) */
    GD_ERR_NEGCYCLE, /* a graph with a negative cycle (gd:negcycle) */
    GD_ERR_INTERRUPT /* the user interrupted (Ctrl-C): the results are not all written */
} gd_status;

/* The classes of elements. Operations compute in single or double;
 * int32 is the class of an index result (min-plus's witness with
 * 'IndexClass' 'int32', shortest paths' predecessors on the device). */
typedef enum {
    GD_SINGLE = 0,
    GD_DOUBLE = 1,
    GD_INT32 = 2,
    /* the other integer classes: min-plus (host and GPU), shortest paths
     * (host) */
    GD_INT8 = 3,
    GD_UINT8 = 4,
    GD_INT16 = 5,
    GD_UINT16 = 6,
    GD_UINT32 = 7,
    GD_INT64 = 8,
    GD_UINT64 = 9
} gd_class;

/* Bytes of one element of a class. */
static inline size_t gd_class_bytes(gd_class c)
{
    switch (c) {
    case GD_INT8: case GD_UINT8: return 1;
    case GD_INT16: case GD_UINT16: return 2;
    case GD_DOUBLE: case GD_INT64: case GD_UINT64: return 8;
    default: return 4;
    }
}

/* Where a matrix's elements are. */
typedef enum { GD_HOST = 0, GD_DEVICE = 1 } gd_where;

/* An operand: column-major, ld >= rows (ld == rows: tight, as Octave
 * holds it). An operation computes in single when any of its operands is
 * single (each double operand converted first, as Octave does for
 * single + double), else in double; it never writes to an operand. */
typedef struct {
    const void *ptr;
    gd_where where;
    gd_class cls;
    int64_t rows, cols, ld;
    int dev; /* a device matrix's device (0-based index, as gd_info numbers
                them); 0 for a host one */
    /* a distributed matrix (where GD_DEVICE, ptr NULL, dev its first
     * piece's device): its pieces of columns, each on its own device
     * (gd_pieces, below); NULL for every other */
    const struct gd_pieces *pieces;
} gd_matrix;

/* A tight host matrix (what a C caller or a gateway mostly has). */
static inline gd_matrix gd_host_matrix(const void *ptr, gd_class cls, int64_t rows,
                                       int64_t cols)
{
    gd_matrix a;
    a.ptr = ptr;
    a.where = GD_HOST;
    a.cls = cls;
    a.rows = rows;
    a.cols = cols;
    a.ld = rows;
    a.dev = 0;
    a.pieces = 0;
    return a;
}
/* The error id ("gd:memory" ...) for a status, and the last error's text. */
const char *gd_status_id(gd_status s);
const char *gd_last_error(void);

/* ---- device --------------------------------------------------------- */

typedef struct {
    int available;           /* 1 when a CUDA device can be used */
    char reason[256];        /* why not, when available == 0 */
    char name[256];          /* device name */
    int cc_major, cc_minor;  /* compute capability */
    int sms;                 /* multiprocessors */
    double clock_mhz;        /* SM clock */
    double mem_clock_mhz;    /* memory clock */
    int bus_width;           /* memory bus width in bits */
    size_t mem_total, mem_free; /* bytes; free when queried, mem_pool given back first */
    size_t mem_pool;         /* bytes gd's pool held for reuse (given back) */
    size_t mem_held;         /* bytes gd's calls and gdArrays hold (this process's) */
    int driver_version;      /* e.g. 13000 */
    int runtime_version;     /* the CUDA runtime gd was built with */
    int64_t mem_limit;       /* GD_GPU_MEM_LIMIT in bytes, or -1 when unset */
    int ordinal;             /* CUDA's index of the device */
    char pci[32];            /* its PCI address (domain:bus:device.function) */
    unsigned peer;           /* bit j: peer access to device j (NVLink, PCIe) */
} gd_device_info;

/* Fills *out; never fails for want of a GPU (available = 0, reason set). */
gd_status gd_device_query(gd_device_info *out);

/* ---- several devices --------------------------------------------------
 * A call divides its work across several devices where the work divides
 * cleanly (gd_minplus, gd_sgemm and gd_pdist2: panels of the result's
 * columns; gd_pdist: the condensed vector in pieces of equal pairs;
 * gd_knn: the queries; gd_apsp: rows of blocks): each device computes its
 * part with the one-device kernels, so the result is the same, bit for
 * bit, as on one device.
 *
 * Where a call runs is a parameter of the call, its place (at, below; NULL:
 * this host thread's current device, not divided): the device it runs on and leaves a resident result on (by
 * default this host thread's current device, gd_set_device, device 0 at
 * first), and the devices it may divide over. A resident operand on
 * another device is first copied to the device that reads it, peer to
 * peer. Products (gd_minplus, gd_sgemm, gd_pdist2) with resident operands
 * or results divide when the place names its devices (divide set: a list
 * or every device), each device computing its panel and copying it into
 * the result on the call's device; the other operations with resident
 * data run on the call's device alone. */
enum { GD_MAX_DEVICES = 16 };

/* Devices by index, 0-based, in CUDA's order (CUDA_VISIBLE_DEVICES applies
 * first). n == 0 stands for every device, for work large enough to pay
 * (each operation's threshold, measured: see the README). */
typedef struct {
    int n;
    int idx[GD_MAX_DEVICES];
} gd_devices;

/* How many devices gd sees (0 without a usable GPU). GD_SIM_DEVICES=N,
 * meant for tests, makes it N devices that are all the first one: split
 * calls then run their parts one after another on it. */
int gd_device_count(void);
/* Fills *out for device index i (0-based); GD_ERR_INPUT past the count. */
gd_status gd_device_query_at(int i, gd_device_info *out);

/* Checks a device list for a call's place: GD_ERR_INPUT for an index
 * past the count or one given twice, naming origin ("'Devices'"). */
gd_status gd_check_devices(const gd_devices *d, const char *origin);
/* The default: GD_DEVICES ("all", or indices 1-based as Octave counts
 * them: "1", "1,2", "[1 2]"); GD_ERR_INPUT when it does not parse. */
gd_status gd_default_devices(gd_devices *out);

/* The thread's current device (0-based index), where a call whose place
 * names no device runs, and setting it: GD_ERR_INPUT for an index past
 * the devices gd sees (any index is taken where there is no GPU: the CPU
 * runs every call). */
int gd_get_device(void);
gd_status gd_set_device(int index);
/* gd_set_device's check alone (for a place's device) */
gd_status gd_check_device(int index);

/* The name of the device in use (once any call has used it), else "". */
const char *gd_device_name(void);

/* Releases the cached stream, events and library handles; the next call
 * recreates them. */
void gd_release(void);

/* ---- timings and variants ------------------------------------------- */

/* Where a call runs: set by its caller, read by the call, never changed
 * by it (all zero: the defaults). */
typedef struct {
    int device;         /* the device (index + 1) the call runs on and
                           leaves a resident result on; 0: this thread's
                           current device (gd_set_device) */
    int divide;         /* 1: the call divides over devices (n == 0: every
                           device gd sees), resident data as described
                           above; 0: the default, GD_DEVICES's list when
                           set, else every device where the work pays, and
                           resident data stays on the call's device */
    gd_devices devices;
} gd_place;

/* A call's report, reset as the call begins (where the call runs is its
 * own argument, a gd_place: at). */
typedef struct {
    char variant[32];   /* the variant that ran ('auto' resolved) */
    char kernel[256];   /* which of its kernels, where a variant has two
                           (min-plus v5 single: "integer min on # of #
                           tiles"); else empty. A '#' stands for the next
                           of counts: gd_kernel_text writes them in */
    long long counts[4]; /* the numbers of kernel's '#'s (tiles, queries),
                           summed over a divided call's parts */
    char device[256];   /* device name, or "cpu (N threads)" */
    double upload_ms;   /* host -> device copies (cudaEvent timed) */
    double prep_ms;     /* device-side layout preparation */
    double kernel_ms;   /* the operation's kernel alone */
    double download_ms; /* device -> host copy */
    double total_ms;    /* host wall clock of the whole call */
    double ops;         /* operation count (min-plus steps, flops ...) */
    double gpu_bytes;   /* device memory the call allocated (its peak) */
    char fallback[256]; /* set when 'auto' ran on the CPU for want of a GPU:
                           the reason */
    unsigned resident;  /* bit i: operand i was on the device already */
    int kept;           /* 1: the result stayed on the device */
    int devices;        /* devices the call ran on (0: none, the host) */
    int device_idx[GD_MAX_DEVICES]; /* which (0-based indices) */
} gd_timing;

/* t->kernel with its counts written in (at most len bytes with the 0) */
void gd_kernel_text(const gd_timing *t, char *out, size_t len);

typedef struct {
    const char *name; /* as the user types it: "v3" */
    const char *note; /* one line: the idea */
    int gpu;          /* 1 when it needs a CUDA device */
} gd_variant_info;

/* Where a result goes. With device set, it stays on the GPU: the call
 * allocates it (tight, column-major) and *device receives the pointer,
 * which the caller owns from then on (gd_dev_free; on failure nothing is
 * left allocated and *device is NULL). Otherwise it goes to host memory:
 * with ptr set, there; else fn(ctx, bytes) is called once for the buffer,
 * while the GPU computes, so that allocating (and first touching) host
 * memory overlaps the kernel. fn returns NULL when it cannot allocate;
 * the call then fails with GD_ERR_MEMORY. A result of 0 bytes may get any
 * pointer. */
typedef void *(*gd_host_alloc)(void *ctx, size_t bytes);
/* A distributed matrix: rows x (the pieces' columns), piece i its columns
 * [first, first + cols) on device index dev, tight (rows x cols) at ptr,
 * from the memory pool (gd_dev_free_at), the pieces in column order. */
typedef struct {
    void *ptr;
    int dev;
    int64_t first, cols;
} gd_piece;
typedef struct gd_pieces {
    int n;
    gd_piece p[GD_MAX_DEVICES];
} gd_pieces;
/* (pieces: a resident result (device set) that may stay distributed: an
 * operation that divides its result's columns over devices leaves each
 * device's columns there, as pieces (n > 0, *device NULL); one that runs
 * on one device leaves pieces->n 0 and the result at *device. On failure
 * nothing is left allocated and n is 0.) */
typedef struct {
    void *ptr;
    gd_host_alloc fn;
    void *ctx;
    void **device;
    gd_pieces *pieces;
} gd_out;

/* ---- resident matrices ------------------------------------------------ */

/* A resident result's device memory (gd_out's device) comes from the
 * memory pool; gd_dev_free returns it. */
void gd_dev_free(void *p);
/* The same for memory on device index dev (a resident matrix's dev). */
void gd_dev_free_at(int dev, void *p);

/* A new device copy of a host matrix (tight, class kept): *dst receives
 * it. t: upload_ms and total_ms. */
gd_status gd_dev_upload(const gd_matrix *A, void **dst, const gd_place *at, gd_timing *t);

/* The elements of A (any place, any ld) into the tight host buffer of
 * out (rows x cols of A's class); a distributed A's pieces each by its own
 * device, at once. t: download_ms and total_ms. */
gd_status gd_dev_download(const gd_matrix *A, gd_out out, const gd_place *at, gd_timing *t);

/* A distributed device copy of a host matrix: its columns divided over
 * the n devices idx (as a divided product divides its result's), each
 * device uploading its own piece, at once; pieces with no column are
 * left out. On failure nothing is left allocated (P->n 0). */
gd_status gd_dev_upload_pieces(const gd_matrix *A, int n, const int idx[GD_MAX_DEVICES],
                               gd_pieces *P, const gd_place *at, gd_timing *t);

/* Frees every piece of P (P->n is 0 after). */
void gd_pieces_free(gd_pieces *P);

/* R = A.' (cols x rows, A's class), on the device when A is there. */
gd_status gd_transpose(const gd_matrix *A, gd_out R, const gd_place *at, gd_timing *t);

/* R = A(I, J): rows I[0..ni) and columns J[0..nj) of A (0-based, each
 * within A's size: the caller checks), R ni x nj; with J NULL, R's ni
 * elements are A's at the linear (column-major) positions I, in R's
 * shape (rows x cols = ni). Any class; on the device when A is there. */
gd_status gd_index(const gd_matrix *A, const int64_t *I, int64_t ni, const int64_t *J,
                   int64_t nj, gd_out R, const gd_place *at, gd_timing *t);

/* The statistics package's squareform on a single or double X.
 * tomatrix: X has P = n(n-1)/2 elements (any shape), R is n x n with
 * R(i,j) = R(j,i) = X(the pair's place) + 0 and a zero diagonal.
 * Otherwise X is n x n, R the 1 x n(n-1)/2 row of its lower triangle in
 * column order; *flags gets bit 0 when a diagonal element is not 0 (R is
 * then not written) and bit 1 when X is not symmetric (isequaln (X, X.')
 * fails). On the device when X is there. */
gd_status gd_squareform(const gd_matrix *X, int tomatrix, gd_out R, int *flags,
                        const gd_place *at, gd_timing *t);

/* ---- min-plus product ------------------------------------------------ */

/* R = A (x) B: R(i,j) = min over k of A(i,k) + B(k,j), m x k times k x n,
 * with Octave's min: NaN is skipped unless every term is NaN. k == 0
 * gives +Inf everywhere. R is written whole (column-major, m x n).
 * variant: "auto", "v0" ... "v5", "cpu"; 'auto' runs on the GPU whenever
 * an operand or the result is resident. The integer classes (GD_INT8 ...
 * GD_UINT64, both operands of one class, else GD_ERR_INPUT) take Octave's
 * saturating sums, R in their class, k == 0 giving the class's largest
 * value; they run on "v5" (minplus_int.cu: DPX tiles in the narrowest
 * lanes the operands' ranges allow; t->kernel names the form) and "cpu"
 * (others fail with GD_ERR_VARIANT). */
gd_status gd_minplus(const char *variant, const gd_matrix *A, const gd_matrix *B,
                     gd_out R, const gd_place *at, gd_timing *t);

/* [R, K] = the minimum and its witness: K(i,j) is the first k + 1 at
 * which R(i,j) is attained, as Octave's [~, K(i,j)] = min (A(i,:)' +
 * B(:,j)) gives it (NaN terms skipped, 1 where every term is NaN, 0 where
 * k == 0); R then carries the sign of zero of that first term, exactly as
 * Octave's. K goes where its gd_out says, in class kcls (GD_DOUBLE or
 * GD_INT32), beside R (both kept on the device, or both on the host).
 * Variants with a witness: v0, v1, v5, cpu and auto (others fail with
 * GD_ERR_VARIANT); for the integer classes v5, cpu and auto. */
gd_status gd_minplus_witness(const char *variant, const gd_matrix *A, const gd_matrix *B,
                             gd_out R, gd_out K, gd_class kcls, const gd_place *at, gd_timing *t);

/* The variant table: returns the count, *list points at static entries. */
int gd_minplus_variants(const gd_variant_info **list);

/* ---- shortest paths ---------------------------------------------------- */

/* [D, P] = all-pairs shortest paths of the directed graph whose n x n
 * weight matrix W holds W(i,j) for the edge i -> j (Inf: no edge). D(i,j)
 * is the length of a shortest path from i to j (0 on the diagonal, Inf
 * where j is unreachable; a self-loop never shortens a path), in W's
 * class. With P (else NULL), P(i,j) is the predecessor of j on a shortest
 * path from i (1-based; 0 on the diagonal and where j is unreachable), of
 * class pcls (GD_DOUBLE or GD_INT32), placed like D. Negative edges are
 * allowed; a negative cycle fails with GD_ERR_NEGCYCLE and *cycle_vertex
 * (1-based) is a vertex i whose closed path has negative length (D(i,i) <
 * 0; a negative diagonal entry of W is one). NaN in W fails with
 * GD_ERR_INPUT. variant: "auto", "fw" (blocked Floyd-Warshall on the GPU),
 * "squaring" (repeated min-plus squaring with the witness), "cpu"
 * (blocked Floyd-Warshall, OpenMP). */
gd_status gd_apsp(const char *variant, const gd_matrix *W, gd_out D, const gd_out *P,
                  gd_class pcls, int64_t *cycle_vertex, const gd_place *at, gd_timing *t);
int gd_apsp_variants(const gd_variant_info **list);
/* Across an MPI job's ranks, every rank calling (one's failure fails all):
 * D by 'fw''s rounds on the ranks' GPUs, NCCL between them (W this rank's
 * part of a '2dbc' W on its GPU, single or double; g: its place in a pr x
 * pc grid, blocks b a multiple of 128, its grid row's and column's
 * gd_mpi_groups): its part of one device's 'fw' D (and T, its tags),
 * kept. gd_apsp_chain: the chain of the tags' rows T of sources src
 * (0-based) against D whole, or (src NULL) the jumps of P whole;
 * gd_apsp_trees: P's rows made trees from D's rows and W. int32, tight. */
typedef struct { int64_t n, b; int pr, pc, gi, gj, row, column; } gd_grid;
gd_status gd_apsp_ranks(const gd_matrix *W, const gd_grid *g, gd_out D, gd_out *T,
                        int64_t *cycle_vertex, const gd_place *at, gd_timing *t);
gd_status gd_apsp_chain(const gd_matrix *D, const gd_matrix *T, const int64_t *src, gd_out P,
                        int *broken, const gd_place *at, gd_timing *t);
gd_status gd_apsp_trees(const gd_matrix *D, const gd_matrix *W, const gd_matrix *P,
                        const int64_t *src, gd_out Pout, int64_t *repaired, const gd_place *at,
                        gd_timing *t);

/* ---- single-precision matrix multiply --------------------------------- */

/* How kernels meet sizes that are not multiples of their tile. */
typedef enum {
    GD_EDGES_PAD = 0,  /* operands padded with zeros on the device */
    GD_EDGES_GUARD = 1 /* bounds-checked loads on the unpadded operands */
} gd_edges;

/* C = A*B in single precision (double operands converted first), m x k
 * times k x n. variant: "auto", "k1-32" ... (gd_sgemm_variants), "tuned",
 * "cublas", "cpu". A 1x1 operand multiplies element by element, as
 * Octave's scalar times matrix does (the sign of a zero product kept). */
gd_status gd_sgemm(const char *variant, gd_edges edges, const gd_matrix *A,
                   const gd_matrix *B, gd_out C, const gd_place *at, gd_timing *t);
int gd_sgemm_variants(const gd_variant_info **list);
/* C = A * B in double (gdArray's *): cuBLAS's dgemm, else the host's BLAS */
gd_status gd_dgemm(const gd_matrix *A, const gd_matrix *B, gd_out C, const gd_place *at,
                   gd_timing *t);

/* ---- pairwise distances ----------------------------------------------- */

/* The distances the kernel layer computes between rows x and y of d
 * features. The statistics package's other metrics reduce to these on
 * prepared rows (gd_pdist.m: seuclidean and mahalanobis to euclidean on
 * scaled or transformed rows, correlation and spearman to cosine on
 * centred rows or centred ranks). A row with NaN gives NaN with every one
 * (as MATLAB's pdist documents). */
typedef enum {
    GD_EUCLIDEAN = 0,   /* sqrt (sum ((x - y).^2)) */
    GD_SQEUCLIDEAN = 1, /* sum ((x - y).^2) */
    GD_CITYBLOCK = 2,   /* sum (abs (x - y)) */
    GD_CHEBYCHEV = 3,   /* max (abs (x - y)) */
    GD_MINKOWSKI = 4,   /* sum (abs (x - y).^p)^(1/p), p > 0 */
    GD_COSINE = 5,      /* 1 - x*y' / (norm (x) * norm (y)), at least 0 */
    GD_HAMMING = 6,     /* mean (x != y) */
    GD_JACCARD = 7      /* sum (x != y) / sum (x != 0 | y != 0) */
} gd_metric;

/* A metric and its parameter (the exponent p of GD_MINKOWSKI). */
typedef struct {
    gd_metric metric;
    double p;
} gd_distance;

/* 1 for the metrics every GPU variant computes (the Euclidean two; the
 * nearest neighbours' fused kernel computes these alone); the others run
 * on the 'cpu' variant, which 'auto' then chooses, except those of
 * gd_metric_on_tuned. */
static inline int gd_metric_on_gpu(gd_metric m) { return m == GD_EUCLIDEAN || m == GD_SQEUCLIDEAN; }
/* 1 for the metrics pdist's and pdist2's 'tuned' variant computes: every
 * one (correlation and spearman are cosine on prepared rows, seuclidean
 * and mahalanobis euclidean); 'auto' takes it for them. */
static inline int gd_metric_on_tuned(gd_metric m) { return m >= GD_EUCLIDEAN && m <= GD_JACCARD; }

/* D = pdist(X): X is n x d (observations in rows), D the 1 x n(n-1)/2
 * condensed vector in the statistics package's order ((2,1), (3,1), ...,
 * (n,1), (3,2), ...), each sum((x - y).^2), square-rooted for
 * GD_EUCLIDEAN. variant: "auto", "naive", "tiled", "tuned", "cpu". */
gd_status gd_pdist(const char *variant, const gd_matrix *X, gd_distance metric,
                   gd_out D, const gd_place *at, gd_timing *t);
int gd_pdist_variants(const gd_variant_info **list);

/* D = pdist2(X, Y): D(i,j) the distance of X(i,:) (mx x d) and Y(j,:)
 * (my x d), D mx x my. variant: "auto", "naive", "tuned", "cpu". */
gd_status gd_pdist2(const char *variant, const gd_matrix *X, const gd_matrix *Y,
                    gd_distance metric, gd_out D, const gd_place *at, gd_timing *t);
int gd_pdist2_variants(const gd_variant_info **list);

/* ---- nearest neighbours ------------------------------------------------ */

/* [D, I] = the K nearest rows of X (mx x d) to each row of Y (my x d):
 * column j of D (K x my) holds the K smallest distances from Y(j,:) to
 * the rows of X in ascending order, and I (K x my) their rows of X
 * (1-based, class icls: GD_DOUBLE or GD_INT32); with largest, the K
 * largest in descending order. The distances are gd_pdist2's, and the
 * order is that of a stable sort of its column j (sort (D(:,j)), or with
 * 'descend'): ties go to the smaller row, NaN sorts last ascending and
 * first descending. 1 <= K <= mx (K = 0 when mx = 0: empty results). D and I go where their gd_outs say
 * (both kept or both on the host). The full mx x my matrix is never
 * stored. With by_query, D and I are my x K instead, a row a query (the
 * orientation of knnsearch), written so by the kernel layer. variant:
 * "auto", "fused" (distance tiles selected as they are computed), "gemm",
 * "cpu". */
gd_status gd_knn(const char *variant, const gd_matrix *X, const gd_matrix *Y,
                 gd_distance metric, int64_t K, int largest, int by_query, gd_out D, gd_out I,
                 gd_class icls, const gd_place *at, gd_timing *t);
int gd_knn_variants(const gd_variant_info **list);

/* The rows of X (mx x d) within distance r (0 or more, Inf: all but NaN)
 * of each row of Y (my x d), by gd_pdist2's distances: N (my x 1 double)
 * the hits of each query, D (1 x sum (N), the computation's class) and I
 * (1 x sum (N), icls: GD_DOUBLE or GD_INT32, 1-based rows of X) each
 * query's hits in turn, by distance, ties to the smaller row (a stable
 * sort's order); a NaN distance is within no radius. D, I and N go to
 * the host. variant: "auto", "fused" (two passes of the distance tiles:
 * counts, then the hits in their places), "cpu". */
gd_status gd_range(const char *variant, const gd_matrix *X, const gd_matrix *Y,
                   gd_distance metric, double r, gd_out D, gd_out I, gd_class icls, gd_out N,
                   const gd_place *at, gd_timing *t);
int gd_range_variants(const gd_variant_info **list);

/* ---- shortest paths from sources (ops/sssp/) ---------------------------- */

/* A sparse n x n matrix in compressed columns, as Octave holds one: column
 * j's entries are vals[colptr[j] .. colptr[j + 1] - 1], in rows
 * rowidx[...] (0-based), vals of class cls (single or double). */
typedef struct {
    int64_t n;
    const int64_t *colptr, *rowidx;
    const void *vals;
    gd_class cls;
} gd_sparse;

/* [D, P] of gd_apsp (W, 'Sources', s): the shortest paths from each of the
 * ns sources (0-based) of a graph given by a dense W (W(i,j) the edge
 * i -> j, Inf none) or a sparse S (each stored entry an edge; one of W and
 * S is NULL). D (ns x n, W's class) the lengths, Inf where a vertex cannot
 * be reached; P (ns x n, pcls: GD_DOUBLE or GD_INT32; NULL: not asked) the
 * predecessors: row k is source k's tree, 0 at the source, NaN (int32: -1;
 * all_pairs: 0, the all-pairs P's) where a vertex cannot be reached. Ties: of the tight edges into j (D(q)
 * + W(q,j) == D(j) in the class) from the vertices one edge nearer the
 * source on tight edges, the smallest q. A negative cycle reachable from a
 * source fails with GD_ERR_NEGCYCLE (*cycle: a vertex on it, 1-based).
 * variant: "auto", "cpu" (Dijkstra, or label-correcting rounds where a
 * weight is negative, a source a thread). */
gd_status gd_sssp(const char *variant, const gd_matrix *W, const gd_sparse *S,
                  const int64_t *sources, int64_t ns, gd_out D, const gd_out *P, gd_class pcls,
                  int all_pairs, int64_t *cycle, const gd_place *at, gd_timing *t);
int gd_sssp_variants(const gd_variant_info **list);

/* Element-wise arithmetic (ops/ew/ew.cu), Octave's: R = A op B (op 0 +,
 * 1 -, 2 .*, 3 ./, 4 max, 5 min, 6 mod, 7 rem, 8 .^) with Octave's broadcasting, rcls the result's class by
 * Octave's rule (single: both floating; double: both double; an integer
 * class: with itself, or beside single or double but for int64 and
 * uint64), or R = op A (0 unary -, 1 abs, 2 sqrt, 3 floor, 4 ceil, 5 round,
 * 6 fix, 7 sign, 8 exp, 9 log, 10 log2, 11 log1p, 12 expm1, 13 sin, 14 cos,
 * 15 tanh; 8 on single or double alone) in A's class. On the device
 * where an operand is there (R kept where R.device is set), else on the
 * host, with the same arithmetic an element. */
gd_status gd_ew_binary(int op, const gd_matrix *A, const gd_matrix *B, gd_class rcls, gd_out R,
                       const gd_place *at, gd_timing *t);
gd_status gd_ew_unary(int op, const gd_matrix *A, gd_out R, const gd_place *at, gd_timing *t);
/* R = A op B, a logical result (bytes 0 or 1, GD_UINT8): op 0 ==, 1 ~=, 2 <, 3 <=, 4 >,
 * 5 >= (A and B of one class, or one floating and the other of any class: compared as
 * Octave compares them, single beside double in single, an integer class beside a floating
 * one by value, Octave's emulated comparison, ops/ew/arith.h), 6 &, 7 | (two logical) */
gd_status gd_ew_compare(int op, const gd_matrix *A, const gd_matrix *B, gd_out R,
                        const gd_place *at, gd_timing *t);
/* R = a test of each element of A, logical (GD_UINT8): op 0 isnan, 1
 * isinf, 2 isfinite, 3 logical (x != 0), 4 ~ (x == 0); 3 and 4 fail
 * (GD_ERR_INPUT) where an element is NaN, as Octave's */
gd_status gd_ew_test(int op, const gd_matrix *A, gd_out R, const gd_place *at, gd_timing *t);
/* gdArray's arrayfun in one pass (ops/ew/fuse.cu: the instructions): inputs of one size in
 * one place, single, double or logical; every step in cls; R in cls or logical (GD_UINT8);
 * *complex_flag where Octave's result would be complex (R refused) */
enum { GD_FUSE_MOST = 64, GD_FUSE_INPUTS = 8, GD_FUSE_CONSTS = 32, GD_FUSE_SLOTS = 4,
       GD_FUSE_UNARY = 16, GD_FUSE_CMP = 32, GD_FUSE_LOAD = 48, GD_FUSE_STORE = 49,
       GD_FUSE_NONE = 0, GD_FUSE_INPUT = 1, GD_FUSE_CONST = 2, GD_FUSE_SLOT = 3 };
typedef struct {
    int n, nk;
    signed char op[GD_FUSE_MOST], kind[GD_FUSE_MOST], arg[GD_FUSE_MOST], swap[GD_FUSE_MOST];
    double k[GD_FUSE_CONSTS];
} gd_fuse_program;
gd_status gd_ew_fused(const gd_fuse_program *prog, gd_class cls, int logical, const gd_matrix *in,
                      int nin, gd_out R, int *complex_flag, const gd_place *at, gd_timing *t);
/* R = A in class `to`, as Octave converts (to an integer class rounded to
 * the nearest, halves away from zero, saturated, NaN 0) */
gd_status gd_ew_convert(const gd_matrix *A, gd_class to, gd_out R, const gd_place *at,
                        gd_timing *t);
/* R = the reduction of A along dim (1: each column, a 1 x n result; 2:
 * each row): op 0 sum, 1 prod (in single for single, else in double, in
 * order), 2 max, 3 min (A's class; I, where not NULL, the first extreme's
 * place, 1-based, double; NaN skipped unless all are) */
gd_status gd_ew_reduce(int op, const gd_matrix *A, int dim, gd_out R, gd_out *I,
                       const gd_place *at, gd_timing *t);
/* (op 4 of gd_ew_reduce: the count of elements that are not 0, double;
 * 5 any and 6 all, logical (GD_UINT8).)
 * R = the cumulative sums (op 0) or products (1) of A along dim, in order,
 * in single for single and in double otherwise (gdArray's cumsum, cumprod) */
gd_status gd_ew_scan(int op, const gd_matrix *A, int dim, gd_out R, const gd_place *at,
                     gd_timing *t);
/* R = A with R(I[k]) = X(k) (ops/ew/place.cu): I n distinct linear
 * positions (0-based, within A), X of A's class, one value or n
 * (gdArray's assignment) */
gd_status gd_ew_assign(const gd_matrix *A, const int64_t *I, int64_t n, const gd_matrix *X,
                       gd_out R, const gd_place *at, gd_timing *t);
/* R = triu (A, k) (upper) or tril (A, k): A(i, j) where j - i >= k (<= k),
 * else 0 */
gd_status gd_ew_tri(const gd_matrix *A, int64_t k, int upper, gd_out R, const gd_place *at,
                    gd_timing *t);
/* R = rows x cols of value (as class cls holds a double), on the device
 * where R.device is set */
gd_status gd_ew_fill(gd_class cls, int64_t rows, int64_t cols, double value, gd_out R,
                     const gd_place *at, gd_timing *t);
/* R = the n parts side by side (dim 2) or one above another (dim 1), all
 * of R's class (gdArray's horzcat, vertcat and cat) */
gd_status gd_ew_cat(const gd_matrix *const *parts, int n, int dim, gd_out R, const gd_place *at,
                    gd_timing *t);

/* The K best of np parts' lists a query by (key, row) (gdCodistributed's
 * neighbours): D and I the sorted lists side by side, part p's lens[p] a
 * query, its rows (I, 1-based) after first[p]; by_query: a query a row,
 * else a column. Do, Io alike, I's class kept; all tight, on the host or
 * a device (results kept there). */
gd_status gd_knn_merge(const gd_matrix *D, const gd_matrix *I, int64_t K, int np,
                       const int64_t *lens, const int64_t *first, int largest, int by_query,
                       gd_out Do, gd_out Io, const gd_place *at, gd_timing *t);

/* ---- MPI (runtime/mpi.c): the ranks of a job, libmpi loaded at run time - */
enum { GD_MPI_MOST = 4096 };
/* whether a launcher (mpirun, srun) started this process */
int gd_mpi_launched(void);
/* MPI joined where a launcher started the process (else one rank of one) */
gd_status gd_mpi_join(void);
int gd_mpi_rank(void); /* 0-based; 0 outside a job */
int gd_mpi_size(void); /* 1 outside a job */
/* what was found, for gd_info: the MPI library's version line, or why none */
const char *gd_mpi_found(void);
/* 1 + the first rank known to have left the job (its Octave ended), 0
 * while none has: a wait polls it so as not to wait for ever */
int gd_mpi_left(void);
/* collectives on host memory, every rank calling (nothing outside a job) */
gd_status gd_mpi_barrier(void);
gd_status gd_mpi_bcast(void *buf, size_t bytes, int root);
/* Groups of ranks (MPI_Comm_split of the job): every rank calls
 * gd_mpi_group at once with its color and key; *group is then the group
 * of the ranks of its color, ordered by key, and *rank and *size its
 * place and count in it (outside a job: 0, 0, 1). gd_mpi_bcast_in is
 * gd_mpi_bcast among a group's ranks alone (root: the rank in the group,
 * 0-based), every rank of the group calling. */
enum { GD_MPI_GROUPS = 64 };
gd_status gd_mpi_group(int color, int key, int *group, int *rank, int *size);
gd_status gd_mpi_bcast_in(void *buf, size_t bytes, int root, int group);
/* the color and key group was made with (0: no such group) */
int gd_mpi_group_made(int group, int *color, int *key);
gd_status gd_mpi_allgather(const void *mine, size_t bytes, void *all);
/* counts[r] bytes from rank r into all, in rank order: on root, or on
 * every rank where every */
gd_status gd_mpi_gatherv(const void *mine, size_t bytes, void *all, const size_t *counts,
                         int root, int every);
/* MPI left, where gd joined it (the gateway's exit) */
void gd_mpi_end(void);

/* ---- NCCL (runtime/nccl.cu): device data between the ranks -------------
 * libnccl.so.2 loaded at run time. One communicator joins the ranks of
 * the job, each on its device index 0 (the first GPU it sees): rank 0
 * makes the id, MPI carries it (gd_mpi_bcast); a group of gd_mpi_group
 * has its own communicator, split from that one when first used. The
 * collectives below are called by every rank of the job (or of the
 * group) at once, as MPI's are; a wait polls for a rank that has left
 * and for Ctrl-C, and then aborts NCCL, so that no rank waits for
 * ever. */
/* what was found, for gd_info: "NCCL 2.28.9 (libnccl.so.2)", or why none */
const char *gd_nccl_found(void);
/* Whether the job's ranks can move device data by NCCL (every rank
 * calling at once): NCCL loaded and joined on every rank, each rank on a
 * GPU of its own (NCCL refuses two ranks on one GPU). 0 with *why said
 * where not (the same answer on every rank); a job of one rank: 1. */
int gd_nccl_ready(char *why, size_t len);
/* root's R (rows x cols, cls, on root's device index 0) into R on every
 * rank of group (-1: the job), root its rank there; R is a resident
 * result made on each rank but root, which passes its own (out unused) */
gd_status gd_nccl_bcast(const gd_matrix *mine, int root, int group, int64_t rows,
                        int64_t cols, gd_class cls, gd_out R, const gd_place *at, gd_timing *t);
/* every rank's part of group (-1: the job) concatenated in the group's
 * order along dim (1: rows, 2: columns): ext[r] the extent of rank r's
 * part along dim, the other extent common (other), R a new resident
 * result on every rank */
gd_status gd_nccl_cat(const gd_matrix *mine, int dim, const int64_t *ext, int64_t other,
                      int group, gd_out R, const gd_place *at, gd_timing *t);
/* the communicators ended (the gateway's exit) */
void gd_nccl_end(void);

/* ---- CPU implementations (cpu.c) -------------------------------------- */

/* min-plus; with K (else NULL) also the witness, k + 1 of each minimum
 * (int32, m x n) */
void gd_cpu_minplus_f(const float *A, const float *B, float *R, int32_t *K, int64_t m,
                      int64_t k, int64_t n);
void gd_cpu_minplus_d(const double *A, const double *B, double *R, int32_t *K, int64_t m,
                      int64_t k, int64_t n);
/* min-plus on an integer class (both operands), Octave's saturating sums;
 * K (int32, or NULL) the first k + 1 of each minimum; k == 0: the class's
 * largest value, K = 0. -1 for a class that is not an integer one. */
int gd_cpu_minplus_int(gd_class cls, const void *A, const void *B, void *R, int32_t *K,
                       int64_t m, int64_t k, int64_t n);
/* The threads of gd's CPU loops and staging copies: OpenMP's, or 1 when
 * OMP_STACKSIZE is too small (gd_cpu_note then says so, else ""). */
int gd_cpu_threads(void);
const char *gd_cpu_note(void);
/* R (n x m) = A' for A m x n (leading dimension lda) of es (1, 2, 4 or 8)
 * bytes an element, in cache tiles on gd's threads */
void gd_cpu_transpose(size_t es, const void *A, int64_t lda, int64_t m, int64_t n, void *R);
void gd_cpu_pdist_f(const float *X, int64_t n, int64_t d, int root, float *D);
void gd_cpu_pdist_d(const double *X, int64_t n, int64_t d, int root, double *D);
void gd_cpu_pdist2_f(const float *X, const float *Y, int64_t mx, int64_t my,
                     int64_t d, int root, float *D);
void gd_cpu_pdist2_d(const double *X, const double *Y, int64_t mx, int64_t my,
                     int64_t d, int root, double *D);
/* The other metrics (gd_metric), pdist's condensed D and pdist2's D; -1
 * where host memory for the rows' norms or NaN flags is lacking. */
int gd_cpu_pdist_metric_f(gd_distance m, const float *X, int64_t n, int64_t d, float *D);
int gd_cpu_pdist_metric_d(gd_distance m, const double *X, int64_t n, int64_t d, double *D);
int gd_cpu_pdist2_metric_f(gd_distance m, const float *X, const float *Y, int64_t mx,
                           int64_t my, int64_t d, float *D);
int gd_cpu_pdist2_metric_d(gd_distance m, const double *X, const double *Y, int64_t mx,
                           int64_t my, int64_t d, double *D);
/* The K nearest (largest: farthest) rows of X for each row of Y, as
 * gd_knn defines them, into D and I (K x my, I 1-based rows of X), any
 * metric. K <= mx. Returns -1 when host memory for the threads' columns
 * is lacking. */
int gd_cpu_knn_f(const float *X, const float *Y, int64_t mx, int64_t my, int64_t d,
                 gd_distance m, int64_t K, int largest, float *D, int32_t *I);
int gd_cpu_knn_d(const double *X, const double *Y, int64_t mx, int64_t my, int64_t d,
                 gd_distance m, int64_t K, int largest, double *D, int32_t *I);
/* Blocked Floyd-Warshall in place on the n x n D (ld n), with the
 * predecessors P (int32, 1-based, or NULL) updated as P(i,j) = P(k,j).
 * Returns -1 when host memory for the paths' edge counts is lacking. */
int gd_cpu_fw_f(float *D, int32_t *P, int64_t n);
int gd_cpu_fw_d(double *D, int32_t *P, int64_t n);
/* P's rows made shortest-path trees: row r of P (ld ldp, 1-based) and of D
 * (ld ldd) source i0 + r's, W (ld ldw) all n x n; a row not all leading
 * back to its source is chosen again by levels (trees.cuh says how),
 * *repaired counting them. -1 when host memory is lacking. */
int gd_cpu_apsp_trees_f(const float *D, int64_t ldd, const float *W, int64_t ldw, int32_t *P,
                        int64_t ldp, int64_t n, int64_t i0, int64_t rows, int64_t *repaired);
int gd_cpu_apsp_trees_d(const double *D, int64_t ldd, const double *W, int64_t ldw, int32_t *P,
                        int64_t ldp, int64_t n, int64_t i0, int64_t rows, int64_t *repaired);
/* Shortest paths from the sources src (ns of them, 0-based) on the graph
 * of n vertices whose edges are W's entries in compressed columns (cp,
 * ri, val: Octave's sparse layout, column j the edges into j): D (ns x n,
 * ld ns) the lengths, P (ns x n, int32, or NULL) the predecessors,
 * 1-based, 0 at the source, -1 where a vertex cannot be reached. Returns
 * 0; 1 for a negative cycle reachable from a source (*cycle: a vertex on
 * it, 1-based); -1 when host memory is lacking; -2 when interrupted. */
int gd_cpu_sssp_f(int64_t n, const int64_t *cp, const int64_t *ri, const float *val,
                  const int64_t *src, int64_t ns, float *D, int32_t *P, int64_t *cycle);
int gd_cpu_sssp_d(int64_t n, const int64_t *cp, const int64_t *ri, const double *val,
                  const int64_t *src, int64_t ns, double *D, int32_t *P, int64_t *cycle);
/* All-pairs shortest paths on an integer class: W (n x n, ld ldw) to D
 * and, where P, the predecessors (1-based, 0 for none); the class's
 * largest value is no edge (and no path); sums saturate. 0; 2 for a
 * negative W(i,i), 1 for a longer negative cycle (*cycle a vertex on it,
 * 1-based); -1 when host memory cannot be had. */
int gd_cpu_apsp_int(gd_class cls, const void *W, int64_t ldw, void *D, int32_t *P, int64_t n,
                    int64_t *cycle);
/* C = A*B by the host's BLAS (sgemm or dgemm by cls), as Octave computes it */
gd_status gd_cpu_gemm(gd_class cls, const void *A, const void *B, void *C, int64_t m,
                      int64_t k, int64_t n);

/* Ctrl-C (runtime/interrupt.c): pending() says whether the user asked to
 * stop; the host loops ask gd_interrupted() between units of work and
 * leave the rest undone (partial results the caller discards). */
void gd_set_interrupt_check(int (*pending)(void));
int gd_interrupted(void);
/* Progress (runtime/interrupt.c): the host loops say how far they are
 * (what: "round"; done of total); report, where set, decides whether to
 * show it (GD_VERBOSE, mex/gd_mex.c). */
void gd_set_progress(void (*report)(const char *what, double done, double total));
void gd_progress(const char *what, double done, double total);

/* Settings: the environment variables gd reads, all read in
 * runtime/settings.c when asked (never cached). */
typedef enum {
    GD_SET_DEVICES,
    GD_SET_GPU_MEM_LIMIT,
    GD_SET_STAGE,
    GD_SET_PREFAULT,
    GD_SET_MEMPOOL,
    GD_SET_BLOCKS,
    GD_SET_SPLIT,
    GD_SET_SPLIT_SUM,
    GD_SET_BY_TILE,
    GD_SET_CHAIN,
    GD_SET_KNN_UNITS,
    GD_SET_SHARE,
    GD_SET_POISON,
    GD_SET_SIM_DEVICES,
    GD_SET_OMP_STACKSIZE,
    GD_SET_VERBOSE,
    GD_SET_MPI_RANKS,
    GD_SET_PMIX_RANK,
    GD_SET_LOCAL_RANK,
    GD_SET_LOCAL_SIZE,
    GD_SET_RANK_DEVICES,
    GD_SET_SSSP_DELTA,
    GD_SET_SSSP_ORDER,
    GD_SET_NVRTC,
    GD_NSETTINGS
} gd_setting;
/* the variable's name ("GD_DEVICES") and what it does */
const char *gd_setting_name(gd_setting s);
const char *gd_setting_what(gd_setting s);
/* its value, NULL where it is not set */
const char *gd_setting_text(gd_setting s);
/* whether it is set to exactly value ("0": the setting that turns a thing off) */
int gd_setting_is(gd_setting s, const char *value);
/* a setting that is a whole decimal number in [lo, hi]: 1 and *out where
 * it holds one, 0 where it is unset or empty, -1 where it holds anything
 * else (the caller then goes on as if unset) */
int gd_setting_int(gd_setting s, long lo, long hi, long *out);
/* whether a setting holds a value its reader ignores (GD_BLOCKS,
 * GD_SPLIT, GD_KNN_UNITS, GD_SIM_DEVICES, GD_VERBOSE, GD_GPU_MEM_LIMIT;
 * the gateway warns gd:settings, once a value) */
int gd_setting_malformed(gd_setting s);
/* the most blocks a side of a product (GD_BLOCKS), the most units of X's upload (GD_KNN_UNITS) */
enum { GD_MAX_SIDE = 8 };
/* whether GD_GPU_MEM_LIMIT is set and is neither bytes nor i:bytes,... */
int gd_mem_limit_malformed(void);

#ifdef __cplusplus
}
#endif
#endif
