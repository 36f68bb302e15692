/* ops/ew/compile.cuh - arrayfun's chain compiled at run time: part of
 * fuse.cu, inside its anonymous namespace.
 *
 * The program becomes a kernel of straight-line code, each instruction
 * fuse.h's fuse_apply with its operation a constant, and NVRTC (loaded
 * with dlopen at the first chain, not linked: a machine without it runs
 * the interpreting kernel) compiles it with the very texts of arith.h and
 * fuse.h, embedded in the library when it is built (build/gen/ew_text.h),
 * to machine code for the device. --fmad=false: no multiply is fused with
 * the next add, so each step rounds as the unfused operation's does. The
 * constants and the inputs stay the kernel's parameters, so one compiled
 * chain serves every value of them; chains are remembered by their text
 * (the operations, the inputs' classes, the result's) for the process.
 * NVRTC's own headers lack the C++ library's: the few arith.h takes from
 * it are given here. */
struct nvrtc_api {
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
};
nvrtc_api g_nvrtc;
int g_nvrtc_tried;
pthread_mutex_t g_jit_lock = PTHREAD_MUTEX_INITIALIZER;
std::unordered_map<std::string, cudaKernel_t> *g_chains; /* by text and device */
std::unordered_map<std::string, cudaLibrary_t> *g_chain_libs;

/* NVRTC, once: the toolkit gd was built with first, then the loader's
 * search; false where there is none (the interpreting kernel runs) */
