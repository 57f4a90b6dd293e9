"""Paths that differ only in the order their records were found, merged into one.

A running best over n queries has 2^(n−1) paths: each query is or is not a new record.  The
paths returning index k differ in which earlier queries were records, yet their union is one
event, "query k beats every other" — a star.  Two paths can be merged without changing the
probability of their output when their events are ``C ∩ {x ∈ I_A}`` and ``C ∩ {x ∈ I_B}`` for
one linear form ``x`` and adjacent intervals ``I_A``, ``I_B`` (one ends where the other starts):
their union is ``C ∩ {x ∈ I_A ∪ I_B}`` up to the common end, a set of probability 0 for
continuous noise.

The paths merged here have *difference constraints* only — every interval is on ``η_i`` or on
``η_i − η_j`` — so a path's event is also the intersection of its *closure*: the tightest
bounds on every ``η_i − η_j`` and ``η_i`` that its constraints imply, the shortest paths of its
constraint graph (Floyd–Warshall; a node 0 stands for the constant), which is unique.  Two paths
returning the same output from the same draws whose closures agree on every pair but one, where
their intervals are adjacent, are merged: the merged constraints are the closure with that
pair's interval widened to the union.  Rounds repeat until no two paths merge.  A merged path
keeps only the bounds its closure does not imply through a third noise (a transitive
reduction: without cycles of weight 0, which a feasible set of strict bounds cannot have, each
bound removed is implied by the bounds kept), so that the running best's paths of index k end
as the one star of report noisy max.

Paths with a discrete noise (their ends have positive probability), with a release (their
events are densities), or with a constraint on another linear form are left as they are.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from .linear import Linear
from .tracing import Path

#: Bounds beyond this size (after scaling to integers) are left unmerged (no int64 overflow).
LARGEST = 2 ** 40
#: "No bound" in the integer matrices (a sum of two still fits in int64).
UNBOUNDED = 2 ** 61
#: Most assignments of cells to nodes tried for one group (:func:`_partition_hull`).
CHOICES = 64


def _unit(coefficient, sign: int) -> bool:
    """Whether a rational coefficient is ``sign`` (±1), read off its numerator and
    denominator."""
    return coefficient.numerator == sign and coefficient.denominator == 1


def _pairs(path: Path):
    """``[(a, b, low, high)]``: ``low < x_a − x_b < high`` on nodes (0 the constant, ``i + 1``
    the noise ``i``), or ``None`` when a constraint is not a difference constraint, a noise is
    discrete (its ends carry probability) or the path releases a number."""
    if (any(noise.law.integer_valued for noise in path.noises)
            or any(isinstance(entry, Linear) for entry in path.result)):
        return None
    pairs = []
    for key, (low, high) in path.intervals.items():
        if len(key) == 1 and _unit(key[0][1], 1):
            pairs.append((key[0][0] + 1, 0, low, high))
        elif len(key) == 2 and _unit(key[0][1], 1) and _unit(key[1][1], -1):
            pairs.append((key[0][0] + 1, key[1][0] + 1, low, high))
        else:
            return None
    return pairs


def _closure(matrix: np.ndarray) -> np.ndarray | None:
    """Floyd–Warshall on ``matrix[a, b]`` = the bound on ``x_b − x_a``; ``None`` when a cycle
    is not positive (the constraints cannot hold, :func:`_open`)."""
    matrix = matrix.copy()
    for k in range(len(matrix)):
        np.minimum(matrix, matrix[:, k, None] + matrix[None, k, :], out=matrix)
        matrix[matrix > UNBOUNDED // 2] = UNBOUNDED   # a sum with no bound has none
    return matrix if _open(matrix) else None


def _open(matrix: np.ndarray) -> bool:
    """Whether a closed set of strict bounds holds somewhere: every cycle has a positive
    weight (``D[a, b] + D[b, a] > 0``; a cycle of weight 0 allows no point of strict bounds).
    An empty path is left as it is, so that no merge or reduction can give it probability."""
    both = matrix + matrix.T
    np.fill_diagonal(both, 1)
    return bool((np.diag(matrix) >= 0).all() and (both > 0).all())


def _tightened(matrix: np.ndarray | None, a: int, b: int, bound: int) -> np.ndarray | None:
    """The closure of a closed ``matrix`` with the bound on ``x_b − x_a`` tightened to
    ``bound``: a path through the new edge, ``D[i, a] + bound + D[b, j]``, or none (``None``
    when a cycle is not positive, :func:`_open`)."""
    if matrix is None or bound >= matrix[a, b]:
        return matrix
    through = matrix[:, a, None] + bound + matrix[None, b, :]
    through[through > UNBOUNDED // 2] = UNBOUNDED
    closed = np.minimum(matrix, through)
    return closed if _open(closed) else None


class _Closed:
    """One path (or a merged group of paths) as its closed integer matrix."""

    def __init__(self, matrix: np.ndarray, path: Path, merged: bool):
        self.matrix, self.path, self.merged = matrix, path, merged


def _partition_hull(sides: list) -> np.ndarray | None:
    """The closed matrix of the union of closed sets of difference constraints ``S_1 … S_m``
    when that union is their hull (module docstring), else ``None``.

    The hull ``H`` (entrywise the loosest bound) is closed.  The union is ``H`` when distinct
    nodes ``g_1 … g_m`` and a potential ``p`` exist such that each ``S_k`` is ``H`` cut to the
    cell ``x_{g_k} + p_k > x_{g_l} + p_l`` (every ``l ≠ k``), closed: the cells are where each
    ``x_{g_k} + p_k`` is the largest, and they cover everything but the ties.  ``S_k``'s bound
    on ``x_{g_l} − x_{g_k}`` must then be ``p_k − p_l``, so ``g_1`` and the adjacent pairs of
    ``S_1`` with the others give the candidates, and the potential is ``p_l = −S_1[g_1, g_l]``.
    For two sets this is one pair of adjacent intervals, ``(l, c)`` and ``(c, h)``."""
    if len(sides) > len(sides[0]):
        return None   # fewer nodes than cells
    hull = np.maximum.reduce(sides)
    first = sides[0]
    for node in range(len(first)):
        choices = []
        for side in sides[1:]:
            adjacent = np.flatnonzero((first[node] == -side[:, node])
                                      & (first[node] < UNBOUNDED))
            choices.append([int(b) for b in adjacent if b != node])
        if not all(choices):
            continue
        for others in itertools.islice(itertools.product(*choices), CHOICES):
            nodes = (node, *others)
            if len(set(nodes)) == len(nodes) and _tiles(hull, sides, nodes):
                return hull
    return None


def _tiles(hull: np.ndarray, sides: list, nodes: tuple) -> bool:
    """Whether each side is the hull cut to its cell of the nodes' potential
    (:func:`_partition_hull`)."""
    potential = [0] + [-int(sides[0][nodes[0], g]) for g in nodes[1:]]
    for k, side in enumerate(sides):
        closed = hull
        for other, node in enumerate(nodes):
            if other != k:
                bound = potential[k] - potential[other]
                if side[nodes[k], node] != bound:
                    return False
                closed = _tightened(closed, nodes[k], node, bound)
        if closed is None or not np.array_equal(closed, side):
            return False
    return True


def _matrix(path: Path, pairs: list, scale: int) -> np.ndarray | None:
    """The closed matrix of a path's constraints, scaled to integers (``None`` when a bound
    is too large or the constraints cannot hold)."""
    size = len(path.noises) + 1
    matrix = np.full((size, size), UNBOUNDED, dtype=np.int64)
    np.fill_diagonal(matrix, 0)
    for a, b, low, high in pairs:
        for end, (u, v), sign in ((high, (b, a), 1), (low, (a, b), -1)):
            if end is None:
                continue   # x_a − x_b < high: an edge b → a; x_b − x_a < −low: a → b
            value = sign * end.numerator * (scale // end.denominator)
            if abs(value) >= LARGEST:
                return None
            matrix[u, v] = min(matrix[u, v], value)
    return _closure(matrix)


def _reduced(closed: _Closed, scale: int) -> Path:
    """The merged path: the bounds of the closure that no third node implies."""
    matrix, size = closed.matrix, len(closed.matrix)
    kept = matrix.copy()
    for a in range(size):
        for b in range(size):
            if a == b or matrix[a, b] >= UNBOUNDED:
                continue
            through = matrix[a, :] + matrix[:, b]
            through[[a, b]] = UNBOUNDED
            if through.min() <= matrix[a, b]:
                kept[a, b] = UNBOUNDED
    intervals = {}
    for a in range(size):
        for b in range(a + 1, size):
            upper, lower = kept[a, b], kept[b, a]   # on x_b − x_a: (−lower, upper)
            if upper >= UNBOUNDED and lower >= UNBOUNDED:
                continue
            low = None if lower >= UNBOUNDED else Fraction(-int(lower), scale)
            high = None if upper >= UNBOUNDED else Fraction(int(upper), scale)
            if a == 0:
                intervals[((b - 1, Fraction(1)),)] = (low, high)
            else:   # the key of x_{a} − x_{b} (first coefficient 1): (−high, −low)
                intervals[((a - 1, Fraction(1)), (b - 1, Fraction(-1)))] = (
                    None if high is None else -high, None if low is None else -low)
    return Path(closed.path.noises, intervals, closed.path.result)


def _merged_in_order(items: list) -> list:
    """The paths of one output in the order they were traced, merged as a stack: each path
    is pushed, and the top two are replaced by their union while it is their hull.  Paths
    traced one after the other differ in their last decisions (a depth-first search), so a
    running best merges as a binary counter carries."""
    stack: list = []
    for item in items:
        stack.append(item)
        while len(stack) > 1:
            union = _partition_hull([stack[-2].matrix, stack[-1].matrix])
            if union is None:
                break
            stack[-2:] = [_Closed(union, stack[-1].path, True)]
    return stack


def merge_group(paths: list[Path]) -> list[Path] | None:
    """Paths with the same future — one output, or one state of the program (``frontier.py``)
    — and the same draws, merged: all of them into one when their union is the hull of their
    constraints (:func:`_partition_hull`), else as a stack in their order; ``None`` when one of
    them is not of difference constraints on continuous noise (:func:`_pairs`)."""
    members = []
    for path in paths:
        pairs = _pairs(path)
        if pairs is None or path.noises != paths[0].noises:
            return None
        members.append((path, pairs))
    return _merged_group(members)


def _merged_group(members: list) -> list[Path]:
    """The paths ``[(path, pairs)]`` of one group, merged (:func:`merge_group`)."""
    if len(members) == 1:
        return [members[0][0]]
    ends = [end for _, pairs in members for *_, low, high in pairs
            for end in (low, high) if end is not None]
    scale = math.lcm(*(end.denominator for end in ends)) if ends else 1
    items = [(_matrix(path, pairs, scale), path) for path, pairs in members]
    kept = [path for matrix, path in items if matrix is None]
    closed = [_Closed(matrix, path, False) for matrix, path in items if matrix is not None]
    whole = _partition_hull([item.matrix for item in closed]) if len(closed) > 2 else None
    closed = [_Closed(whole, closed[-1].path, True)] if whole is not None \
        else _merged_in_order(closed)
    return kept + [_reduced(item, scale) if item.merged else item.path for item in closed]


def merge_paths(paths: list[Path]) -> list[Path]:
    """The paths with every mergeable group merged (module docstring); the others as they
    are.  The probability of every output is unchanged."""
    groups: dict = {}
    kept = []
    for path in paths:
        pairs = _pairs(path)
        if pairs is None:
            kept.append(path)
            continue
        members = groups.setdefault((path.result, tuple(n.location for n in path.noises)), [])
        if members and members[0][0].noises != path.noises:
            kept.append(path)   # other laws drawn at the same lines
        else:
            members.append((path, pairs))
    for members in groups.values():
        kept += _merged_group(members)
    return kept
