"""Programs whose noises are compared with each other, in StatDP's calling convention
``f(prng, queries, epsilon, **kwargs)``: a noisy max written with a running best, and the
k-Min-Max and m-Range benchmarks of DiPApprox (Bhusal, Chadha, Sistla & Viswanathan,
"Approximate Differential Privacy Verification", CCS 2025, arXiv:2509.08804), written afresh,
and queries classified against a noisy grid of three cut points (three hubs).
The test suite traces them (``tests/test_program_trees.py``); ``benchmarks/program_trees.py``
times them.
"""


def running_best(prng, queries, epsilon):
    """Report noisy max as a hand-written loop: the index of the last record of
    ``q_i + Lap(2/ε)``, each noisy query compared with the best so far."""
    return _last_record(queries, lambda: prng.laplace(scale=2.0 / epsilon))


def running_best_exponential(prng, queries, epsilon):
    """:func:`running_best` with exponential noise of scale ``2/ε``."""
    return _last_record(queries, lambda: prng.exponential(scale=2.0 / epsilon))


def running_best_gaussian(prng, queries, epsilon, sigma=2):
    """:func:`running_best` with Gaussian noise of standard deviation ``sigma``."""
    return _last_record(queries, lambda: prng.normal(scale=sigma))


def _last_record(queries, draw):
    """The running best: each ``q_i + draw()`` compared with the best so far."""
    best, index = None, None
    for i, query in enumerate(queries):
        noisy = query + draw()
        if best is None or noisy > best:
            best, index = noisy, i
    return index


def k_min_max(prng, queries, epsilon):
    """k-Min-Max with k = 2: the noisy range of the first two queries (``Lap(2/ε)`` each, the
    running minimum and maximum updated by comparisons, as DiPApprox writes it), then for each
    later query whether its noisy value lies inside that range."""
    first = queries[0] + prng.laplace(scale=2.0 / epsilon)
    low = high = first
    second = queries[1] + prng.laplace(scale=2.0 / epsilon)
    if second > high:
        high = second
    elif second < low:
        low = second
    return [bool(low < query + prng.laplace(scale=2.0 / epsilon) < high)
            for query in queries[2:]]


def k_min_max_gaussian(prng, queries, epsilon, sigma=2):
    """:func:`k_min_max` with Gaussian noise of standard deviation ``sigma``."""
    first = queries[0] + prng.normal(scale=sigma)
    low = high = first
    second = queries[1] + prng.normal(scale=sigma)
    if second > high:
        high = second
    elif second < low:
        low = second
    return [bool(low < query + prng.normal(scale=sigma) < high) for query in queries[2:]]


def m_range_gaussian(prng, queries, epsilon, low=0, high=1, sigma=2):
    """:func:`m_range` with Gaussian noise: the interval's ends ``N(0, (2σ)²)``, the queries'
    ``N(0, σ²)``."""
    noisy_high = high + prng.normal(scale=2 * sigma)
    noisy_low = low + prng.normal(scale=2 * sigma)
    out = []
    for query in queries:
        noisy = query + prng.normal(scale=sigma)
        inside = noisy_low < noisy < noisy_high
        out.append(bool(inside))
        if not inside:
            break
    return out


def m_range(prng, queries, epsilon, low=0, high=1):
    """m-Range: a noisy interval ``[low + Lap(4/ε), high + Lap(4/ε)]``; each noisy query
    ``q + Lap(2/ε)`` in turn is reported inside (⊤) or not (⊥), stopping at the first one
    outside (DiPApprox's mrange)."""
    noisy_high = high + prng.laplace(scale=4.0 / epsilon)
    noisy_low = low + prng.laplace(scale=4.0 / epsilon)
    out = []
    for query in queries:
        noisy = query + prng.laplace(scale=2.0 / epsilon)
        inside = noisy_low < noisy < noisy_high
        out.append(bool(inside))
        if not inside:
            break
    return out



def noisy_grid(prng, queries, epsilon, cuts=(-1, 0, 1)):
    """Each query classified against a noisy grid: three noisy cut points ``c + Lap(4/ε)``
    checked to be in order (``low < mid < high``, else ``-1`` for every query), then each noisy
    query ``q + Lap(2/ε)`` reported by its bucket 0–3 (below ``low``, below ``mid``, below
    ``high``, above): every query compared with the three cut points, a group with three
    hubs."""
    return _buckets(queries, lambda: prng.laplace(scale=4.0 / epsilon),
                    lambda: prng.laplace(scale=2.0 / epsilon), cuts)


def noisy_grid_gaussian(prng, queries, epsilon, cuts=(-1, 0, 1), sigma=2):
    """:func:`noisy_grid` with Gaussian noise: the cut points' ``N(0, (2σ)²)``, the queries'
    ``N(0, σ²)``."""
    return _buckets(queries, lambda: prng.normal(scale=2 * sigma),
                    lambda: prng.normal(scale=sigma), cuts)


def _buckets(queries, cut_noise, query_noise, cuts):
    """The buckets of :func:`noisy_grid`, the noises drawn by ``cut_noise()`` and
    ``query_noise()``."""
    low, mid, high = (cut + cut_noise() for cut in cuts)
    if not low < mid < high:
        return [-1] * len(queries)
    out = []
    for query in queries:
        noisy = query + query_noise()
        out.append(0 if noisy < low else 1 if noisy < mid else 2 if noisy < high else 3)
    return out


def running_best_value(prng, queries, epsilon):
    """:func:`running_best` releasing the best noisy value too: ``(index, value)``."""
    best, index = None, None
    for i, query in enumerate(queries):
        noisy = query + prng.laplace(scale=2.0 / epsilon)
        if best is None or noisy > best:
            best, index = noisy, i
    return index, best
