# numpy side of scripts/bench-bootstrap.mjs: the same estimand from the same draws, vectorised.
# argv: draws file (uint32, resamples x clusters, row-major), calls. Prints ms of CPU a call.
import sys, time
import numpy as np

clusters, cells, factors, resamples = 50, 16, 6, 2000
width = cells * factors
state = 1
data = np.empty(clusters * width)
for i in range(data.size):
    state = (state * 48271) % 2147483647
    data[i] = 0.05 + 0.95 * state / 2147483647
data = data.reshape(clusters, width)
draws = np.fromfile(sys.argv[1], dtype=np.uint32).reshape(resamples, clusters)
calls = int(sys.argv[2])


def once():
    flat = (np.arange(resamples, dtype=np.int64)[:, None] * clusters + draws).ravel()
    counts = np.bincount(flat, minlength=resamples * clusters).reshape(resamples, clusters)
    means = counts.astype(np.float64) @ data / clusters
    cell_values = np.exp(np.log(means.reshape(resamples, cells, factors)).mean(axis=2))
    return np.quantile(cell_values, [0.025, 0.975], axis=0)


once()
start = time.process_time()
for _ in range(calls):
    once()
print((time.process_time() - start) / calls * 1000)
