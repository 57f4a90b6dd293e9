"""The attributes every non-threshold declaration shares (noisy max, histogram): sensitivity,
neighbour direction, claimed budget and the user-facing parameters, with the display name."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from ..sequences import format_number


@dataclass(frozen=True, kw_only=True)
class Declared:
    """Keyword-only tail of a declaration.

    Attributes
    ----------
    sensitivity : Fraction
        ``Δ``: how far a query may move between neighbouring inputs.
    monotone : bool
        Whether neighbours must move every query in the same direction (checked by
        ``exactdp.privacy_loss``; False for these families).
    one_differ : bool
        Whether neighbours differ in one query only (histograms); otherwise every query may move.
    claimed_eps : Fraction or None
        The privacy budget the source claims.
    params : Mapping
        The user-facing parameters the description was built from (for display).
    """

    sensitivity: Fraction = Fraction(1)
    monotone: bool = False
    one_differ: bool = False
    claimed_eps: Fraction | None = None
    params: Mapping = field(default_factory=dict, compare=False)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={format_number(v) if isinstance(v, Fraction) else v}"
                          for k, v in self.params.items())
        return f"{self.name}({shown})"
