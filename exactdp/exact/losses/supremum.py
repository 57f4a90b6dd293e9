"""The largest privacy loss over every output, ``max_privacy_loss``.

⊤/⊥ mechanisms enumerate their outputs (``losses/privacy_loss.py``) and take the largest loss among
them; programs register their own enumeration (``exactdp.programs.exact``).  Where no ⊤/⊥ outputs
are enumerated, the supremum
``sup_a |ln(p1(a)/p2(a))| = max(D_∞(M(d1) ‖ M(d2)), D_∞(M(d2) ‖ M(d1)))`` comes from the Rényi
divergence of order ∞ (``divergences/renyi.py``; Mironov, "Rényi Differential Privacy", IEEE CSF
2017, Definition 3), with an output that attains it, or where it is approached.

* noisy max releasing an index: ``D_∞`` of the certified probabilities of every index, both
  ways (``renyi.largest_log_ratio``), at the index of the largest loss;
* one released number ``q + η`` (a program, a Laplace histogram differing in one bin): the
  location shift's ``D_∞`` (``renyi.shift_divergence``), the same both ways as the laws are
  symmetric.  Laplace, scale ``b``: ``Δ/b``, attained at the output of ``d1`` without noise
  (there ``|x − μ2| − |x − μ1| = Δ``).  Gaussian, ``μ1 ≠ μ2``: the log ratio
  ``(μ1 − μ2)(2x − μ1 − μ2)/(2σ²)`` is finite at every ``x`` but unbounded: ``+∞``, approached
  as ``x → ±∞`` (the sign of ``μ1 − μ2``) and attained nowhere;
* noisy max releasing its largest value: ``D_∞`` of the densities both ways, certified by a
  branch and bound over the values (``losses/value_supremum.py``), at the value of the largest loss,
  or where it is approached.
"""

from __future__ import annotations

import functools

import mpmath
from flint import arb
from mpmath import mpf

from ...precision import (COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, CertifiedPrivacyLoss, Enclosure,
                           exact_mpf, working_bits)
from ...sequences import Runs
from .privacy_loss import (MaxPrivacyLoss, neighbouring_pair)
from ..divergences.output_pairs import (LocationShift, complete_pairs, density_supremum,
                           location_shift)
from ..backends.piece_series import flint_context
from ..probability import probability
from ..divergences.renyi import INFINITE_ORDER, largest_log_ratio, shift_divergence


@functools.singledispatch
def max_privacy_loss(mech, d1, d2, dps: int = 30,
                     allow_any_pair: bool = False) -> MaxPrivacyLoss:
    """The exact maximum (supremum) of ``|ln(Pr[M(d1) = a] / Pr[M(d2) = a])|`` over every
    output ``a``.

    A ⊤/⊥ mechanism has every output enumerated and evaluated: for Laplace or exponential
    noise, a fixed threshold and ⊤/⊥ outputs all at once in ball arithmetic
    (``backends/shared_nodes.py``, Gauss–Legendre nodes shared by all outputs, for a cutoff of 1, up
    to :data:`~.loss.MAX_SHARED_QUERIES` queries, as for Gaussian noise,
    ``backends/smooth_shared_nodes.py``;
    ``backends/output_tree.py``, the closed form along the tree of outputs, otherwise, up to
    :data:`~.loss.MAX_WALKED_QUERIES` queries and :data:`~.loss.MAX_SHARED_OUTPUTS` outputs),
    otherwise one output at a time (up to :data:`~.loss.MAX_ENUMERATED_QUERIES` queries); beyond
    these limits, with a cutoff of 1, among the two ends of each run of equal queries and ``⊥ⁿ``
    (``divergences/threshold_runs.py``, where the loss is proven monotone along each run).  The
    maximiser is then recomputed on its own with ``method="auto"`` (certified).  The
    probabilities of all outputs must sum to 1 on both sides to ``dps - 5`` digits, or
    :class:`~exactdp.errors.PrecisionError` is raised.  Other mechanisms (noisy max releasing
    an index or its largest value, a Laplace histogram) take the larger of
    ``D_∞(M(d1) ‖ M(d2))`` and ``D_∞(M(d2) ‖ M(d1))`` (:func:`loss_supremum`), and are refused where
    ``renyi_divergence`` refuses them.  A generic function on the mechanism's type: programs
    register their own enumeration (``exactdp.programs.exact``).

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("noisy_max_exponential", eps=2)
    >>> worst = exactdp.max_privacy_loss(m, [0, 0], [1, -1])
    >>> str(worst.output), exactdp.format_value(worst.loss.log_ratio, 10)   # ε
    ('1', '2.0')
    """
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    return loss_supremum(mech, d1, d2, dps)


