/* gd_mex.c - shared helpers of the gd gateways (see gd_mex.h). */
#include "gd_mex.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The text of a character row vector (1 x N, 0 < N < len, no NUL inside:
 * 'cpu' followed by char(0) is not 'cpu'), lower-cased into buf; 0 when a
 * is anything else. */
static int text_of(const mxArray *a, char *buf, size_t len)
{
    if (!mxIsChar(a) || mxGetNumberOfDimensions(a) != 2 || mxGetM(a) != 1 ||
        mxGetN(a) == 0 || mxGetN(a) >= len || mxGetString(a, buf, len))
        return 0;
    if (strlen(buf) != mxGetN(a)) return 0;
    for (char *c = buf; *c; ++c) *c = (char)tolower((unsigned char)*c);
    return 1;
}

const char *gd_mex_class_label(const mxArray *a)
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
                     gd_mex_class_label(a));
    gd_mex_check_shape(fn, argname, a);
}

void gd_mex_check_shape(const char *fn, const char *argname, const mxArray *a)
{
    if (mxIsSparse(a))
        gd_mex_error(fn, "gd:input", "%s must be a full matrix, not sparse", argname);
    if (mxIsComplex(a))
        gd_mex_error(fn, "gd:input", "%s must be real, not complex", argname);
    if (mxGetNumberOfDimensions(a) != 2)
        gd_mex_error(fn, "gd:input", "%s must be a 2-D matrix, not %zu-D",
                     argname, (size_t)mxGetNumberOfDimensions(a));
}

void gd_mex_check_float(const char *fn, const char *argname, const gd_matrix *m)
{
    if (m->cls != GD_SINGLE && m->cls != GD_DOUBLE)
        gd_mex_error(fn, "gd:input", "%s must be single or double, not a %s gdArray", argname,
                     gd_mex_class_name(m->cls));
}

int gd_mex_is_string(const mxArray *a, const char *s)
{
    char buf[64], want[64];
    size_t n = strlen(s);
    if (n >= sizeof want) return 0;
    for (size_t c = 0; c <= n; ++c) want[c] = (char)tolower((unsigned char)s[c]);
    return text_of(a, buf, sizeof buf) && strcmp(buf, want) == 0;
}

void gd_mex_option_string(const char *fn, const char *optname,
                          const mxArray *v, char *buf, size_t len)
{
    if (!text_of(v, buf, len))
        gd_mex_error(fn, "gd:input", "%s%s%s must be a short character string "
                     "(a row, no NUL characters)",
                     strcmp(optname, "metric") ? "the value of '" : "the ",
                     optname, strcmp(optname, "metric") ? "'" : "");
}

static int g_distributed; /* 'Distributed', true in this call (gd_mex_home_reset) */

