"""StatDP's benchmark algorithms written as plain functions in StatDP's calling convention
``f(prng, queries, epsilon, **kwargs)`` (Ding, Wang, Wang, Zhang & Kifer, "Detecting Violations
of Differential Privacy", CCS 2018, Algorithms 9–15 and the noisy max variants of §6), returning
the raw output vector (StatDP's post-processing is left to the events).  The test suite traces
them and compares with the catalogue's ``statdp.*`` mechanisms.
"""

import itertools

import numpy as np


def svt(prng, queries, epsilon, N, T):
    """Sparse Vector with cutoff N: ⊤/⊥ per query, stop after the N-th ⊤."""
    out = []
    noisy_threshold = T + prng.laplace(scale=2.0 / epsilon)
    count = 0
    for query in queries:
        if query + prng.laplace(scale=4.0 * N / epsilon) >= noisy_threshold:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


def isvt1(prng, queries, epsilon, N, T):
    """No noise on the queries, no cutoff."""
    noisy_threshold = T + prng.laplace(scale=2.0 / epsilon)
    return [query >= noisy_threshold for query in queries]


def isvt2(prng, queries, epsilon, N, T):
    """Query noise that does not scale with N, no cutoff."""
    noisy_threshold = T + prng.laplace(scale=2.0 / epsilon)
    out = []
    for query in queries:
        out.append(bool(query + prng.laplace(scale=2.0 / epsilon) >= noisy_threshold))
    return out


def isvt3(prng, queries, epsilon, N, T):
    """Budget split ε/4 : 3ε/4, query noise not scaled with N, cutoff N."""
    noisy_threshold = T + prng.laplace(scale=4.0 / epsilon)
    out, count = [], 0
    for query in queries:
        if query + prng.laplace(scale=4.0 / (3.0 * epsilon)) > noisy_threshold:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


def isvt4(prng, queries, epsilon, N, T):
    """Releases the noisy query instead of ⊤, cutoff N."""
    noisy_threshold = T + prng.laplace(scale=2.0 / epsilon)
    out, count = [], 0
    for query in queries:
        noisy_query = query + prng.laplace(scale=2.0 * N / epsilon)
        if noisy_query > noisy_threshold:
            out.append(noisy_query)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


def noisy_max_v1a(prng, queries, epsilon):
    """Index of the largest answer plus Lap(2/ε)."""
    noisy = np.asarray(queries, dtype=np.float64) + prng.laplace(scale=2.0 / epsilon,
                                                                 size=len(queries))
    return noisy.argmax()


def noisy_max_v1b(prng, queries, epsilon):
    """The largest noisy value itself (Laplace noise)."""
    noisy = np.asarray(queries, dtype=np.float64) + prng.laplace(scale=2.0 / epsilon,
                                                                 size=len(queries))
    return noisy.max()


def noisy_max_v2a(prng, queries, epsilon):
    """Index of the largest answer plus Exp(2/ε)."""
    return np.argmax(np.asarray(queries, dtype=np.float64)
                     + prng.exponential(scale=2.0 / epsilon, size=len(queries)))


def noisy_max_v2b(prng, queries, epsilon):
    """The largest noisy value itself (exponential noise)."""
    return np.max(np.asarray(queries, dtype=np.float64)
                  + prng.exponential(scale=2.0 / epsilon, size=len(queries)))


def histogram(prng, queries, epsilon):
    """The first bin plus Lap(1/ε)."""
    noisy = np.asarray(queries, dtype=np.float64) + prng.laplace(scale=1.0 / epsilon,
                                                                 size=len(queries))
    return noisy[0]


def histogram_eps(prng, queries, epsilon):
    """The first bin plus Lap(ε): the scale inverted."""
    noisy = np.asarray(queries, dtype=np.float64) + prng.laplace(scale=epsilon,
                                                                 size=len(queries))
    return noisy[0]


# StatDP's benchmark applies a post-processing to the SVT outputs before testing: the number of
# ⊥ (SVT), the Hamming distance to ⊤ on the first ⌊n/2⌋ queries and ⊥ on the rest (iSVT1–3).

def _hamming_to_half(out, n):
    reference = [i < n // 2 for i in range(n)]
    return sum(a != b for a, b in itertools.zip_longest(reference, out))


def svt_false_count(prng, queries, epsilon, N, T):
    """SVT followed by StatDP's post-processing: the number of ⊥."""
    return svt(prng, queries, epsilon, N, T).count(False)


def isvt3_hamming(prng, queries, epsilon, N, T):
    """iSVT3 followed by StatDP's post-processing: the Hamming distance to the half pattern."""
    return _hamming_to_half(isvt3(prng, queries, epsilon, N, T), len(queries))


def isvt4_count_last(prng, queries, epsilon, N, T):
    """iSVT4 followed by StatDP's post-processing: the number of ⊥ and the last entry."""
    out = isvt4(prng, queries, epsilon, N, T)
    return out.count(False), out[-1]
