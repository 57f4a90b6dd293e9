"""One trace of a program for every input of a length: the queries as symbols, the paths of an
input by substitution.

A whole-domain verdict (``exactdp verify``) or a sweep traces the same program on many inputs
of one length, and for most programs the inputs' traces differ only in the constants of their
comparisons.  Here the program is traced once (depth first, ``tracing.trace``) with each query
``q_j`` a *query symbol* ``ξ_j``: a coefficient of a :class:`~.linear.Linear` expression like a
noise's, so that ``q_j + η`` and every sum, difference and scaling of them carry the queries
symbolically.  A comparison of an expression with a noise constrains ``Σ a_k η_k + Σ b_j ξ_j``
like any other; the tracer explores it as it would a noise's, and an input ``x`` turns it into
the interval ``Σ a_k η_k ∈ (low − b·x, high − b·x)`` of the noises (:meth:`Template.paths_at`).
A comparison of queries alone (``q > 0``, ``max(queries)``) is not a branch: it is decided on the
input the template is traced from, and recorded as a *guard*, the sign of ``Σ b_j ξ_j + c``
there.  An input whose guards all have the same signs runs the program through the same
comparisons with the same answers, so the template's paths at ``x`` are ``x``'s paths:
the same events of the noises (an interval left empty by the substitution: a path of
probability 0, dropped).  Any other use of a query — ``float(q)``, ``int(q)``, a product of
two queries, a query as a scale, ``hash`` — is refused by the tracer as it would refuse a
noise's, and the program is then traced input by input as before; so are queries compared
with discrete noises alone, whose ties depend on the query.

The paths of a template are those of the depth-first trace, which may have more paths than an
input's own trace (a comparison implied at one input is explored for all) and does not merge
runs as ``frontier.py`` does: a template is kept only while its paths are at most
:data:`PATHS_PER_TRACED_PATH` times those of the first input traced directly.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from fractions import Fraction

from flint import fmpq

from ..errors import InputError
from .exact_numbers import ONE, rational, to_fraction
from .linear import Linear
from .locations import unsupported
from .tracing import Path, Run, trace

#: Index of the first query symbol: above every noise's (a run draws fewer), so that a key's
#: first coefficient, the one normalised to 1, is a noise's whenever it has one.
QUERY_BASE = 1 << 40
#: A template is built only when its paths are at most this many times those of the first
#: input traced directly (plus :data:`PATH_SLACK`), nor beyond :data:`TEMPLATE_PATH_LIMIT`.
PATHS_PER_TRACED_PATH = 4
PATH_SLACK = 16
TEMPLATE_PATH_LIMIT = 4096
#: Templates kept per program and length (inputs whose guards differ need their own; 0: every
#: input traced directly).
TEMPLATES_PER_LENGTH = 4
#: Instances of one template path kept (for as many values of the queries it reads).
INSTANCES_KEPT = 4096
#: Programs (with their arguments and lengths) whose templates are kept.
PROGRAMS_KEPT = 16


def _sign(value) -> int:
    return (value > 0) - (value < 0)


class ParametricRun(Run):
    """A :class:`~.tracing.Run` whose expressions may hold query symbols: comparisons of the
    queries alone are decided at the input ``at`` and recorded in ``guards`` (``{(coefficients,
    constant): sign}``); a comparison that also has a noise is a branch, its bound on the
    noises and symbols together."""

    replays_by_coefficients = False

    def __init__(self, step_limit: int, at: list, guards: dict):
        super().__init__(step_limit)
        self.at, self.guards = at, guards

    def _query_value(self, difference: Linear):
        """The value at ``at`` of an expression of query symbols only (``None`` otherwise),
        recorded as a guard."""
        coeffs = difference.coeffs
        if not coeffs or min(coeffs) < QUERY_BASE:
            return None
        value = difference.const + sum(c * self.at[k - QUERY_BASE] for k, c in coeffs.items())
        key = (tuple(sorted((k - QUERY_BASE, to_fraction(c)) for k, c in coeffs.items())),
               to_fraction(difference.const))
        self.guards[key] = _sign(value)
        return value

    def branch(self, difference: Linear, positive: bool, strict: bool) -> bool:
        value = self._query_value(difference)
        if value is None:
            return super().branch(difference, positive, strict)
        return (value > 0 if positive else value < 0) or (not strict and value == 0)

    def assume(self, difference: Linear, strict: bool) -> bool:
        value = self._query_value(difference)
        if value is None:
            return super().assume(difference, strict)
        return value > 0 or (not strict and value == 0)

    def settle(self, difference: Linear, relation) -> bool | None:
        value = self._query_value(difference)
        return None if value is None else relation(value, 0)

    def integer_valued(self, coeffs: dict) -> bool:
        return any(self.noises[k].law.integer_valued for k in coeffs if k < QUERY_BASE)

    def _bound(self, key: tuple, factor: fmpq, const: fmpq, positive: bool,
               strict: bool) -> fmpq:
        if key[-1][0] < QUERY_BASE:
            return super()._bound(key, factor, const, positive, strict)
        if all(self.noises[k].law.integer_valued for k, _, _ in key if k < QUERY_BASE):
            raise unsupported("a query compared with discrete noises only (its ties depend on "
                              "the query)")
        return -const / factor


@dataclass(frozen=True)
class _Interval:
    """One interval of a template's path: ``low < noises·η + Σ shift_j ξ_j < high``."""

    noises: tuple
    shift: tuple
    low: Fraction | None
    high: Fraction | None


