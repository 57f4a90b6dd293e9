"""One budget's figures for Chen & Machanavajjhala's Tables 1–3 (arXiv:1508.07306, §5), shared by
``exactdp reconstruct`` and ``exactdp reproduce``: exact and simulated accuracies, Table 1's
columns and Theorem 5.12's exact probability against its bound ``1 − δ``."""

from __future__ import annotations

import math

import numpy as np

from ..formatting import decimal_text, printed_number
from .datasets import Histogram
from .exact_accuracy import exact_accuracy, theorem_5_12_probability
from .reconstruction import Budget, simulate

#: Chen & Machanavajjhala, arXiv:1508.07306, Tables 1–3: the Adult row (accuracies are means of
#: 10 repetitions).
PAPER_ADULT = {"domain": 4096, "scale": 17665, "k": 15, "small_cells": 4062,
               "accuracy": {"1": "0.994", "0.5": "0.991", "0.1": "0.981"},
               "accuracy_small": {"1": "0.999", "0.5": "0.997", "0.1": "0.992"}}
#: Normal quantile of the simulated means' 95% intervals.
Z95 = 1.959963984540054


def _exact(figure, dps: int) -> tuple[str, str, str, str]:
    """The value to the digits its enclosure supports, the bound on that printed decimal's
    error, and the ends of the enclosure rounded outward to ``dps`` digits
    (:func:`~exactdp.formatting.printed_number`)."""
    printed = printed_number(figure.value, dps, enclosure=(figure.lower, figure.upper))
    return printed.value, printed.error, printed.lower, printed.upper


def _exact_fields(key: str, figure, dps: int, error_key: str | None = None) -> dict:
    """``key``, ``error_key`` (default ``key_error``), ``key_lower`` and ``key_upper`` of
    ``figure`` (all None without it)."""
    names = (key, error_key or f"{key}_error", f"{key}_lower", f"{key}_upper")
    return dict(zip(names, (None,) * 4 if figure is None else _exact(figure, dps)))


def half_width(sample: np.ndarray) -> float | None:
    """Half the width of the normal 95% interval of the mean of ``sample`` (None for one
    value)."""
    if sample.size < 2:
        return None
    return Z95 * float(np.std(sample, ddof=1)) / math.sqrt(sample.size)


def report(histogram: Histogram, epsilon, delta, repetitions: int, seed: int, dps: int) -> dict:
    """The JSON object of one budget: Table 1's columns (``k`` is None when no cell is empty),
    exact and simulated accuracies (Tables 2 and 3), and Theorem 5.12's exact probability
    against its bound 1 − δ (None when its hypothesis ``k > 2α`` fails).  The budgets, δ and
    the bound are decimals (:func:`~exactdp.formatting.decimal_text`: ``1/3`` to ``dps``
    digits)."""
    budget = Budget.algorithm_4(epsilon, delta)
    exact = exact_accuracy(histogram, budget, dps)
    simulated = simulate(histogram, budget, repetitions, seed)
    theorem = Budget.algorithm_3(epsilon, delta)
    last = histogram.support_k - 2 * theorem.threshold
    probability = theorem_5_12_probability(histogram, theorem, dps=dps) if last >= 0 else None
    out = {"dataset": histogram.name, "domain": histogram.domain, "scale": histogram.scale,
           "k": histogram.support_k if histogram.support_k >= 0 else None,  # no empty cell
           "small_cells": histogram.small_cells(),
           "eps": decimal_text(budget.epsilon, dps), "eps1": decimal_text(budget.epsilon1, dps),
           "eps2": decimal_text(budget.epsilon2, dps), "delta": decimal_text(budget.delta, dps),
           "threshold": budget.threshold}
    out |= _exact_fields("exact_accuracy", exact.accuracy, dps)
    out |= _exact_fields("exact_accuracy_small", exact.accuracy_small, dps)
    small = simulated.accuracy_small
    out |= {"simulated_accuracy": float(simulated.accuracy.mean()),
            "simulated_accuracy_halfwidth": half_width(simulated.accuracy),
            "simulated_accuracy_small": None if exact.accuracy_small is None
            else float(small.mean()),
            "simulated_accuracy_small_halfwidth": None if exact.accuracy_small is None
            else half_width(small),
            "repetitions": simulated.repetitions, "seed": seed,
            "theorem_5_12_alpha": theorem.threshold, "theorem_5_12_m": last if last >= 0 else None,
            "theorem_5_12_bound": decimal_text(1 - budget.delta, dps)}
    return out | _exact_fields("theorem_5_12_probability", probability, dps,
                               "theorem_5_12_error")


