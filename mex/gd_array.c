/* gd_array.c - the table of live gdArrays, operands that may be gdArrays,
 * and results that may become gdArrays (see gd_mex.h). */
#include "gd_mex.h"

#include <octave/quit.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the table ------------------------------------------------------- */

/* id = generation * 2^24 + slot: exact in a double (below 2^53) */
#define SLOT_BITS 24
#define SLOT_COUNT ((double)(1 << SLOT_BITS))
#define GEN_LIMIT (1u << 28)

typedef struct {
    gd_matrix m;
    uint32_t gen; /* 0: free */
    size_t bytes;
    int wrapped;  /* 1: a gdArray object holds it (gd_op_claim) */
    int logical;  /* 1: a logical array (bytes 0 and 1, m.cls GD_UINT8) */
    gd_pieces *pieces; /* a distributed matrix's (m.pieces; malloc'd, so
                          that m.pieces stays put when the table grows) */
} entry;

static entry *g_tab;
static size_t g_cap, g_used; /* slots made; slots in use */
static size_t *g_free;       /* free slots, a stack */
static size_t g_nfree;
static uint32_t g_gen;       /* the last generation handed out */
static double g_bytes;
static int g_locked;

static uint32_t next_gen(void)
{
    if (!g_gen) {
        /* a different start every time the gateway is loaded */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)ts.tv_sec ^
                     ((uint64_t)getpid() << 16);
        g_gen = (uint32_t)(x % (GEN_LIMIT / 2)) + 1;
    }
    if (++g_gen >= GEN_LIMIT) g_gen = 1;
    return g_gen;
}

static void release(entry *e)
{
    if (e->pieces) {
        gd_pieces_free(e->pieces);
        free(e->pieces);
    } else if (e->m.where == GD_DEVICE)
        gd_dev_free_at(e->m.dev, (void *)e->m.ptr);
    else
        free((void *)e->m.ptr);
    g_bytes -= (double)e->bytes;
    memset(e, 0, sizeof *e);
}

/* while any gdArray lives, the gateway stays loaded (clear mex and clear
 * all keep a locked function), so that a live id keeps its memory */
static void lock_while_live(void)
{
    if (g_used > 0 && !g_locked) {
        mexLock();
        g_locked = 1;
    } else if (g_used == 0 && g_locked) {
        mexUnlock();
        g_locked = 0;
    }
}

/* an entry of ptr (own NULL), or of the pieces own (a distributed matrix:
 * ptr NULL); on failure what it was given is freed */
static double reg_add(void *ptr, int on_device, gd_class cls, int64_t rows, int64_t cols,
                      gd_pieces *own)
{
    size_t slot;
    if (g_nfree) {
        slot = g_free[--g_nfree];
    } else {
        if (g_cap >= (size_t)1 << SLOT_BITS) goto full;
        if (g_cap % 1024 == 0) {
            entry *t = (entry *)realloc(g_tab, (g_cap + 1024) * sizeof *t);
            size_t *f = t ? (size_t *)realloc(g_free, (g_cap + 1024) * sizeof *f) : NULL;
            if (t) g_tab = t;
            if (!f) goto full;
            g_free = f;
        }
        slot = g_cap++;
    }
    {
        entry *e = &g_tab[slot];
        memset(e, 0, sizeof *e);
        e->m.ptr = ptr;
        e->m.where = on_device ? GD_DEVICE : GD_HOST;
        e->m.cls = cls;
        e->m.rows = rows;
        e->m.cols = cols;
        e->m.ld = rows;
        e->m.dev = on_device ? gd_mex_place()->device - 1 : 0; /* where the call left it */
        if (own) {
            e->pieces = own;
            e->m.pieces = own;
            e->m.dev = own->p[0].dev;
        }
        e->gen = next_gen();
        e->bytes = (size_t)(rows * cols) * gd_class_bytes(cls);
        g_bytes += (double)e->bytes;
        ++g_used;
        lock_while_live();
        return (double)e->gen * SLOT_COUNT + (double)slot;
    }
full:
    if (own) {
        gd_pieces_free(own);
        free(own);
    } else if (on_device)
        gd_dev_free_at(gd_mex_place()->device - 1, ptr);
    else
        free(ptr);
    gd_mex_error("gdArray", "gd:memory", "cannot record another gdArray (%zu are live)",
                 g_used);
    return 0;
}

