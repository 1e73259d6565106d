#!/usr/bin/env python3
"""The best a Python user would write for linkgap's core job, on the same export files:
parse the embeddings column of a Screaming Frog CSV, then blocked brute-force top-k cosine
(X[i:i+B] @ X.T + argpartition + sort, B = 1024).

usage: numpy_baseline.py EMBEDDINGS_CSV [--k 5] [--block 1024]
Run with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (benches/e2e.sh does) so OpenBLAS
picks its AVX-512 kernel.
"""
import argparse, csv, sys, time
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("file"); ap.add_argument("--k", type=int, default=5); ap.add_argument("--block", type=int, default=1024)
ap.add_argument("--queries", type=int, default=0, help="search only the first N query rows and extrapolate (for sizes where the full run takes hours)")
a = ap.parse_args()
csv.field_size_limit(sys.maxsize)

t0 = time.perf_counter()
urls, rows = [], []
with open(a.file, newline="", encoding="utf-8-sig") as f:
    r = csv.reader(f)
    header = next(r)
    col = next(i for i, h in enumerate(header) if "embedding" in h.lower())
    for rec in r:
        cell = rec[col] if col < len(rec) else ""
        try:
            v = np.array(cell.split(","), dtype=np.float32)
        except ValueError:
            continue
        if v.size > 1:
            urls.append(rec[0]); rows.append(v)
dim = max(set(len(v) for v in rows), key=[len(v) for v in rows].count)
X = np.stack([v for v in rows if len(v) == dim])
X /= np.linalg.norm(X, axis=1, keepdims=True)
t_parse = time.perf_counter() - t0

n, k, B = X.shape[0], a.k, a.block
nq = min(a.queries, n) if a.queries > 0 else n
t1 = time.perf_counter()
idx = np.empty((nq, k), dtype=np.int64)
for i in range(0, nq, B):
    S = X[i:min(i + B, nq)] @ X.T
    rr = np.arange(S.shape[0])
    S[rr, i + rr] = -np.inf
    part = np.argpartition(S, -k, axis=1)[:, -k:]
    ps = np.take_along_axis(S, part, axis=1)
    order = np.lexsort((part, -ps), axis=1)
    idx[i:i + B] = np.take_along_axis(part, order, axis=1)
t_search = (time.perf_counter() - t1) * n / nq  # extrapolated when --queries < n
try:
    from threadpoolctl import threadpool_info
    blas = ",".join(f"{x.get('internal_api')}/{x.get('architecture')}/{x.get('num_threads')}" for x in threadpool_info())
except Exception:
    blas = "unknown"
print(f"numpy: n={n} d={dim} queries={nq}{' (search time extrapolated)' if nq < n else ''} parse={t_parse:.2f}s search={t_search:.2f}s total={t_parse + t_search:.2f}s blas={blas}", flush=True)
