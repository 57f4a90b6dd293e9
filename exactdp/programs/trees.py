"""A group of linked noises that is a tree of comparisons, as a nested integral.

``programs/exact.py`` writes a group whose noises are all linked to one hub (a star) as the one
integral form.  A group whose links (relations on two noises) form a tree — a running best, each
new record compared with the previous one and the queries in between compared with the record —
is written here as a :class:`~exactdp.exact.form.nested_integral.NestedIntegral`: rooted at its
noise of most links, each noise a :class:`~exactdp.exact.form.nested_integral.Branch` whose
bounds are linear in its parent's value.  A group with a cycle of links is refused, naming the
noises of one cycle and the lines that drew them.
"""

from __future__ import annotations

import os
from fractions import Fraction

from ..exact.form.nested_integral import Branch, NestedIntegral
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


def cycle_error(cycle: list, path: Path) -> TracingError:
    """The one-line refusal of a group with a cycle of comparisons, the cycle read from its
    first noise."""
    start = cycle.index(min(cycle))
    cycle = cycle[start:] + cycle[:start]
    if cycle[-1] < cycle[1]:
        cycle = cycle[:1] + cycle[:0:-1]
    files = {path.noises[k].location[0] for k in cycle}
    where = f"{os.path.basename(files.pop())} " if len(files) == 1 else ""
    lines = ", ".join(str(path.noises[k].location[1]) for k in cycle)
    return TracingError(f"{', '.join(f'η{k + 1}' for k in cycle)} form a cycle of comparisons "
                        f"(drawn at {where}lines {lines}): not a tree of one-dimensional "
                        f"integrals")


def tree_integral(path: Path, component: set, groups: dict) -> tuple[NestedIntegral, Fraction]:
    """``(nested integral, Jacobian)`` of a group whose links form a tree (module docstring);
    the Jacobian ``Π 1/|β|`` of its densities ``p(c + βy)`` multiplies the term."""
    neighbours = neighbours_of(component, groups)
    cycle = find_cycle(neighbours)
    if cycle is not None:
        raise cycle_error(cycle, path)
    jacobian = Fraction(1)

    def branch(noise: int, parent: int | None) -> Branch:
        nonlocal jacobian
        own = groups.get(frozenset({noise}), [])
        intervals = [r for r in own if r[0] == "interval"]
        if parent is not None:
            intervals += groups[frozenset({noise, parent})]
        lowers, uppers = bounds_on(noise, parent, intervals)
        densities = []
        for _, law, coeffs, const in (r for r in own if r[0] == "density"):
            beta = coeffs[noise]
            densities.append((scaled_law(law, 1 / beta, noise_name(noise, path)), -const / beta))
            jacobian /= abs(beta)
        children = tuple(branch(child, noise) for child in sorted(neighbours[noise] - {parent}))
        return Branch(path.noises[noise].law, tuple(sorted(set(lowers))),
                      tuple(sorted(set(uppers))), tuple(densities), children)

    root = max(sorted(component), key=lambda k: len(neighbours[k]))
    return NestedIntegral(branch(root, None)), jacobian
