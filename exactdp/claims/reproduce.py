"""Run the claims and write ``DIR/<id>.png``, ``DIR/claims.json`` and ``DIR/claims.md``.

``claims.json`` is a list of objects ``{id, source, claim, family, verdict, certified, detail,
closed_forms, points}`` (``certified``: the verdict was decided by certified enclosures); every
point of a privacy-loss claim has ``size`` (int) and ``log_ratio`` (decimal string, ``"inf"``
allowed); the points of other claims (the reconstruction attack's accuracies) have their own
fields, all of them strings.  ``claims.md`` is the same content as readable tables.

The files are written into a temporary directory next to (or inside) ``DIR`` and moved into
``DIR`` only once all of them exist, with SIGINT held back while they move: an interrupted or
failed run leaves ``DIR`` as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

from ..checks import check_writable
from ..progress import Progress
from ..workers import current_scheduler, parallel_map, use_local_jobs
from .plots import draw
from .registry import Claim, ClaimResult, claim_ids, get_claim

#: Where ``exactdp reproduce`` writes by default.
DEFAULT_OUT = Path("figures")
#: Significant digits of the numbers quoted in the summary column of ``claims.md``.
SUMMARY_DIGITS = 6


def select(only: Sequence[str] | None) -> list[Claim]:
    """The claims named in ``only`` (all of them, in catalogue order, when it is empty); an
    unknown id raises :class:`~exactdp.errors.InputError` before anything is computed."""
    wanted = list(dict.fromkeys(only)) if only else list(claim_ids())
    return [get_claim(claim_id) for claim_id in wanted]


def _evaluate(task: tuple) -> ClaimResult:
    """Evaluate one claim in a worker process (claims are found again by id there), ``task``
    its id and the worker processes it may fork of its own (:func:`use_local_jobs`)."""
    claim_id, jobs = task
    use_local_jobs(jobs)
    return get_claim(claim_id).evaluate(lambda: None)


def check_out(out: Path) -> None:
    """An :class:`~exactdp.errors.InputError` if ``out`` is a file, lies under a file, or cannot
    be written (``out`` itself if it exists, else its nearest existing ancestor)."""
    check_writable(out, "the output directory", directory=True)


def run(claims: Sequence[Claim], out: Path, stream=None,
        jobs: int = 2) -> list[tuple[Claim, ClaimResult]]:
    """Evaluate ``claims`` on ``jobs`` worker processes (costliest first; each may fork as many
    for its own quadratures, :func:`~exactdp.workers.use_local_jobs`), with progress on
    ``stream`` (default: standard error) as each claim finishes, and write every output file.
    The results, and so the files, are in catalogue order whatever the order the claims finish
    in."""
    out = Path(out)
    check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".reproduce-", dir=out if out.exists() else out.parent))
    try:
        finished: dict[str, ClaimResult] = {}
        ordered = sorted(claims, key=lambda claim: -claim.cost)
        # the time left is estimated from the claims' costs: they differ a hundredfold
        with Progress(len(claims), "reproducing", "claim", stream=stream,
                      work=sum(claim.cost for claim in claims)) as progress:
            # a claim whose worker is local may fork as many of its own (on a cluster, whose
            # workers run threads, it cannot): the last and longest then uses every core
            inner = jobs if current_scheduler() is None else 1
            for k, result in parallel_map(_evaluate, [(c.id, inner) for c in ordered], jobs,
                                          completed=True):
                claim = ordered[k]
                finished[claim.id] = result
                draw(result.figure, staging / f"{claim.id}.png")
                progress.update(note=f"{claim.id} done", work=claim.cost)
        results = [(claim, finished[claim.id]) for claim in claims]
        (staging / "claims.json").write_text(json.dumps(to_json(results), indent=1,
                                                        ensure_ascii=False) + "\n",
                                             encoding="utf-8")
        (staging / "claims.md").write_text(to_markdown(results), encoding="utf-8")
        _move_into(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return results


def _move_into(staging: Path, out: Path) -> None:
    """Move every file of ``staging`` into ``out`` (renames: same file system), with SIGINT
    held back (and SIGTERM) so that an interrupt cannot leave a mixture of old and new files."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        if not out.exists():
            umask = os.umask(0)
            os.umask(umask)
            staging.chmod(0o777 & ~umask)  # as a directory made by mkdir (mkdtemp's is 0o700)
            staging.rename(out)
            return
        for path in sorted(staging.iterdir()):
            os.replace(path, out / path.name)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def to_json(results: Iterable[tuple[Claim, ClaimResult]]) -> list[dict]:
    """The ``claims.json`` records."""
    return [{"id": claim.id, "source": claim.source, "claim": claim.statement,
             "family": claim.family, "verdict": result.verdict,
             "certified": result.certified, "detail": result.detail,
             "closed_forms": [{"what": what, "latex": expr} for what, expr in result.closed_forms],
             "points": list(result.points)}
            for claim, result in results]


