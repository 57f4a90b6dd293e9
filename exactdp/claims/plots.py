"""Draw a claim's :class:`~exactdp.claims.figure_spec.FigureSpec` with matplotlib (Agg backend).

Exact values are markers joined by a line, a derived function a plain line; a paper's statement
(bound, limit, closed form) is a dashed line in the colour of the exact curve it belongs to, or
grey when it belongs to none; the means of simulated runs are crosses with error bars of one
standard deviation, in their exact curve's colour.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

from .figure_spec import EXACT, FUNCTION, SIMULATED, FigureSpec, Panel  # noqa: E402

#: Colour cycle (matplotlib's "tab10"); colour index -1 is grey.
COLORS = plt.get_cmap("tab10").colors
GREY = "0.35"
PANEL_SIZE = (6.4, 5.6)
#: Legends of labels longer than this many characters use one column.
WIDE_LABEL = 40


def _color(index: int):
    return GREY if index < 0 else COLORS[index % len(COLORS)]


def _draw_panel(ax, panel: Panel) -> None:
    for curve in panel.curves:
        if curve.kind == EXACT and curve.spread:
            ax.errorbar(curve.x, curve.y, yerr=list(zip(*curve.spread)), marker="o",
                        markersize=4, linewidth=1.2, capsize=3, elinewidth=0.9,
                        color=_color(curve.color), label=curve.label)
        elif curve.kind == EXACT:
            ax.plot(curve.x, curve.y, marker="o", markersize=4, linewidth=1.2,
                    color=_color(curve.color), label=curve.label)
        elif curve.kind == FUNCTION:
            ax.plot(curve.x, curve.y, linewidth=1.6, color=_color(curve.color), label=curve.label)
        elif curve.kind == SIMULATED:
            ax.errorbar(curve.x, curve.y, yerr=curve.spread, fmt="x", markersize=5, capsize=3,
                        elinewidth=0.9, color=_color(curve.color), label=curve.label)
        else:
            ax.plot(curve.x, curve.y, linestyle="--", linewidth=1.4,
                    color=_color(curve.color), label=curve.label)
    ax.set_xscale(panel.xscale)
    ax.set_yscale(panel.yscale)
    ax.set_title(panel.title, fontsize=10)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    if panel.ylim is not None:
        ax.set_ylim(*panel.ylim)
    ax.grid(True, which="major", alpha=0.3)
    longest = max(len(curve.label) for curve in panel.curves)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.17),
              ncol=2 if longest <= WIDE_LABEL else 1, frameon=False)
    if panel.note:
        ax.text(0.02, 0.8, panel.note, transform=ax.transAxes, fontsize=8, va="center",
                ha="left", bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.85})


def draw(spec: FigureSpec, path: Path) -> Path:
    """Write ``spec`` as a PNG at ``path`` and return the path.

    One panel per column; four panels make a 2×2 grid, eight a 2×4 one.  Legends go below
    their axes, so that they never hide a curve.
    """
    count = len(spec.panels)
    rows = 2 if count in (4, 8) else 1
    cols = count // rows
    fig, axes = plt.subplots(rows, cols, figsize=(PANEL_SIZE[0] * cols, PANEL_SIZE[1] * rows),
                             squeeze=False)
    try:
        for ax, panel in zip(axes.flat, spec.panels):
            _draw_panel(ax, panel)
        fig.suptitle(spec.title, fontsize=12)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
    finally:
        plt.close(fig)
    return Path(path)