double gd_reg_add(void *ptr, int on_device, gd_class cls, int64_t rows, int64_t cols)
{
    return reg_add(ptr, on_device, cls, rows, cols, NULL);
}

double gd_reg_add_pieces(gd_pieces *P, gd_class cls, int64_t rows, int64_t cols)
{
    gd_pieces *own = (gd_pieces *)malloc(sizeof *own);
    if (!own) {
        gd_pieces_free(P);
        gd_mex_error("gdArray", "gd:memory", "cannot record a distributed gdArray");
    }
    *own = *P;
    P->n = 0;
    return reg_add(NULL, 1, cls, rows, cols, own);
}

static entry *lookup(double id)
{
    if (!(id >= 0 && id < 9007199254740992.0) || id != (double)(uint64_t)id) return NULL;
    const uint64_t v = (uint64_t)id;
    const size_t slot = (size_t)(v & ((1u << SLOT_BITS) - 1));
    const uint64_t gen = v >> SLOT_BITS;
    if (slot >= g_cap || !g_tab[slot].gen || g_tab[slot].gen != gen) return NULL;
    return &g_tab[slot];
}

void gd_reg_held(double id)
{
    entry *e = lookup(id);
    if (e) e->wrapped = 1;
}

void gd_reg_set_logical(double id)
{
    entry *e = lookup(id);
    if (e) e->logical = 1;
}

const gd_matrix *gd_reg_find(double id)
{
    entry *e = lookup(id);
    return e ? &e->m : NULL;
}

int gd_reg_free(double id)
{
    entry *e = lookup(id);
    if (!e) return 0;
    release(e);
    g_free[g_nfree++] = (size_t)(e - g_tab);
    --g_used;
    lock_while_live();
    return 1;
}

void gd_reg_free_all(void)
{
    for (size_t i = 0; i < g_cap; ++i)
        if (g_tab[i].gen) release(&g_tab[i]);
    free(g_tab);
    free(g_free);
    g_tab = NULL;
    g_free = NULL;
    g_cap = g_used = g_nfree = 0;
    g_bytes = 0;
    /* the generations go on: an id from before stays unknown */
    if (g_locked) {
        mexUnlock();
        g_locked = 0;
    }
}

void gd_reg_stats(double *count, double *bytes)
{
    *count = (double)g_used;
    *bytes = g_bytes;
}

/* ---- operands ---------------------------------------------------------- */

int gd_mex_is_gdarray(const mxArray *a) { return mxIsClass(a, "gdArray"); }

/* the id a gdArray object holds; -1 when it holds none */
static double id_of(const mxArray *a)
{
    mxArray *p = mxGetProperty(a, 0, "id");
    double id = -1;
    if (p && mxIsDouble(p) && !mxIsComplex(p) && mxGetNumberOfElements(p) == 1)
        id = mxGetScalar(p);
    if (p) mxDestroyArray(p);
    return id;
}

/* the table entry of a gdArray object (NULL: not one, or stale) */
static entry *entry_of(const mxArray *a)
{
    if (!gd_mex_is_gdarray(a) || mxGetNumberOfElements(a) != 1) return NULL;
    return lookup(id_of(a));
}

const gd_matrix *gd_mex_find_array(const mxArray *a)
{
    entry *e = entry_of(a);
    return e ? &e->m : NULL;
}

int gd_mex_is_logical_array(const mxArray *a)
{
    const entry *e = entry_of(a);
    return e && e->logical;
}

/* gdArray's own operations (their messages' name): the ones that take
 * logical arrays */
static int takes_logical(const char *fn)
{
    return !strcmp(fn, "gdArray") || !strcmp(fn, "gather") || !strcmp(fn, "transpose");
}

/* an operand; ints: integer Octave matrices are taken too (and logical
 * ones, as bytes, by gdArray's own operations) */