def _short(text: str) -> str:
    """A decimal string cut to :data:`SUMMARY_DIGITS` significant digits for the summary."""
    if text in {"inf", "-inf", "0"}:
        return {"inf": "+∞", "-inf": "−∞"}.get(text, text)
    return f"{float(text):.{SUMMARY_DIGITS}g}"


#: The columns of a privacy-loss claim's points in ``claims.md``.
LOSS_COLUMNS = ("series", "size", "log_ratio", "p1", "p2")
LOSS_HEADERS = ("series", "size", "ln ratio", "Pr[M(D)=a]", "Pr[M(D′)=a]")


def is_loss(points: Sequence[dict]) -> bool:
    """True when ``points`` are privacy losses (``size`` and ``log_ratio`` fields)."""
    return all("log_ratio" in point for point in points)


def summary(points: Sequence[dict]) -> str:
    """First and last ln ratio of every series: ``label: t=1 → 0.7367, t=1e6 → 899661`` ("—" for
    a claim whose points are not privacy losses; its deciding number says it all)."""
    if not is_loss(points):
        return "—"
    series: dict[str, list[dict]] = {}
    for point in points:
        series.setdefault(point["series"], []).append(point)
    return "<br>".join(f"{label}: {rows[0]['size']} → {_short(rows[0]['log_ratio'])}, "
                       f"{rows[-1]['size']} → {_short(rows[-1]['log_ratio'])}"
                       for label, rows in series.items())


def _mark(result: ClaimResult) -> str:
    """`` *(certified)*`` after a verdict decided by certified enclosures."""
    return " *(certified)*" if result.certified else ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(results: Sequence[tuple[Claim, ClaimResult]]) -> str:
    """``claims.md``: the verdict table, then one section per claim with its closed forms, its
    figure and every exact point (in the columns of its first point; a later point without one
    leaves its cell empty)."""
    lines = ["# Published claims, computed exactly", "",
             "Generated by `exactdp reproduce`; do not edit by hand.  ln ratio = "
             "ln(Pr[M(D)=a] / Pr[M(D′)=a]) in nats; sizes → exact ln ratio (first and last).  "
             "Each claim's mathematics is described in `docs/mathematics.md` §9 of the "
             "repository, its sources (with arXiv ids and DOIs) in `docs/bibliography.md`.  "
             "A verdict marked *(certified)* was decided by certified enclosures (ball "
             "arithmetic: every deciding inequality holds for the whole enclosure), not only by "
             "two numerical methods agreeing.", "",
             "| claim | source | exact ln ratio (size → value) | verdict | deciding number |",
             "|---|---|---|---|---|"]
    lines += [f"| [`{claim.id}`](#{claim.id}) {_cell(claim.statement)} | {_cell(claim.source)} | "
              f"{_cell(summary(result.points))} | **{result.verdict}**{_mark(result)} | "
              f"{_cell(result.detail)} |" for claim, result in results]
    for claim, result in results:
        lines += ["", f"## {claim.id}", "", f"*{claim.source}.*  {claim.statement}.", "",
                  f"Family: `{claim.family}`", "",
                  f"**{result.verdict}**{_mark(result)}: {result.detail}.", ""]
        lines += [f"- {what}: ${expr}$" for what, expr in result.closed_forms]
        columns = LOSS_COLUMNS if is_loss(result.points) else tuple(result.points[0])
        headers = LOSS_HEADERS if is_loss(result.points) else columns
        lines += ["", f"![{claim.id}]({claim.id}.png)", "",
                  "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(_cell(str(point.get(key, ""))) for key in columns) + " |"
                  for point in result.points]
    return "\n".join(lines) + "\n"