void gd_mex_options(const char *fn, int nrhs, const mxArray *prhs[],
                    int first, int nnames, const char *const names[],
                    const mxArray *values[])
{
    int devices_given = 0;
    if ((nrhs - first) % 2)
        gd_mex_error(fn, "gd:input",
                     "options come in name/value pairs; got %d argument(s) "
                     "after the operands", nrhs - first);
    for (int i = first; i < nrhs; i += 2) {
        char name[64];
        if (!text_of(prhs[i], name, sizeof name))
            gd_mex_error(fn, "gd:input",
                         "argument %d: expected an option name (a character row "
                         "without NUL characters), got %s", i + 1,
                         mxIsChar(prhs[i]) ? "other text" : gd_mex_class_label(prhs[i]));
        if (!strcmp(name, "devices")) {
            gd_mex_devices_option(fn, prhs[i + 1]);
            devices_given = 1;
            continue;
        }
        if (!strcmp(name, "distributed")) {
            const mxArray *v = prhs[i + 1];
            if (!((mxIsLogical(v) || (mxIsNumeric(v) && !mxIsComplex(v))) &&
                  mxGetNumberOfElements(v) == 1 && !mxIsSparse(v)) ||
                !(mxGetScalar(v) == 0 || mxGetScalar(v) == 1))
                gd_mex_error(fn, "gd:input", "'Distributed' must be true or false (or 1 or 0)");
            g_distributed = mxGetScalar(v) != 0;
            continue;
        }
        int found = -1;
        for (int o = 0; o < nnames; ++o) {
            char want[64];
            const char *n = names[o] + (names[o][0] == '=');
            size_t W = strlen(n);
            for (size_t c = 0; c <= W; ++c)
                want[c] = (char)tolower((unsigned char)n[c]);
            if (strcmp(name, want) == 0) found = o;
        }
        if (found < 0) {
            char valid[256] = "";
            for (int o = 0; o < nnames; ++o) {
                if (names[o][0] == '=') continue; /* the wrapper's */
                strncat(valid, valid[0] ? ", '" : "'", sizeof valid - strlen(valid) - 1);
                strncat(valid, names[o], sizeof valid - strlen(valid) - 1);
                strncat(valid, "'", sizeof valid - strlen(valid) - 1);
            }
            strncat(valid, ", 'Devices', 'Distributed'", sizeof valid - strlen(valid) - 1);
            mxGetString(prhs[i], name, sizeof name); /* as the user typed it */
            gd_mex_error(fn, "gd:input", "unknown option '%s' (options: %s)",
                         name, valid);
        }
        values[found] = prhs[i + 1];
    }
    if (!devices_given) {
        /* GD_DEVICES, checked where the call reads it */
        gd_devices d;
        if (gd_default_devices(&d)) gd_mex_error(fn, "gd:input", "%s", gd_last_error());
    }
}

double gd_mex_scalar_at(const mxArray *v, size_t i)
{
    const void *p = mxGetData(v);
    switch (mxGetClassID(v)) {
    case mxDOUBLE_CLASS: return ((const double *)p)[i];
    case mxSINGLE_CLASS: return ((const float *)p)[i];
    case mxINT8_CLASS: return ((const int8_t *)p)[i];
    case mxUINT8_CLASS: return ((const uint8_t *)p)[i];
    case mxINT16_CLASS: return ((const int16_t *)p)[i];
    case mxUINT16_CLASS: return ((const uint16_t *)p)[i];
    case mxINT32_CLASS: return ((const int32_t *)p)[i];
    case mxUINT32_CLASS: return ((const uint32_t *)p)[i];
    case mxINT64_CLASS: return (double)((const int64_t *)p)[i];
    case mxUINT64_CLASS: return (double)((const uint64_t *)p)[i];
    default: return NAN;
    }
}

/* ---- the call's place ---------------------------------------------- */

static gd_place g_place;
static int g_home_fixed; /* 0: not yet; 1: a gdArray's; 2: 'Devices' list's */

void gd_mex_home_reset(void)
{
    memset(&g_place, 0, sizeof g_place);
    g_place.device = 1;
    g_home_fixed = 0;
    g_distributed = 0;
}

int gd_mex_distributed(void) { return g_distributed; }

void gd_mex_home(int dev, int from_list)
{
    if (g_home_fixed == 2 || (g_home_fixed == 1 && !from_list)) return;
    if (gd_check_device(dev)) return; /* the list was checked; a gdArray's device exists */
    g_place.device = dev + 1;
    g_home_fixed = from_list ? 2 : 1;
}

const gd_place *gd_mex_place(void) { return &g_place; }

gd_timing gd_mex_timing(void)
{
    gd_timing t;
    memset(&t, 0, sizeof t);
    return t;
}

