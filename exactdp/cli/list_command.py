"""``exactdp list``: the mechanism catalogue (imports the catalogue only, so it starts fast)."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction

from ..mechanisms import catalogue, utility_catalogue
from ..sequences import format_number


def _show(value) -> str:
    return format_number(value) if isinstance(value, Fraction) else str(value)


def run_list(args: argparse.Namespace) -> int:
    """One entry per catalogue mechanism: source, noise, default parameters, privacy (the
    selection mechanisms of ``exactdp utility`` last, their source saying so)."""
    rows = []
    for item in catalogue() + utility_catalogue():
        source = f"{item.source} [exactdp utility only]" if item.utility_only else item.source
        rows.append({
            "name": item.name, "source": source, "noise": item.summary,
            "parameters": ", ".join(f"{p.name}={_show(p.default)}" for p in item.params),
            "claimed": item.claimed, "true_privacy": item.true_privacy,
        })
    if args.json:
        print(json.dumps(rows))
        return 0
    for row in rows:
        print(f"{row['name']}  —  {row['source']}")
        print(f"    noise: {row['noise']}")
        print(f"    parameters (defaults): {row['parameters']}")
        print(f"    claimed: {row['claimed']};  true privacy: {row['true_privacy']}")
    return 0


def register(subparsers) -> None:
    """Add the ``list`` subcommand."""
    listing = subparsers.add_parser("list")
    listing.add_argument("--json", action="store_true", help="print one JSON array")
    listing.set_defaults(run=run_list)
