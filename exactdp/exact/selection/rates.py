"""Expected false negative rate and score error rate of a selection mechanism, from its
selection probabilities.

Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6),
2017 (arXiv:1603.01699), §4–6, compare Sparse Vector variants and the exponential mechanism by
the false negative rate (the fraction of the true top ``c`` missed) and the score error rate.
Both are linear in the selection indicators, so their expectations are

    E[FNR] = 1 − Σ_{i ∈ top c} P_i / c,        E[SER] = 1 − Σ_i P_i q_i / Σ_{i ∈ top c} q_i,

with ``P_i = Pr[query i is selected]`` (``probabilities.py``) and the top ``c`` the ``c``
largest answers (ties: the lower index first).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from ...precision import SELECTION_GUARD_DIGITS, to_arb, working_bits
from .probabilities import checked_request, selection_probabilities


@dataclass(frozen=True)
class Utility:
    """Selection probabilities and expected utility of one mechanism on one query vector.

    Attributes
    ----------
    selection : list of arb
        ``P_i``, certified enclosures.
    fnr, ser : arb or None
        ``E[FNR]`` and ``E[SER]`` (``ser`` is ``None`` when ``Σ_{top c} q_i ≤ 0``).
    top : tuple of int
        The indices of the true top ``c``.
    """

    selection: list
    fnr: arb
    ser: arb | None
    top: tuple


def expected_utility(mech, queries, order: str = "given", digits: int = 15,
                     progress=None, jobs: int | None = None) -> Utility:
    """The selection probabilities and ``E[FNR]``, ``E[SER]`` (module docstring); the
    parameters are those of :func:`selection_probabilities`.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> u = expected_utility(mechanism("em_top", eps=1, c=1), [2, 0, 0], digits=10)
    >>> bool(0 < u.fnr < 1), u.top
    (True, (0,))
    """
    values, c, _ = checked_request(mech, queries, order)
    selection = selection_probabilities(mech, queries, order, digits, progress, jobs)
    bits = working_bits(digits, guard=SELECTION_GUARD_DIGITS)
    with ctx.workprec(bits):
        top = true_top(values, c)
        fnr, ser = selection_rates(selection, values, top, to_arb)
    return Utility(selection, fnr, ser, top)


def true_top(values: list, c: int) -> tuple:
    """The true top ``c``: the indices of the ``c`` largest answers (ties: the lower index
    first), ascending.

    Examples
    --------
    >>> true_top([1, 2, 1, 1], 2)
    (0, 1)
    """
    return tuple(sorted(sorted(range(len(values)), key=lambda i: (-values[i], i))[:c]))


def selection_rates(weights: list, values: list, top: tuple, number) -> tuple:
    """``(FNR, SER)`` of selection weights ``w_i``::

        FNR = 1 − Σ_{i ∈ top} w_i / c,        SER = 1 − Σ_i w_i q_i / Σ_{i ∈ top} q_i,

    ``c = len(top)``; SER is ``None`` when ``Σ_{i ∈ top} q_i ≤ 0``.  Both are linear in the
    weights (Lyu, Su & Li, PVLDB 2017, §6): with ``w_i = P_i`` they are ``E[FNR]`` and
    ``E[SER]``, with the selection indicators of runs the rates of those runs.

    Parameters
    ----------
    weights : list
        ``w_i`` for each query: Arb balls, or numpy arrays (one entry per run).
    values : list of Fraction
        The exact answers ``q_i``.
    top : tuple of int
        The true top ``c`` (:func:`true_top`).
    number : callable
        Converts an exact rational to the weights' arithmetic (``to_arb``, ``float``).
    """
    fnr = 1 - sum(weights[i] for i in top) / len(top)
    best = sum((values[i] for i in top), Fraction(0))
    if best <= 0:
        return fnr, None
    gained = sum(w * number(q) for w, q in zip(weights, values))
    return fnr, 1 - gained / number(best)
