"""StatDP's hypothesis test: the p-value of ``H0: p1 ≤ e^ε p2`` from two event counts.

Ding et al. (CCS 2018, arXiv:1805.10277, §4.2, Algorithm 2): ``c1`` and ``c2`` are the numbers of
runs, out of ``n`` on each of D1 and D2, whose output falls in the event E.  Thinning ``c1`` to
``c̃1 ~ Binomial(c1, e^{−ε})`` gives, on the border ``p1 = e^ε p2``, a count with the same law as
``c2`` (their Lemma 4.1), so Fisher's exact test of "``c̃1`` and ``c2`` come from the same binomial"
applies: its one-sided p-value is ``P[X ≥ c̃1]`` for ``X ~ Hypergeom(2n, n, c̃1 + c2)``.

StatDP averages that p-value over K = 200 random thinning draws.  Its expectation over the thinning
is a finite sum, computed here exactly (up to a truncation of the binomial tails below
:data:`TAIL_MASS`), which removes the Monte-Carlo noise from the p-value::

    p(c1, c2, n, ε) = Σ_k Binomial(c1, e^{−ε}).pmf(k) · Hypergeom(2n, n, k + c2).sf(k − 1)
"""

from __future__ import annotations

import math

import numpy as np
from ..checks import check_positive
from ..errors import InputError
from .discrete_laws import (binom_pmf, binom_ppf, hypergeom_logpmf, hypergeom_pmf,
                            hypergeom_sf)

#: Binomial mass dropped on each side of the exact sum (the p-value is off by at most twice this).
TAIL_MASS = 1e-17
#: StatDP's number of thinning draws (Ding et al. §4.2; ``test_statistics`` in its code).
STATDP_SAMPLES = 200
#: Most thinning draws accepted (5000 times StatDP's; a few seconds).
MAX_SAMPLES = 1_000_000


def _check_count(name: str, value: object, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= n:
        raise InputError(f"{name} must be an integer from 0 to n={n}, got {name}={value!r}")
    return int(value)


def check_counts(c1: object, c2: object, n: object, eps: object) -> tuple[int, int, int, float]:
    """Validate ``(c1, c2, n, ε)``: counts in ``[0, n]``, ``n ≥ 1``, ``ε`` finite and ``≥ 0``."""
    n = check_positive("n", n)
    try:
        eps = float(eps)
    except (TypeError, ValueError):
        raise InputError(f"eps must be a number, got eps={eps!r}") from None
    if not math.isfinite(eps) or eps < 0:
        raise InputError(f"eps must be finite and non-negative, got eps={eps!r}")
    return _check_count("c1", c1, n), _check_count("c2", c2, n), n, eps


def _fisher_tail(thinned: np.ndarray, c2: int, n: int) -> np.ndarray:
    """``S(k) = P[X ≥ k]``, ``X ~ Hypergeom(2n, n, k + c2)``, for every ``k`` in ``thinned``."""
    return hypergeom_sf(thinned - 1, 2 * n, n, thinned + c2)


def _fisher_tails(k: np.ndarray, c2: int, n: int) -> np.ndarray:
    """``S(k)`` for consecutive ascending ``k``, by the downward recurrence

    ``S(k) = S(k + 1) + h(k) · (n − c2)/(2n − k − c2)``, ``h(k) = Hypergeom(2n, n, k + c2).pmf(k)``

    (draw one more ball: ``X_{N+1} ≥ k + 1`` iff ``X_N ≥ k + 1``, or ``X_N = k`` and the ball is of
    the first kind, probability ``(n − k)/(2n − N)``).  ``h`` itself follows from its top value by
    ``h(k + 1)/h(k) = (n − k)(k + c2 + 1)/((k + 1)(2n − k − c2))``, summed in logs.  Only positive
    terms are added, so nothing cancels, and scipy is called only at the top (its ``sf`` and
    ``pmf`` cost up to ~0.1 ms each far in the tails).
    """
    head = k[:-1].astype(float)
    log_ratios = np.log((n - head) * (head + c2 + 1)) - np.log((head + 1) * (2 * n - head - c2))
    top = k[-1]
    # scipy's pmf is accurate to ~1e-11 here, its logpmf only to ~1e-9 (use it on underflow).
    h_top = hypergeom_pmf(top, 2 * n, n, top + c2)
    log_top = np.log(h_top) if h_top > 0 else hypergeom_logpmf(top, 2 * n, n, top + c2)
    log_h = log_top - np.cumsum(log_ratios[::-1])[::-1]
    steps = np.exp(log_h) * (n - c2) / (2 * n - head - c2)
    return _fisher_tail(k[-1:], c2, n) + np.append(np.cumsum(steps[::-1])[::-1], 0.0)


def p_value(c1: int, c2: int, n: int, eps: float, samples: int | None = None,
            rng: np.random.Generator | None = None) -> float:
    """StatDP's p-value for ``H0: p1 ≤ e^ε p2`` given counts ``c1``, ``c2`` out of ``n`` runs each.

    Parameters
    ----------
    c1, c2 : int
        Runs on D1 and D2 whose output fell in the event (``0 ≤ c ≤ n``).
    n : int
        Runs on each input.
    eps : float
        The privacy budget tested (``ε ≥ 0``).
    samples : int, optional
        ``None`` (default): the exact expectation over the thinning.  ``K``: StatDP's estimate, the
        average over ``K`` thinning draws from ``rng`` (at most :data:`MAX_SAMPLES`).
    rng : numpy.random.Generator, optional
        Required with ``samples``: the only source of randomness.

    Returns
    -------
    float
        The p-value; small values are evidence that ``p1 > e^ε p2``.

    Notes
    -----
    Ding et al. (CCS 2018) Algorithm 2 and Lemma 4.1 (§4.2)::

        p = E_{c̃1 ~ Binomial(c1, e^{−ε})} [ Hypergeom(2n, n, c̃1 + c2).sf(c̃1 − 1) ]

    The exact form sums over ``k`` from the ``TAIL_MASS`` to the ``1 − TAIL_MASS`` quantile of the
    binomial (vectorised), so it is within ``2·TAIL_MASS`` of the full sum; the Fisher tails come
    from a recurrence (:func:`_fisher_tails`), accurate to about 1e-10 relative.

    Examples
    --------
    >>> round(p_value(0, 0, 10, 0.5), 12)        # c̃1 = 0: P[X ≥ 0] = 1
    1.0
    >>> p_value(900, 100, 1000, 1.0) < 1e-20     # thinned 900·e^{-1} ≈ 331 ≫ 100
    True
    """
    c1, c2, n, eps = check_counts(c1, c2, n, eps)
    keep = math.exp(-eps)
    if samples is not None:
        samples = check_positive("samples", samples)
        if samples > MAX_SAMPLES:
            raise InputError(f"samples may be at most {MAX_SAMPLES:,}, got samples={samples:,}")
        if rng is None:
            raise InputError("samples needs a seeded rng (numpy.random.Generator)")
        return float(np.mean(_fisher_tail(rng.binomial(c1, keep, samples), c2, n)))
    # Both tails through ppf (scipy's binom.isf is unreliable this far out): c1 − K has the
    # law Binomial(c1, 1 − e^{−ε}).
    low = int(binom_ppf(TAIL_MASS, c1, keep))
    high = c1 - int(binom_ppf(TAIL_MASS, c1, 1 - keep))
    k = np.arange(max(low - 1, 0), min(high + 1, c1) + 1)
    return float(min(np.dot(binom_pmf(k, c1, keep), _fisher_tails(k, c2, n)), 1.0))
