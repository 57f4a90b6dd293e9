"""The probabilities of every ⊤/⊥ output of a Sparse Vector mechanism at once, by the closed form
in ball arithmetic, sharing the work along the tree of outputs.

Every output ``a`` of ``n`` queries has ``Pr[a] = ∫ p_ρ(z) Π_{i<|a|} g_i(z − s_i) dz`` with
``g_i = F`` (⊥) or ``S`` (⊤) of the query noise and ``s_i = q_i − T`` (``form/threshold.py``).  All
outputs share the kinks ``0, s_1, …, s_n``, so on every piece between kinks each factor has a
fixed piecewise exponential form, taken in balls with exact rational rates
(``exponential_sums.piece_in``): ``e^{c + r(z − s)}`` or ``1 − e^{c + r(z − s)}``.  The outputs
form a binary tree (a prefix extended by ⊥ or ⊤); walking it depth first, each edge multiplies
the state of every piece — an exponent ``c₀ + c₁ z`` and two polynomials in ``w^{∓1}``,
``w = e^{z/b}`` — by one factor, so an output costs one polynomial product per piece instead of
a whole expansion.  At a leaf each Laurent monomial integrates exactly, ``∫_a^b e^{λz} dz``, from
a table made once per piece (``exponential_sums.py``: the expansion and its term-by-term
integral, shared with the closed forms).

The arithmetic is python-flint's ``arb`` balls at a precision raised by ``n·log₂3`` bits (the
largest cancellation of the expansion), so each probability comes with a rigorous enclosure: a
method with a computed error bound, independent of the quadratures.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from ...noise import Kind
from ...precision import working_bits
from ..form.integral_form import interior_point
from .arithmetics import BALLS
from .exponential_sums import ExpIntegrals, laurent_sum, piece_in
from .piece_series import flint_context


def applies(mech) -> bool:
    """Threshold never redrawn, nothing released, Laplace or exponential noise on both sides."""
    laws = (mech.threshold_noise, mech.query_noise)
    return (not mech.redraw_threshold and not mech.releases_numbers
            and all(law.closed_form and not law.is_point_mass for law in laws)
            and mech.query_noise.scale > 0)


class _Piece:
    """One piece ``(a, b)`` between kinks: the hub's log coefficient there and the integrals
    ``∫_a^b e^{(r_hub + k/b)z} dz`` (``exponential_sums.ExpIntegrals``)."""

    def __init__(self, hub, a, b, inverse_b: Fraction):
        self.middle = interior_point(a, b)
        piece = piece_in(hub, Kind.PDF, self.middle, BALLS)
        if piece is None:  # the hub's density vanishes on this piece
            self.c0 = None
            return
        self.c0 = piece.log_coefficient
        self.table = ExpIntegrals(piece.rate, inverse_b, a, b, BALLS)


def all_output_probabilities(mech, queries, outputs, dps: int):
    """``{output: arb}`` for every output in ``outputs`` (tuples of booleans, True for ⊤) of a
    mechanism for which :func:`applies`, each probability an ``arb`` enclosure."""
    n = len(queries)
    bits = working_bits(dps, 3**n)  # the expansion cancels up to n·log₂3 bits
    hub, noise = mech.threshold_noise, mech.query_noise
    shifts = [Fraction(q) - mech.threshold for q in queries]
    with flint_context(bits):
        inverse_b = 1 / noise.scale
        kinks = sorted(set(hub.kink_points()) | {s + k for s in shifts
                                                  for k in noise.kink_points()})
        edges = [None] + kinks + [None]
        pieces = [_Piece(hub, a, b, inverse_b) for a, b in zip(edges, edges[1:])]
        # per piece, per query, per answer: (log coefficient, rate sign, one_minus), made once
        # per query and side of its kink and shared by the pieces on that side
        made: dict = {}
        forms = [[_forms(made, noise, piece.middle, s) for s in shifts] for piece in pieces]
        wanted = set(outputs)
        prefixes = {output[:k] for output in wanted for k in range(len(output) + 1)}
        results: dict = {}
        start = [None if piece.c0 is None else (piece.c0, 0, BALLS.one(), BALLS.one())
                 for piece in pieces]
        stack = [((), start)]
        while stack:
            prefix, states = stack.pop()
            if prefix in wanted:
                results[prefix] = _integrate(pieces, states)
            depth = len(prefix)
            if depth == n:
                continue
            for answer in (False, True):
                extended = prefix + (answer,)
                if extended not in prefixes:
                    continue
                stack.append((extended, [_multiply(state, forms[p][depth][answer])
                                         for p, state in enumerate(states)]))
        return results


def _forms(made: dict, noise, middle, shift) -> dict:
    """``{answer: form}`` of the query ``shift`` at the point ``middle``, from ``made`` where
    the side of its kink containing ``middle − shift`` was seen before."""
    key = (shift, noise.side(middle - shift))
    if key not in made:
        made[key] = {answer: _form(noise, answer, middle, shift) for answer in (False, True)}
    return made[key]


def _form(noise, answer: bool, middle, shift):
    kind = Kind.SF if answer else Kind.CDF
    piece = piece_in(noise, kind, middle - shift, BALLS)
    if piece is None:  # the factor vanishes on this piece
        return None
    constant = piece.log_coefficient_at(shift, BALLS)
    sign = (piece.rate > 0) - (piece.rate < 0)
    return constant, sign, piece.one_minus


def _multiply(state, form):
    if state is None or form is None:
        return None
    c0, power, down, up = state
    constant, sign, one_minus = form
    if not one_minus:
        return c0 + constant, power + sign, down, up
    factor = BALLS.binomial(constant, 1)
    if sign < 0:
        return c0, power, down * factor, up
    return c0, power, down, up * factor


def _integrate(pieces, states) -> arb:
    total = arb(0)
    for piece, state in zip(pieces, states):
        if state is None:
            continue
        c0, power, down, up = state
        coefficients, offset = BALLS.laurent(down, up)
        total += c0.exp() * laurent_sum(coefficients, piece.table, power - offset)
    return total