class _TemplatePath:
    """One path of a template, and its instances at the values of the queries it reads met so
    far: the inputs of a domain that agree on those share one :class:`~.tracing.Path` (and
    whatever is computed from it once, ``exact.path_terms``)."""

    def __init__(self, path: Path):
        self.path = path
        self.intervals = tuple(_split(key, low, high) for key, (low, high)
                               in path.intervals.items())
        self.reads = tuple(sorted({j for interval in self.intervals for j, _ in interval.shift}
                                  | {k - QUERY_BASE for entry in path.result
                                     if isinstance(entry, Linear)
                                     for k in entry.coeffs if k >= QUERY_BASE}))
        self.known: dict = {}

    def at(self, queries) -> Path | None:
        """The path on ``queries`` (``None``: an interval is empty there)."""
        values = tuple(queries[j] for j in self.reads)
        if values in self.known:
            return self.known[values]
        if len(self.known) >= INSTANCES_KEPT:
            self.known.clear()
        bounds = _substituted(self.intervals, queries)
        path = None if bounds is None else Path(
            self.path.noises, bounds, tuple(_entry(entry, queries) for entry in self.path.result))
        self.known[values] = path
        return path


@dataclass(frozen=True)
class Template:
    """The paths of a program traced with query symbols, and the guards under which they are
    an input's paths (module docstring)."""

    paths: tuple
    guards: tuple
    instances: tuple = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "instances", tuple(_TemplatePath(path) for path in self.paths))

    def holds_at(self, queries) -> bool:
        """Whether every guard has at ``queries`` the sign it had where the template was
        traced."""
        return all(_sign(const + sum(c * queries[j] for j, c in coeffs)) == sign
                   for (coeffs, const), sign in self.guards)

    def paths_at(self, queries) -> list[Path] | None:
        """The paths of the program on ``queries`` (``None`` when a guard differs there)."""
        if not self.holds_at(queries):
            return None
        return [path for path in (instance.at(queries) for instance in self.instances)
                if path is not None]


def _split(key: tuple, low, high) -> _Interval:
    """A template's interval with its noises and its query symbols apart."""
    noises = tuple((k, c) for k, c in key if k < QUERY_BASE)
    if not noises:
        raise AssertionError("a comparison of queries alone is a guard, not an interval")
    return _Interval(noises, tuple((k - QUERY_BASE, c) for k, c in key if k >= QUERY_BASE),
                     low, high)


