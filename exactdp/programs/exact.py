"""Exact output probabilities of traced programs: every path in the one integral form.

A path (``tracing.py``) is a set of intervals on linear forms of the noises plus a return value.
For an output ``a``, the paths returning ``a`` are summed; released numbers ``v = e(η)`` (entries
that are expressions) are first solved for one of their noises, which contributes the density of
``a·η`` at ``v`` minus the rest (the Jacobian of the change of variables is inside the scaled law).
What remains is a set of *relations* — intervals and densities — on the other noises.

**The class decided.**  Two noises are *linked* when one relation contains both.  Each connected
group of linked noises must be a *star*: one hub ``z`` linked to every other noise of the group,
each other noise appearing only in relations with the hub and with constants.  Given ``z`` the
other noises are independent: a released one contributes its density, a compared one
``Pr[L(z) < η < U(z)]`` — on each piece of the hub's axis where the same bounds are active, one
factor ``F(U)`` or ``S(L)`` (a CDF or survival function of its law, scaled to slope 1), or the
difference ``F(U) − F(L)`` (a signed pair of terms, :class:`SignedForm`).  The group is then
``∫ p_hub(z) Π g_j(z − s_j) dz`` of ``exactdp.exact.form.integral_form``; relations of the hub alone
bound ``z``.  A noise alone contributes a constant (``S(low)``, ``F(high)``) or an integral
without factors.  SVT variants (hub: the threshold noise), noisy max (hub: the winner's noise),
histograms (no links) fall in this class.  A group whose links form a tree, or whose other
noises are linked to two or three hubs only, is a nested integral (``trees.py``); a cycle of links
beyond that is refused, naming the noises and the lines that drew them (docs/programs.md).
The paths of one output are merged first where their union is again a path
(``path_merging.py``): a running best's become noisy max's stars.
"""

from __future__ import annotations

import itertools
from collections import Counter, OrderedDict
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from flint import arb, ctx
from mpmath import mpf

from ..errors import InputError, MethodUnavailableError
from ..hashed_once import hashed_once
from ..exact.backends.certified import relative_width
from ..exact.event_probability.rules import event_rule
from ..exact.form.integral_form import (IntegralBuilder, IntegralForm, Term, interior_point,
                                         make_term)
from ..exact.losses.privacy_loss import (MaxPrivacyLoss, best_by_loss, conclude_max_loss,
                                         neighbouring_pair)
from ..exact.losses.supremum import loss_supremum, max_privacy_loss
from ..exact.divergences.output_pairs import (FormCollector, LocationShift, certified_balls,
                                              location_shift, location_shift_of,
                                              output_probabilities)
from ..exact.probability import evaluate, probability
from ..exact.losses.worst_output import Witness, worst_output
from ..noise import Kind, NoiseLaw
from ..events import Interval
from ..precision import (COMBINE_GUARD_DIGITS, MAX_DPS, MAX_GUARD_DIGITS, CertifiedProbability,
                         Probability, ball_between, check_dps, working_bits)
from ..refinement import refine
from ..sequences import Runs, as_output, as_queries
from .model import Program
from .exact_numbers import as_fraction
from .linear import Linear, linear_key
from .relations import Relations, bounds_on, noise_name, scaled_law
from .locations import TracingError
from .path_merging import merge_paths
from .frontier import trace_merging
from .templates import template_paths, traced_directly
from .tracing import Path
from .trees import tree_integral

#: Traced inputs kept (program, arguments, queries → paths).
_CACHE_SIZE = 16
_cache: OrderedDict = OrderedDict()
#: ``id(traced paths) → (traced paths, merged paths)``, the last few.
_merged: dict = {}
#: ``id(path) → (path, its terms)`` (:func:`kept_terms`), the last few thousand.
_TERMS_KEPT = 4096
_terms: dict = {}