bool nvrtc_load(void)
{
    if (g_nvrtc_tried) return g_nvrtc.compile != NULL;
    g_nvrtc_tried = 1;
    char soname[64];
    snprintf(soname, sizeof soname, "libnvrtc.so.%d", CUDART_VERSION / 1000);
    char built[512] = "";
#ifdef GD_CUDA_LIB
    snprintf(built, sizeof built, "%s/%s", GD_CUDA_LIB, soname);
#endif
    const char *const names[] = {built, soname, "libnvrtc.so"};
    void *h = NULL;
    for (const char *name : names)
        if (name[0] && (h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) return false;
    nvrtc_api a;
    struct { void **fn; const char *sym; } syms[] = {
        {(void **)&a.create, "nvrtcCreateProgram"},     {(void **)&a.compile, "nvrtcCompileProgram"},
        {(void **)&a.log_size, "nvrtcGetProgramLogSize"}, {(void **)&a.log, "nvrtcGetProgramLog"},
        {(void **)&a.cubin_size, "nvrtcGetCUBINSize"},  {(void **)&a.cubin, "nvrtcGetCUBIN"},
        {(void **)&a.destroy, "nvrtcDestroyProgram"}};
    for (auto &e : syms)
        if (!(*e.fn = dlsym(h, e.sym))) return false;
    g_nvrtc = a;
    return true;
}

/* the C++ library's names arith.h takes, for NVRTC (its device math
 * functions are in the global namespace) */
const char jit_cmath[] =
    "namespace std { using ::exp; using ::log; using ::log2; using ::log1p; using ::expm1;\n"
    "using ::sin; using ::cos; using ::tanh; using ::pow; using ::floor; using ::ceil; using ::trunc;\n"
    "using ::round; using ::fabs; using ::copysign; using ::isnan; using ::isinf; using ::isfinite;\n"
    "using ::sqrt; using ::fmod; }\n"
    "#define NAN __int_as_float(0x7fc00000)\n#define INFINITY __int_as_float(0x7f800000)\n";
const char jit_stdint[] =
    "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;\n"
    "typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n"
    "#define INT8_MIN (-128)\n#define INT8_MAX 127\n#define UINT8_MAX 255\n"
    "#define INT16_MIN (-32768)\n#define INT16_MAX 32767\n#define UINT16_MAX 65535\n"
    "#define INT32_MIN (-2147483647 - 1)\n#define INT32_MAX 2147483647\n#define UINT32_MAX 4294967295u\n"
    "#define INT64_MIN (-9223372036854775807LL - 1)\n#define INT64_MAX 9223372036854775807LL\n"
    "#define UINT64_MAX 18446744073709551615ULL\n";
const char jit_traits[] =
    "namespace std {\n"
    "template <class T, T v> struct integral_constant { static constexpr T value = v; };\n"
    "typedef integral_constant<bool, true> true_type; typedef integral_constant<bool, false> false_type;\n"
    "template <class A, class B> struct is_same : false_type {};\n"
    "template <class A> struct is_same<A, A> : true_type {};\n"
    "template <class T> struct is_integral : integral_constant<bool, (T)0.5 == (T)0> {};\n"
    "template <class T> struct is_signed : integral_constant<bool, (T)-1 < (T)0> {};\n"
    "template <bool C, class A, class B> struct conditional { typedef A type; };\n"
    "template <class A, class B> struct conditional<false, A, B> { typedef B type; };\n"
    "}\n";

/* the chain's body for one element, acc its result: each instruction
 * fuse_apply with constant operation and order, input i's element
 * x (i) */
template <class X> std::string jit_body(const gd_fuse_program &p, X x)
{
    std::string s = "            T acc = 0, s[4] = {0, 0, 0, 0};\n";
    char line[256], v[96];
    for (int i = 0; i < p.n; ++i) {
        const int op = p.op[i], kind = p.kind[i], arg = p.arg[i];
        if (op == GD_FUSE_STORE) {
            snprintf(line, sizeof line, "            s[%d] = acc;\n", arg);
            s += line;
            continue;
        }
        if (kind == GD_FUSE_INPUT)
            snprintf(v, sizeof v, "%s", x(arg).c_str());
        else if (kind == GD_FUSE_CONST)
            snprintf(v, sizeof v, "(T)k.k[%d]", arg);
        else if (kind == GD_FUSE_SLOT)
            snprintf(v, sizeof v, "s[%d]", arg);
        else
            snprintf(v, sizeof v, "acc");
        snprintf(line, sizeof line, "            bad |= fuse_apply<T>(%d, %d, acc, %s);\n", op,
                 (int)p.swap[i], v);
        s += line;
    }
    return s + "            (void)s;\n";
}

/* the chain's text: a thread four elements at a time, grid-strided, each
 * input and the result moved by one vector access where every array is
 * aligned (vec), the last total % 4 (or all, unaligned) one at a time */
std::string jit_source(const fuse_args &a, bool dbl, bool logical)
{
    const gd_fuse_program &p = a.p;
    char line[256];
    std::string s;
    snprintf(line, sizeof line,
             "enum { GD_SINGLE = %d, GD_DOUBLE = %d, GD_FUSE_UNARY = %d, GD_FUSE_CMP = %d, GD_FUSE_LOAD = %d };\n",
             (int)GD_SINGLE, (int)GD_DOUBLE, (int)GD_FUSE_UNARY, (int)GD_FUSE_CMP, (int)GD_FUSE_LOAD);
    s += line;
    s += "#include \"ops/ew/fuse.h\"\n";
    snprintf(line, sizeof line,
             "struct gd_in { const void *p[%d]; };\nstruct gd_k { double k[%d]; };\n"
             "typedef %s T;\ntypedef %s TR;\n",
             (int)GD_FUSE_INPUTS, (int)GD_FUSE_CONSTS, dbl ? "double" : "float",
             logical ? "unsigned char" : dbl ? "double" : "float");
    s += line;
    bool used[GD_FUSE_INPUTS] = {false};
    for (int i = 0; i < p.n; ++i)
        if (p.kind[i] == GD_FUSE_INPUT && p.op[i] != GD_FUSE_STORE) used[p.arg[i]] = true;
    s += "extern \"C\" __global__ void __launch_bounds__(256) gd_chain(const gd_in in, const gd_k k, TR *R,\n"
         "    long long total, int vec, int *flag)\n{\n    int bad = 0;\n"
         "    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x,\n"
         "                    stride = (long long)gridDim.x * blockDim.x, nv = vec ? total / 4 : 0;\n"
         "    for (long long g = first; g < nv; g += stride) {\n";
    for (int i = 0; i < GD_FUSE_INPUTS; ++i)
        if (used[i]) {
            snprintf(line, sizeof line, "        T x%d[4];\n        fuse_load4<T>(in.p[%d], %d, g, x%d);\n",
                     i, i, a.cls[i], i);
            s += line;
        }
    s += "        TR r[4];\n#pragma unroll\n        for (int e = 0; e < 4; ++e) {\n";
    s += jit_body(p, [](int i) { return "x" + std::to_string(i) + "[e]"; });
    s += "            r[e] = (TR)acc;\n        }\n        fuse_store4<TR>(R, g, r);\n    }\n"
         "    for (long long q = 4 * nv + first; q < total; q += stride) {\n        {\n";
    s += jit_body(p, [&a](int i) {
        return "fuse_load<T>(in.p[" + std::to_string(i) + "], " + std::to_string(a.cls[i]) + ", q)";
    });
    s += "            R[q] = (TR)acc;\n        }\n    }\n"
         "    if (bad) atomicOr(flag, 1);\n}\n";
    return s;
}

/* the chain's kernel on this device, compiled at its first use (NULL:
 * no NVRTC, or it failed: *why says so) */
cudaKernel_t jit_kernel(const std::string &src, char *why, size_t wl)
{
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    char arch[32];
    snprintf(arch, sizeof arch, "-arch=sm_%d%d", major, minor);
    const std::string key = std::string(arch) + "\n" + src;
    pthread_mutex_lock(&g_jit_lock);
    if (!g_chains) {
        g_chains = new std::unordered_map<std::string, cudaKernel_t>;
        g_chain_libs = new std::unordered_map<std::string, cudaLibrary_t>;
    }
    auto hit = g_chains->find(key);
    cudaKernel_t kern = hit == g_chains->end() ? NULL : hit->second;
    if (hit != g_chains->end() || !nvrtc_load()) {
        if (!kern) snprintf(why, wl, "no NVRTC");
        pthread_mutex_unlock(&g_jit_lock);
        return kern;
    }
    const char *texts[] = {gd_text_arith, gd_text_fuse, jit_cmath, jit_cmath, jit_stdint, jit_traits};
    const char *names[] = {"ops/ew/arith.h", "ops/ew/fuse.h", "cmath", "math.h", "stdint.h", "type_traits"};
    const char *opts[] = {arch, "--fmad=false", "-std=c++17", "-default-device"};
    nvrtcProgram prog = NULL;
    std::string image;
    nvrtcResult r = g_nvrtc.create(&prog, src.c_str(), "gd_chain.cu", 6, texts, names);
    if (r == NVRTC_SUCCESS) r = g_nvrtc.compile(prog, 4, opts);
    size_t n = 0;
    if (r == NVRTC_SUCCESS && g_nvrtc.cubin_size(prog, &n) == NVRTC_SUCCESS && n) {
        image.resize(n);
        if (g_nvrtc.cubin(prog, &image[0]) != NVRTC_SUCCESS) image.clear();
    } else if (prog && g_nvrtc.log_size(prog, &n) == NVRTC_SUCCESS && n) {
        std::string log(n, '\0');
        g_nvrtc.log(prog, &log[0]);
        snprintf(why, wl, "NVRTC: %.200s", log.c_str());
    } else {
        snprintf(why, wl, "NVRTC failed (%d)", (int)r);
    }
    if (prog) g_nvrtc.destroy(&prog);
    cudaLibrary_t lib = NULL;
    if (!image.empty() &&
        cudaLibraryLoadData(&lib, image.data(), NULL, NULL, 0, NULL, NULL, 0) == cudaSuccess &&
        cudaLibraryGetKernel(&kern, lib, "gd_chain") == cudaSuccess) {
        (*g_chains)[key] = kern;
        (*g_chain_libs)[key] = lib;
    } else {
        if (!image.empty()) snprintf(why, wl, "the compiled chain did not load");
        if (lib) cudaLibraryUnload(lib);
        cudaGetLastError();
        kern = NULL;
    }
    pthread_mutex_unlock(&g_jit_lock);
    return kern;
}

/* the compiled chains unloaded with the rest of gd's device state */
void release_chains(void)
{
    pthread_mutex_lock(&g_jit_lock);
    if (g_chain_libs)
        for (auto &e : *g_chain_libs) cudaLibraryUnload(e.second);
    if (g_chains) g_chains->clear();
    if (g_chain_libs) g_chain_libs->clear();
    cudaGetLastError();
    pthread_mutex_unlock(&g_jit_lock);
}
