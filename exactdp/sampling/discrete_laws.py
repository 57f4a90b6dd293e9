"""The binomial and hypergeometric functions the tester needs, without importing ``scipy.stats``.

``scipy.stats.binom`` and ``scipy.stats.hypergeom`` evaluate these laws through Boost's
implementations, exposed as the ufuncs ``_binom_pmf``, ``_binom_ppf``, ``_hypergeom_pmf`` and
``_hypergeom_sf`` of ``scipy.special``; importing ``scipy.stats`` itself takes about 0.6 s (it
pulls in scipy's optimisers, sparse matrices, spatial and signal code), a third of a short
``exactdp test``.  The functions here call the same ufuncs with the support handling
``scipy.stats.rv_discrete`` applies around them, so they return the same floats
(``tests/test_sampling_hypothesis.py`` compares them with ``scipy.stats``).  The parameters are
the tester's: integer counts, valid by construction.

Notation as in ``scipy.stats.hypergeom``: ``M`` balls, ``n`` of the first kind, ``N`` drawn.
"""

from __future__ import annotations

import numpy as np
from scipy.special import _ufuncs, betaln


def binom_pmf(k, n: int, p: float) -> np.ndarray:
    """``scipy.stats.binom.pmf(k, n, p)`` for integers ``0 ≤ k ≤ n``."""
    return np.clip(_ufuncs._binom_pmf(k, n, p), 0, 1)


def binom_ppf(q: float, n: int, p: float) -> float:
    """``scipy.stats.binom.ppf(q, n, p)`` for ``0 < q < 1``."""
    return float(_ufuncs._binom_ppf(q, n, p))


def binom_interval(confidence: float, n: int, p: float) -> tuple[float, float]:
    """``scipy.stats.binom.interval(confidence, n, p)`` for ``0 < confidence < 1``: the
    ``(1 ∓ confidence)/2`` quantiles."""
    return binom_ppf((1 - confidence) / 2, n, p), binom_ppf((1 + confidence) / 2, n, p)


def hypergeom_pmf(k: int, M: int, n: int, N: int) -> float:
    """``scipy.stats.hypergeom.pmf(k, M, n, N)`` for ``k`` in the support."""
    return float(np.clip(_ufuncs._hypergeom_pmf(k, n, N, M), 0, 1))


def hypergeom_logpmf(k: int, M: int, n: int, N: int) -> float:
    """``scipy.stats.hypergeom.logpmf(k, M, n, N)`` for ``k`` in the support: the log of
    ``C(n, k) C(M − n, N − k) / C(M, N)`` through ``ln B(a, b)`` (``C(a, b) = 1/((a + 1)
    B(a − b + 1, b + 1))``), term for term as scipy writes it."""
    bad = M - n
    return float(betaln(n + 1, 1) + betaln(bad + 1, 1) + betaln(M - N + 1, N + 1)
                 - betaln(k + 1, n - k + 1) - betaln(N - k + 1, bad - N + k + 1)
                 - betaln(M + 1, 1))


def hypergeom_sf(k, M: int, n, N) -> np.ndarray:
    """``scipy.stats.hypergeom.sf(k, M, n, N)``, ``P[X > k]``, elementwise over arrays ``k``,
    ``N``: 1 below the support ``[max(N − (M − n), 0), min(n, N)]``, 0 from its top on."""
    k, N = np.broadcast_arrays(np.asarray(k), np.asarray(N))
    low, high = np.maximum(N - (M - n), 0), np.minimum(n, N)
    inside = (k >= low) & (k < high)
    output = np.where(k < low, 1.0, 0.0)
    if np.any(inside):
        output[inside] = np.clip(_ufuncs._hypergeom_sf(k[inside], n, N[inside], M), 0, 1)
    return output
