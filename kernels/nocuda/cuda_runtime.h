/* nocuda/cuda_runtime.h - what gd's kernel layer uses of CUDA, for a build
 * on a machine without the CUDA toolkit (make GD_CUDA=no, or the Octave
 * package installed where nvcc is missing).
 *
 * The .cu files are compiled as C++ with this directory first on the
 * include path and their launches (<<<...>>>) cut out by the build: the
 * kernels compile as host functions that nothing calls, and every runtime
 * call fails as a runtime without a driver does. The device query then
 * says the build has no CUDA, 'auto' runs the cpu variants, and a GPU
 * variant raises gd:nogpu, as on a machine without a GPU. Nothing here
 * computes: a stub that is reached returns an error.
 */
#ifndef GD_NOCUDA_RUNTIME_H
#define GD_NOCUDA_RUNTIME_H

#define GD_NO_CUDA 1

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorNotReady = 600,
} cudaError_t;

typedef struct gd_nocuda_opaque *cudaStream_t;
typedef struct gd_nocuda_opaque *cudaEvent_t;
typedef struct gd_nocuda_opaque *cudaMemPool_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost,
    cudaMemcpyHostToDevice,
    cudaMemcpyDeviceToHost,
    cudaMemcpyDeviceToDevice,
    cudaMemcpyDefault
};
enum cudaDeviceAttr {
    cudaDevAttrClockRate,
    cudaDevAttrMemoryClockRate,
    cudaDevAttrMemoryPoolsSupported
};
enum cudaMemPoolAttr {
    cudaMemPoolAttrReleaseThreshold,
    cudaMemPoolAttrReservedMemCurrent,
    cudaMemPoolAttrUsedMemCurrent
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize };
enum { cudaStreamNonBlocking = 1, cudaEventBlockingSync = 1, cudaEventDisableTiming = 2 };

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int major, minor, multiProcessorCount, memoryBusWidth;
    int pciDomainID, pciBusID, pciDeviceID;
};

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint3 { unsigned x, y, z; };
enum cudaLaunchAttributeID { cudaLaunchAttributeClusterDimension };
struct cudaLaunchAttribute {
    cudaLaunchAttributeID id;
    union {
        struct { unsigned x, y, z; } clusterDim;
    } val;
};
struct cudaLaunchConfig_t {
    dim3 gridDim, blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned numAttrs;
};
struct int2 { int x, y; };
struct int4 { int x, y, z, w; };
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct double2 { double x, y; };
struct longlong2 { long long x, y; };
static inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
static inline longlong2 make_longlong2(long long x, long long y) { return longlong2{x, y}; }
static inline int2 make_int2(int x, int y) { return int2{x, y}; }
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
static inline double2 make_double2(double x, double y) { return double2{x, y}; }

/* the runtime: every call fails as one without a driver does */
#define GD_NOCUDA_FAIL return cudaErrorInsufficientDriver
static inline const char *cudaGetErrorString(cudaError_t) { return "gd was built without CUDA"; }
static inline const char *cudaGetErrorName(cudaError_t) { return "cudaErrorInsufficientDriver"; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaDriverGetVersion(int *v) { *v = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaGetDeviceCount(int *n) { *n = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaSetDevice(int) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaDeviceCanAccessPeer(int *c, int, int) { *c = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaDeviceEnablePeerAccess(int, unsigned) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemcpyPeerAsync(void *, int, const void *, int, size_t, cudaStream_t) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaGetDevice(int *d) { *d = 0; GD_NOCUDA_FAIL; }
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaMemcpy3DPeerParms {
    void *srcArray; cudaPos srcPos; cudaPitchedPtr srcPtr; int srcDevice;
    void *dstArray; cudaPos dstPos; cudaPitchedPtr dstPtr; int dstDevice;
    cudaExtent extent;
};
static inline cudaPitchedPtr make_cudaPitchedPtr(void *p, size_t pitch, size_t x, size_t y)
{
    cudaPitchedPtr r = {p, pitch, x, y};
    return r;
}
static inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    cudaExtent r = {w, h, d};
    return r;
}
static inline cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms *, cudaStream_t = 0) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *, int) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr, int) { *v = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaDeviceGetStreamPriorityRange(int *a, int *b) { *a = *b = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *p, int) { *p = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemPoolTrimTo(cudaMemPool_t, size_t) { GD_NOCUDA_FAIL; }
enum cudaMemLocationType { cudaMemLocationTypeDevice = 1 };
enum cudaMemAccessFlags { cudaMemAccessFlagsProtReadWrite = 3 };
struct cudaMemLocation { cudaMemLocationType type; int id; };
struct cudaMemAccessDesc { cudaMemLocation location; cudaMemAccessFlags flags; };
static inline cudaError_t cudaMemPoolSetAccess(cudaMemPool_t, const cudaMemAccessDesc *, size_t) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = *t = 0; GD_NOCUDA_FAIL; }
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t) { *p = 0; GD_NOCUDA_FAIL; }
template <class T>
static inline cudaError_t cudaMallocAsync(T **p, size_t, cudaStream_t) { *p = 0; GD_NOCUDA_FAIL; }
template <class T> static inline cudaError_t cudaMallocHost(T **p, size_t) { *p = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaFree(void *) { return cudaSuccess; }
static inline cudaError_t cudaFreeAsync(void *, cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaFreeHost(void *) { return cudaSuccess; }
static inline cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemcpyAsync(void *, const void *, size_t, cudaMemcpyKind,
                                          cudaStream_t = 0) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemcpy2D(void *, size_t, const void *, size_t, size_t, size_t,
                                       cudaMemcpyKind) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemcpy2DAsync(void *, size_t, const void *, size_t, size_t, size_t,
                                            cudaMemcpyKind, cudaStream_t = 0) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t = 0) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaMemset2DAsync(void *, size_t, int, size_t, size_t, cudaStream_t = 0) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { *s = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned, int) { *s = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaStreamQuery(cudaStream_t) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaDeviceGetPCIBusId(char *b, int n, int) { if (n > 0) b[0] = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { *e = 0; GD_NOCUDA_FAIL; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaEventQuery(cudaEvent_t) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 0; GD_NOCUDA_FAIL; }
template <class F> static inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) { GD_NOCUDA_FAIL; }
template <class F, class... A>
static inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *, F, A...) { GD_NOCUDA_FAIL; }
static inline cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t) { GD_NOCUDA_FAIL; }
template <class F>
static inline cudaError_t cudaOccupancyMaxActiveClusters(int *n, F, const cudaLaunchConfig_t *)
{
    *n = 0;
    GD_NOCUDA_FAIL;
}
template <class F>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F, int, size_t)
{
    *n = 0;
    GD_NOCUDA_FAIL;
}
template <class S> static inline cudaError_t cudaGetSymbolAddress(void **p, const S &) { *p = 0; GD_NOCUDA_FAIL; }
template <class S>
static inline cudaError_t cudaMemcpyToSymbolAsync(S &, const void *, size_t, size_t, cudaMemcpyKind,
                                                  cudaStream_t = 0) { GD_NOCUDA_FAIL; }

