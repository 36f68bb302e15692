"""scipy_paths.py - scipy's csgraph.shortest_path on a graph check_sssp.m
saved: the independent oracle for gd_apsp's 'Sources'.

    python3 tests/scipy_paths.py in.mat out.mat

in.mat holds S (sparse, S(i,j) the edge i -> j) and s (1-based sources);
out.mat gets D (numel (s) x n, Inf where unreachable) and neg (1 where
scipy found a negative cycle, D then empty). method 'auto': Dijkstra
without negative weights, else Johnson's."""
import sys

import numpy as np
import scipy.io
from scipy.sparse import csgraph


def main():
    m = scipy.io.loadmat(sys.argv[1])
    S = m["S"].tocsr()
    s = np.asarray(m["s"], dtype=np.int64).ravel() - 1
    try:
        D = csgraph.shortest_path(S, method="auto", directed=True, indices=s)
        neg = 0
    except csgraph.NegativeCycleError:
        D = np.zeros((0, 0))
        neg = 1
    scipy.io.savemat(sys.argv[2], {"D": np.atleast_2d(D), "neg": neg})


if __name__ == "__main__":
    main()
