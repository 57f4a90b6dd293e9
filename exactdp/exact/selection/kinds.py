"""The kinds of selection mechanism whose selection probabilities are modelled, registered by
the type of their description: each kind's module registers a :class:`SelectionKind` with
:func:`register_kind`, and :func:`selection_kind` finds it (``functools.singledispatch``, so a
subclass of a registered description is found too).

A kind says how many queries its mechanisms select (:attr:`SelectionKind.cutoff`), what it
refuses, which order of the queries its probabilities depend on, and how they are computed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...errors import InputError
from ..backends.interval_arrays import ArbArrays, FloatIntervals

#: The orders in which a selection mechanism may examine the queries.
ORDERS = ("given", "random")
#: Digits up to which the recurrences of Sparse Vector with retraversal (its traversals) run in
#: double-precision intervals (``exact/backends/interval_arrays.py``: a relative width of about
#: 10^{−12} after the few thousand roundings of a query's chain of traversals, inside the
#: tolerance); beyond, in Arb balls at Python speed.
FLOAT_DIGITS = 8


#: What one evaluation of a vector of selection integrands costs, in evaluations of their common
#: bound: it steers the quadrature's choice of ellipse (``integrate_vector``).  On the Zipf
#: workload at n = 1000 an evaluation costs about 5 bounds in a random order (the integral over
#: ``t`` per answer); 4 halves its nodes.
EVALUATION_COST = 4


@dataclass(frozen=True)
class SelectionKind:
    """How the selection probabilities of one kind of mechanism are modelled.

    Attributes
    ----------
    cutoff : callable
        ``cutoff(mech)``: the number ``c`` of queries selected (at most, for Sparse Vector), or
        ``None`` when this mechanism selects no fixed number.
    check : callable
        ``check(mech, queries)``: raises :class:`~exactdp.errors.InputError` for a mechanism or
        query answers (:class:`~exactdp.sequences.Runs`) the model does not cover.
    order : callable
        ``order(mech, order)``: the order the probabilities are computed in (``"given"`` where
        they do not depend on it), or an :class:`~exactdp.errors.InputError` for an order not
        modelled.
    probabilities : callable
        ``probabilities(mech, values, c, order, digits, tolerance, progress, jobs)``: the list
        of ``P_i``, Arb balls within ``tolerance`` (about ``10^{−digits−1}``) of each, at the
        working precision (parameters as :func:`~exactdp.exact.selection.selection_probabilities`).
    """

    cutoff: Callable
    check: Callable
    order: Callable
    probabilities: Callable


@functools.singledispatch
def selection_kind(mech) -> SelectionKind | None:
    """The :class:`SelectionKind` registered for the type of ``mech``, or ``None``."""
    return None


def register_kind(description: type, kind: SelectionKind) -> None:
    """Register ``kind`` for the mechanism descriptions of type ``description``."""
    selection_kind.register(description, lambda mech: kind)


def selection_cutoff(mech, user: str) -> int:
    """The number ``c`` of queries a selection mechanism selects (at most, for Sparse Vector):
    ``c`` of ``em_top`` and ``svt_retraversal``, the cutoff of a Sparse Vector variant; any other
    mechanism is refused in one line naming ``user``, the caller."""
    kind = selection_kind(mech)
    c = None if kind is None else kind.cutoff(mech)
    if c is None:
        raise InputError(f"{user} needs a selection mechanism with a cutoff c (a Sparse Vector "
                         f"variant, em_top or svt_retraversal), got {mech.name}")
    return c


def check_cutoff(c, n: int) -> None:
    """Refuse a cutoff that is not an integer in ``1..n`` (``n`` queries)."""
    if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 1:
        raise InputError(f"the cutoff c must be a positive integer, got {c!r}")
    if c > n:
        raise InputError(f"the cutoff c={c} exceeds the number of queries ({n})")


class PiecesInTurn:
    """``progress`` for quadratures run one after another
    (:func:`~exactdp.exact.backends.vector_quadrature.integrate_vector`'s callback): each one's
    finished pieces counted on after all the pieces of those before it, notes passed on with
    ``0``; :meth:`next` gives the callback of the next quadrature (``None`` without
    ``progress``)."""

    def __init__(self, progress):
        self.progress, self.before, self.last = progress, 0, 0

    def next(self):
        self.before, self.last = self.before + self.last, 0
        if self.progress is None:
            return None

        def report(done, note=""):
            if note:
                self.progress(0, note=note)
            else:
                self.last = done
                self.progress(self.before + done)
        return report


def in_intervals_first(recurrence: Callable, digits: int, tolerance) -> list:
    """``recurrence(arithmetic)`` (a list of balls) in double-precision intervals
    (:class:`~exactdp.exact.backends.interval_arrays.FloatIntervals`) for at most
    :data:`FLOAT_DIGITS`
    digits, else, or where their balls are wider than ``5·tolerance``, in Arb balls
    (:class:`~exactdp.exact.backends.interval_arrays.ArbArrays`).  Doubles hold ``F_j = 1 − S_j``
    only
    to about ``10^{−16}`` absolutely, and over very many steps that can exceed the digits asked
    for."""
    if digits <= FLOAT_DIGITS:
        fast = recurrence(FloatIntervals())
        if max(p.rad() for p in fast) <= 5 * tolerance:
            return fast
    return recurrence(ArbArrays())