/* device code compiles as host code that never runs */
static const uint3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0};
static const dim3 blockDim, gridDim;
static inline void __syncthreads(void) {}
static inline int __syncthreads_or(int p) { return p; }
static inline void __syncwarp(unsigned = 0xffffffffu) {}
static inline void __threadfence_block(void) {}
template <class T> static inline T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
template <class T> static inline T __shfl_up_sync(unsigned, T v, unsigned, int = 32) { return v; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline void __trap(void) { abort(); }
template <class T> static inline T __shfl_down_sync(unsigned, T v, int, int = 32) { return v; }
static inline unsigned __ballot_sync(unsigned, int p) { return p ? 1u : 0u; }
static inline int __any_sync(unsigned, int p) { return p; }
static inline unsigned __activemask(void) { return 1u; }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
static inline unsigned __float_as_uint(float f) { unsigned i; memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline float __uint_as_float(unsigned i) { float f; memcpy(&f, &i, 4); return f; }
static inline double __longlong_as_double(long long i) { double d; memcpy(&d, &i, 8); return d; }
static inline long long __double_as_longlong(double d) { long long i; memcpy(&i, &d, 8); return i; }
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T, class V> static inline T atomicAdd(T *p, V v) { T o = *p; *p = o + v; return o; }
template <class T, class V> static inline T atomicOr(T *p, V v) { T o = *p; *p = o | v; return o; }
template <class T, class V> static inline T atomicMin(T *p, V v) { T o = *p; *p = v < o ? v : o; return o; }
template <class T, class V> static inline T atomicMax(T *p, V v) { T o = *p; *p = o < v ? v : o; return o; }
template <class T, class V> static inline T atomicAnd(T *p, V v) { T o = *p; *p = o & v; return o; }
template <class T, class V> static inline T atomicExch(T *p, V v) { T o = *p; *p = v; return o; }
template <class T, class V> static inline T atomicCAS(T *p, V c, V v) { T o = *p; if (o == (T)c) *p = v; return o; }
/* CUDA's overloads of min and max for the integer types */
#define GD_NOCUDA_MINMAX(T)                                                    \
    static inline T min(T a, T b) { return b < a ? b : a; }                    \
    static inline T max(T a, T b) { return a < b ? b : a; }
GD_NOCUDA_MINMAX(int)
GD_NOCUDA_MINMAX(unsigned)
GD_NOCUDA_MINMAX(long long)
GD_NOCUDA_MINMAX(unsigned long long)
GD_NOCUDA_MINMAX(long)
GD_NOCUDA_MINMAX(unsigned long)
static inline int __vimin3_s32(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }
static inline unsigned __vimax3_u32(unsigned a, unsigned b, unsigned c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }
/* rounded arithmetic without contraction */
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fmul_ru(float a, float b) { return a * b; }
static inline float __double2float_ru(double a) { return (float)a; }
static inline float __double2float_rd(double a) { return (float)a; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
/* the DPX forms: min(a + b, c), the sum wrapping; per 16-bit half for x2 */
static inline int __viaddmin_s32(int a, int b, int c)
{
    const int s = (int)((unsigned)a + (unsigned)b);
    return s < c ? s : c;
}
static inline unsigned __viaddmin_u32(unsigned a, unsigned b, unsigned c) { return a + b < c ? a + b : c; }
static inline unsigned __viaddmin_x2(unsigned a, unsigned b, unsigned c, int sgn)
{
    unsigned r = 0;
    for (int h = 0; h < 32; h += 16) {
        const unsigned s = ((a >> h) + (b >> h)) & 0xffffu, o = (c >> h) & 0xffffu;
        const int lt = sgn ? (short)s < (short)o : s < o;
        r |= (lt ? s : o) << h;
    }
    return r;
}
static inline unsigned __viaddmin_s16x2(unsigned a, unsigned b, unsigned c) { return __viaddmin_x2(a, b, c, 1); }
static inline unsigned __viaddmin_u16x2(unsigned a, unsigned b, unsigned c) { return __viaddmin_x2(a, b, c, 0); }
static inline size_t __cvta_generic_to_shared(const void *p) { return (size_t)p; }

#endif
