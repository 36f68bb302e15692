/* gd_mex.h - what gd's gateway (__gd__.c and the op_*.c it dispatches to)
 * shares: argument checks, operands that are Octave matrices or gdArrays,
 * results that are Octave matrices or new gdArrays, the table of live
 * gdArrays, name/value options, the info struct and error ids. No CUDA
 * here: kernels/gd.h is the only interface to the kernels.
 *
 * One gateway, octave/private/__gd__.mex, serves every function: its
 * first argument names the operation. The table of gdArrays, the kernel
 * layer's streams, staging buffers and library handles are C statics, and
 * one .mex file means one copy of them. */
#ifndef GD_MEX_H
#define GD_MEX_H

#include "mex.h"
#include "gd.h"

/* A class's name as Octave's class() gives it, and its elements in an
 * mxArray of that class. */
const char *gd_mex_class_name(gd_class c);
/* What an argument is, for messages: "a cell array", "char", "int8" ... */
const char *gd_mex_class_label(const mxArray *a);
void *gd_mex_data(const mxArray *a);

/* Raises id with "fn: message"; never returns. */
void gd_mex_error(const char *fn, const char *id, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4), noreturn))
#endif
    ;

/* Raises the error of a failed kernel-layer call (its id and message;
 * gd_array.c, which adds what live gdArrays hold where memory ran out). */
void gd_mex_fail(const char *fn, gd_status s)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;

/* Checks that a is a real, full, 2-D single or double matrix; raises
 * gd:input naming the argument otherwise. */
void gd_mex_check_matrix(const char *fn, const char *argname, const mxArray *a);
/* The same without the class: full, real, 2-D. */
void gd_mex_check_shape(const char *fn, const char *argname, const mxArray *a);

/* 1 when a is a character row vector equal (case-insensitively) to s,
 * whole (no NUL inside). */
int gd_mex_is_string(const mxArray *a, const char *s);

/* Name/value options after the operands. Every option a gateway knows is
 * listed in names (its one list: the parser's and the unknown-option
 * message's, which docs.bats holds the help to); values[i] receives the
 * value of names[i] (or stays as given when absent). A name written
 * "=P" is the .m wrapper's to pass (minkowski's exponent, which the user
 * gives after the metric): taken as "P", left out of the message. Raises
 * gd:input on an odd count, a non-text name or an unknown name. */
void gd_mex_options(const char *fn, int nrhs, const mxArray *prhs[],
                    int first, int nnames, const char *const names[],
                    const mxArray *values[]);

/* Every operation's option 'Devices' (gd_mex_options takes it whatever
 * the operation): 'all' or a vector of indices from 1; names them in the
 * call's place (gd_mex_place) or raises gd:input. Each call starts from
 * the default (GD_DEVICES; gd_mex_home_reset). */
void gd_mex_devices_option(const char *fn, const mxArray *v);
/* Every operation's option 'Distributed' (true or false, default false):
 * a resident result of a call divided over devices stays where each
 * device computed its columns (a distributed gdArray); 1 when given
 * true in this call. */
int gd_mex_distributed(void);

/* The call's place (gd_place): its device, gd_mex_home_reset at each
 * call's start (device 1); gd_mex_home(dev, 0) for each gdArray operand
 * (the first one's device wins), gd_mex_home(dev, 1) for a 'Devices' list
 * (its first device, over any gdArray's); the devices it divides over,
 * 'Devices'. A resident result is registered on the call's device. */
void gd_mex_home_reset(void);
void gd_mex_home(int dev, int from_list);
const gd_place *gd_mex_place(void);
/* a zeroed report for the kernel layer's calls (their place: gd_mex_place) */
gd_timing gd_mex_timing(void);

/* The text of a string option, lower-cased into buf. */
void gd_mex_option_string(const char *fn, const char *optname,
                          const mxArray *v, char *buf, size_t len);

/* Checks a variant name against the table ('auto' always valid); raises
 * gd:variant listing the valid names. */
void gd_mex_check_variant(const char *fn, const char *name, int count,
                          const gd_variant_info *list);

/* fn('variants'): when that is the call, answers it (the table as a
 * struct array, or printed with no output) and returns 1; else checks
 * that at most max_out outputs are asked for and returns 0. */
int gd_mex_variants_call(const char *fn, int nlhs, mxArray *plhs[], int nrhs,
                         const mxArray *prhs[], int max_out, int count,
                         const gd_variant_info *list);

/* The variant table as a struct array (name, note, gpu); with nargout 0
 * it prints the table instead and returns NULL. */
mxArray *gd_mex_variants(const char *fn, int nargout, int count,
                         const gd_variant_info *list);

/* The info struct of a call: variant, device, class, size, upload_ms,
 * prep_ms, kernel_ms, download_ms, total_ms, ops, rate (ops per second of
 * kernel time), rate_unit, gpu_bytes (device memory the call held),
 * resident (for each of the noperands operands: whether it was on the
 * device already) and kept (whether the result stayed there). */