static void operand(const char *fn, const char *argname, const mxArray *a, gd_matrix *out,
                    int *gdarray, int ints)
{
    if (gd_mex_is_gdarray(a)) {
        const entry *e = entry_of(a);
        if (!e)
            gd_mex_error(fn, "gd:stale", "%s is a gdArray whose data is gone (it was freed, "
                         "or made before gd was reloaded, or is not one gd made)", argname);
        const gd_matrix *m = &e->m;
        if (e->logical && !takes_logical(fn))
            gd_mex_error(fn, "gd:input", "%s must be a single, double or integer matrix, not a "
                         "logical gdArray (double (G) converts it)", argname);
        *out = *m;
        *gdarray = 1;
        if (m->where == GD_DEVICE) gd_mex_home(m->dev, 0);
        return;
    }
    const int ic = ints ? (mxIsLogical(a) && takes_logical(fn) ? (int)GD_UINT8 : gd_mex_int_class(a)) : -1;
    if (ic >= 0) {
        gd_mex_check_shape(fn, argname, a);
        *out = gd_host_matrix(mxGetData(a), (gd_class)ic, (int64_t)mxGetM(a), (int64_t)mxGetN(a));
    } else {
        if (ints && !(mxIsSingle(a) || mxIsDouble(a)))
            gd_mex_error(fn, "gd:input", "%s must be a single, double or integer matrix, not %s",
                         argname, gd_mex_class_label(a));
        gd_mex_check_matrix(fn, argname, a);
        const gd_class cls = mxIsSingle(a) ? GD_SINGLE : GD_DOUBLE;
        const void *p = cls == GD_SINGLE ? (const void *)mxGetSingles(a)
                                         : (const void *)mxGetDoubles(a);
        *out = gd_host_matrix(p, cls, (int64_t)mxGetM(a), (int64_t)mxGetN(a));
    }
    *gdarray = 0;
}

void gd_mex_operand(const char *fn, const char *argname, const mxArray *a, gd_matrix *out,
                    int *gdarray)
{
    operand(fn, argname, a, out, gdarray, 0);
}

void gd_mex_operand_int(const char *fn, const char *argname, const mxArray *a, gd_matrix *out,
                        int *gdarray)
{
    operand(fn, argname, a, out, gdarray, 1);
}

/* A product's operands A and B (or A alone, square, as both) with their
 * sizes and class checked (gd_mex.h) */
static void get_operands(const char *fn, int nrhs, const mxArray *prhs[], int square_alone,
                         gd_mex_operands *o, int ints)
{
    if (nrhs == 0)
        gd_mex_error(fn, "gd:input", "expected %s (see help %s)",
                     square_alone ? "a matrix A, or A and B" : "matrices A and B", fn);
    int ga = 0, gb = 0;
    if (ints) {
        gd_mex_operand_int(fn, "A", prhs[0], &o->A, &ga);
    } else {
        gd_mex_operand(fn, "A", prhs[0], &o->A, &ga);
        gd_mex_check_float(fn, "A", &o->A);
    }
    o->B = o->A;
    gb = ga;
    o->first = 1;
    if (nrhs >= 2 && !mxIsChar(prhs[1])) {
        if (ints) {
            gd_mex_operand_int(fn, "B", prhs[1], &o->B, &gb);
        } else {
            gd_mex_operand(fn, "B", prhs[1], &o->B, &gb);
            gd_mex_check_float(fn, "B", &o->B);
        }
        o->first = 2;
        if (nrhs >= 3 && !mxIsChar(prhs[2]))
            gd_mex_error(fn, "gd:input", "too many input arguments: expected "
                         "A, B and name/value options");
    } else if (!square_alone) {
        gd_mex_error(fn, "gd:input", "expected matrices A and B");
    } else if (o->A.rows != o->A.cols) {
        gd_mex_error(fn, "gd:size", "with one argument A must be square, "
                     "not %lldx%lld (use %s(A, B))", (long long)o->A.rows,
                     (long long)o->A.cols, fn);
    }
    o->m = o->A.rows;
    o->k = o->A.cols;
    o->n = o->B.cols;
    if (o->B.rows != o->k)
        gd_mex_error(fn, "gd:size", "inner dimensions must agree: A is "
                     "%lldx%lld, B is %lldx%lld", (long long)o->m, (long long)o->k,
                     (long long)o->B.rows, (long long)o->n);
    /* single wins, as in Octave: each double operand is converted first;
     * an integer class is the class (the kernel layer refuses a mix) */
    o->cls = o->A.cls != GD_SINGLE && o->A.cls != GD_DOUBLE ? o->A.cls
             : (o->A.cls == GD_SINGLE || o->B.cls == GD_SINGLE) ? GD_SINGLE : GD_DOUBLE;
    o->resident = ga || gb;
}