def loss_supremum(mech, d1: Runs, d2: Runs, dps: int) -> MaxPrivacyLoss:
    """The largest ``|ln(p1/p2)|`` over every output of ``mech`` on the neighbouring inputs
    ``d1``, ``d2`` (checked by the caller), certified to ``dps`` digits: the larger ``D_∞`` of
    the two directions, signed as the loss that reaches it (negative when ``d2`` is the likelier
    side), with the probabilities (densities) of an output that attains it.

    Mechanisms that ``renyi_divergence`` refuses are refused here, with its message.
    """
    shift = location_shift(mech, d1, d2)
    if shift is not None:
        return _shift_supremum(mech, d1, d2, shift, dps)
    supremum = density_supremum(mech)
    if supremum is not None:
        return _density_supremum(mech, d1, d2, supremum, dps)
    pairs = complete_pairs(mech, d1, d2, dps + PART_GUARD_DIGITS)
    # the classes of noisy max releasing an index carry an index each (the only discrete
    # outputs that reach here: ⊤/⊥ mechanisms and programs enumerate their own)
    if d1 == d2:  # every output has the same probability on both sides: exactly 0
        loss, position = Enclosure.of_ball(arb(0)), 0
    else:
        forward, ahead = largest_log_ratio(pairs, dps, mech.name)
        backward, behind = largest_log_ratio([pair.swapped() for pair in pairs], dps, mech.name)
        loss = _larger(forward, backward)
        position = ahead if forward.value >= backward.value else behind
    output = Runs.from_items(pairs[position].output)
    with flint_context(working_bits(dps + PART_GUARD_DIGITS, guard=COMBINE_GUARD_DIGITS)):
        totals = [exact_mpf(sum((pair.count * pair[side] for pair in pairs), arb(0)).mid())
                  for side in (0, 1)]
    outputs = sum(pair.count for pair in pairs)
    return MaxPrivacyLoss(output, _attained_at(mech, d1, d2, output, loss, dps), outputs,
                          *totals)


def _larger(forward: Enclosure, backward: Enclosure) -> Enclosure:
    """``max(D_forward, D_backward)`` signed: ``D_forward`` when its centre is the larger (ties:
    forward), else ``−D_backward``; the magnitude's enclosure is ``[max of the lower ends, max of
    the upper ends]``, which holds the larger exact value whichever centre is larger."""
    lower, upper = max(forward.lower, backward.lower), max(forward.upper, backward.upper)
    if forward.value >= backward.value:
        return Enclosure(forward.value, lower, upper)
    return Enclosure(*(mpmath.fneg(end, exact=True) for end in (backward.value, upper, lower)))


def _shift_supremum(mech, d1: Runs, d2: Runs, shift: LocationShift,
                    dps: int) -> MaxPrivacyLoss:
    """The supremum for one released number (the module's docstring): ``D_∞`` of the shift,
    attained at the output of ``d1`` without noise, or ``+∞`` approached at one end."""
    loss = shift_divergence(shift, INFINITE_ORDER, dps)
    if loss.value == mpmath.inf:  # a Gaussian, μ1 ≠ μ2: approached, attained nowhere
        direction = "+" if shift.mu1 > shift.mu2 else "-"
        return _approached(loss, f"out{shift.entry} → {direction}inf")
    return MaxPrivacyLoss(shift.output1,
                          _attained_at(mech, d1, d2, shift.output1, loss, dps), None, None, None)


def _density_supremum(mech, d1: Runs, d2: Runs, supremum, dps: int) -> MaxPrivacyLoss:
    """The supremum for a released number whose family certifies ``D_∞`` by its own rule,
    ``supremum`` (``output_pairs.density_supremum``: noisy max's largest value, the module's
    docstring): the larger ``D_∞`` of the two directions, at its value or where it is
    approached."""
    forward, backward = supremum(mech, d1, d2, dps), supremum(mech, d2, d1, dps)
    loss = _larger(forward.divergence, backward.divergence)
    worst = forward if forward.divergence.value >= backward.divergence.value else backward
    if worst.output is None:
        return _approached(loss, worst.approached, "certified branch-and-bound")
    output = Runs.from_items([worst.output])
    return MaxPrivacyLoss(output, _attained_at(mech, d1, d2, output, loss, dps), None, None, None)


def _approached(loss: Enclosure, where: str, method: str = "certified closed") -> MaxPrivacyLoss:
    """A supremum ``loss`` that no output attains, approached ``where``, computed by
    ``method``."""
    return MaxPrivacyLoss(None, _certified(None, None, loss), None, None, None, approached=where,
                          supremum_method=method)


def _attained_at(mech, d1: Runs, d2: Runs, output: Runs, loss: Enclosure,
                 dps: int) -> CertifiedPrivacyLoss:
    """The loss ``loss`` (an enclosure of the supremum, signed) with the certified probabilities
    (densities) of ``output``, the output that attains it, on ``d1`` and ``d2``."""
    return _certified(*(probability(mech, d, output, dps, "certified") for d in (d1, d2)), loss)


def _certified(p1, p2, loss: Enclosure) -> CertifiedPrivacyLoss:
    """``loss`` with the probabilities ``p1``, ``p2`` (``None`` where no output attains it),
    its error the larger distance from its centre to an end (0 when infinite)."""
    if mpmath.isinf(loss.value):
        return CertifiedPrivacyLoss(p1, p2, loss.value, mpf(0), loss.lower, loss.upper)
    error = max(mpmath.fsub(loss.upper, loss.value, exact=True),
                mpmath.fsub(loss.value, loss.lower, exact=True))
    return CertifiedPrivacyLoss(p1, p2, loss.value, error, loss.lower, loss.upper)
