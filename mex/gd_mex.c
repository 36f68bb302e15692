/* gd_mex.c - shared helpers of the gd gateways (see gd_mex.h). */
#include "gd_mex.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gd_mex_error(const char *fn, const char *id, const char *fmt, ...)
{
    char msg[1200];
    int n = snprintf(msg, sizeof msg, "%s: ", fn);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    /* through Octave's error(struct): mexErrMsgIdAndTxt would prefix the
     * gateway's name (__gd_minplus__) to a message that already names the
     * user's function */
    const char *fields[] = {"message", "identifier"};
    mxArray *e = mxCreateStructMatrix(1, 1, 2, fields);
    mxSetField(e, 0, "message", mxCreateString(msg));
    mxSetField(e, 0, "identifier", mxCreateString(id));
    mexCallMATLAB(0, NULL, 1, &e, "error");
    mexErrMsgIdAndTxt(id, "%s", msg); /* not reached: error() unwinds */
    for (;;) {}
}

void gd_mex_fail(const char *fn, gd_status s)
{
    gd_mex_error(fn, gd_status_id(s), "%s", gd_last_error());
}

static const char *class_label(const mxArray *a)
{
    if (mxIsCell(a)) return "a cell array";
    if (mxIsStruct(a)) return "a struct";
    if (mxIsChar(a)) return "char";
    if (mxIsLogical(a)) return "logical";
    if (mxIsFunctionHandle(a)) return "a function handle";
    return mxGetClassName(a);
}

void gd_mex_check_matrix(const char *fn, const char *argname, const mxArray *a)
{
    if (!(mxIsSingle(a) || mxIsDouble(a)))
        gd_mex_error(fn, "gd:input",
                     "%s must be a single or double matrix, not %s", argname,
                     class_label(a));
    if (mxIsSparse(a))
        gd_mex_error(fn, "gd:input", "%s must be a full matrix, not sparse "
                     "(use full(%s))", argname, argname);
    if (mxIsComplex(a))
        gd_mex_error(fn, "gd:input", "%s must be real, not complex", argname);
    if (mxGetNumberOfDimensions(a) != 2)
        gd_mex_error(fn, "gd:input", "%s must be a 2-D matrix, not %d-D",
                     argname, (int)mxGetNumberOfDimensions(a));
}

void gd_mex_get_operands(const char *fn, int nrhs, const mxArray *prhs[],
                         int square_alone, gd_mex_operands *o)
{
    if (nrhs == 0)
        gd_mex_error(fn, "gd:input", "expected %s (see help %s)",
                     square_alone ? "a matrix A, or A and B" : "matrices A and B", fn);
    o->A = o->B = prhs[0];
    gd_mex_check_matrix(fn, "A", o->A);
    o->first = 1;
    if (nrhs >= 2 && !mxIsChar(prhs[1])) {
        o->B = prhs[1];
        gd_mex_check_matrix(fn, "B", o->B);
        o->first = 2;
        if (nrhs >= 3 && !mxIsChar(prhs[2]))
            gd_mex_error(fn, "gd:input", "too many input arguments: expected "
                         "A, B and name/value options");
    } else if (!square_alone) {
        gd_mex_error(fn, "gd:input", "expected matrices A and B");
    } else if (mxGetM(o->A) != mxGetN(o->A)) {
        gd_mex_error(fn, "gd:size", "with one argument A must be square, "
                     "not %dx%d (use %s(A, B))", (int)mxGetM(o->A),
                     (int)mxGetN(o->A), fn);
    }
    o->m = (int64_t)mxGetM(o->A);
    o->k = (int64_t)mxGetN(o->A);
    o->n = (int64_t)mxGetN(o->B);
    if ((int64_t)mxGetM(o->B) != o->k)
        gd_mex_error(fn, "gd:size", "inner dimensions must agree: A is "
                     "%lldx%lld, B is %lldx%lld", (long long)o->m, (long long)o->k,
                     (long long)mxGetM(o->B), (long long)o->n);
    /* single wins, as in Octave: each double operand is converted first */
    o->cls = (mxIsSingle(o->A) || mxIsSingle(o->B)) ? GD_SINGLE : GD_DOUBLE;
}

const void *gd_mex_data_as(const mxArray *a, gd_class cls)
{
    size_t count = mxGetNumberOfElements(a);
    if (cls == GD_SINGLE && mxIsSingle(a)) return mxGetSingles(a);
    if (cls == GD_DOUBLE && mxIsDouble(a)) return mxGetDoubles(a);
    /* only double -> single is needed: mixed inputs compute in single,
     * each double converted first, as Octave does */
    const mxDouble *d = mxGetDoubles(a);
    float *f = (float *)mxMalloc(count ? count * sizeof *f : 1);
    for (size_t i = 0; i < count; ++i) f[i] = (float)d[i];
    return f;
}

void gd_mex_free_converted(const mxArray *a, gd_class cls, const void *p)
{
    if (cls == GD_SINGLE && mxIsDouble(a)) mxFree((void *)p);
}