def traced_paths(mech: Program, queries) -> list[Path]:
    """Every path of ``mech`` on ``queries`` (memoised for the last few inputs): from the
    program's template for inputs of this length where it has one (``templates.py``), else
    traced."""
    values = tuple(as_queries(queries).expand())
    key = (id(mech.func), mech.kwargs, mech.path_limit, mech.step_limit, values)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key][1]
    paths = template_paths(mech, values)
    if paths is None:
        paths = trace_merging(mech.func, values, mech.arguments, mech.path_limit,
                              steps=mech.step_limit, timeout=mech.trace_timeout)
        traced_directly(mech, values, paths)
    _cache[key] = (mech.func, paths)  # the function is kept so that its id stays unique
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return paths


def merged_paths(mech: Program, queries) -> list[Path]:
    """:func:`traced_paths` with the paths that differ only in the order of their records
    merged (``path_merging.py``; memoised with the trace)."""
    return _by_identity(_merged, _CACHE_SIZE, traced_paths(mech, queries), merge_paths)


def _by_identity(store: dict, size: int, source, compute):
    """``compute(source)``, kept in ``store`` by the identity of ``source`` for the last
    ``size`` sources (each kept alive with its value, so that its id stays unique)."""
    kept = store.get(id(source))
    if kept is None or kept[0] is not source:
        kept = store[id(source)] = (source, compute(source))
        while len(store) > size:
            store.pop(next(iter(store)))
    return kept[1]


# ----------------------------------------------------------------------------- path → term

def _bound_factor(law: NoiseLaw, alpha: Fraction, beta: Fraction, upper: bool, name: str):
    """``F_η(α + β·z)`` (``upper``: η below the bound) or ``S_η(α + β·z)`` as a factor spec:
    ``("constant", law, kind, point)`` when β = 0, else ``("factor", law of η/β, kind, shift)``
    with slope 1 in z (``η < β(z + α/β)`` is ``η/β < z + α/β`` for β > 0, ``>`` for β < 0)."""
    if beta == 0:
        return "constant", law, Kind.CDF if upper else Kind.SF, alpha
    kind = Kind.CDF if upper == (beta > 0) else Kind.SF
    return "factor", scaled_law(law, 1 / beta, name), kind, -alpha / beta


def _pieces(bounds: list) -> list:
    """The intervals of z between the points where two bounds ``α + β·z`` cross, each with a
    point inside it: ``(low, high, point)``, ``None`` for an infinite end."""
    points = sorted({(a2 - a1) / (b1 - b2) for (a1, b1), (a2, b2)
                     in itertools.combinations(bounds, 2) if b1 != b2})
    if not points:
        return [(None, None, Fraction(0))]
    ends = [None] + points + [None]
    return [(low, high, interior_point(low, high)) for low, high in zip(ends, ends[1:])]


def _leaf_alternatives(law: NoiseLaw, leaf: int, hub: int | None, relations: list, name: str):
    """``Pr[η ∈ (max lowers, min uppers) | z]`` as signed alternatives ``(sign, z low, z high,
    [factor specs])``: on each piece of z where the same bounds are active, ``S(L)``, ``F(U)``
    or ``F(U) − F(L)`` (two alternatives), nothing where ``U ≤ L``."""
    lowers, uppers = bounds_on(leaf, hub, relations)
    alternatives = []
    for low, high, point in _pieces(lowers + uppers):
        value = lambda bound, point=point: bound[0] + bound[1] * point  # noqa: E731
        lower = max(lowers, key=value) if lowers else None
        upper = min(uppers, key=value) if uppers else None
        if lower is not None and upper is not None and value(upper) <= value(lower):
            continue
        if upper is not None:
            alternatives.append((1, low, high, [_bound_factor(law, *upper, True, name)]))
        if lower is not None:  # − F(L) after F(U), or S(L) alone
            alternatives.append((-1 if upper is not None else 1, low, high,
                                 [_bound_factor(law, *lower, upper is not None, name)]))
    return alternatives