def _substituted(intervals: tuple, queries) -> dict | None:
    """``{key of the noises: (low, high)}`` at ``queries``, intervals on one key intersected;
    ``None`` when one is empty."""
    bounds: dict = {}
    for interval in intervals:
        low, high = interval.low, interval.high
        if interval.shift:
            shift = sum(c * queries[j] for j, c in interval.shift)
            low = None if low is None else low - shift
            high = None if high is None else high - shift
        previous = bounds.get(interval.noises)
        if previous is not None:
            low = previous[0] if low is None else low if previous[0] is None else \
                max(low, previous[0])
            high = previous[1] if high is None else high if previous[1] is None else \
                min(high, previous[1])
        if low is not None and high is not None and low >= high:
            return None
        bounds[interval.noises] = (low, high)
    return bounds


def _entry(entry, queries):
    """A returned entry at ``queries``: an expression's query symbols replaced by the queries
    (a number when no noise is left)."""
    if not isinstance(entry, Linear) or max(entry.coeffs) < QUERY_BASE:
        return entry
    const = entry.const + sum(c * queries[k - QUERY_BASE] for k, c in entry.coeffs.items()
                              if k >= QUERY_BASE)
    coeffs = {k: c for k, c in entry.coeffs.items() if k < QUERY_BASE}
    return Linear(coeffs, const) if coeffs else const


def traced_template(func, queries: tuple, kwargs: dict, limit: int, steps: int | None,
                    timeout: float | None) -> Template | None:
    """The template of ``func`` traced at ``queries`` (``tracing.trace``'s parameters), or
    ``None`` when the program is not traced with query symbols (module docstring) or has more
    than ``limit`` paths so."""
    at = [rational(Fraction(q)) for q in queries]
    guards: dict = {}
    symbols = [Linear({QUERY_BASE + j: ONE}) for j in range(len(queries))]
    try:
        paths = trace(func, queries, kwargs, limit, progress=False, steps=steps,
                      timeout=timeout, new_run=lambda steps: ParametricRun(steps, at, guards),
                      program_queries=symbols)
    except InputError:
        return None
    return Template(tuple(paths), tuple(guards.items()))


@dataclass
class _Templates:
    """What is known of one program (with its arguments and limits) on inputs of one length:
    the paths of the first input traced directly, the templates built, and whether no (other)
    template is to be tried."""

    func: object           # kept alive, so that its id stays unique
    first_paths: int | None = None
    templates: list = field(default_factory=list)
    closed: bool = False


_known: OrderedDict = OrderedDict()


def _entry_of(mech, queries: tuple) -> _Templates:
    key = (id(mech.func), mech.kwargs, mech.path_limit, mech.step_limit, len(queries))
    known = _known.get(key)
    if known is None:
        known = _known[key] = _Templates(mech.func)
        while len(_known) > PROGRAMS_KEPT:
            _known.popitem(last=False)
    else:
        _known.move_to_end(key)
    return known


def template_paths(mech, queries: tuple) -> list[Path] | None:
    """The paths of the program ``mech`` on ``queries`` from a template (``None``: trace them
    directly, then :func:`traced_directly`).  The first input of a length is traced directly;
    the second builds a template, used for every later input whose guards it meets (at most
    :data:`TEMPLATES_PER_LENGTH` of them, each from an input no earlier one fits)."""
    known = _entry_of(mech, queries)
    for template in known.templates:
        paths = template.paths_at(queries)
        if paths is not None:
            return paths
    if known.closed or known.first_paths is None or len(known.templates) >= TEMPLATES_PER_LENGTH:
        return None
    limit = min(mech.path_limit, TEMPLATE_PATH_LIMIT,
                PATHS_PER_TRACED_PATH * known.first_paths + PATH_SLACK)
    template = traced_template(mech.func, queries, mech.arguments, limit, mech.step_limit,
                               mech.trace_timeout)
    if template is None:
        known.closed = True
        return None
    known.templates.append(template)
    return template.paths_at(queries)


def traced_directly(mech, queries: tuple, paths: list) -> None:
    """Record that ``mech`` was traced on ``queries`` directly, with ``paths``."""
    known = _entry_of(mech, queries)
    if known.first_paths is None:
        known.first_paths = len(paths)