void gd_mex_get_operands(const char *fn, int nrhs, const mxArray *prhs[],
                         int square_alone, gd_mex_operands *o)
{
    get_operands(fn, nrhs, prhs, square_alone, o, 0);
}

void gd_mex_get_operands_int(const char *fn, int nrhs, const mxArray *prhs[],
                             int square_alone, gd_mex_operands *o)
{
    get_operands(fn, nrhs, prhs, square_alone, o, 1);
}

int gd_mex_on_device(int n, const gd_matrix *const ops[])
{
    for (int i = 0; i < n; ++i)
        if (ops[i]->where == GD_DEVICE) return 1;
    return 0;
}

/* ---- results ------------------------------------------------------------ */

static void *host_alloc(void *ctx, size_t bytes)
{
    gd_mex_result *r = (gd_mex_result *)ctx;
    r->buf = malloc(bytes ? bytes : 1);
    r->buf_bytes = bytes;
    return r->buf;
}

gd_out gd_mex_result_out(gd_mex_result *r, int resident, int on_device, size_t m, size_t n,
                         gd_class cls)
{
    memset(r, 0, sizeof *r);
    r->resident = resident;
    r->on_device = resident && on_device;
    r->cls = cls;
    r->m = (int64_t)m;
    r->n = (int64_t)n;
    if (!resident) return gd_mex_output(&r->host, m, n, cls);
    gd_out o = {NULL, NULL, NULL, NULL, NULL};
    if (r->on_device) {
        o.device = &r->dev;
        if (gd_mex_distributed()) o.pieces = &r->pieces;
    } else {
        o.fn = host_alloc;
        o.ctx = r;
    }
    return o;
}

void gd_mex_result_free(gd_mex_result *r)
{
    if (r->host.array) mxDestroyArray(r->host.array);
    free(r->buf);
    if (r->dev) gd_dev_free_at(gd_mex_place()->device - 1, r->dev);
    gd_pieces_free(&r->pieces);
    memset(r, 0, sizeof *r);
}

mxArray *gd_mex_result_take(const char *fn, gd_mex_result *r, gd_status s)
{
    /* an interrupted call's results are partial: never returned */
    if (!s && gd_interrupted()) s = GD_ERR_INTERRUPT;
    if (s) {
        gd_mex_result_free(r); /* a failed call kept nothing on the device */
        gd_mex_fail(fn, s);
    }
    if (!r->resident) return r->host.array;
    double id;
    if (r->pieces.n > 0) {
        id = gd_reg_add_pieces(&r->pieces, r->cls, r->m, r->n);
    } else {
        void *p = r->on_device ? r->dev : r->buf;
        id = gd_reg_add(p, r->on_device, r->cls, r->m, r->n);
    }
    if (r->logical) gd_reg_set_logical(id);
    return gd_mex_wrap(fn, id);
}

void gd_mex_take_pair(const char *fn, int nlhs, mxArray *plhs[], gd_mex_result *first,
                      gd_mex_result *second, gd_status s)
{
    if (!s && gd_interrupted()) s = GD_ERR_INTERRUPT;
    if (s && second) gd_mex_result_free(second);
    plhs[0] = gd_mex_result_take(fn, first, s);
    if (second)
        plhs[1] = gd_mex_result_take(fn, second, GD_OK);
    else if (nlhs > 1)
        plhs[1] = mxCreateDoubleMatrix(0, 0, mxREAL);
}