void gd_mex_devices_option(const char *fn, const mxArray *v)
{
    gd_devices d;
    memset(&d, 0, sizeof d);
    if (gd_mex_is_string(v, "all")) {
        g_place.divide = 1;
        g_place.devices = d;
        return;
    }
    const size_t n = mxGetNumberOfElements(v);
    if (!mxIsNumeric(v) || mxIsComplex(v) || mxIsSparse(v) || n < 1 || n > GD_MAX_DEVICES ||
        (mxGetM(v) != 1 && mxGetN(v) != 1))
        gd_mex_error(fn, "gd:input", "'Devices' must be 'all' or a vector of device indices "
                     "(1 to %d of them, as gd_info numbers the devices)", GD_MAX_DEVICES);
    for (size_t i = 0; i < n; ++i) {
        const double x = gd_mex_scalar_at(v, i);
        if (!(x >= 1 && x <= 1e6 && x == (double)(int)x))
            gd_mex_error(fn, "gd:input", "'Devices' must hold whole device indices from 1, "
                         "not %g", x);
        d.idx[i] = (int)x - 1;
    }
    d.n = (int)n;
    if (gd_check_devices(&d, "'Devices'")) gd_mex_error(fn, "gd:input", "%s", gd_last_error());
    g_place.divide = 1;
    g_place.devices = d;
    gd_mex_home(d.idx[0], 1); /* a resident result is left on the list's first device */
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
                     int nsize, const int64_t *size, int noperands)
{
    const char *fields[] = {"variant",     "kernel",   "device",    "class",
                            "size",        "upload_ms", "prep_ms",  "kernel_ms",
                            "download_ms", "total_ms", "ops",       "rate",
                            "rate_unit",   "gpu_bytes", "resident", "kept", "devices"};
    mxArray *s = mxCreateStructMatrix(1, 1, 17, fields);
    mxSetField(s, 0, "variant", mxCreateString(t->variant));
    char kernel[sizeof t->kernel + 64];
    gd_kernel_text(t, kernel, sizeof kernel);
    mxSetField(s, 0, "kernel", mxCreateString(kernel));
    mxSetField(s, 0, "device", mxCreateString(t->device));
    mxSetField(s, 0, "class", mxCreateString(gd_mex_class_name(cls)));
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
    mxArray *r = mxCreateLogicalMatrix(1, (mwSize)noperands);
    for (int i = 0; i < noperands; ++i) mxGetLogicals(r)[i] = (t->resident >> i) & 1;
    mxSetField(s, 0, "resident", r);
    mxSetField(s, 0, "kept", mxCreateLogicalScalar(t->kept != 0));
    /* the devices the call ran on, as gd_info numbers them: [] on the
     * host, the first where one device ran it */
    const int nd = t->devices > 0 ? t->devices : strncmp(t->device, "cpu", 3) && t->device[0] ? 1 : 0;
    mxArray *dv = mxCreateDoubleMatrix(nd ? 1 : 0, (mwSize)nd, mxREAL);
    for (int i = 0; i < nd; ++i)
        mxGetDoubles(dv)[i] = (t->devices > 0 ? t->device_idx[i] : g_place.device - 1) + 1;
    mxSetField(s, 0, "devices", dv);
    return s;
}

const char *gd_mex_class_name(gd_class c)
{
    static const char *const names[] = {"single", "double", "int32", "int8", "uint8",
                                         "int16", "uint16", "uint32", "int64", "uint64"};
    return (unsigned)c < sizeof names / sizeof *names ? names[c] : "?";
}

void *gd_mex_data(const mxArray *a)
{
    if (mxIsSingle(a)) return mxGetSingles(a);
    if (mxIsDouble(a)) return mxGetDoubles(a);
    return mxGetData(a); /* an integer class */
}

void *gd_mex_out_alloc(void *ctx, size_t bytes)
{
    static double empty;
    gd_mex_out *o = (gd_mex_out *)ctx;
    if (o->n == GD_MEX_FROM_BYTES) o->n = bytes / (o->m * gd_class_bytes(o->cls));
    mxArray *args[3] = {mxCreateDoubleScalar((double)o->m),
                        mxCreateDoubleScalar((double)o->n),
                        mxCreateString(gd_mex_class_name(o->cls))};
    /* __gd_uninit__ (octave/private, beside the gateways) leaves the
     * elements unset: the kernel layer writes every one. When the memory
     * cannot be had it returns [] (an exception would unwind through the
     * kernel layer, which still holds GPU memory and staging slots: the
     * trap below catches Octave's errors, not C++ allocation failures);
     * with the trap any error comes back as a value. Either way the
     * kernel layer gets NULL and fails with gd:memory, freeing all. */
    o->array = NULL;
    mxArray *err = mexCallMATLABWithTrap(1, &o->array, 3, args, "__gd_uninit__");
    for (int i = 0; i < 3; ++i) mxDestroyArray(args[i]);
    if (err) {
        mxDestroyArray(err);
        o->array = NULL;
        return NULL;
    }
    if (!o->array || mxGetM(o->array) != o->m || mxGetN(o->array) != o->n) {
        if (o->array) mxDestroyArray(o->array);
        o->array = NULL;
        return NULL;
    }
    void *p = gd_mex_data(o->array);
    return p ? p : (void *)&empty;
}

