/* gd_mex.h - what every gd gateway shares: argument checks, name/value
 * options, the info struct and error ids. No CUDA here: kernels/gd.h is the
 * only interface to the kernels. */
#ifndef GD_MEX_H
#define GD_MEX_H

#include "mex.h"
#include "gd.h"

/* Raises id with "fn: message"; never returns. */
void gd_mex_error(const char *fn, const char *id, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4), noreturn))
#endif
    ;

/* Raises the error of a failed kernel-layer call (its id and message). */
void gd_mex_fail(const char *fn, gd_status s)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;

/* Checks that a is a real, full, 2-D single or double matrix; raises
 * gd:input naming the argument otherwise. */
void gd_mex_check_matrix(const char *fn, const char *argname, const mxArray *a);

/* The operands of a product gateway: A and B (prhs[0], prhs[1]), or with
 * square_alone, A alone standing for A (x) A. Checks classes and shapes
 * and the inner dimensions; *first receives the index of the first
 * name/value option, *cls the class to compute in (single when either is
 * single, unless force_single). */
typedef struct {
    const mxArray *A, *B;
    int64_t m, k, n;
    int first;
    gd_class cls;
} gd_mex_operands;
void gd_mex_get_operands(const char *fn, int nrhs, const mxArray *prhs[],
                         int square_alone, gd_mex_operands *o);

/* The elements of the n arrays a[] as the class cls, into p[]: an array's
 * own data when it already is of that class, else a converted copy (an
 * array passed twice is converted once). Never modifies a[i]. Raises
 * gd:memory, having freed its copies, when one cannot be allocated;
 * gd_mex_free_inputs frees them. */
void gd_mex_inputs(const char *fn, int n, const mxArray *const a[], gd_class cls,
                   const void *p[]);
void gd_mex_free_inputs(int n, const mxArray *const a[], gd_class cls, const void *p[]);

/* 1 when a is a character row vector equal (case-insensitively) to s,
 * whole (no NUL inside). */
int gd_mex_is_string(const mxArray *a, const char *s);

/* Name/value options after the operands. Every option a gateway knows is
 * listed in names; values[i] receives the value of names[i] (or stays as
 * given when absent). Raises gd:input on an odd count, a non-text name or
 * an unknown name. */
void gd_mex_options(const char *fn, int nrhs, const mxArray *prhs[],
                    int first, int nnames, const char *const names[],
                    const mxArray *values[]);

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
 * kernel time), rate_unit and gpu_bytes (device memory the call held). */
mxArray *gd_mex_info(const gd_timing *t, gd_class cls, const char *rate_unit,
                     int nsize, const int64_t *size);

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

/* The metric argument of pdist/pdist2 (a string); raises gd:input for an
 * unknown one, one of the statistics package's that gd lacks, or a
 * function handle, naming the metrics gd has. */
gd_metric gd_mex_metric(const char *fn, const mxArray *a);

/* Warns once per Octave session (not per gateway) with id gd:nogpu when t
 * says 'auto' fell back, and with gd:threads when the CPU loops run on
 * one thread for want of stack (gd_cpu_note). */
void gd_mex_warn_fallback(const char *fn, const gd_timing *t);

/* Registers gd_release with mexAtExit. */
void gd_mex_init(void);

#endif
