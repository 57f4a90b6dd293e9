"""Families of neighbouring inputs and outputs indexed by a size ``t``, and their exact losses.

A published counterexample is a pattern that grows with a size: ``D = (0^t, 1^t)``,
``D' = (1^t, 0^t)``, ``a = (⊥^t, ⊤^t)``.  :class:`Family` keeps the three as ``x*{t}`` templates,
so a member is a run-length string that the exact engine evaluates at the same cost for every t.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mpmath import mpf

from ..exact import PrivacyLoss, privacy_loss
from ..formatting import format_value, loss_record
from ..mechanisms import mechanism

#: Significant digits of every exact evaluation in the claims (and of the decimal strings).
DPS = 30


@dataclass(frozen=True)
class Family:
    """``(mechanism, D(t), D'(t), a(t))`` with ``{t}`` placeholders in the run-length templates.

    Examples
    --------
    >>> f = Family("copies", "gptt", {"eps1": 0.5, "eps2": 0.5}, "0*{t},1*{t}", "1*{t},0*{t}",
    ...            "F*{t},T*{t}")
    >>> print(f.describe())
    gptt(eps1=0.5, eps2=0.5): D = 0*t,1*t; D' = 1*t,0*t; a = F*t,T*t
    >>> print(f.log_ratio(1000, dps=15))
    897.337684214873
    """

    label: str
    mechanism: str
    params: dict = field(hash=False)
    d1: str
    d2: str
    output: str

    def describe(self) -> str:
        """One line: mechanism with parameters, then D(t), D'(t) and a(t)."""
        params = ", ".join(f"{key}={value}" for key, value in self.params.items())
        d1, d2, output = (text.format(t="t") for text in (self.d1, self.d2, self.output))
        return f"{self.mechanism}({params}): D = {d1}; D' = {d2}; a = {output}"

    def build(self):
        """The catalogue mechanism with this family's parameters."""
        return mechanism(self.mechanism, **self.params)

    def loss(self, size: int, dps: int = DPS, method: str = "auto") -> PrivacyLoss:
        """The exact privacy loss of the member of size ``size`` (``method="certified"``: an
        enclosure, :class:`~exactdp.exact.losses.privacy_loss.CertifiedPrivacyLoss`)."""
        return privacy_loss(self.build(), self.d1.format(t=size), self.d2.format(t=size),
                            self.output.format(t=size), dps=dps, method=method)

    def log_ratio(self, size: int, dps: int = DPS) -> str:
        """``ln(Pr[M(D)=a] / Pr[M(D')=a])`` of the member of size ``size``, as a decimal string."""
        return format_value(self.loss(size, dps).log_ratio, dps)


def loss_point(family: Family, size: int, loss: PrivacyLoss, dps: int = DPS, **extra) -> dict:
    """The JSON record of one evaluated member: series, size, log ratio (with its enclosure when
    certified), both probabilities and the bound ``log_ratio_error`` on the printed log ratio's
    distance to the exact one (:func:`~exactdp.formatting.loss_record`), plus ``extra`` fields
    (already strings)."""
    record = loss_record(loss, dps)
    error = record.pop("error")
    return {"series": family.label, "size": size, **record, "log_ratio_error": error, **extra}


def tolerance(dps: int = DPS, scale=1) -> mpf:
    """Largest rounding error of a log ratio near ``scale`` promised by ``dps`` digits (each
    probability is good to a relative ``10^-dps``, so their log ratio to ``2·10^-dps``)."""
    return 2 * mpf(10) ** (-dps) * max(1, abs(mpf(scale)))
