"""A group of linked noises that is a tree of comparisons, as a nested integral.

``programs/exact.py`` writes a group whose noises are all linked to one hub (a star) as the one
integral form.  A group whose links (relations on two noises) form a tree — a running best, each
new record compared with the previous one and the queries in between compared with the record —
is written here as a :class:`~exactdp.exact.form.nested_integral.NestedIntegral`: rooted at its
noise of most links, each noise a :class:`~exactdp.exact.form.nested_integral.Branch` whose
bounds are linear in its parent's value.  A group with a cycle of links whose other noises are
linked only to two or three hubs (k-Min-Max's range ends, a noisy grid's cut points) is a
:class:`~exactdp.exact.form.nested_integral.HubPair` or
:class:`~exactdp.exact.form.nested_integral.HubTriple`.  Any other group with a cycle is
refused, naming the noises of one cycle and the lines that drew them.
"""

from __future__ import annotations

import os
from fractions import Fraction

from ..exact.form.nested_integral import Branch, HubPair, HubTriple, Leaf, NestedIntegral
from .locations import TracingError
from .relations import bounds_on, noise_name, scaled_law
from .tracing import Path


def neighbours_of(component: set, groups: dict) -> dict:
    """``noise → the noises it shares a relation with`` inside ``component``."""
    neighbours = {noise: set() for noise in component}
    for members in groups:
        if len(members) == 2 and members <= component:
            first, second = members
            neighbours[first].add(second)
            neighbours[second].add(first)
    return neighbours


def find_cycle(neighbours: dict) -> list | None:
    """The noises of one cycle of links in order, ``None`` if the links form a forest (a depth
    first search: a link to a visited noise other than the parent closes a cycle)."""
    parent: dict = {}
    for start in sorted(neighbours):
        if start in parent:
            continue
        parent[start], stack = None, [start]
        while stack:
            noise = stack.pop()
            for other in sorted(neighbours[noise]):
                if other == parent[noise]:
                    continue
                if other in parent:
                    return _cycle_through(noise, other, parent)
                parent[other] = noise
                stack.append(other)
    return None


def _cycle_through(noise: int, other: int, parent: dict) -> list:
    """The cycle the link ``noise — other`` closes in the search tree ``parent``."""
    ancestors = [noise]
    while parent[ancestors[-1]] is not None:
        ancestors.append(parent[ancestors[-1]])
    path, node = [], other
    while node not in ancestors:
        path.append(node)
        node = parent[node]
    return ancestors[:ancestors.index(node) + 1] + path[::-1]


def cycle_error(cycle: list, component: set, path: Path) -> TracingError:
    """The one-line refusal of a group with a cycle of comparisons and no three hubs, the
    cycle read from its first noise (and the group named when it has other noises)."""
    start = cycle.index(min(cycle))
    cycle = cycle[start:] + cycle[:start]
    if cycle[-1] < cycle[1]:
        cycle = cycle[:1] + cycle[:0:-1]
    files = {path.noises[k].location[0] for k in cycle}
    where = f"{os.path.basename(files.pop())} " if len(files) == 1 else ""
    lines = ", ".join(str(path.noises[k].location[1]) for k in cycle)
    group = ("" if set(cycle) == component else
             f" in the group {', '.join(f'η{k + 1}' for k in sorted(component))}")
    return TracingError(f"{', '.join(f'η{k + 1}' for k in cycle)} form a cycle of comparisons "
                        f"(drawn at {where}lines {lines}){group}: not a tree of "
                        f"one-dimensional integrals nor a group of at most three hubs")


def tree_integral(path: Path, component: set, groups: dict):
    """``(integral, Jacobian)`` of a group whose links form a tree, or whose other noises are
    linked to two or three hubs only (module docstring); the Jacobian ``Π 1/|β|`` of its
    densities ``p(c + βy)`` multiplies the term.  A cycle that three hubs do not explain is
    refused."""
    neighbours = neighbours_of(component, groups)
    cycle = find_cycle(neighbours)
    if cycle is None:
        return _NodeBuilder(path, groups, neighbours).nested()
    hubs = hubs_of(neighbours)
    if hubs is None:
        raise cycle_error(cycle, component, path)
    builder = _NodeBuilder(path, groups, neighbours)
    return builder.hub_pair(*hubs) if len(hubs) == 2 else builder.hub_triple(*hubs)


def hubs_of(neighbours: dict) -> tuple | None:
    """Two noises, else three, that every other noise is linked to, and only to (a vertex cover
    of the links: no two other noises are linked), in the order of more links first, or
    ``None``.  Of several, the first pair (triple) of noises ranked by links."""
    ranked = sorted(neighbours, key=lambda k: (-len(neighbours[k]), k))
    links = sorted((a, b) for a in neighbours for b in neighbours[a] if a < b)
    for size in (2, 3):
        covers = _covers(links, size)
        if covers:
            return tuple(sorted(min(covers, key=lambda c: sorted(map(ranked.index, c))),
                                key=ranked.index))
    return None