int gd_mex_is_string(const mxArray *a, const char *s)
{
    char buf[64];
    if (!mxIsChar(a) || mxGetM(a) > 1) return 0;
    if (mxGetString(a, buf, sizeof buf)) return 0;
    for (char *c = buf; *c; ++c) *c = (char)tolower((unsigned char)*c);
    return strcmp(buf, s) == 0;
}

void gd_mex_option_string(const char *fn, const char *optname,
                          const mxArray *v, char *buf, size_t len)
{
    if (!mxIsChar(v) || mxGetM(v) > 1 || mxGetN(v) == 0 ||
        mxGetN(v) >= len || mxGetString(v, buf, len))
        gd_mex_error(fn, "gd:input", "%s%s%s must be a short character string",
                     strcmp(optname, "metric") ? "the value of '" : "the ",
                     optname, strcmp(optname, "metric") ? "'" : "");
    for (char *c = buf; *c; ++c) *c = (char)tolower((unsigned char)*c);
}

void gd_mex_options(const char *fn, int nrhs, const mxArray *prhs[],
                    int first, int nnames, const char *const names[],
                    const mxArray *values[])
{
    if ((nrhs - first) % 2)
        gd_mex_error(fn, "gd:input",
                     "options come in name/value pairs; got %d argument(s) "
                     "after the operands", nrhs - first);
    for (int i = first; i < nrhs; i += 2) {
        char name[64];
        if (!mxIsChar(prhs[i]) || mxGetM(prhs[i]) > 1 ||
            mxGetString(prhs[i], name, sizeof name))
            gd_mex_error(fn, "gd:input",
                         "argument %d: expected an option name (a string), "
                         "got %s", i + 1, class_label(prhs[i]));
        int found = -1;
        for (int o = 0; o < nnames; ++o) {
            char lower[64];
            size_t L = strlen(name);
            for (size_t c = 0; c <= L; ++c)
                lower[c] = (char)tolower((unsigned char)name[c]);
            char want[64];
            size_t W = strlen(names[o]);
            for (size_t c = 0; c <= W; ++c)
                want[c] = (char)tolower((unsigned char)names[o][c]);
            if (strcmp(lower, want) == 0) found = o;
        }
        if (found < 0) {
            char valid[256] = "";
            for (int o = 0; o < nnames; ++o) {
                strncat(valid, o ? ", '" : "'", sizeof valid - strlen(valid) - 1);
                strncat(valid, names[o], sizeof valid - strlen(valid) - 1);
                strncat(valid, "'", sizeof valid - strlen(valid) - 1);
            }
            gd_mex_error(fn, "gd:input", "unknown option '%s' (options: %s)",
                         name, valid);
        }
        values[found] = prhs[i + 1];
    }
}

void gd_mex_check_variant(const char *fn, const char *name, int count,
                          const gd_variant_info *list)
{
    if (strcmp(name, "auto") == 0) return;
    char valid[512] = "auto";
    for (int i = 0; i < count; ++i) {
        if (strcmp(name, list[i].name) == 0) return;
        strncat(valid, ", ", sizeof valid - strlen(valid) - 1);
        strncat(valid, list[i].name, sizeof valid - strlen(valid) - 1);
    }
    gd_mex_error(fn, "gd:variant", "unknown variant '%s' (variants: %s)", name,
                 valid);
}

mxArray *gd_mex_variants(const char *fn, int nargout, int count,
                         const gd_variant_info *list)
{
    if (nargout == 0) {
        mexPrintf("%s variants ('Variant', name):\n", fn);
        mexPrintf("  %-13s %s\n", "auto",
                  "the fastest correct variant for the class and size (default)");
        for (int i = 0; i < count; ++i)
            mexPrintf("  %-13s %s%s\n", list[i].name, list[i].note,
                      list[i].gpu ? "" : " (no GPU needed)");
        return NULL;
    }
    const char *fields[] = {"name", "note", "gpu"};
    mxArray *s = mxCreateStructMatrix((mwSize)count, 1, 3, fields);
    for (int i = 0; i < count; ++i) {
        mxSetField(s, (mwIndex)i, "name", mxCreateString(list[i].name));
        mxSetField(s, (mwIndex)i, "note", mxCreateString(list[i].note));
        mxSetField(s, (mwIndex)i, "gpu", mxCreateLogicalScalar(list[i].gpu != 0));
    }
    return s;
}

int gd_mex_variants_call(const char *fn, int nlhs, mxArray *plhs[], int nrhs,
                         const mxArray *prhs[], int max_out, int count,
                         const gd_variant_info *list)
{
    if (nrhs == 1 && gd_mex_is_string(prhs[0], "variants")) {
        if (nlhs > 1) gd_mex_error(fn, "gd:input", "too many outputs");
        plhs[0] = gd_mex_variants(fn, nlhs, count, list);
        return 1;
    }
    if (nlhs > max_out)
        gd_mex_error(fn, "gd:input", "too many outputs (at most the result and info)");
    return 0;
}

