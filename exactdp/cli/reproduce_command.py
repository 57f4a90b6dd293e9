"""``exactdp reproduce``: compute, judge and draw every published claim (docs/mathematics.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..claims import claim_ids
from ..claims.reproduce import DEFAULT_OUT, run, select
from .common import add_jobs_argument, add_scheduler_argument


def run_reproduce(args: argparse.Namespace) -> int:
    """Check every ``--only`` id, then compute, judge and write; one summary line per claim."""
    claims = select(args.only)
    for claim, result in run(claims, Path(args.out), jobs=args.jobs):
        print(f"{claim.id}: {result.verdict} — {result.detail}")
    print(f"wrote {len(claims)} figures, claims.json and claims.md to {args.out}")
    return 0


def register(subparsers) -> None:
    """Add the ``reproduce`` subcommand."""
    parser = subparsers.add_parser("reproduce")
    parser.add_argument("--out", default=str(DEFAULT_OUT), metavar="DIR",
                        help=f"output directory (default {DEFAULT_OUT})")
    parser.add_argument("--only", nargs="+", action="extend", metavar="ID",
                        help=f"only these claims (ids: {', '.join(claim_ids())})")
    add_jobs_argument(parser, 2)
    add_scheduler_argument(parser)
    parser.set_defaults(run=run_reproduce)