gd_out gd_mex_output(gd_mex_out *o, size_t m, size_t n, gd_class cls)
{
    o->m = m;
    o->n = n;
    o->cls = cls;
    o->array = NULL;
    gd_out out = {NULL, gd_mex_out_alloc, o, NULL, NULL};
    return out;
}

mxArray *gd_mex_download(const char *fn, const gd_matrix *m)
{
    gd_mex_out R;
    gd_timing t = gd_mex_timing();
    gd_status s = gd_dev_download(m, gd_mex_output(&R, (size_t)m->rows, (size_t)m->cols, m->cls), gd_mex_place(), &t);
    if (s) {
        if (R.array) mxDestroyArray(R.array);
        gd_mex_fail(fn, s);
    }
    return R.array;
}

/* The metrics: the kernel layer's, by their statistics package names; the
 * ones gd_pdist.m prepares rows for (scaled, transformed, centred or
 * ranked) never reach the gateway. */
static const struct {
    const char *name;
    gd_metric metric;
} METRICS[] = {
    {"euclidean", GD_EUCLIDEAN}, {"squaredeuclidean", GD_SQEUCLIDEAN},
    {"sqeuclidean", GD_SQEUCLIDEAN}, {"cityblock", GD_CITYBLOCK},
    {"chebychev", GD_CHEBYCHEV}, {"minkowski", GD_MINKOWSKI},
    {"cosine", GD_COSINE}, {"hamming", GD_HAMMING}, {"jaccard", GD_JACCARD}};
static const char *const PREPARED[] = {"seuclidean", "mahalanobis", "correlation", "spearman"};
#define GD_METRICS                                                                            \
    "metrics: 'euclidean', 'squaredeuclidean', 'seuclidean', 'mahalanobis', 'cityblock', " \
    "'minkowski', 'chebychev', 'cosine', 'correlation', 'spearman', 'hamming', 'jaccard'"

gd_metric gd_mex_metric(const char *fn, const mxArray *a)
{
    char buf[32];
    if (mxIsFunctionHandle(a))
        gd_mex_error(fn, "gd:input", "a function-handle metric cannot run on the "
                     "GPU (" GD_METRICS ")");
    if (!text_of(a, buf, sizeof buf))
        gd_mex_error(fn, "gd:input", "the metric must be a character row without "
                     "NUL characters (" GD_METRICS ")");
    for (size_t i = 0; i < sizeof METRICS / sizeof *METRICS; ++i)
        if (!strcmp(buf, METRICS[i].name)) return METRICS[i].metric;
    for (size_t i = 0; i < sizeof PREPARED / sizeof *PREPARED; ++i)
        if (!strcmp(buf, PREPARED[i]))
            gd_mex_error(fn, "gd:input", "internal: the metric '%s' is prepared by %s.m", buf, fn);
    gd_mex_error(fn, "gd:input", "unknown metric '%s' (" GD_METRICS ")", buf);
    return GD_EUCLIDEAN;
}

/* Whether this Octave session has had a warning of this kind: application
 * data of the root object (setappdata (0, ...)), seen by every gateway
 * (each .mex has its own copy of any C static) and kept through clear
 * all. */
static int warned_once(const char *name)
{
    mxArray *args[3] = {mxCreateDoubleScalar(0), mxCreateString(name),
                        mxCreateLogicalScalar(1)};
    mxArray *had = NULL;
    int seen = 1; /* where appdata fails, say nothing rather than repeat */
    if (!mexCallMATLABWithTrap(1, &had, 2, args, "isappdata") && had) {
        seen = mxIsLogicalScalarTrue(had);
        mxDestroyArray(had);
        if (!seen) mexCallMATLABWithTrap(0, NULL, 3, args, "setappdata");
    }
    for (int i = 0; i < 3; ++i) mxDestroyArray(args[i]);
    return seen;
}