mxArray *gd_mex_info(const gd_timing *t, gd_class cls, const char *rate_unit,
                     int nsize, const int64_t *size, int noperands);

/* An output matrix that Octave will not copy on return. A MEX output
 * made with mxCreate* is copied element by element into a new Octave
 * array when the gateway returns (Octave builds without the polymorphic
 * allocator that would let it borrow the buffer): for a 256 MiB result
 * that copy, into fresh pages, costs more than the GPU's work. An array
 * made by Octave's own zeros() (through mexCallMATLAB) is returned as it
 * is, so gd writes the result straight into it. gd_mex_out_alloc is a
 * gd_host_alloc: it makes the array when the kernel layer asks for it. */
typedef struct {
    size_t m, n;
    gd_class cls;
    mxArray *array; /* set by gd_mex_out_alloc */
} gd_mex_out;
void *gd_mex_out_alloc(void *ctx, size_t bytes);
/* n for gd_mex_output: as many columns as the kernel layer's bytes hold */
#define GD_MEX_FROM_BYTES ((size_t)-1)
gd_out gd_mex_output(gd_mex_out *o, size_t m, size_t n, gd_class cls);
/* A gdArray's elements (m, where they are) as an Octave matrix of their
 * class; a failure is fn's error. */
mxArray *gd_mex_download(const char *fn, const gd_matrix *m);

/* ---- gdArrays (gd_array.c) ---- */

/* 1 when a is a gdArray object. */
int gd_mex_is_gdarray(const mxArray *a);
/* The gd class of an integer mxArray (GD_INT8 ... GD_UINT64), or -1. */
int gd_mex_int_class(const mxArray *a);
/* The 'Variant' (into variant) and 'IndexClass' options of an
 * integer-class call: 'auto', 'cpu' and the GPU variant gpu (NULL: none)
 * run the integer classes, another variant raises gd:variant; 1 when the
 * index is int32. */
int gd_mex_int_options(const char *fn, int nrhs, const mxArray *prhs[], int first, int count,
                       const gd_variant_info *list, const char *gpu, char variant[32]);
/* a's table entry: NULL when a is no gdArray or its id names no live one */
const gd_matrix *gd_mex_find_array(const mxArray *a);
/* 1 when a is a logical gdArray (held as GD_UINT8 bytes of 0 and 1; only
 * gdArray's own operations take one: another operation refuses it, as it
 * refuses a logical matrix) */
int gd_mex_is_logical_array(const mxArray *a);

/* An operand: an Octave matrix (checked as gd_mex_check_matrix does; its
 * own elements, never copied here) or a gdArray (looked up in the table:
 * gd:stale when its id is not a live one). *gdarray: 1 for a gdArray. */
void gd_mex_operand(const char *fn, const char *argname, const mxArray *a, gd_matrix *out,
                    int *gdarray);
/* The same taking integer Octave matrices too (the caller checks which
 * classes its operation takes). */
/* element i of a real numeric array, as a double (NaN for another class) */
double gd_mex_scalar_at(const mxArray *v, size_t i);
/* The options 'Variant' (checked against list) and 'IndexClass' ('double'
 * or 'int32', returned as its class) from prhs[first] on */
gd_class gd_mex_variant_index(const char *fn, int nrhs, const mxArray *prhs[], int first,
                              int count, const gd_variant_info *list, char *variant,
                              size_t len);
void gd_mex_operand_int(const char *fn, const char *argname, const mxArray *a, gd_matrix *out,
                        int *gdarray);

/* Raises gd:input when m is of a class the operation fn does not take
 * (an int32 gdArray: an index result). */
void gd_mex_check_float(const char *fn, const char *argname, const gd_matrix *m);

/* The operands of a product: A and B (prhs[0], prhs[1]), or with
 * square_alone, A alone standing for A (x) A. Checks classes and shapes
 * and the inner dimensions; first receives the index of the first
 * name/value option, cls the class to compute in (single when either is
 * single), resident whether either is a gdArray. */
typedef struct {
    gd_matrix A, B;
    int64_t m, k, n;
    int first;
    gd_class cls;
    int resident;
} gd_mex_operands;
void gd_mex_get_operands(const char *fn, int nrhs, const mxArray *prhs[],
                         int square_alone, gd_mex_operands *o);
/* The same where the integer classes are operands too (gd_minplus): two
 * operands of one integer class, Octave matrices or gdArrays; an integer
 * beside a floating operand, or two integer classes, are the kernel
 * layer's to refuse (it says to cast). */
void gd_mex_get_operands_int(const char *fn, int nrhs, const mxArray *prhs[],
                             int square_alone, gd_mex_operands *o);

/* A result: an Octave matrix, or (resident) a new gdArray, on the device
 * when on_device, else held in host memory (no GPU). gd_mex_result_out
 * gives the kernel layer's gd_out for it; gd_mex_result_take the value to
 * return when the call succeeded (the array, or the gdArray object
 * wrapping the new table entry), or after a failure frees what the call
 * made and raises its error. */
