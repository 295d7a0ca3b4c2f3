"""edivisive.py - the numpy core of changes.py: the energy statistic of every split and its permutation test.

Always holds: Q(tau) is Matteson & James's E-divisive statistic with exponent 1, computed for every
split at once from the prefix sums of the pairwise-distance matrix (O(n^2) per series, batched over
permutations under a memory bound); a segment is centred and scaled before, in float32 (neither
the best split nor the test depends on location or scale); the permutations come from the
generator the caller passes, so a seeded caller is deterministic; a test stops once it can no
longer reach alpha.
"""
import functools
import math

import numpy as np

_BATCH_CELLS = 4_000_000  # distance-matrix entries per batch of permutations (memory bound)
# A short segment gets more permutations, as many as fit in _PERM_CELLS distance-matrix entries (at
# most _MAX_PERMUTATIONS): its p-value then is precise where few arrangements exist (6 + 6 points: a
# perfect split has the exact p 2/924 = 0.0022; with 199 permutations one in three such tests would
# meet a perfect arrangement and fail), at the cost of one test of a 100-point series.
_PERM_CELLS = 4_000_000
_MAX_PERMUTATIONS = 9999


def _statistics(x, min_size):
    """Q(tau) of every split of the rows of x (shape (B, n)) as (B, n + 1), -inf where a side has
    fewer than min_size points: the energy statistic tau*(n-tau)/n * E of Matteson & James (alpha=1)."""
    b, n = x.shape
    upper = np.abs(x[:, :, None] - x[:, None, :])
    upper *= _upper_mask(n)
    col = upper.sum(axis=1)          # col[j] = sum_{i<j} d[i,j]
    row = upper.sum(axis=2)          # row[i] = sum_{j>i} d[i,j]
    zero = np.zeros((b, 1), dtype=x.dtype)
    left = np.concatenate([zero, np.cumsum(col, axis=1)], axis=1)                          # W_L(tau)
    right = np.concatenate([np.cumsum(row[:, ::-1], axis=1)[:, ::-1], zero], axis=1)        # W_R(tau)
    total = left[:, -1:]
    between = total - left - right
    tau = np.arange(n + 1, dtype=float)
    m, k = tau, n - tau
    q = np.full((b, n + 1), -np.inf, dtype=x.dtype)
    ok = (m >= min_size) & (k >= min_size)
    if not ok.any():
        return q
    mo, ko = m[ok], k[ok]
    e = 2 * between[:, ok] / (mo * ko) - left[:, ok] / (mo * (mo - 1) / 2) - right[:, ok] / (ko * (ko - 1) / 2)
    q[:, ok] = mo * ko / n * e
    return q


@functools.lru_cache(maxsize=64)
def _upper_mask(n):
    """The (n, n) 0/1 matrix of the entries above the diagonal."""
    return np.triu(np.ones((n, n), dtype=np.float32), 1)


def _scaled(segment):
    """The segment centred and scaled to unit spread, in float32 (Q's argmax and the permutation
    test do not depend on location or scale; float32 halves the memory traffic)."""
    seg = np.asarray(segment, dtype=float)
    scale = np.abs(seg - np.median(seg)).mean() or 1.0
    return ((seg - np.median(seg)) / scale).astype(np.float32)


def _best(segment, min_size):
    """(tau, Q) of the best split of a segment (tau relative to its start), or (None, -inf)."""
    q = _statistics(_scaled(segment)[None, :], min_size)[0]
    tau = int(np.argmax(q))
    return (tau, q[tau]) if np.isfinite(q[tau]) else (None, -math.inf)


def _p_value(segment, observed, alpha, rng, permutations, min_size):
    """The permutation p-value of a segment's best split: (1 + #permutations whose best Q >= observed)
    / (1 + permutations), stopping once it cannot fall to alpha."""
    seg = _scaled(segment)
    n = len(seg)
    permutations = max(permutations, int(math.ceil(1 / alpha)) - 1, min(_MAX_PERMUTATIONS, _PERM_CELLS // (n * n)))
    batch = max(1, min(permutations, _BATCH_CELLS // (n * n)))
    limit = alpha * (permutations + 1) - 1  # more exceedances than this: p > alpha
    done = hits = 0
    while done < permutations:
        size = min(batch, permutations - done, 16 << (done // 16).bit_length())  # small first: noise stops early
        perms = rng.permuted(np.broadcast_to(seg, (size, n)), axis=1)
        hits += int((_statistics(perms, min_size).max(axis=1) >= observed * (1 - 1e-5)).sum())
        done += size
        if hits > limit:
            return (1 + hits) / (1 + done)
    return (1 + hits) / (1 + permutations)


def split_points(x, alpha, rng, permutations, min_size):
    """The sorted change indexes of x found by the hierarchical search, with their p-values; a split
    leaves at least min_size points on either side."""
    found = {}
    segments = [(0, len(x))]
    cache = {}
    while True:
        candidates = []
        for start, end in segments:
            if (start, end) not in cache:
                tau, q = _best(x[start:end], min_size)
                cache[(start, end)] = (tau, q, None if tau is None else _p_value(x[start:end], q, alpha, rng, permutations, min_size))
            tau, q, p = cache[(start, end)]
            if tau is not None and p <= alpha:
                candidates.append((p, -q, start, end, start + tau))
        if not candidates:
            return found
        p, _, start, end, index = min(candidates)
        found[index] = p
        segments.remove((start, end))
        segments += [(start, index), (index, end)]
