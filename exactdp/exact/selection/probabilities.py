"""``P_i = Pr[query i is selected]`` for each query of a selection mechanism: the checks common
to every kind, then the kind registered for the mechanism's description (``kinds.py``)."""

from __future__ import annotations

from flint import arb, ctx

from ...checks import check_jobs
from ...errors import InputError
from ...precision import SELECTION_GUARD_DIGITS, check_dps, working_bits
from ...sequences import as_queries
from ...workers import local_jobs
from .kinds import ORDERS, check_cutoff, selection_cutoff, selection_kind


def checked_request(mech, queries, order: str) -> tuple:
    """``(values, c, order)``: the exact answers, the number selected and the order the
    probabilities are computed in, once the mechanism, the answers and the order are checked
    (:func:`selection_probabilities`'s ``InputError``)."""
    if order not in ORDERS:
        raise InputError(f"order must be given or random, got {order!r}")
    queries = as_queries(queries)
    values = queries.expand()
    c = selection_cutoff(mech, "utility")
    kind = selection_kind(mech)
    kind.check(mech, queries)
    check_cutoff(c, len(values))
    return values, c, kind.order(mech, order)


def selection_probabilities(mech, queries, order: str = "given", digits: int = 15,
                            progress=None, jobs: int | None = None) -> list:
    """``P_i = Pr[query i is selected]`` for each query, as Arb balls with absolute radius about
    ``10^{−digits}`` (:mod:`exactdp.exact.selection`).

    Parameters
    ----------
    mech : ThresholdMechanism, ExponentialTopMechanism or RetraversalMechanism
        A ⊤/⊥ Sparse Vector variant with a cutoff, ``em_top`` or ``svt_retraversal``.
    queries : str or sequence of numbers
        The query answers ``q_i``.
    order : {"given", "random"}
        Queries examined in the given order, or in a uniformly random one (the probability
        averaged over every order; ``em_top`` does not depend on it, ``svt2`` and
        ``svt_retraversal`` are modelled in the given order only).
    digits : int
        Decimal digits of absolute accuracy aimed at for each ``P_i`` (not significant
        digits: a probability below ``10^{−digits}`` may come out as a ball that contains 0).
    progress : callable, optional
        Called with the number of finished quadrature pieces (terms of the sum, for an
        integer-valued threshold noise); with ``0`` and ``note``, a keyword, for work before
        or after the quadrature: while its rule is searched, while ``svt_retraversal`` finds
        the traversals each part of the threshold noise's range needs, while ``svt2`` chains
        its thresholds.
    jobs : int, optional
        Worker processes forked to evaluate the quadrature's pieces
        (:func:`~exactdp.exact.backends.vector_quadrature.integrate_vector`; default: the number
        set by
        :func:`exactdp.workers.use_local_jobs`, else 1); the result does not depend on it.  The
        chain of ``svt2`` (after its rule) and the sum of an integer-valued threshold noise run
        in this process.

    Raises
    ------
    InputError
        For a mechanism without a cutoff, with released numbers or without query noise, a
        cutoff above the number of queries, query answers that are not integers for
        integer-valued noise (``svt_discrete``, as :func:`exactdp.probability`), or an unknown
        order.
    PrecisionError
        When ``svt_retraversal`` would need more than
        :data:`~exactdp.exact.selection.retraversal.MAX_TRAVERSALS` traversals.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> p = selection_probabilities(mechanism("svt1", eps=1, c=1), [3, 0], digits=10)
    >>> p[0] > p[1] > 0
    True
    """
    digits = check_dps(digits, "digits")
    jobs = check_jobs(local_jobs() if jobs is None else jobs)
    values, c, order = checked_request(mech, queries, order)
    bits = working_bits(digits, len(values) ** 2, guard=SELECTION_GUARD_DIGITS)
    with ctx.workprec(bits):
        tolerance = arb(10) ** (-(digits + 1))
        return selection_kind(mech).probabilities(mech, values, c, order, digits, tolerance,
                                                  progress, jobs)
