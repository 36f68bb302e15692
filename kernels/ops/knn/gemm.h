/* knn/gemm.h - the certified 'gemm' nearest neighbours (gemm.cu), for
 * knn.cu's driver (Euclidean, squared Euclidean, cosine): candidates from
 * one TF32 product on the tensor cores
 * with tiles/knnbound.h's bound, then their exact distances in 'fused''s
 * order and the selection in its order, so that D and I are 'fused''s bit
 * for bit. Queries whose candidates do not fit (or whose rows hold NaN or
 * Inf) are left to the caller, which runs 'fused' for them. */
#ifndef GD_KNN_GEMM_H
#define GD_KNN_GEMM_H

#include "runtime/call.h"

/* the units X goes up in from the host: GD_KNN_UNITS (1 to 8) where
 * set, else rule */
int gd_knn_units(int rule);
/* the gemm search's units for X of xbytes from the host: one a 64 MB,
 * from 4 to 8 (gd_knn_units) */
int gd_knn_gemm_units(size_t xbytes);

/* X shared by the parts of a divided search (queries split, X from the
 * host): each part uploads its share of every unit of X's rows and pulls
 * the others' from their devices (gd_share, runtime.h), in the units the
 * share was made for. A part leaves it once, on every path: at once where
 * its search does not take the gemm form from the host (the others then
 * upload its rows themselves), else after its last unit. */
struct gd_knn_share {
    gd_share *x;
    int part, n, units;
    bool ended;
    /* (ok: every unit's share was put) */
    void leave(bool ok)
    {
        if (!ended) gd_share_end(x, part, ok);
        ended = true;
    }
};

struct gd_knn_gemm_args {
    const void *X, *Y;     /* on the device, column-major, the class's (X:
                              where Xh is given, the place, mx x d, tight,
                              its rows are uploaded to) */
    const gd_matrix *Xh;   /* X on the host, or NULL */
    int64_t ldx, ldy;      /* their leading dimensions */
    int64_t mx, my, d, K;  /* points, queries, features, neighbours */
    bool root;             /* euclidean (else squaredeuclidean) */
    bool largest;          /* the K largest (else the K smallest): the
                              same passes on -f's bounds */
    void *D;               /* K x my, ld K, on the device */
    int32_t *I;            /* likewise, 1-based rows of X */
    bool cosine;           /* cosine (root ignored), else Euclidean */
    gd_knn_share *share;   /* X's upload shared with the other parts, or
                              NULL */
};

/* Whether the certified passes serve a search: why not (a phrase for
 * info.kernel) where they do not, else NULL. The metric (Euclidean,
 * squared or cosine) and the device (sm_80 or later: TF32 mma.sync) are
 * the caller's to check first. */
const char *gd_knn_gemm_unfit(int64_t mx, int64_t K, int64_t d);

/* The device bytes the search takes beside X (of es bytes an element):
 * the rows' forms and the bound's parts (and cosine's norms), and the
 * records and candidates of a batch of queries (at least 128: the least
 * it runs in). */
size_t gd_knn_gemm_bytes(int64_t mx, int64_t my, int64_t d, size_t es, bool cosine,
                         int64_t batch);

/* The search on the call's stream: D and I written for every query but
 * those whose flag in fell (my bytes, host, written here) is set; their
 * count returned (-1: the call failed, or X holds NaN or Inf: *all set,
 * every query to 'fused'). */
template <class T>
int64_t gd_knn_gemm(gd_call &c, const gd_knn_gemm_args &a, unsigned char *fell, bool *all);

#endif
