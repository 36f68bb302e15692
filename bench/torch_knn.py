"""torch_knn.py - what a PyTorch user writes for the K nearest neighbours on
the same GPU, for bench.m's nearest-neighbour table: torch.cdist then
torch.topk (in chunks of queries whose distances fill about 2 GB), randn
data as bench.m makes it.

    python3 bench/torch_knn.py my mx d K single|double

prints "torch <resident ms> <host-to-host ms>": medians of 3 calls, the
first with X and Y on the GPU (CUDA events), the second from host tensors
to host tensors. Exits non-zero where torch or a GPU is missing."""
import statistics
import sys
import time

import torch


def search(X, Y, K):
    chunk = max(1, int(2e9 // (X.shape[0] * X.element_size())))
    ds, js = [], []
    for i in range(0, Y.shape[0], chunk):
        d, j = torch.topk(torch.cdist(Y[i:i + chunk], X), K, dim=1, largest=False, sorted=True)
        ds.append(d)
        js.append(j)
    return torch.cat(ds), torch.cat(js)


def main():
    my, mx, d, K = map(int, sys.argv[1:5])
    dt = torch.float64 if sys.argv[5] == "double" else torch.float32
    if not torch.cuda.is_available():
        sys.exit(1)
    X = torch.randn(mx, d, dtype=dt)
    Y = torch.randn(my, d, dtype=dt)
    Xg, Yg = X.cuda(), Y.cuda()
    search(Xg, Yg, K)
    torch.cuda.synchronize()
    dev = []
    for _ in range(3):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        search(Xg, Yg, K)
        e.record()
        torch.cuda.synchronize()
        dev.append(s.elapsed_time(e))
    del Xg, Yg
    h2h = []
    for _ in range(3):
        t0 = time.perf_counter()
        D, J = search(X.cuda(), Y.cuda(), K)
        D, J = D.cpu(), J.cpu()
        h2h.append((time.perf_counter() - t0) * 1e3)
    print("torch %.2f %.2f" % (statistics.median(dev), statistics.median(h2h)))


if __name__ == "__main__":
    main()
