/* fp64_mix.cu - what the GPU's pipes sustain for the instruction mixes of
 * gd's inner loops: a microbenchmark.
 *
 *   make build/fp64_mix && build/fp64_mix
 *
 * Each mix runs as eight chains a thread (enough to cover the pipes'
 * latency with a few warps), in inline PTX, over enough blocks to fill
 * every SM. A pair's first instruction reads another chain's accumulator,
 * so that no operand of the loop is invariant (ptxas would compute such a
 * sum once, outside the loop). The loop is unrolled eight times, so that
 * its counter and branch are a few percent of the issue slots. It prints, per mix, the instructions and the steps (a
 * min-plus or distance step: one pass of the mix) per clock per SM, from
 * CUDA events and the SM clock the device reports, and the steps per
 * second of the whole device: the ceilings the bench's percentages should
 * use. Mixes:
 *
 *   dadd          add.f64                       (a double min-plus step's sum)
 *   dmin          min.f64                       (its minimum)
 *   dadd+dmin     add.f64, min.f64              (a double min-plus step)
 *   dadd+imin64   add.f64, min.s64 on the bits  (the step where no operand
 *                                                is negative: the sums'
 *                                                order is their bits')
 *   dfma          fma.rn.f64                    (a double product step)
 *   dsub+dfma     sub.f64, fma.rn.f64           (a double squared-distance step)
 *   dham          setp.neu.f64, selp.f64, add.f64 (hamming's step in double)
 *   fadd+fmin     add.f32, min.f32              (single min-plus, for scale)
 *   fsub+ffma     sub.f32, fma.rn.f32           (single's squared-distance step)
 *   fham          set.neu.f32.f32, add.f32      (hamming's step in single)
 *   viaddmin      DPX min(a + b, c), s32        (integer min-plus)
 *
 * Then each step the distance kernels run (tile.cuh's and metric.cuh's
 * own code), single and double, in the tile's inner loop: 8 x 8
 * accumulators a thread, operands from shared memory (run_step). Its
 * steps a clock an SM are what the metric's instruction mix allows with
 * no global loads, barriers or stores: the ceiling the bench's metric
 * table measures its kernels against, beside the pipes' bound.
 */
#define GD_STEPS_ONLY
#include "tiles/metric.cuh" // the kernels' own steps (gd_tile::sqdist ..., minkowski_step)

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "fp64_mix: %s: %s\n", #x, cudaGetErrorString(e_));             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

enum { CHAINS = 8, ITERS = 4096 };

enum mix { DADD, DMIN, DADD_DMIN, DADD_IMIN64, DFMA, DSUB_DFMA, DHAM, FADD_FMIN, FSUB_FFMA, FHAM, VIADDMIN, NMIX };
const char *const NAMES[NMIX] = {"dadd", "dmin", "dadd+dmin", "dadd+imin64", "dfma", "dsub+dfma",
                                 "dham", "fadd+fmin", "fsub+ffma", "fham", "viaddmin"};
const int INSTRUCTIONS[NMIX] = {1, 1, 2, 2, 1, 2, 3, 2, 2, 2, 1}; // per step (PTX)

