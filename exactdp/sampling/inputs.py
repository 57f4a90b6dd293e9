"""Candidate neighbouring inputs: the database patterns of Ding et al. (CCS 2018), Table 1.

D1 is all ones; D2 moves one query up or down ("one above", "one below") — the only patterns for
histogram-style mechanisms where neighbours differ in one query — or every query ("one above rest
below", "one below rest above", "half half", "all above", "all below"), plus the "X shape" pair
(``1^⌊n/2⌋ 0^⌈n/2⌉`` vs ``0^⌊n/2⌋ 1^⌈n/2⌉``).  Lengths 5 and 10 (StatDP's ``num_input``).  Every
entry is multiplied by the mechanism's sensitivity Δ, so neighbours differ by at most Δ.
"""

from __future__ import annotations

from fractions import Fraction

from ..exact.loss import neighbouring_pair

#: StatDP's default input lengths.
LENGTHS = (5, 10)


def input_patterns(one_differ: bool, length: int, sensitivity: Fraction = Fraction(1)):
    """The (D1, D2) pairs of Table 1 for inputs of ``length`` queries, as tuples of Fractions;
    only the "one above/below" pairs when neighbours differ in one query (``one_differ``).

    Examples
    --------
    >>> [tuple(map(int, d2)) for _, d2 in input_patterns(True, 3)]
    [(2, 1, 1), (0, 1, 1)]
    >>> len(input_patterns(False, 5))
    8
    """
    half, rest = length // 2, length - length // 2
    ones = [1] * length
    pairs = [(ones, [2] + [1] * (length - 1)),           # one above
             (ones, [0] + [1] * (length - 1))]           # one below
    if not one_differ:
        pairs += [(ones, [2] + [0] * (length - 1)),      # one above rest below
                  (ones, [0] + [2] * (length - 1)),      # one below rest above
                  (ones, [0] * half + [2] * rest),       # half half
                  (ones, [2] * length),                  # all above
                  (ones, [0] * length),                  # all below
                  ([1] * half + [0] * rest, [0] * half + [1] * rest)]  # X shape
    return [(tuple(sensitivity * v for v in d1), tuple(sensitivity * v for v in d2))
            for d1, d2 in pairs]


def check_pair(mech, d1, d2, allow_any_pair: bool = False) -> tuple[tuple, tuple]:
    """``(d1, d2)`` as tuples if they are neighbours for ``mech`` (every query moves by at most Δ,
    in one direction for a monotone mechanism, and only one query for "one differ"), else an
    :class:`~exactdp.errors.InputError` naming the broken condition; with ``allow_any_pair``
    only their lengths must agree."""
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    return tuple(d1.expand()), tuple(d2.expand())


def candidate_inputs(mech, lengths=LENGTHS):
    """Every pattern pair for every length, for ``mech``'s neighbour notion and sensitivity."""
    return [pair for length in lengths
            for pair in input_patterns(mech.one_differ, length, mech.sensitivity)]