def _covers(links: list, size: int) -> set:
    """Every set of at most ``size`` noises holding an end of every link: one of the two ends
    of the first link is in it, and the rest covers the links it leaves (a search of depth
    ``size``, two branches each)."""
    if not links:
        return {frozenset()}
    if size == 0:
        return set()
    found = set()
    for end in links[0]:
        rest = [link for link in links if end not in link]
        found.update(cover | {end} for cover in _covers(rest, size - 1))
    return found


class _NodeBuilder:
    """The bounds and densities of each noise of a group, from its relations."""

    def __init__(self, path: Path, groups: dict, neighbours: dict):
        self.path, self.groups, self.neighbours = path, groups, neighbours
        self.jacobian = Fraction(1)

    def intervals(self, noise: int, other: int | None) -> list:
        """The interval relations of ``noise`` with ``other`` (``None``: alone)."""
        members = frozenset({noise} if other is None else {noise, other})
        return [r for r in self.groups.get(members, []) if r[0] == "interval"]

    def densities(self, noise: int) -> tuple:
        """``(law, shift)`` of each density ``p(c + βy)`` of ``noise`` alone, as
        ``(1/|β|)·p_{law/β}(y − shift)`` (the factor ``1/|β|`` into :attr:`jacobian`)."""
        densities = []
        for relation in self.groups.get(frozenset({noise}), []):
            if relation[0] == "density":
                _, law, coeffs, const = relation
                beta = coeffs[noise]
                densities.append((scaled_law(law, 1 / beta, noise_name(noise, self.path)),
                                  -const / beta))
                self.jacobian /= abs(beta)
        return tuple(densities)

    def branch(self, noise: int, parent: int | None, children: tuple = ()) -> Branch:
        """``noise`` with its bounds in its parent's value, and ``children``."""
        relations = self.intervals(noise, None)
        if parent is not None:
            relations += self.intervals(noise, parent)
        lowers, uppers = bounds_on(noise, parent, relations)
        return Branch(self.path.noises[noise].law, tuple(sorted(set(lowers))),
                      tuple(sorted(set(uppers))), self.densities(noise), children)

    def nested(self) -> tuple[NestedIntegral, Fraction]:
        """The tree rooted at its noise of most links."""
        def subtree(noise: int, parent: int | None) -> Branch:
            children = tuple(subtree(child, noise)
                             for child in sorted(self.neighbours[noise] - {parent}))
            return self.branch(noise, parent, children)
        root = max(sorted(self.neighbours), key=lambda k: len(self.neighbours[k]))
        return NestedIntegral(subtree(root, None)), self.jacobian

    def leaf(self, noise: int, hubs: tuple) -> Leaf:
        """``noise`` bounded in constants and in each of ``hubs``: its bounds
        ``(α, β₁, …, β_h)``, the ``β`` of the hub it is compared with."""
        lowers, uppers = [], []
        for slot, hub in enumerate((None,) + hubs):
            low, up = bounds_on(noise, hub, self.intervals(noise, hub))
            for found, into in ((low, lowers), (up, uppers)):
                into.extend((alpha, *(beta if k == slot else Fraction(0)
                                      for k in range(1, len(hubs) + 1)))
                            for alpha, beta in found)
        return Leaf(self.path.noises[noise].law, tuple(sorted(set(lowers))),
                    tuple(sorted(set(uppers))), self.densities(noise))

    def others(self, hubs: tuple) -> tuple:
        """Every noise but ``hubs`` as a :meth:`leaf` of them."""
        return tuple(self.leaf(noise, hubs) for noise in sorted(set(self.neighbours) - set(hubs)))

    def hub_pair(self, outer: int, inner: int) -> tuple[HubPair, Fraction]:
        """The outer hub, the inner hub bounded in the outer's value, the other noises as
        leaves bounded in either."""
        return (HubPair(self.branch(outer, None), self.branch(inner, outer),
                        self.others((outer, inner))), self.jacobian)

    def hub_triple(self, outer: int, middle: int, inner: int) -> tuple[HubTriple, Fraction]:
        """The outer hub, the middle hub bounded in the outer's value, the inner hub as a leaf
        of the two, the other noises as leaves bounded in any of the three."""
        return (HubTriple(self.branch(outer, None), self.branch(middle, outer),
                          self.leaf(inner, (outer, middle)),
                          self.others((outer, middle, inner))), self.jacobian)
