"""scipy_sssp.py - scipy's csgraph.dijkstra on the graph bench.m's 'sssp'
section saved, for its table: what a scipy user writes for the lengths and
trees from a set of sources.

    python3 bench/scipy_sssp.py graph.mat

graph.mat holds S (sparse, S(i,j) the edge i -> j), s (1-based sources)
and D (gd's lengths, numel (s) x n). Prints "scipy <ms> <lengths that
differ from gd's>": one call of dijkstra (directed, indices = s - 1, with
the predecessors), wall clock. Exits non-zero where scipy is missing."""
import sys
import time

import numpy as np
import scipy.io
from scipy.sparse import csgraph


def main():
    m = scipy.io.loadmat(sys.argv[1])
    S = m["S"].tocsr()
    s = np.asarray(m["s"], dtype=np.int64).ravel() - 1
    t0 = time.perf_counter()
    D, _ = csgraph.dijkstra(S, directed=True, indices=s, return_predecessors=True)
    ms = 1e3 * (time.perf_counter() - t0)
    ref = np.asarray(m["D"], dtype=np.float64)
    print("scipy %.2f %d" % (ms, int(np.count_nonzero(D != ref))))


if __name__ == "__main__":
    main()
