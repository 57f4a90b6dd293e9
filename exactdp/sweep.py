"""Sweeps of a family of inputs: the exact privacy loss of ``D1(t)``, ``D2(t)`` and an output
(or event) ``a(t)`` for every ``t`` of a list, one series per parameter setting.

The inputs and the output are *templates*: text in the usual query/output notation in which
``{t}`` stands for the value of ``t`` (``0*{t},1*{t}`` is t zeros then t ones).  Each point is
the exact ``ln(Pr[M(D1) = a]/Pr[M(D2) = a])`` of :func:`exactdp.privacy_loss` (or of an event,
``exactdp.exact.event_probability.rules.event_privacy_loss``) with its computed error bound.  A
point that cannot
be computed (an output of probability 0 on both sides, a program with more paths than its limit,
a precision out of reach) is a *failed* point: it keeps its ``t`` and parameters and says why in
one line (:attr:`SweepPoint.failure`), and the other points are computed all the same.

``t`` lists (:func:`parse_t_values`): ``1,2,5``; ``a:b:step`` (exact decimals, ``b`` included
when reached); ``a:b:log`` (integers from ``a`` to ``b`` spaced evenly on a log scale,
:data:`LOG_POINTS_PER_DECADE` per decade, both ends included).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import mpmath

from .errors import ExactDPError, InputError
from .exact.event_probability.rules import event_privacy_loss
from .exact.losses.privacy_loss import PrivacyLoss, privacy_loss
from .formatting import decimal_text, echoed_number, loss_record
from .progress import Progress
from .checks import check_positive
from .sequences import format_number, to_fraction
from .workers import current_scheduler, parallel_map

#: Most points of one sweep (every series together).
MAX_POINTS = 2000
#: Points per decade of ``a:b:log`` (before rounding to distinct integers).
LOG_POINTS_PER_DECADE = 10
#: The placeholder of a template.
PLACEHOLDER = "{t}"


def parse_t_values(text: str) -> list[Fraction]:
    """The values of ``t``: a list ``1,2,5``, a range ``a:b:step`` or log-spaced integers
    ``a:b:log``.

    Examples
    --------
    >>> [str(t) for t in parse_t_values("1:100:log")][:12]
    ['1', '2', '3', '4', '5', '6', '8', '10', '13', '16', '20', '25']
    >>> [str(t) for t in parse_t_values("0:1:0.25")]
    ['0', '1/4', '1/2', '3/4', '1']
    """
    text = text.strip()
    if ":" not in text:
        values = [to_fraction(part.strip(), f"the t value {part.strip()!r}")
                  for part in text.split(",")]
    else:
        parts = [part.strip() for part in text.split(":")]
        if len(parts) != 3:
            raise InputError(f"--t must be a list like 1,2,5, a range a:b:step or a:b:log, got "
                             f"{text!r}")
        low, high = (to_fraction(part, f"the end {part!r} of --t {text}") for part in parts[:2])
        if high < low:
            raise InputError(f"--t {text}: the end {format_number(high)} is below the start "
                             f"{format_number(low)}")
        values = _log_integers(low, high, text) if parts[2].lower() == "log" else \
            _steps(low, high, to_fraction(parts[2], f"the step {parts[2]!r} of --t {text}"),
                   text)
    if len(values) > MAX_POINTS:
        raise InputError(f"--t {text} gives {len(values):,} values; at most {MAX_POINTS:,}")
    if len(set(values)) != len(values):
        raise InputError(f"--t {text} repeats a value")
    return values


def _steps(low: Fraction, high: Fraction, step: Fraction, text: str) -> list[Fraction]:
    if step <= 0:
        raise InputError(f"--t {text}: the step must be positive, got {format_number(step)}")
    count = int((high - low) / step) + 1
    if count > MAX_POINTS:
        raise InputError(f"--t {text} gives {count:,} values; at most {MAX_POINTS:,}")
    return [low + k * step for k in range(count)]


def _log_integers(low: Fraction, high: Fraction, text: str) -> list[Fraction]:
    if low.denominator != 1 or high.denominator != 1 or low < 1:
        raise InputError(f"--t {text}: a log range needs whole numbers a ≥ 1 and b ≥ a")
    decades = math.log10(high / low)
    count = max(2, math.ceil(decades * LOG_POINTS_PER_DECADE) + 1)
    if count > MAX_POINTS:
        raise InputError(f"--t {text} gives {count:,} values; at most {MAX_POINTS:,}")
    values = {Fraction(round(float(low) * (float(high) / float(low)) ** (k / (count - 1))))
              for k in range(count)}
    return sorted(values | {low, high})


def fill(template: str, t: Fraction) -> str:
    """``template`` with every ``{t}`` replaced by ``t`` (as an exact decimal)."""
    return template.replace(PLACEHOLDER, format_number(t))


def check_templates(templates: dict[str, str | None]) -> None:
    """Each template may contain ``{t}`` and no other brace; at least one contains ``{t}``."""
    for name, template in templates.items():
        if template is None:
            continue
        if re.search(r"[{}]", template.replace(PLACEHOLDER, "")):
            raise InputError(f"--{name} {template!r}: a template may contain only the "
                             f"placeholder {PLACEHOLDER} in braces")
    if not any(PLACEHOLDER in template for template in templates.values() if template):
        raise InputError(f"no template contains {PLACEHOLDER}: the sweep would repeat one point "
                         f"(write e.g. --d1 '0*{PLACEHOLDER},1*{PLACEHOLDER}')")


def parameter_series(values: dict[str, list[str]]) -> list[dict[str, str]]:
    """Every combination of the parameter values (one series each), in the order given."""
    for name, options in values.items():
        if len(set(options)) != len(options):
            raise InputError(f"parameter {name} repeats a value: {','.join(options)}")
    names = list(values)
    return [dict(zip(names, combo)) for combo in itertools.product(*values.values())]


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: ``t``, the series' parameters and the exact loss there, or why it
    could not be computed.

    Attributes
    ----------
    t : Fraction
    params : dict
    loss : PrivacyLoss or None
        ``None`` for a failed point.
    failure : str or None
        For a failed point, the error that stopped it, in one line.
    """

    t: Fraction
    params: dict
    loss: PrivacyLoss | None
    failure: str | None = None

    def record(self, dps: int, text: bool = False) -> dict:
        """The JSON object: numbers as decimal strings to the digits they support
        (:func:`~exactdp.formatting.loss_record`), ``t`` and the parameters typed as fractions
        as decimals (``1/2`` is ``0.5``); ``text``: ``t`` and the parameters exactly, for the
        table (:func:`~exactdp.formatting.echoed_number`); a failed point has ``failure``
        instead of the loss's fields."""
        return {"t": echoed_number(self.t, dps, text),
                "params": {name: _parameter_text(value, dps, text)
                           for name, value in self.params.items()},
                **({"failure": self.failure} if self.failure is not None else
                   loss_record(self.loss, dps))}


