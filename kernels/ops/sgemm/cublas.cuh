/* ops/sgemm/cublas.cuh - cublas: cublasSgemm loaded at run time, the reference.
 * Part of sgemm.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// cuBLAS: loaded with dlopen on the first use of the cublas variant, not
// linked: the library is 150 MB that every other call (and a machine
// without a GPU) never needs. One handle, bound to gd's stream, destroyed
// by gd_release (through the hook below); the library stays loaded.
struct cublas_api {
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    const char *(*status_string)(cublasStatus_t);
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const float *, const float *, int, const float *, int,
                            const float *, float *, int);
    cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const double *, const double *, int, const double *, int,
                            const double *, double *, int);
};
cublas_api g_api;
cublasHandle_t g_cublases[GD_MAX_DEVICES]; /* by CUDA ordinal */
#define g_cublas g_cublases[gd_ordinal()]

#define GD_STR2(x) #x
#define GD_STR(x) GD_STR2(x)
#define GD_CUBLAS_SONAME "libcublas.so." GD_STR(CUBLAS_VER_MAJOR)

gd_status cublas_load(void)
{
    if (g_api.sgemm) return GD_OK;
    // the toolkit gd was built with first, then the loader's search (the
    // gateway's runpath, LD_LIBRARY_PATH, the system's)
    static const char *const names[] = {
#ifdef GD_CUDA_LIB
        GD_CUDA_LIB "/" GD_CUBLAS_SONAME,
#endif
        GD_CUBLAS_SONAME};
    void *h = NULL;
    for (const char *name : names)
        if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) return gd_fail(GD_ERR_NOGPU, "cannot load cuBLAS (%s): %s", GD_CUBLAS_SONAME, dlerror());
    cublas_api a;
    struct { void **fn; const char *sym; } syms[] = {
        {(void **)&a.create, "cublasCreate_v2"},   {(void **)&a.destroy, "cublasDestroy_v2"},
        {(void **)&a.set_math_mode, "cublasSetMathMode"},
        {(void **)&a.set_stream, "cublasSetStream_v2"},
        {(void **)&a.status_string, "cublasGetStatusString"},
        {(void **)&a.sgemm, "cublasSgemm_v2"},     {(void **)&a.dgemm, "cublasDgemm_v2"}};
    for (auto &e : syms)
        if (!(*e.fn = dlsym(h, e.sym)))
            return gd_fail(GD_ERR_NOGPU, "cuBLAS (%s) lacks %s", GD_CUBLAS_SONAME, e.sym);
    g_api = a;
    return GD_OK;
}

void release_cublas(void)
{
    for (int o = 0; o < GD_MAX_DEVICES; ++o) {
        if (!g_cublases[o]) continue;
        cudaSetDevice(o);
        g_api.destroy(g_cublases[o]);
        g_cublases[o] = NULL;
    }
    cudaSetDevice(gd_ordinal());
    cudaGetLastError();
}

gd_status cublas_check(cublasStatus_t c, const char *what)
{
    if (c == CUBLAS_STATUS_SUCCESS) return GD_OK;
    if (c == CUBLAS_STATUS_ALLOC_FAILED)
        return gd_fail(GD_ERR_MEMORY, "%s: out of GPU memory", what);
    return gd_fail(GD_ERR_CUDA, "%s failed: %s", what, g_api.status_string(c));
}

/* this device's handle, on stream st, for an m x k by k x n product */
gd_status cublas_ready(cudaStream_t st, int64_t m, int64_t k, int64_t n)
{
    gd_status s;
    if ((s = cublas_load())) return s;
    if (!g_cublas) {
        if ((s = cublas_check(g_api.create(&g_cublas), "cublasCreate"))) {
            g_cublas = NULL;
            return s;
        }
        gd_on_release(release_cublas);
        // FP32 arithmetic: no TF32 tensor-core shortcut
        if ((s = cublas_check(g_api.set_math_mode(g_cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode")))
            return s;
    }
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return gd_fail(GD_ERR_SIZE, "cublas takes sizes below 2^31");
    return cublas_check(g_api.set_stream(g_cublas, st), "cublasSetStream");
}

gd_status launch_cublas(const gd_plan &p)
{
    gd_status s;
    if ((s = cublas_ready(p.st, p.m, p.k, p.n))) return s;
    const float one = 1.0f, zero = 0.0f;
    return cublas_check(g_api.sgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, (int)p.m, (int)p.n,
                                    (int)p.k, &one, (const float *)p.A, (int)p.lda,
                                    (const float *)p.B, (int)p.ldb, &zero, (float *)p.C,
                                    (int)p.ldc),
                        "cublasSgemm");
}