static void warn(const char *id, const char *msg)
{
    /* through Octave's warning(), so the message carries no gateway name
     * and warning('off', id) applies */
    mxArray *args[3] = {mxCreateString(id), mxCreateString("%s"), mxCreateString(msg)};
    mexCallMATLAB(0, NULL, 3, args, "warning");
    for (int i = 0; i < 3; ++i) mxDestroyArray(args[i]);
}

static void progress(const char *what, double done, double total);

/* a monotonic clock in milliseconds */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* GD_VERBOSE's clock and the thread its lines come from */
static double g_call_ms, g_said_ms;
static pthread_t g_caller;
static char g_op[32];

/* A setting holding a value its reader ignores: warning gd:settings, once
 * a value (a new value warns again) */
static void check_settings(void)
{
    static const gd_setting checked[] = {GD_SET_BLOCKS, GD_SET_SPLIT, GD_SET_KNN_UNITS,
                                         GD_SET_SIM_DEVICES, GD_SET_VERBOSE,
                                         GD_SET_GPU_MEM_LIMIT, GD_SET_SSSP_DELTA};
    static char said[sizeof checked / sizeof checked[0]][64];
    for (size_t k = 0; k < sizeof checked / sizeof checked[0]; ++k) {
        const gd_setting s = checked[k];
        if (!gd_setting_malformed(s)) continue;
        const char *v = gd_setting_text(s);
        if (!strncmp(said[k], v, sizeof said[k] - 1) && said[k][0]) continue;
        snprintf(said[k], sizeof said[k], "%s", v);
        char msg[512];
        snprintf(msg, sizeof msg, "%s='%.40s' is ignored: it takes %s", gd_setting_name(s), v,
                 gd_setting_what(s));
        warn("gd:settings", msg);
    }
}

void gd_mex_call_begin(const char *op)
{
    g_call_ms = now_ms();
    g_said_ms = -1; /* nothing said yet */
    g_caller = pthread_self();
    /* the function's name: the operation without its "_info" */
    snprintf(g_op, sizeof g_op, "%s", op);
    char *tail = strstr(g_op, "_info");
    if (tail) *tail = 0;
    gd_set_progress(progress);
    check_settings();
}

/* GD_VERBOSE's level: 0 (unset), 1, or 2 (progress from the start) */
static int verbose(void)
{
    long level = 0;
    return gd_setting_int(GD_SET_VERBOSE, 0, 2, &level) > 0 ? (int)level : 0;
}

/* a host loop's progress (gd_progress): with GD_VERBOSE, on Octave's
 * thread, from 2 s into the call (GD_VERBOSE=2: from its first report),
 * at most once a second */
static void progress(const char *what, double done, double total)
{
    if (!pthread_equal(pthread_self(), g_caller)) return;
    const int level = verbose();
    if (!level) return;
    const double ms = now_ms() - g_call_ms;
    const int first = g_said_ms < 0;
    if (level == 1 && ms < 2000) return;
    if (!first && ms - g_said_ms < 1000) return;
    g_said_ms = ms;
    mexPrintf("gd: gd_%s: %s %.0f of %.0f (%.0f%%), %.1f s\n", g_op, what, done, total,
              total > 0 ? 100 * done / total : 0.0, ms / 1000);
    fflush(stdout);
}