def _parameter_text(value: str, dps: int, text: bool) -> str:
    """A parameter as typed; in JSON (not ``text``) a finite number as its decimal (``1/2`` is
    ``0.5``), ``inf`` and flags (``true``) as they are."""
    if text:
        return value
    try:
        return decimal_text(to_fraction(value, "a parameter"), dps)
    except InputError:  # not a finite number
        return value


@dataclass(frozen=True)
class _Task:
    mech: object
    params: dict
    t: Fraction
    d1: str
    d2: str
    output: str | None
    event: str | None
    dps: int
    allow_any_pair: bool


def _point(task: _Task) -> SweepPoint:
    """The point of ``task``; an error exactdp raises on purpose (or an arithmetic one) makes
    it a failed point."""
    try:
        if task.event is not None:
            loss = event_privacy_loss(task.mech, task.d1, task.d2, task.event, task.dps,
                                      task.allow_any_pair)
        else:
            loss = privacy_loss(task.mech, task.d1, task.d2, task.output, task.dps,
                                allow_any_pair=task.allow_any_pair)
    except (ExactDPError, ArithmeticError) as exc:
        failure = " ".join(str(exc).split()) or type(exc).__name__
        return SweepPoint(task.t, task.params, None, failure)
    return SweepPoint(task.t, task.params, loss)


