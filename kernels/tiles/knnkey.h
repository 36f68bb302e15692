/* knnkey.h - the order nearest neighbours are selected in, shared by the
 * CPU loop (cpu.c) and the GPU kernels (knn.cu).
 *
 * A distance maps to an unsigned key whose integer order is the order
 * Octave's sort gives the distances: ascending with NaN last ('Smallest'),
 * or descending with NaN first ('Largest', as sort (..., 'descend') puts
 * it). -0 and +0 map to one key (sort treats them as equal). A candidate
 * is the pair (key, row); pairs are compared key first, then row, so the
 * K least pairs are exactly the first K of a stable sort of the distance
 * column, ties going to the smaller row. The map is undone on output (a
 * NaN comes back as the default NaN, -0 as +0).
 */
#ifndef GD_KNNKEY_H
#define GD_KNNKEY_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GD_KHD static __host__ __device__ __forceinline__
#else
#define GD_KHD static inline
#endif

GD_KHD uint32_t gd_key_f(float v, int largest)
{
    uint32_t u;
    if (v != v) {
        u = 0xffffffffu;
    } else {
        if (v == 0) v = 0.0f;
        memcpy(&u, &v, 4);
        u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    }
    return largest ? ~u : u;
}
GD_KHD float gd_unkey_f(uint32_t k, int largest)
{
    if (largest) k = ~k;
    if (k == 0xffffffffu) return (float)NAN;
    const uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    float v;
    memcpy(&v, &u, 4);
    return v;
}
GD_KHD uint64_t gd_key_d(double v, int largest)
{
    uint64_t u;
    if (v != v) {
        u = ~(uint64_t)0;
    } else {
        if (v == 0) v = 0.0;
        memcpy(&u, &v, 8);
        u = (u >> 63) ? ~u : (u | ((uint64_t)1 << 63));
    }
    return largest ? ~u : u;
}
GD_KHD double gd_unkey_d(uint64_t k, int largest)
{
    if (largest) k = ~k;
    if (k == ~(uint64_t)0) return (double)NAN;
    const uint64_t u = (k >> 63) ? (k & ~((uint64_t)1 << 63)) : ~k;
    double v;
    memcpy(&v, &u, 8);
    return v;
}

#endif
