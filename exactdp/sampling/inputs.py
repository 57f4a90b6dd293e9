"""Candidate neighbouring inputs: the database patterns of Ding et al. (CCS 2018), Table 1.

D1 is all ones; D2 moves one query up or down ("one above", "one below") — the only patterns for
histogram-style mechanisms where neighbours differ in one query — or every query ("one above rest
below", "one below rest above", "half half" — ``2^⌊n/2⌋ 0^⌈n/2⌉`` as in StatDP's code, see
:data:`HALF_HALF_VERSIONS` —, "all above", "all below"), plus the "X shape" pair
(``1^⌊n/2⌋ 0^⌈n/2⌉`` vs ``0^⌊n/2⌋ 1^⌈n/2⌉``).  Lengths 5 and 10 (StatDP's ``num_input``).  Every
entry is multiplied by the mechanism's sensitivity Δ, so neighbours differ by at most Δ.
"""

from __future__ import annotations

from fractions import Fraction

from ..exact.losses.privacy_loss import neighbouring_pair
from ..sequences import Runs

#: StatDP's default input lengths.
LENGTHS = (5, 10)
#: D2 of the "half half" pattern in its three published versions (D1 is all ones): StatDP's code
#: (``generate_databases``: ``2^⌊n/2⌋ 0^⌈n/2⌉``, the default, so that results compare with
#: StatDP's), the paper's Table 1 (``[0, 0, 0, 2, 2]`` for n = 5: ``0^⌈n/2⌉ 2^⌊n/2⌋``) and the
#: version exactdp used before following StatDP's code (``0^⌊n/2⌋ 2^⌈n/2⌉``).
HALF_HALF_VERSIONS = {
    "statdp code": lambda n: [2] * (n // 2) + [0] * (n - n // 2),
    "paper table": lambda n: [0] * (n - n // 2) + [2] * (n // 2),
    "exactdp before": lambda n: [0] * (n // 2) + [2] * (n - n // 2),
}
#: Ding et al. (CCS 2018), Table 1, as ``(name, D1, D2)`` builders on a length ``n``, values in
#: units of Δ.
STATDP_PATTERNS = (
    ("one above", lambda n: [1] * n, lambda n: [2] + [1] * (n - 1)),
    ("one below", lambda n: [1] * n, lambda n: [0] + [1] * (n - 1)),
    ("one above rest below", lambda n: [1] * n, lambda n: [2] + [0] * (n - 1)),
    ("one below rest above", lambda n: [1] * n, lambda n: [0] + [2] * (n - 1)),
    ("half half", lambda n: [1] * n, HALF_HALF_VERSIONS["statdp code"]),
    ("all above", lambda n: [1] * n, lambda n: [2] * n),
    ("all below", lambda n: [1] * n, lambda n: [0] * n),
    ("x shape", lambda n: [1] * (n // 2) + [0] * (n - n // 2),
     lambda n: [0] * (n // 2) + [1] * (n - n // 2)),
)


def input_patterns(mech, length: int, origin: Fraction = Fraction(0)):
    """The (D1, D2) pairs of Table 1 on ``length`` queries with values ``origin + k·Δ``, as
    tuples of Fractions, keeping those that are neighbours for ``mech`` (only "one above" and
    "one below" when neighbours differ in one query).

    Examples
    --------
    >>> import exactdp
    >>> [tuple(map(int, d2)) for _, d2 in input_patterns(exactdp.mechanism("histogram"), 3)]
    [(2, 1, 1), (0, 1, 1)]
    >>> len(input_patterns(exactdp.mechanism("svt1"), 5))
    8
    """
    pairs = []
    for _, first, second in STATDP_PATTERNS:
        d1 = tuple(origin + mech.sensitivity * v for v in first(length))
        d2 = tuple(origin + mech.sensitivity * v for v in second(length))
        if mech.neighbour_violation(Runs.from_items(d1), Runs.from_items(d2)) is None:
            pairs.append((d1, d2))
    return pairs


def check_pair(mech, d1, d2, allow_any_pair: bool = False) -> tuple[tuple, tuple]:
    """``(d1, d2)`` as tuples if they are neighbours for ``mech``, else an
    :class:`~exactdp.errors.InputError` naming the broken condition; with ``allow_any_pair``
    only their lengths must agree."""
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    return tuple(d1.expand()), tuple(d2.expand())


def candidate_inputs(mech, lengths=LENGTHS):
    """Every pattern pair for every length, for ``mech``'s neighbour relation and sensitivity."""
    return [pair for length in lengths for pair in input_patterns(mech, length)]
