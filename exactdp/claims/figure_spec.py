"""What a claim's figure shows, as plain data: panels of curves with labels and axis scales.

A claim builds a :class:`FigureSpec` from its exact numbers and the paper's statement;
:func:`exactdp.claims.plots.draw` turns it into a PNG.  Keeping the description free of matplotlib
lets the claims be evaluated (and tested) without drawing anything.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Curve kinds: exact values (markers joined by a line), a function drawn on a fine grid (a plain
#: line), a paper's statement (a dashed line), or the means of simulated runs (markers with error
#: bars of one standard deviation, no line).
EXACT = "exact"
FUNCTION = "function"
STATEMENT = "statement"
SIMULATED = "simulated"


@dataclass(frozen=True)
class Curve:
    """One curve of a panel.

    Attributes
    ----------
    label : str
        Legend entry.
    x, y : tuple of float
        The points, in drawing order.
    kind : {"exact", "function", "statement", "simulated"}
        ``"exact"`` for values computed by exactdp, ``"function"`` for a derived function on a
        fine grid, ``"statement"`` for a paper's bound or closed form (drawn dashed),
        ``"simulated"`` for the means of seeded simulated runs.
    color : int
        Index into the colour cycle; a statement or simulation drawn in its exact curve's colour
        belongs to it.
    spread : tuple
        For ``"simulated"``: the standard deviation of the runs at each point (error bars);
        for ``"exact"``, optionally, pairs ``(below, above)``: how far the exact values the point
        averages (e.g. over orders) reach below and above it (error bars).
    """

    label: str
    x: tuple
    y: tuple
    kind: str = EXACT
    color: int = 0
    spread: tuple = ()


@dataclass(frozen=True)
class Panel:
    """One set of axes: labels with units, scales (matplotlib names), optional y limits
    ``(low, high)`` (None: automatic) and an optional note inside the axes."""

    title: str
    xlabel: str
    ylabel: str
    curves: tuple
    xscale: str = "linear"
    yscale: str = "linear"
    note: str = ""
    ylim: tuple | None = None


@dataclass(frozen=True)
class FigureSpec:
    """A titled row (or grid, for four panels) of panels."""

    title: str
    panels: tuple


def horizontal(label: str, value: float, x: tuple, color: int = 0) -> Curve:
    """A paper's constant bound (e.g. the claimed ε) drawn across the range of ``x``."""
    return Curve(label, (min(x), max(x)), (value, value), STATEMENT, color)