class _TermBuilder:
    """The signed alternatives ``(sign, constants, integrals, multiplicity)`` of one path: the
    product over its groups of noises of each group's alternatives.  An alternative's constants
    (``(law, kind, point)``) and integrals are lists, counted into powers once, by :meth:`terms`
    (the counts, and the integrals' first-appearance order, those of adding one counter per
    factor)."""

    def __init__(self, path: Path):
        self.path = path
        self.alternatives = [(1, [], [], 1)]

    def law(self, noise: int) -> NoiseLaw:
        return self.path.noises[noise].law

    def multiply(self, options: list) -> None:
        self.alternatives = [(s1 * s2, c1 + c2, i1 + i2, m1 * m2)
                             for s1, c1, i1, m1 in self.alternatives
                             for s2, c2, i2, m2 in options]

    def lone_noise(self, noise: int, relations: list) -> None:
        """A noise linked to no other: a constant, an interval probability, or an integral over
        it (with densities)."""
        if len(relations) == 1 and relations[0][0] == "interval" and (
                relations[0][2] is None or relations[0][3] is None):
            _, _, low, high = relations[0]
            kind, point = (Kind.SF, low) if high is None else (Kind.CDF, high)
            self.multiply([(1, [(self.law(noise), kind, point)], [], 1)])
            return
        self.integral(noise, relations, {})

    def integral(self, hub: int, own: list, leaves: dict) -> None:
        """``∫ p_hub(z) Π factors dz``: ``own`` relations of the hub alone, ``leaves`` maps
        each other noise to its relations (with the hub, or alone)."""
        choices = [[(1, None, None, [])]]
        multiplicity = 1
        for leaf, relations in leaves.items():
            densities = [r for r in relations if r[0] == "density"]
            if densities:
                if len(relations) > 1:
                    raise TracingError(f"{noise_name(leaf, self.path)} is released and also "
                                       f"compared: not a product of one-dimensional factors")
                spec, factor = self._density_factor(hub, densities[0])
                multiplicity *= factor
                choices.append([(1, None, None, [spec])])
            else:
                choices.append(_leaf_alternatives(self.law(leaf), leaf, hub, relations,
                                                  noise_name(leaf, self.path)))
        options = []
        for combination in itertools.product(*choices):
            builder = IntegralBuilder(self.law(hub))
            constants = []
            factor = multiplicity
            for relation in own:
                if relation[0] == "interval":
                    _, _, low, high = relation
                    if low is not None:
                        builder.bound_below(low)
                    if high is not None:
                        builder.bound_above(high)
                else:
                    spec, jacobian = self._density_factor(hub, relation)
                    factor *= jacobian
                    builder.add(*spec[1:])
            sign = 1
            for part_sign, low, high, specs in combination:
                sign *= part_sign
                if low is not None:
                    builder.bound_below(low)
                if high is not None:
                    builder.bound_above(high)
                for kind, law, function, point in specs:
                    if kind == "constant":
                        constants.append((law, function, point))
                    else:
                        builder.add(law, function, point)
            options.append((sign, constants, [builder.build()], factor))
        self.multiply(options)

    def _density_factor(self, hub: int, relation):
        """``p_law(const + β·z) = (1/|β|)·p_{law/β}(z + const/β)``: (factor spec, 1/|β|)."""
        _, law, coeffs, const = relation
        beta = coeffs[hub]
        return (("factor", scaled_law(law, 1 / beta, noise_name(hub, self.path)), Kind.PDF,
                 -const / beta), 1 / abs(beta))

    def terms(self) -> list:
        """``(sign, Term)`` of every alternative."""
        return [(sign, make_term(Counter(constants), Counter(integrals),
                                 int(m) if m.denominator == 1 else m))
                for sign, constants, integrals, m in self.alternatives]


