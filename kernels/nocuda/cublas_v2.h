/* nocuda/cublas_v2.h - the cuBLAS types sgemm.cu names, for a build
 * without the CUDA toolkit (nocuda/cuda_runtime.h). sgemm.cu loads cuBLAS
 * with dlopen when its variant first runs; without CUDA no variant but
 * 'cpu' ever runs. */
#ifndef GD_NOCUDA_CUBLAS_V2_H
#define GD_NOCUDA_CUBLAS_V2_H

#include "cuda_runtime.h"

#define CUBLAS_VER_MAJOR 0
typedef struct gd_nocuda_cublas *cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_ALLOC_FAILED = 3 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0 } cublasOperation_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0 } cublasMath_t;

#endif