def sweep(series: Sequence[tuple[dict, object]], d1: str, d2: str, ts: Sequence,
          output: str | None = None, event: str | None = None, dps: int = 15, jobs: int = 1,
          progress: bool | None = False, allow_any_pair: bool = False) -> list[SweepPoint]:
    """The exact loss at every ``t`` of every series; a point that cannot be computed is a
    failed point (:attr:`SweepPoint.failure`), and the others are computed all the same.

    Parameters
    ----------
    series : sequence of (dict, mechanism)
        Each series' parameters (for display) and its mechanism (catalogue or program).
    d1, d2, output, event : str
        Templates in ``{t}`` (:func:`fill`); exactly one of ``output`` and ``event``.
    ts : sequence of numbers
        The values of ``t``.
    dps : int
        Significant digits of each point.
    jobs : int
        Worker processes (:func:`exactdp.workers.parallel_map`); the points do not depend on it.
    progress : bool or None
        As :class:`~exactdp.progress.Progress`'s ``enabled``.

    Examples
    --------
    The Laplace mechanism (scale 1/ε) releasing ``t`` on D1 = 0, D2 = 1 has the loss
    ``ε(|t − 1| − |t|)``:

    >>> import exactdp
    >>> points = sweep([({}, exactdp.mechanism("histogram", eps=1))], "0", "1", [0, "0.5", 2],
    ...                output="{t}")
    >>> [p.record(6)["log_ratio"] for p in points]
    ['1.0', '0', '-1.0']
    """
    if (output is None) == (event is None):
        raise InputError("give exactly one of an output template and an event template")
    check_templates({"d1": d1, "d2": d2, "output": output, "event": event})
    jobs = check_positive("jobs", jobs)
    ts = [to_fraction(t, "t") for t in ts]
    tasks = [_Task(mech, params, t, fill(d1, t), fill(d2, t),
                   None if output is None else fill(output, t),
                   None if event is None else fill(event, t), dps, allow_any_pair)
             for params, mech in series for t in ts]
    if len(tasks) > MAX_POINTS:
        raise InputError(f"the sweep has {len(tasks):,} points; at most {MAX_POINTS:,}")
    in_process = jobs == 1 and current_scheduler() is None
    points = map(_point, tasks) if in_process else parallel_map(_point, tasks, jobs)
    results = []
    with Progress(len(tasks), "sweep", "point", progress) as bar:
        for point in points:
            results.append(point)
            bar.update()
    return results


def series_label(params: dict) -> str:
    """A series' legend entry: its parameters, ``k=v`` joined by commas."""
    return ", ".join(f"{key}={value}" for key, value in params.items()) or "exact ln ratio"


def plot(points: Sequence[SweepPoint], claimed: Sequence, path, title: str,
         t_axis: str = "t") -> Path:
    """Draw ln ratio against t, one line per series, the claimed ε of each series (``claimed``,
    in series order; ``None`` for none) dashed; log axes where every value is positive and
    spans at least two decades.  Infinite ratios and failed points cannot be drawn: the legend
    says where they are.  Writes a PNG at ``path`` (matplotlib, as the claims' figures)."""
    from .claims.figure_spec import EXACT, Curve, FigureSpec, Panel, horizontal
    from .claims.plots import draw

    by_series: dict = {}
    for point in points:
        by_series.setdefault(tuple(point.params.items()), []).append(point)
    curves, finite_x, finite_y = [], [], []
    for color, (params, members) in enumerate(by_series.items()):
        computed = [p for p in members if p.failure is None]
        finite = [(float(p.t), float(p.loss.log_ratio)) for p in computed
                  if mpmath.isfinite(p.loss.log_ratio)]
        notes = [f"{what} at t = {', '.join(format_number(p.t) for p in where)}"
                 for what, where in (
                     ("±∞", [p for p in computed if not mpmath.isfinite(p.loss.log_ratio)]),
                     ("failed", [p for p in members if p.failure is not None])) if where]
        label = series_label(dict(params)) + (f" ({'; '.join(notes)})" if notes else "")
        curves.append(Curve(label, tuple(x for x, _ in finite), tuple(y for _, y in finite),
                            EXACT, color))
        finite_x += [x for x, _ in finite]
        finite_y += [y for _, y in finite]
    xs = tuple(float(p.t) for p in points)
    values = [c for c in claimed if c is not None]
    if len(set(values)) == 1:  # one claim for every series: grey
        curves.append(horizontal(f"claimed ε = {format_number(values[0])}", float(values[0]),
                                 xs, -1))
    elif values:  # each series' own claim in its colour
        for color, value in enumerate(claimed):
            if value is not None:
                curves.append(horizontal(f"claimed ε = {format_number(value)}", float(value),
                                         xs, color))
    note = "" if finite_x else \
        "every ln ratio is ±∞ (an exact zero) or failed:\nnothing to draw"
    panel = Panel("exact privacy loss", t_axis, "ln(p1/p2)  (nats)", tuple(curves), note=note,
                  xscale=_scale(xs), yscale=_scale(finite_y + [float(c) for c in claimed
                                                               if c is not None]))
    return draw(FigureSpec(title, (panel,)), Path(path))


def _scale(values: Sequence[float]) -> str:
    positive = [v for v in values if v > 0]
    if len(positive) == len(values) and positive and max(positive) / min(positive) >= 100:
        return "log"
    return "linear"