// One step of mix M on chain c. A pair's first instruction takes another
// chain's accumulator as it was at the start of the iteration (o), so that
// its result changes every iteration: with loop-invariant operands ptxas
// computes a sum once, before the loop (inline PTX is optimised too), and
// the pair would time its second instruction alone.
template <int M> __device__ __forceinline__ void first(double &t, double o, double x)
{
    if (M == DADD_DMIN || M == DADD_IMIN64)
        asm volatile("add.f64 %0, %1, %2;" : "=d"(t) : "d"(o), "d"(x));
    if (M == DSUB_DFMA) asm volatile("sub.f64 %0, %1, %2;" : "=d"(t) : "d"(o), "d"(x));
    if (M == DHAM)
        asm volatile("{.reg .pred p; setp.neu.f64 p, %1, %2; selp.f64 %0, 0d3FF0000000000000, "
                     "0d0000000000000000, p;}"
                     : "=d"(t)
                     : "d"(o), "d"(x));
}
template <int M> __device__ __forceinline__ void second(double &acc, double t, double x)
{
    if (M == DADD) asm volatile("add.f64 %0, %0, %1;" : "+d"(acc) : "d"(x));
    if (M == DMIN) asm volatile("min.f64 %0, %0, %1;" : "+d"(acc) : "d"(x));
    if (M == DADD_DMIN) asm volatile("min.f64 %0, %0, %1;" : "+d"(acc) : "d"(t));
    if (M == DADD_IMIN64) {
        long long a = __double_as_longlong(acc);
        asm volatile("min.s64 %0, %0, %1;" : "+l"(a) : "l"(__double_as_longlong(t)));
        acc = __longlong_as_double(a);
    }
    if (M == DFMA) asm volatile("fma.rn.f64 %0, %1, %1, %0;" : "+d"(acc) : "d"(x));
    if (M == DSUB_DFMA) asm volatile("fma.rn.f64 %0, %1, %1, %0;" : "+d"(acc) : "d"(t));
    if (M == DHAM) asm volatile("add.f64 %0, %0, %1;" : "+d"(acc) : "d"(t));
}
template <int M> __device__ __forceinline__ void first(float &t, float o, float x)
{
    if (M == FADD_FMIN) asm volatile("add.f32 %0, %1, %2;" : "=f"(t) : "f"(o), "f"(x));
    if (M == FSUB_FFMA) asm volatile("sub.f32 %0, %1, %2;" : "=f"(t) : "f"(o), "f"(x));
    if (M == FHAM) asm volatile("set.neu.f32.f32 %0, %1, %2;" : "=f"(t) : "f"(o), "f"(x));
}
// the single pair; the DPX form in one piece (min(o + x, acc): the sum
// feeds the min alone, so ptxas may fuse them into VIADDMNMX)
template <int M> __device__ __forceinline__ void second(float &acc, float t, float o, float x)
{
    if (M == FADD_FMIN) {
        asm volatile("min.f32 %0, %0, %1;" : "+f"(acc) : "f"(t));
    } else if (M == FSUB_FFMA) {
        asm volatile("fma.rn.f32 %0, %1, %1, %0;" : "+f"(acc) : "f"(t));
    } else if (M == FHAM) {
        asm volatile("add.f32 %0, %0, %1;" : "+f"(acc) : "f"(t));
    } else {
        int a = __float_as_int(acc);
        asm volatile("{.reg .s32 s; add.s32 s, %1, %2; min.s32 %0, s, %0;}"
                     : "+r"(a)
                     : "r"(__float_as_int(o)), "r"(__float_as_int(x)));
        acc = __int_as_float(a);
    }
}

template <int M> __global__ void run(const double *in, double *out)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (M < FADD_FMIN) {
        double acc[CHAINS], t[CHAINS], x[CHAINS];
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) acc[c] = in[c] + tid, x[c] = in[c] * 0.5, t[c] = 0;
#pragma unroll 8
        for (int i = 0; i < ITERS; ++i) {
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) first<M>(t[c], acc[(c + 1) % CHAINS], x[c]);
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) second<M>(acc[c], t[c], x[c]);
        }
        double s = 0;
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) s += acc[c] + t[c];
        if (s == 12345.678) out[tid] = s; // never true: keeps the work
    } else {
        float acc[CHAINS], t[CHAINS], x[CHAINS];
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) acc[c] = (float)in[c] + tid, x[c] = (float)in[c], t[c] = 0;
#pragma unroll 8
        for (int i = 0; i < ITERS; ++i) {
            float o[CHAINS];
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) o[c] = acc[(c + 1) % CHAINS];
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) first<M>(t[c], o[c], x[c]);
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) second<M>(acc[c], t[c], o[c], x[c]);
        }
        float s = 0;
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) s += acc[c] + t[c];
        if (s == 12345.678f) out[tid] = s;
    }
}

