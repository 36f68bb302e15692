/* ops/pdist/pdist_d.cu - pdist's GPU calls in double: gpu.cuh's kernels and
 * driver instantiated for double here, apart from single's in pdist.cu,
 * so that the two compile side by side (pdist.cu alone took most of the
 * build). */
#include "ops/pdist/gpu.cuh"

gd_status gd_pdist_run_gpu_d(const char *variant, const gd_matrix &X, gd_metric metric, double p,
                             gd_out out, gd_timing *t, int64_t jlo, int64_t jhi)
{
    const pdist_variant *v = gd_row_named(VARIANTS, NVARIANTS, variant);
    if (!v) return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", variant);
    return run_gpu<double>(*v, X, metric, p, out, t, jlo, jhi);
}