def _components(noises: set, groups: dict) -> list[set]:
    parent = {n: n for n in noises}

    def find(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for members in groups:
        first, *rest = members
        for other in rest:
            parent[find(other)] = find(first)
    components: dict = {}
    for n in noises:
        components.setdefault(find(n), set()).add(n)
    return [components[root] for root in sorted(components)]


def path_terms(path: Path, releases: list) -> list:
    """The path's probability (density with releases) as signed terms ``(±1, Term)`` (empty
    when its constraints cannot hold).  Raises :class:`TracingError` outside the class decided
    (module docstring)."""
    relations = Relations(path, releases)
    if not relations.feasible:
        return []
    groups = relations.by_noise_set()
    for members in groups:
        if len(members) > 2:
            first, *others = sorted(members)
            raise TracingError(f"{noise_name(first, path)} is compared with "
                               f"{' and '.join(f'η{k + 1}' for k in others)} in one "
                               f"comparison: not a one-dimensional integral")
    term = _TermBuilder(path)
    for law, point in relations.point_densities:
        term.multiply([(1, [(law, Kind.PDF, point)], [], 1)])
    noises = set().union(*groups) if groups else set()
    for component in _components(noises, groups):
        if len(component) == 1:
            (noise,) = component
            term.lone_noise(noise, groups.get(frozenset(component), []))
            continue
        links = [members for members in groups if len(members) == 2 and members <= component]
        hubs = set.intersection(*(set(m) for m in links))
        count = Counter(k for members, rels in groups.items() if members <= component
                        for k in members for _ in rels)
        if len(hubs) > 1:  # one link: the hub is the noise the other has its only relation with
            hubs = {min(hubs, key=lambda k: (count[k] == 1 and count[next(iter(hubs - {k}))] > 1,
                                             k))}
        if not hubs:  # a tree of comparisons (programs/trees.py), or a refusal naming a cycle
            integral, jacobian = tree_integral(path, component, groups)
            term.multiply([(1, [], [integral], jacobian)])
            continue
        (hub,) = hubs
        leaves = {leaf: groups.get(frozenset({leaf}), []) + groups[frozenset({leaf, hub})]
                  for leaf in sorted(component - {hub})}
        term.integral(hub, groups.get(frozenset({hub}), []), leaves)
    return term.terms()


def kept_terms(path: Path) -> list:
    """:func:`path_terms` of a path without releases, kept for the last
    :data:`_TERMS_KEPT` paths by identity: a template's path is one object for every input
    that agrees on the queries it reads (``templates.py``)."""
    return _by_identity(_terms, _TERMS_KEPT, path, lambda kept: path_terms(kept, []))


# ----------------------------------------------------------------------------- outputs

def output_entries(output) -> list:
    """An output as a list of entries (``T``/``F`` as booleans, numbers as ``Fraction``); a
    scalar is one entry."""
    if isinstance(output, (str, Runs, list, tuple)):
        return as_output(output).expand()
    return as_output([output]).expand()


def _releases(entries: tuple, tokens: list):
    """The release equations ``(expression, value)`` if ``entries`` can equal ``tokens``,
    else ``None``."""
    if len(entries) != len(tokens):
        return None
    releases = []
    for entry, token in zip(entries, tokens):
        if isinstance(entry, Linear):
            if isinstance(token, bool):
                return None
            releases.append((entry, token))
        elif isinstance(entry, bool) != isinstance(token, bool) or entry != token:
            return None
    return releases


def sum_of_terms(terms) -> tuple:
    """Identical terms merged (their multiplicities added; the terms are :func:`make_term`'s,
    their constants already in the canonical order)."""
    terms = tuple(terms)
    if len(terms) < 2:  # nothing to merge (an output of one path, mostly): no term hashed
        return terms
    total: dict = {}
    for term in terms:
        key = term.constants, term.integrals
        total[key] = total.get(key, 0) + term.multiplicity
    return tuple(Term(constants, integrals, multiplicity)
                 for (constants, integrals), multiplicity in total.items())


@hashed_once
@dataclass(frozen=True)
class SignedForm:
    """``plus − minus``, two sums of non-negative terms; ``minus`` is empty unless a noise is
    bounded on both sides (``F(U) − F(L)``)."""

    plus: IntegralForm
    minus: IntegralForm

    @classmethod
    def of(cls, signed_terms, is_density: bool) -> "SignedForm":
        """The form of signed terms ``(±1, Term)``."""
        signed_terms = list(signed_terms)
        return cls(*(IntegralForm(sum_of_terms(t for s, t in signed_terms if s == sign),
                                  is_density) for sign in (1, -1)))


#: Digits added to both sides of a difference at the first try.
DIFFERENCE_GUARD = 10
#: Evaluations of a difference before a :class:`PrecisionError`.
DIFFERENCE_TRIES = 3


def evaluate_signed(form: SignedForm, dps: int, method: str, what: str) -> Probability:
    """Evaluate ``plus − minus`` to ``dps`` digits: both sides with extra digits, raised by the
    digits the subtraction cancels until the difference is certified (absolute errors add),
    up to the digits the engine evaluates (:func:`~exactdp.precision.check_working_dps`), in at
    most :data:`DIFFERENCE_TRIES` tries (:func:`~exactdp.refinement.refine`)."""
    if not form.minus.terms:
        return evaluate(form.plus, dps, method, what)
    most = MAX_DPS + MAX_GUARD_DIGITS

    def attempt(digits: int) -> tuple[bool, Probability | int]:
        """The difference at ``digits`` for each side, or the digits it cancelled there."""
        plus = evaluate(form.plus, digits, method, what)
        minus = evaluate(form.minus, digits, method, what)
        if isinstance(plus, CertifiedProbability) and isinstance(minus, CertifiedProbability):
            difference = _certified_difference(plus, minus, dps, form.plus.is_density)
            if difference is not None:
                return True, difference
        if plus.value == 0:
            return False, None
        with mpmath.workprec(working_bits(digits, guard=COMBINE_GUARD_DIGITS)):
            value, error = plus.value - minus.value, plus.error + minus.error
            if value > 0 and error <= value * mpf(10) ** -dps:
                return True, Probability(+value, mpmath.log(value), +error,
                                         f"{plus.method} (difference)", form.plus.is_density, dps)
            return False, int(mpmath.log10(plus.value / max(abs(value), error))) + 1

    def following(lost: int | None, digits: int) -> int | None:
        """The digits of the next try: those the difference cancelled, and a guard, more."""
        if lost is None or digits >= most:
            return None
        return min(digits + lost + DIFFERENCE_GUARD, most)

    return refine(attempt, min(dps + DIFFERENCE_GUARD, most), most,
                  lambda lost, digits: f"{what}: the difference F(U) − F(L) of a noise bounded "
                                       f"on both sides cancels beyond {digits} digits",
                  following, DIFFERENCE_TRIES)


def _certified_difference(plus: CertifiedProbability, minus: CertifiedProbability, dps: int,
                          is_density: bool) -> CertifiedProbability | None:
    """The enclosure ``[plus.lower − minus.upper, plus.upper − minus.lower]`` of the
    difference, in ball arithmetic; ``None`` while it is not positive or wider than
    ``10^{−dps}`` relative (the caller asks both sides for more digits)."""
    bits = working_bits(max(plus.dps, minus.dps), guard=COMBINE_GUARD_DIGITS)
    with ctx.workprec(bits):
        difference = (ball_between(plus.lower, plus.upper)
                      - ball_between(minus.lower, minus.upper))
        if not difference > 0:
            return None
        log_ball = difference.log()
        if not relative_width(log_ball) <= arb(10) ** -dps:
            return None
        return CertifiedProbability.from_log_ball(log_ball, f"{plus.method} (difference)",
                                                  is_density, dps)


def output_form(mech: Program, queries, output) -> SignedForm:
    """``Pr[program(queries) = output]`` (a density when it releases numbers) in the integral
    form: the sum of the terms of every path that returns ``output``."""
    tokens = output_entries(output)
    paths = merged_paths(mech, queries)
    matches = [(path, _releases(path.result, tokens)) for path in paths]
    matches = [(path, releases) for path, releases in matches if releases is not None]
    shapes = {len(releases) for _, releases in matches}
    if len(shapes) > 1:
        raise InputError(f"{mech.name}: the output {','.join(map(str, tokens))} is returned "
                         f"with released numbers on some paths and as fixed numbers on others "
                         f"(an atom inside a density)")
    if not matches and not any(len(p.result) == len(tokens) for p in paths):
        lengths = sorted({len(p.result) for p in paths})
        raise InputError(f"not an output {mech.name} can produce: it returns "
                         f"{' or '.join(map(str, lengths))} entries, got {len(tokens)}")
    is_density = bool(shapes) and shapes != {0}
    return SignedForm.of((t for path, releases in matches for t in path_terms(path, releases)),
                         is_density)


def _with_interval(path: Path, expression: Linear, low, high) -> Path | None:
    """``path`` with the extra constraint ``low < expression < high`` (``None`` ends infinite);
    ``None`` when it contradicts the path's intervals."""
    key, factor = linear_key(expression.coeffs)
    low, high = [None if b is None else (b - expression.const) / factor for b in (low, high)]
    if factor < 0:
        low, high = high, low
    intervals = dict(path.intervals)
    old_low, old_high = intervals.get(key, (None, None))
    low = old_low if low is None else low if old_low is None else max(low, old_low)
    high = old_high if high is None else high if old_high is None else min(high, old_high)
    if low is not None and high is not None and low >= high:
        return None
    intervals[key] = (low, high)
    return Path(path.noises, intervals, path.result)


def _event_path(path: Path, event) -> Path | None:
    """``path`` restricted to the event (``None`` if the path's outputs are outside it).

    A condition on an entry that is a released number (an expression) becomes a constraint on
    the noises: an interval of the event grammar (``outJ in (a, b)``, ``outJ < x``...); ⊥ or a
    single value has probability 0 there.  Conditions on fixed entries are decided exactly."""
    symbolic = [isinstance(entry, Linear) for entry in path.result]
    if not any(symbolic):
        return path if event.contains(str(Runs.from_items(path.result))) else None
    for name, condition in event.conditions:
        component = event.view.component(name)
        position = getattr(component, "position", None) or 0
        if position >= len(path.result) or not isinstance(path.result[position], Linear):
            if not hasattr(component, "position") and any(symbolic):
                raise MethodUnavailableError(f"the event component {name} is not one entry of "
                                             f"the output, which contains released numbers")
            if not condition.contains(component.value(list(path.result))):
                return None
            continue
        if not isinstance(condition, Interval):
            return None  # a released number is never ⊥ and takes one value with probability 0
        path = _with_interval(path, path.result[position], condition.low, condition.high)
        if path is None:
            return None
    return path


def event_form(mech: Program, queries, event) -> SignedForm:
    """``Pr[program(queries) ∈ event]`` in the integral form: the sum over every path of the
    probability of its constraints and the event's conditions on its entries."""
    paths = (_event_path(path, event) for path in merged_paths(mech, queries))
    return SignedForm.of((t for path in paths if path is not None for t in kept_terms(path)),
                         False)


def event_probability(mech: Program, queries, event, dps: int,
                      method: str = "auto") -> Probability:
    """``Pr[program(queries) ∈ event]`` (see :func:`event_form`); ``method="certified"`` an
    enclosure, :class:`MethodUnavailableError` when a difference of two forms could not be
    enclosed (:func:`evaluate_signed` then returns the estimate)."""
    probability = evaluate_signed(event_form(mech, queries, event), dps, method,
                                  f"{mech.name}: event {event}")
    if method == "certified" and not isinstance(probability, CertifiedProbability):
        raise MethodUnavailableError(f"{mech.name}: no certified enclosure of the event {event}, "
                                     f"a difference of integral forms")
    return probability


@event_rule.register
def _(mech: Program, queries, event, dps: int, certified: bool):
    return event_probability(mech, queries, event, dps, "certified" if certified else "estimate")


def outputs_with_forms(mech: Program, queries) -> dict:
    """Every output of the program on ``queries`` → its integral form (discrete outputs only:
    an :class:`InputError` when a path releases numbers)."""
    grouped: dict = {}
    for path in merged_paths(mech, queries):
        if any(isinstance(entry, Linear) for entry in path.result):
            raise InputError(f"{mech.name} releases numbers: its outputs cannot be enumerated")
        key = tuple((isinstance(entry, bool), entry) for entry in path.result)  # ⊥ is not 0
        grouped.setdefault(key, []).extend(kept_terms(path))
    return {tuple(entry for _, entry in key): SignedForm.of(terms, False)
            for key, terms in grouped.items()}


@probability.register
def _(mech: Program, queries, output, dps: int = 30, method: str = "auto"):
    form = output_form(mech, queries, output)
    kind = "density" if form.plus.is_density else "probability"
    return evaluate_signed(form, check_dps(dps), method, f"{mech.name}: {kind}")


def _quick(form: SignedForm, dps: int, what: str):
    """The closed form when every law has one (as the catalogue's enumeration), else ``auto``."""
    try:
        return evaluate_signed(form, dps, "closed", what)
    except MethodUnavailableError:
        return evaluate_signed(form, dps, "auto", what)


@max_privacy_loss.register
def _(mech: Program, d1, d2, dps: int = 30, allow_any_pair: bool = False) -> MaxPrivacyLoss:
    """Every return value of the program on ``d1`` or ``d2`` (from the traced paths); each output
    probability is evaluated once per side, the maximiser again by the default (certified)
    method; the probabilities must sum to 1 to ``dps − 5`` digits.  A program releasing one
    number ``q + η`` takes the supremum of its location shift (``exact/losses/supremum.py``)."""
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    if location_shift(mech, d1, d2) is not None:
        return loss_supremum(mech, d1, d2, dps)
    sides = (outputs_with_forms(mech, d1), outputs_with_forms(mech, d2))
    outputs = list(dict.fromkeys(list(sides[0]) + list(sides[1])))
    empty = SignedForm(IntegralForm((), False), IntegralForm((), False))
    best, totals = best_by_loss(
        ((output, *(_quick(side.get(output, empty), dps, f"{mech.name}: output {output}")
                    for side in sides)) for output in outputs), dps)
    return conclude_max_loss(mech, d1, d2, best, totals, len(outputs), dps)


@worst_output.register
def _(mech: Program, d1: Runs, d2: Runs, dps: int) -> Witness:
    """Every return value of the program on ``d1`` and ``d2``, from its traced paths, or the
    output of ``d1`` without noise for one released number ``q + η`` (``max_privacy_loss``; a
    program that releases numbers otherwise is refused there in one line, and a supremum that
    no output attains, a Gaussian release's ``+∞``, here)."""
    result = max_privacy_loss(mech, d1, d2, dps, allow_any_pair=True)
    if result.output is None:
        raise InputError(f"{mech.name}: no output attains the largest loss on d1={d1}, d2={d2} "
                         f"(it is approached as {result.approached}): the search reports a "
                         f"witness output")
    return Witness(d1, d2, result.output, result.loss)


@output_probabilities.register
def _(mech: Program, d, dps: int, collector: FormCollector | None = None) -> dict:
    """The certified probability of every return value of the program on ``d`` (discrete
    outputs: an :class:`InputError` when a path releases numbers), each distinct form once
    (:func:`~exactdp.exact.divergences.output_pairs.certified_balls`)."""
    return certified_balls(mech, outputs_with_forms(mech, d), evaluate_signed, dps, collector)


@location_shift.register
def _(mech: Program, d1, d2) -> LocationShift | None:
    """``(law, μ1, μ2)`` when the program returns one number ``μ_d + c·η`` on each input (one
    path, no comparison of a noise), ``None`` when no path releases a number; anything else
    that releases numbers is refused."""
    shifts = [_released_number(mech, traced_paths(mech, d)) for d in (d1, d2)]
    if shifts[0] is None and shifts[1] is None:
        return None
    if None in shifts or shifts[0][0] != shifts[1][0]:
        raise MethodUnavailableError(f"{mech.name}: divergences of released numbers need one "
                                     f"law q + η on both inputs")
    return location_shift_of(shifts[0][0], shifts[0][1], shifts[1][1], 0,
                             Runs.from_items([shifts[0][1]]), mech.name)


def _released_number(mech: Program, paths: list[Path]):
    """``(law of c·η, μ)`` of a program whose one path returns ``μ + c·η`` and compares no
    noise; ``None`` when no path releases a number."""
    if not any(isinstance(entry, Linear) for path in paths for entry in path.result):
        return None
    path = paths[0]
    entry = path.result[0] if len(path.result) == 1 else None
    if (len(paths) != 1 or path.intervals or not isinstance(entry, Linear)
            or len(entry.coeffs) != 1):
        raise MethodUnavailableError(f"{mech.name}: divergences of released numbers are "
                                     f"computed for one number q + η only (one path, one "
                                     f"noise, no comparison)")
    (index, factor), = entry.coeffs.items()
    factor = as_fraction(factor)
    law = scaled_law(path.noises[index].law, factor, noise_name(index, path))
    return law, as_fraction(entry.const)
