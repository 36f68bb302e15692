/* route.h - how far a route of P strays from D, shared by the CPU
 * (cpu.c's gd_cpu_apsp_trees) and the GPU (apsp.cu's tree_check and
 * tree_repair).
 *
 * Row i of P is a tree; the route from i to j follows its predecessors.
 * Each step q -> j of it strays from D by D(i,q) + W(q,j) - D(i,j), and
 * the steps' strays telescope: the route's weights, summed exactly, are
 * D(i,j) plus the strays' sum. A route is within D's rounding when that
 * sum is at most 4 n eps |w| summed over its edges (eps of the class,
 * n the vertex count): what the help promises of every route. The strays
 * and the sums are in double: a step of single exactly (two singles add
 * exactly in double), a step of double to its rounding (the sum's error
 * by Knuth's two-sum).
 */
#ifndef GD_ROUTE_H
#define GD_ROUTE_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GD_RHD static __host__ __device__ __forceinline__
#else
#define GD_RHD static inline
#endif

/* the stray of the step q -> j: D(i,q) = dq, W(q,j) = w, D(i,j) = dj */
GD_RHD double gd_stray_f(float dq, float w, float dj)
{
    return ((double)dq + (double)w) - (double)dj;
}
GD_RHD double gd_stray_d(double dq, double w, double dj)
{
    const double s = dq + w, b = s - dq, e = (dq - (s - b)) + (w - b);
    return (s - dj) + e;
}

/* whether a route whose strays sum to e and whose |w| sum to a is within
 * D's rounding (n vertices, eps of the class); NaN is not */
GD_RHD int gd_route_within(double e, double a, int64_t n, double eps)
{
    return fabs(e) <= 4.0 * (double)n * eps * a;
}

#endif