void gd_mex_after_call(const char *fn, const gd_timing *t)
{
    char msg[512];
    if (verbose()) {
        mexPrintf("gd: %s: %s on %s, %.2f ms", fn, t->variant, t->device, t->total_ms);
        char kernel[sizeof t->kernel + 64];
        gd_kernel_text(t, kernel, sizeof kernel);
        if (kernel[0]) mexPrintf(" (%s)", kernel);
        mexPrintf("; kernel %.2f ms, upload %.2f ms, download %.2f ms\n", t->kernel_ms,
                  t->upload_ms, t->download_ms);
    }
    if (t->fallback[0] && !warned_once("__gd_warned_nogpu__")) {
        snprintf(msg, sizeof msg, "%s: running on the CPU: %s "
                 "(warning('off', 'gd:nogpu') silences this)", fn, t->fallback);
        warn("gd:nogpu", msg);
    }
    if (gd_cpu_note()[0] && !warned_once("__gd_warned_threads__")) {
        snprintf(msg, sizeof msg, "%s: %s", fn, gd_cpu_note());
        warn("gd:threads", msg);
    }
}

/* The gd class of an integer mxArray (GD_INT8 ... GD_UINT64), or -1. */
int gd_mex_int_class(const mxArray *a)
{
    switch (mxGetClassID(a)) {
    case mxINT8_CLASS: return GD_INT8;
    case mxUINT8_CLASS: return GD_UINT8;
    case mxINT16_CLASS: return GD_INT16;
    case mxUINT16_CLASS: return GD_UINT16;
    case mxINT32_CLASS: return GD_INT32;
    case mxUINT32_CLASS: return GD_UINT32;
    case mxINT64_CLASS: return GD_INT64;
    case mxUINT64_CLASS: return GD_UINT64;
    default: return -1;
    }
}

/* The options of an integer-class call (gd_minplus, gd_apsp), from
 * prhs[first]: 'Variant' into variant ('auto', 'cpu' or the operation's
 * GPU variant for the integer classes, gpu, NULL where it has none;
 * another variant raises gd:variant) and 'IndexClass'. Returns 1 when the
 * index output is int32, 0 when double. */
int gd_mex_int_options(const char *fn, int nrhs, const mxArray *prhs[], int first, int count,
                       const gd_variant_info *list, const char *gpu, char variant[32])
{
    static const char *const names[] = {"Variant", "IndexClass"};
    const mxArray *values[2] = {NULL, NULL};
    gd_mex_options(fn, nrhs, prhs, first, 2, names, values);
    char iname[16] = "double";
    snprintf(variant, 32, "auto");
    if (values[0]) gd_mex_option_string(fn, "Variant", values[0], variant, 32);
    if (values[1]) gd_mex_option_string(fn, "IndexClass", values[1], iname, sizeof iname);
    gd_mex_check_variant(fn, variant, count, list);
    if (strcmp(variant, "auto") && strcmp(variant, "cpu") && !(gpu && !strcmp(variant, gpu))) {
        if (gpu)
            gd_mex_error(fn, "gd:variant", "variant '%s' computes single and double; the integer "
                         "classes run on '%s' (the GPU) and 'cpu' ('auto' chooses)", variant, gpu);
        gd_mex_error(fn, "gd:variant", "variant '%s' computes single and double; the integer "
                     "classes run on the 'cpu' variant ('auto' chooses it)", variant);
    }
    if (strcmp(iname, "double") && strcmp(iname, "int32"))
        gd_mex_error(fn, "gd:input", "'IndexClass' must be 'double' or 'int32', not '%s'", iname);
    return !strcmp(iname, "int32");
}

gd_class gd_mex_variant_index(const char *fn, int nrhs, const mxArray *prhs[], int first,
                              int count, const gd_variant_info *list, char *variant,
                              size_t len)
{
    static const char *const names[] = {"Variant", "IndexClass"};
    const mxArray *values[2] = {NULL, NULL};
    gd_mex_options(fn, nrhs, prhs, first, 2, names, values);
    char iname[16] = "double";
    snprintf(variant, len, "auto");
    if (values[0]) gd_mex_option_string(fn, "Variant", values[0], variant, len);
    if (values[1]) gd_mex_option_string(fn, "IndexClass", values[1], iname, sizeof iname);
    gd_mex_check_variant(fn, variant, count, list);
    if (strcmp(iname, "double") && strcmp(iname, "int32"))
        gd_mex_error(fn, "gd:input", "'IndexClass' must be 'double' or 'int32', not '%s'", iname);
    return strcmp(iname, "int32") ? GD_DOUBLE : GD_INT32;
}