// A metric's step (Op::step, K = 1) as the distance kernels run it: an
// 8 x 8 tile of accumulators a thread, each k-step's 8 + 8 operands read
// from shared memory by 16-byte loads (tile.cuh's inner loop without its
// global loads, barriers and stores). The loads' addresses change from
// one pass to the next, so nothing can be computed once outside the loop
// (an empty asm cannot stop that: ptxas sees through it). 128 threads a
// block.
enum { STEP_THREADS = 128, STEP_K = 8, STEP_ITERS = ITERS * CHAINS / 16 };
template <class Op, class T>
__global__ void __launch_bounds__(STEP_THREADS) run_step(const double *in, double *out)
{
    typedef typename gd_tile::vec16<T>::type V;
    enum { W = gd_tile::vec16<T>::N };
    __shared__ __align__(16) T sa[2 * STEP_K][16 * 8], sb[2 * STEP_K][8 * 8];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    for (int e = tid; e < 2 * STEP_K * 16 * 8; e += STEP_THREADS)
        (&sa[0][0])[e] = (T)in[e % CHAINS] + (T)(e % 7);
    for (int e = tid; e < 2 * STEP_K * 8 * 8; e += STEP_THREADS)
        (&sb[0][0])[e] = (T)in[(e + 3) % CHAINS] * (T)0.75 + (T)(e % 5);
    __syncthreads();
    T acc[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[r][c] = Op::template init<T>();
#pragma unroll 1
    for (int i = 0; i < STEP_ITERS / STEP_K; ++i) {
        // stages alternate between two halves, so that the loads' addresses
        // change with i and no load or difference is computed once
        const int h = (i & 1) * STEP_K;
#pragma unroll
        for (int k = 0; k < STEP_K; ++k) {
            T a[8], b[8];
#pragma unroll
            for (int g = 0; g < 8 / W; ++g) {
                gd_tile::unpack(a + g * W, *reinterpret_cast<const V *>(&sa[h + k][g * 16 * W + W * tx]));
                gd_tile::unpack(b + g * W, *reinterpret_cast<const V *>(&sb[h + k][g * 8 * W + W * ty]));
            }
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int c = 0; c < 8; ++c) Op::step(acc[r][c], a[r], b[c]);
        }
    }
    T s = 0;
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) s += acc[r][c];
    if (s == (T)12345.678) out[blockIdx.x * blockDim.x + tid] = (double)s; // never true
}

template <class K> float time_kernel(K kernel, const double *in, double *out, int blocks,
                                     int threads)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    kernel<<<blocks, threads>>>(in, out); // warm-up
    CHECK(cudaGetLastError());
    float best = 1e30f;
    for (int r = 0; r < 5; ++r) {
        CHECK(cudaEventRecord(a));
        kernel<<<blocks, threads>>>(in, out);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (ms < best) best = ms;
    }
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return best;
}

struct step_row {
    const char *metric;
    float (*time)(const double *, double *, int, int);
};
template <class Op> float time_step_f(const double *in, double *out, int blocks, int threads)
{
    return time_kernel(run_step<Op, float>, in, out, blocks * threads / STEP_THREADS, STEP_THREADS);
}
template <class Op> float time_step_d(const double *in, double *out, int blocks, int threads)
{
    return time_kernel(run_step<Op, double>, in, out, blocks * threads / STEP_THREADS, STEP_THREADS);
}
#define STEP(name, Op) {name, time_step_f<Op>}, {name, time_step_d<Op>}
const step_row STEPS[] = {
    STEP("euclidean", gd_tile::sqdist),   STEP("cityblock", gd_tile::absdist),
    STEP("chebychev", gd_tile::maxabs),   STEP("cosine", gd_tile::dot_rn),
    STEP("hamming", gd_tile::neq),        STEP("jaccard", gd_tile::jaccard_counts),
    STEP("minkowski", minkowski_int_step), STEP("minkowski_pow", minkowski_step),
    STEP("minplus", gd_tile::minplus),    STEP("minplus_sel", gd_tile::minplus_sel),
};
#undef STEP