/* __gd__ ("claim", id): [id, sz, cls] of a table entry no object holds
 * yet, which from then on one does: the gdArray constructor's form for
 * the gateway's results (gd_mex_wrap). An id an object already holds, or
 * none, is refused: a second handle on the data would free it when it
 * goes. Runs inside the call that made the entry: it touches nothing
 * else (no device selection). */
void gd_op_claim(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    (void)nlhs;
    entry *e = NULL;
    if (nrhs == 1 && mxIsDouble(prhs[0]) && !mxIsComplex(prhs[0]) &&
        mxGetNumberOfElements(prhs[0]) == 1)
        e = lookup(mxGetScalar(prhs[0]));
    if (!e || e->wrapped)
        gd_mex_error("gdArray", "gd:input", "expected one matrix: G = gdArray (A) or gdArray "
                     "(A, 'Device', d) (gd alone makes a gdArray of its results)");
    e->wrapped = 1;
    plhs[0] = mxCreateDoubleScalar(mxGetScalar(prhs[0]));
    plhs[1] = mxCreateDoubleMatrix(1, 2, mxREAL);
    mxGetDoubles(plhs[1])[0] = (double)e->m.rows;
    mxGetDoubles(plhs[1])[1] = (double)e->m.cols;
    plhs[2] = mxCreateString(e->logical ? "logical" : gd_mex_class_name(e->m.cls));
}

mxArray *gd_mex_wrap(const char *fn, double id)
{
    const gd_matrix *m = gd_reg_find(id);
    if (!m) gd_mex_error(fn, "gd:stale", "internal: no gdArray %.0f", id);
    mxArray *args[2] = {mxCreateString("__gd_wrap__"), mxCreateDoubleScalar(id)};
    mxArray *obj = NULL;
    mxArray *err = mexCallMATLABWithTrap(1, &obj, 2, args, "gdArray");
    for (int i = 0; i < 2; ++i) mxDestroyArray(args[i]);
    if (err || !obj) {
        gd_reg_free(id);
        if (obj) mxDestroyArray(obj);
        if (err) mexCallMATLAB(0, NULL, 1, &err, "rethrow");
        gd_mex_error(fn, "gd:memory", "cannot make the gdArray object");
    }
    return obj;
}

/* A failure of the kernel layer as gd's error; where memory ran out the
 * message adds what the live gdArrays hold. */
/* Ctrl-C: Octave's handler has caught a signal it has not yet acted on */
static int interrupt_pending(void) { return octave_signal_caught != 0; }

/* an interrupt the kernel layer stopped for: Octave acts on it now (its
 * interrupt, not an error: try/catch does not catch it); where it has
 * already gone, gd:interrupted */
static void raise_interrupt(const char *fn)
{
    OCTAVE_QUIT;
    gd_mex_error(fn, "gd:interrupted", "interrupted");
}

void gd_mex_fail(const char *fn, gd_status s)
{
    if (s == GD_ERR_INTERRUPT || gd_interrupted()) raise_interrupt(fn);
    double count, bytes;
    gd_reg_stats(&count, &bytes);
    if (s == GD_ERR_MEMORY && count > 0)
        gd_mex_error(fn, gd_status_id(s), "%s; %.0f live gdArray%s hold %.1f MiB", gd_last_error(),
                     count, count == 1 ? "" : "s", bytes / 1048576.0);
    gd_mex_error(fn, gd_status_id(s), "%s", gd_last_error());
}

/* the gateway is unloaded (clear mex, or Octave's exit): every gdArray's
 * memory goes first, then the streams and the memory pool; a gdArray
 * object that outlives this finds its id gone (gd:stale) */
static void at_exit(void)
{
    gd_reg_free_all();
    gd_nccl_end();
    gd_release();
    gd_mpi_end();
}

void gd_mex_init(void)
{
    /* every call: Octave may keep a cleared .mex loaded, and registering
     * again only replaces the same function */
    mexAtExit(at_exit);
    gd_set_interrupt_check(interrupt_pending);
}