mxArray *gd_mex_info(const gd_timing *t, gd_class cls, const char *rate_unit,
                     int nsize, const int64_t *size)
{
    const char *fields[] = {"variant",     "kernel",   "device",    "class",
                            "size",        "upload_ms", "prep_ms",  "kernel_ms",
                            "download_ms", "total_ms", "ops",       "rate",
                            "rate_unit",   "gpu_bytes"};
    mxArray *s = mxCreateStructMatrix(1, 1, 14, fields);
    mxSetField(s, 0, "variant", mxCreateString(t->variant));
    mxSetField(s, 0, "kernel", mxCreateString(t->kernel));
    mxSetField(s, 0, "device", mxCreateString(t->device));
    mxSetField(s, 0, "class", mxCreateString(cls == GD_SINGLE ? "single" : "double"));
    mxArray *sz = mxCreateDoubleMatrix(1, (mwSize)nsize, mxREAL);
    for (int i = 0; i < nsize; ++i) mxGetDoubles(sz)[i] = (double)size[i];
    mxSetField(s, 0, "size", sz);
    mxSetField(s, 0, "upload_ms", mxCreateDoubleScalar(t->upload_ms));
    mxSetField(s, 0, "prep_ms", mxCreateDoubleScalar(t->prep_ms));
    mxSetField(s, 0, "kernel_ms", mxCreateDoubleScalar(t->kernel_ms));
    mxSetField(s, 0, "download_ms", mxCreateDoubleScalar(t->download_ms));
    mxSetField(s, 0, "total_ms", mxCreateDoubleScalar(t->total_ms));
    mxSetField(s, 0, "ops", mxCreateDoubleScalar(t->ops));
    mxSetField(s, 0, "rate", mxCreateDoubleScalar(
                                 t->kernel_ms > 0 ? t->ops / (t->kernel_ms * 1e-3) : 0));
    mxSetField(s, 0, "rate_unit", mxCreateString(rate_unit));
    mxSetField(s, 0, "gpu_bytes", mxCreateDoubleScalar(t->gpu_bytes));
    return s;
}

void *gd_mex_out_alloc(void *ctx, size_t bytes)
{
    static double empty;
    gd_mex_out *o = (gd_mex_out *)ctx;
    (void)bytes;
    mxArray *args[3] = {mxCreateDoubleScalar((double)o->m),
                        mxCreateDoubleScalar((double)o->n),
                        mxCreateString(o->cls == GD_SINGLE ? "single" : "double")};
    /* __gd_uninit__ (octave/private, beside the gateways) leaves the
     * elements unset: the kernel layer writes every one. zeros () is the
     * fallback should it be missing. With the trap an error (out of
     * memory) comes back as a value rather than unwinding through the
     * kernel layer, which still holds GPU memory. */
    static const char *const makers[] = {"__gd_uninit__", "zeros"};
    o->array = NULL;
    for (int i = 0; i < 2 && !o->array; ++i) {
        mxArray *err = mexCallMATLABWithTrap(1, &o->array, 3, args, makers[i]);
        if (err) {
            mxDestroyArray(err);
            o->array = NULL;
        }
    }
    for (int i = 0; i < 3; ++i) mxDestroyArray(args[i]);
    if (!o->array) return NULL;
    void *p = o->cls == GD_SINGLE ? (void *)mxGetSingles(o->array)
                                  : (void *)mxGetDoubles(o->array);
    return p ? p : (void *)&empty;
}

gd_out gd_mex_output(gd_mex_out *o, size_t m, size_t n, gd_class cls)
{
    o->m = m;
    o->n = n;
    o->cls = cls;
    o->array = NULL;
    gd_out out = {NULL, gd_mex_out_alloc, o};
    return out;
}

gd_metric gd_mex_metric(const char *fn, const mxArray *a)
{
    char buf[32];
    gd_mex_option_string(fn, "metric", a, buf, sizeof buf);
    if (!strcmp(buf, "euclidean")) return GD_EUCLIDEAN;
    if (!strcmp(buf, "squaredeuclidean")) return GD_SQEUCLIDEAN;
    gd_mex_error(fn, "gd:input", "unknown metric '%s' (metrics: 'euclidean', "
                 "'squaredeuclidean')", buf);
    return GD_EUCLIDEAN;
}

static int g_warned;

void gd_mex_warn_fallback(const char *fn, const gd_timing *t)
{
    if (!t->fallback[0] || g_warned) return;
    g_warned = 1;
    /* through Octave's warning(), so the message carries no gateway name
     * and warning('off', 'gd:nogpu') applies */
    char msg[512];
    snprintf(msg, sizeof msg, "%s: running on the CPU: %s "
             "(warning('off', 'gd:nogpu') silences this)", fn, t->fallback);
    mxArray *args[3] = {mxCreateString("gd:nogpu"), mxCreateString("%s"),
                        mxCreateString(msg)};
    mexCallMATLAB(0, NULL, 3, args, "warning");
    for (int i = 0; i < 3; ++i) mxDestroyArray(args[i]);
}

static void at_exit(void) { gd_release(); }

void gd_mex_init(void)
{
    /* every call: Octave may keep a cleared .mex loaded, and registering
     * again only replaces the same function */
    mexAtExit(at_exit);
}