typedef struct {
    gd_mex_out host;
    int resident, on_device;
    gd_class cls;
    int64_t m, n;     /* n may be GD_MEX_FROM_BYTES for a host result */
    void *dev;        /* the kept device allocation */
    void *buf;        /* the host buffer of a host-held gdArray */
    size_t buf_bytes;
    gd_pieces pieces; /* a distributed result's pieces ('Distributed') */
    int logical;      /* a logical gdArray (its bytes 0 or 1, GD_UINT8) */
} gd_mex_result;
gd_out gd_mex_result_out(gd_mex_result *r, int resident, int on_device, size_t m, size_t n,
                         gd_class cls);
mxArray *gd_mex_result_take(const char *fn, gd_mex_result *r, gd_status s);
/* The outputs of a call with an optional second result (min-plus's
 * witness, shortest paths' predecessors): plhs[0] from first and, when
 * second is not NULL, plhs[1] from it; else with nlhs > 1 plhs[1] is []
 * (the output was asked for as ~). On failure both are freed and the
 * error raised. */
void gd_mex_take_pair(const char *fn, int nlhs, mxArray *plhs[], gd_mex_result *first,
                      gd_mex_result *second, gd_status s);
/* frees what a result holds (a call's result that is not returned) */
void gd_mex_result_free(gd_mex_result *r);
/* Where a resident result of these operands lives: on the device when
 * any operand is a gdArray there. */
int gd_mex_on_device(int n, const gd_matrix *const ops[]);

/* The table of live gdArrays: each entry owns device memory (or, with no
 * GPU, host memory). An id is the entry's slot and its generation, which
 * starts at a random value each time the gateway is loaded: an id from
 * before a reload, of a freed entry or made up matches no live entry. */
double gd_reg_add(void *ptr, int on_device, gd_class cls, int64_t rows, int64_t cols);
/* the same for a distributed matrix: the entry owns the pieces from then
 * on (P->n is 0 after) */
double gd_reg_add_pieces(gd_pieces *P, gd_class cls, int64_t rows, int64_t cols);
/* the entry's matrix, or NULL when id names no live entry */
const gd_matrix *gd_reg_find(double id);
/* the entry is held by a gdArray object (the constructor's upload): no
 * later claim of its id (gd_op_claim, gdArray's wrap form) succeeds */
void gd_reg_held(double id);
/* marks the entry of id a logical array */
void gd_reg_set_logical(double id);
/* frees a live entry's memory; 0 when id names none (not an error) */
int gd_reg_free(double id);
void gd_reg_free_all(void);
/* live entries and the bytes they hold */
void gd_reg_stats(double *count, double *bytes);
/* a new gdArray object for the live entry id (freed again, and the error
 * raised, when Octave cannot make the object) */
mxArray *gd_mex_wrap(const char *fn, double id);


/* The metric argument of pdist/pdist2 (a string); raises gd:input for an
 * unknown one, one of the statistics package's that gd lacks, or a
 * function handle, naming the metrics gd has. */
gd_metric gd_mex_metric(const char *fn, const mxArray *a);

/* After a call that succeeded: warns once per Octave session (not per
 * gateway) with id gd:nogpu when t says 'auto' fell back, and with
 * gd:threads when the CPU loops run on one thread for want of stack
 * (gd_cpu_note); with GD_VERBOSE set, prints the call's line (fn, the
 * variant, the device, the times). */
void gd_mex_after_call(const char *fn, const gd_timing *t);

/* The start of an operation op (__gd__.c): the clock of GD_VERBOSE's
 * progress lines starts, on this (Octave's) thread. */
void gd_mex_call_begin(const char *op);

/* Registers the gateway's exit (every gdArray freed, then gd_release)
 * with mexAtExit, and Octave's pending interrupt as the kernel layer's
 * Ctrl-C (gd_array.c: an interrupted call's results are discarded and
 * the interrupt raised). gd_mex.c calls nothing in gd_array.c;
 * gd_array.c builds on gd_mex.c's checks and errors. */
void gd_mex_init(void);

/* The operations of the gateway (op_*.c): the arguments after the
 * operation's name. */
typedef void gd_mex_op(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
gd_mex_op gd_op_minplus, gd_op_minplus_info, gd_op_sgemm, gd_op_dgemm, gd_op_pdist, gd_op_pdist2, gd_op_info,
    gd_op_upload, gd_op_gather, gd_op_free, gd_op_transpose, gd_op_squareform,
    gd_op_index,
    gd_op_describe, gd_op_device, gd_op_on_gpu, gd_op_claim, gd_op_apsp, gd_op_apsp_info, gd_op_apsp_trees, gd_op_apsp_ranks, gd_op_apsp_chain, gd_op_row, gd_op_knn,
    gd_op_knnsearch, gd_op_spmd, gd_op_rangesearch, gd_op_range, gd_op_sssp, gd_op_sssp_all, gd_op_knn_merge, gd_op_ew2, gd_op_ew1, gd_op_convert, gd_op_cat, gd_op_reduce, gd_op_scan, gd_op_cmp, gd_op_test, gd_op_assign, gd_op_tri, gd_op_fill,
    gd_op_fuse;

#endif
