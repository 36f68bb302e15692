/* __gd__.c - the one gateway of gd (octave/private/__gd__.mex): every
 * function's .m file calls __gd__ (op, ...), and this dispatches on op to
 * the op_*.c files. One .mex holds one copy of the C statics that must be
 * shared: the table of gdArrays, the streams, the staging buffers. */
#include "gd_mex.h"

#include <string.h>

static const struct {
    const char *name;
    gd_mex_op *fn;
} OPS[] = {
    {"minplus", gd_op_minplus},     {"minplus_info", gd_op_minplus_info},
    {"sgemm", gd_op_sgemm},
    {"dgemm", gd_op_dgemm},
    {"pdist", gd_op_pdist},         {"pdist2", gd_op_pdist2},
    {"info", gd_op_info},           {"upload", gd_op_upload},
    {"gather", gd_op_gather},       {"free", gd_op_free},
    {"transpose", gd_op_transpose}, {"squareform", gd_op_squareform},
    {"describe", gd_op_describe},   {"apsp", gd_op_apsp},
    {"apsp_info", gd_op_apsp_info}, {"apsp_trees", gd_op_apsp_trees},
    {"apsp_ranks", gd_op_apsp_ranks}, {"apsp_chain", gd_op_apsp_chain},
    {"row", gd_op_row},             {"knn", gd_op_knn},
    {"knnsearch", gd_op_knnsearch}, {"spmd", gd_op_spmd},
    {"rangesearch", gd_op_rangesearch}, {"range", gd_op_range},
    {"sssp", gd_op_sssp},           {"sssp_all", gd_op_sssp_all},
    {"knn_merge", gd_op_knn_merge},
    {"device", gd_op_device},       {"on_gpu", gd_op_on_gpu},
    {"index", gd_op_index},         {"ew2", gd_op_ew2},
    {"ew1", gd_op_ew1},             {"convert", gd_op_convert},
    {"cat", gd_op_cat},             {"reduce", gd_op_reduce},
    {"scan", gd_op_scan},           {"cmp", gd_op_cmp},
    {"test", gd_op_test},           {"assign", gd_op_assign},
    {"tri", gd_op_tri},             {"fill", gd_op_fill},
    {"fuse", gd_op_fuse},
};

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    gd_mex_init();
    char op[32];
    if (nrhs < 1 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], op, sizeof op))
        gd_mex_error("__gd__", "gd:input", "expected an operation name first");
    /* the constructor's claim runs inside a call making a gdArray
     * result: that call's device selection stays */
    if (!strcmp(op, "claim")) {
        gd_op_claim(nlhs, plhs, nrhs - 1, prhs + 1);
        return;
    }
    gd_mex_call_begin(op);
    gd_mex_home_reset(); /* device 1 and the default devices, unless a gdArray or
                            'Devices' says */
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; ++i)
        if (!strcmp(op, OPS[i].name)) {
            OPS[i].fn(nlhs, plhs, nrhs - 1, prhs + 1);
            return;
        }
    gd_mex_error("__gd__", "gd:input", "unknown operation '%s'", op);
}
