/* __gd_sgemm__.c - gateway of gd_sgemm (octave/gd_sgemm.m).
 *
 *   C = __gd_sgemm__(A, B)                       single(A) * single(B)
 *   [C, info] = __gd_sgemm__(A, B, 'Variant', name, 'Edges', 'pad'|'guard')
 *   list = __gd_sgemm__('variants')
 */
#include "gd_mex.h"

#include <string.h>

static const char FN[] = "gd_sgemm";

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    gd_mex_init();
    const gd_variant_info *list;
    int count = gd_sgemm_variants(&list);
    if (gd_mex_variants_call(FN, nlhs, plhs, nrhs, prhs, 2, count, list)) return;

    gd_mex_operands o;
    gd_mex_get_operands(FN, nrhs, prhs, 0, &o);
    static const char *const names[] = {"Variant", "Edges"};
    const mxArray *values[2] = {NULL, NULL};
    gd_mex_options(FN, nrhs, prhs, o.first, 2, names, values);
    char variant[32] = "auto", edges[16] = "pad";
    if (values[0]) gd_mex_option_string(FN, "Variant", values[0], variant, sizeof variant);
    if (values[1]) gd_mex_option_string(FN, "Edges", values[1], edges, sizeof edges);
    gd_mex_check_variant(FN, variant, count, list);
    if (strcmp(edges, "pad") && strcmp(edges, "guard"))
        gd_mex_error(FN, "gd:input", "'Edges' must be 'pad' or 'guard', not '%s'", edges);

    /* the S in SGEMM: double operands are converted to single first */
    const mxArray *in[2] = {o.A, o.B};
    const void *p[2];
    gd_mex_inputs(FN, 2, in, GD_SINGLE, p);
    gd_mex_out C;
    gd_timing t;
    gd_status s = gd_sgemm(variant, strcmp(edges, "guard") ? GD_EDGES_PAD : GD_EDGES_GUARD,
                           (const float *)p[0], (const float *)p[1],
                           gd_mex_output(&C, (size_t)o.m, (size_t)o.n, GD_SINGLE),
                           o.m, o.k, o.n, &t);
    if (s) {
        gd_mex_free_inputs(2, in, GD_SINGLE, p);
        if (C.array) mxDestroyArray(C.array);
        gd_mex_fail(FN, s);
    }
    /* a 1x1 operand: Octave multiplies by a scalar element by element,
     * which keeps the sign of a zero product (single (-0) * 5 is -0); a
     * sum of products starts at +0 and loses it. Same products otherwise:
     * the result is made Octave's here, whatever the variant. */
    if (o.k == 1 && (o.m == 1 || o.n == 1)) {
        const float *a = (const float *)p[0], *b = (const float *)p[1];
        float *c = mxGetSingles(C.array);
        for (int64_t e = 0; e < o.m * o.n; ++e) c[e] = o.m == 1 ? a[0] * b[e] : a[e] * b[0];
    }
    gd_mex_free_inputs(2, in, GD_SINGLE, p);
    gd_mex_warn_fallback(FN, &t);
    plhs[0] = C.array;
    if (nlhs > 1) {
        const int64_t size[3] = {o.m, o.k, o.n};
        plhs[1] = gd_mex_info(&t, GD_SINGLE, "flop/s", 3, size);
    }
}