template <int M> float time_mix(const double *in, double *out, int blocks, int threads)
{
    return time_kernel(run<M>, in, out, blocks, threads);
}

int main()
{
    int dev = 0, sms = 0, khz = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, dev));
    const int threads = 256, blocks = sms * 8;
    double host[CHAINS + 1];
    for (int c = 0; c <= CHAINS; ++c) host[c] = 1.0 + c / 16.0;
    double *in, *out;
    CHECK(cudaMalloc(&in, sizeof host));
    CHECK(cudaMalloc(&out, sizeof(double) * blocks * threads));
    CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
    float ms[NMIX];
    ms[DADD] = time_mix<DADD>(in, out, blocks, threads);
    ms[DMIN] = time_mix<DMIN>(in, out, blocks, threads);
    ms[DADD_DMIN] = time_mix<DADD_DMIN>(in, out, blocks, threads);
    ms[DADD_IMIN64] = time_mix<DADD_IMIN64>(in, out, blocks, threads);
    ms[DFMA] = time_mix<DFMA>(in, out, blocks, threads);
    ms[DSUB_DFMA] = time_mix<DSUB_DFMA>(in, out, blocks, threads);
    ms[DHAM] = time_mix<DHAM>(in, out, blocks, threads);
    ms[FADD_FMIN] = time_mix<FADD_FMIN>(in, out, blocks, threads);
    ms[FSUB_FFMA] = time_mix<FSUB_FFMA>(in, out, blocks, threads);
    ms[FHAM] = time_mix<FHAM>(in, out, blocks, threads);
    ms[VIADDMIN] = time_mix<VIADDMIN>(in, out, blocks, threads);
    const double clock = khz * 1e3;
    printf("%s: %d SMs at %.0f MHz; %d blocks of %d threads, %d chains a thread, %d steps a "
           "chain; best of 5\n",
           p.name, sms, clock / 1e6, blocks, threads, CHAINS, ITERS);
    printf("%-10s %10s %14s %14s %14s\n", "mix", "ms", "instr/clk/SM", "steps/clk/SM",
           "steps/s");
    for (int m = 0; m < NMIX; ++m) {
        const double steps = (double)blocks * threads * CHAINS * ITERS;
        const double per = steps / (ms[m] * 1e-3) / clock / sms;
        printf("%-10s %10.3f %14.1f %14.1f %14.3g\n", NAMES[m], ms[m], per * INSTRUCTIONS[m], per,
               steps / (ms[m] * 1e-3));
    }
    // the metrics' steps; minkowski with p = 3 (the bench's: the multiplying
    // step; minkowski_pow, pow's step, as p = 1.5 would take it)
    const float pf = 3.0f;
    const double pd = 3.0;
    CHECK(cudaMemcpyToSymbol(c_minkowski_pf, &pf, sizeof pf));
    CHECK(cudaMemcpyToSymbol(c_minkowski_pd, &pd, sizeof pd));
    printf("\n%-10s %-6s %10s %14s %14s\n", "step", "class", "ms", "steps/clk/SM", "steps/s");
    for (const step_row &r : STEPS) {
        const bool single = (&r - STEPS) % 2 == 0;
        const float t = r.time(in, out, blocks, threads);
        const double steps = (double)blocks * threads * 64 * STEP_ITERS;
        printf("%-10s %-6s %10.3f %14.2f %14.3g\n", r.metric, single ? "single" : "double", t,
               steps / (t * 1e-3) / clock / sms, steps / (t * 1e-3));
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return 0;
}
