"""Benchmark: exactdp side by side with DiPApprox on DiPApprox's own benchmarks.

DiPApprox (Bhusal, Chadha, Sistla & Viswanathan, "Approximate Algorithms for Verifying
Differential Privacy with Gaussian Distributions", CCS 2025, arXiv:2509.08804; artifact: the
GitHub repository bhusalb/approximate-dp) decides ``(ε, δ)``-DP of a loop-free program on one
ordered pair of inputs (``--input``) or on every ordered pair of distinct inputs of ``{0,1}^N``.
Its verdict on a pair bounds ``δ(ε) = Σ_o max(0, P[o | x] − e^ε P[o | x'])`` (Arb balls of its
truncated integrals, plus the truncation's error bound): at most ``δ`` (DP), above ``δ`` (not
DP), or unresolved; ``o`` ranges over the values of its ``OUTPUT`` array.  This
script computes the same verdict with exactdp — ``privacy_profile`` for one pair,
``exactdp.verify`` with ``allow_any_pair`` for the whole domain — on every benchmark of the
artifact's ``scripts/benchmark.py`` that exactdp can express, with the artifact's parameters:

* ``gauss(eps/m, μ)`` is ``N(μ, (m/eps)²)`` and ``lap(eps/m, μ)`` is ``Lap(μ, m/eps)``, with the
  artifact's ``-e 0.5`` (``-e 8`` for ``new_nonpriv_svt*``);
* the claim ``(ε_priv, 0.01)``: ``ε_priv = 1.24`` for the Sparse Vector folders ``svt*`` and
  ``nonpriv_svt*``, ``4`` for ``new_nonpriv_svt*``, ``0.5`` elsewhere (``svt_laplace*`` too,
  as the artifact's script passes it); truncation ``-k 4`` (``-k 8`` for Laplace or mixed noise);
* the single pair is the artifact's ``examples/inputs/inputs_N.json`` (``0^N`` against one unit
  vector); "all" is every ordered pair of distinct inputs of ``{0,1}^N``.

A below-threshold or noisy-min program on ``x`` is the catalogue's above-threshold or noisy-max
mechanism on ``−x`` (the noises are symmetric about 0 and the threshold's mean is 0).  The other
programs are written here in StatDP's convention (``exactdp.program``, docs/programs.md), line
for line from the artifact's ``.dip`` files.  Programs whose noises are compared with each other
(k-Min-Max, m-Range with two noisy ends) are listed too: exactdp refuses them today, and the row
says so with the refusal's message.

Each exactdp run is a fresh child process (no cache shared between repeats), timed in CPU
seconds of the call: *cold*, the process's first call (the modules it needs are imported then,
``scipy.special`` among them), and *loaded*, after an untimed call on ``N + 1`` queries (the
modules imported, no result shared).  If the environment variable ``DIPAPPROX``
names the artifact's directory (built: its ``src/main.py`` runs with the Python named by
``DIPAPPROX_PYTHON``, default this one, and compiles its generated C against FLINT/Arb), the
artifact runs on the same input in the same run: its whole command (parse, C generation, ``gcc``,
integration; CPU seconds of the children) and its compiled program alone, re-run (a command
of more than ``LONG`` = 30 s runs once and stands for both).  Without
``DIPAPPROX`` only exactdp's side is printed.  Nothing is downloaded or built here.  The whole
script is pinned to one core (``--core``).

Run: ``DIPAPPROX=/path/to/approximate-dp python benchmarks/dipapprox_side_by_side.py
[--repeats 3] [--only svt_max] [--sizes 2,5] [--modes single,all] [--core 0]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import exactdp  # noqa: E402
from exactdp.verify import verify  # noqa: E402

DELTA = "0.01"
#: Significant digits of exactdp's certified δ (DiPApprox integrates at 16, then 32 bits).
DIGITS = 12
#: The coordinate that differs in the artifact's ``inputs_N.json`` (``N − 1`` otherwise).
CHANGED = {3: 1, 6: 3}
#: CPU seconds of a DiPApprox command past which it is neither repeated nor its compiled program
#: re-run alone (its Python and ``gcc`` steps, about 1 s, are then under 4 % of it).
LONG = 30
#: The artifact's verdict codes.
DIP_VERDICTS = {"1": "private", "-1": "not private", "0": "unresolved"}


# ---- the artifact's programs in StatDP's convention (noise scales for its ``-e``) ----

def _draw(prng, gaussian: bool, scale):
    """``N(0, scale²)`` or ``Lap(0, scale)``."""
    return prng.normal(scale=scale) if gaussian else prng.laplace(scale=scale)


def threshold_test(prng, queries, epsilon=None, *, threshold_scale, query_scale,
                   threshold_gaussian, query_gaussian, below):
    """``svt*``/``nonpriv_svt*``/``new_nonpriv_svt*``: the first query on the chosen side of
    the threshold (mean 0), as the artifact's one-hot ``OUTPUT`` (all 0 when none is); a scale
    of 0 is the artifact's ``NUMERIC`` (no noise)."""
    threshold = _draw(prng, threshold_gaussian, threshold_scale) if threshold_scale else 0
    out = [0] * len(queries)
    for i, query in enumerate(queries):
        noisy = query + _draw(prng, query_gaussian, query_scale) if query_scale else query
        if (noisy < threshold) if below else (noisy > threshold):
            out[i] = 1
            break
    return tuple(out)


def kminmax(prng, queries, epsilon=None, *, scale, gaussian):
    """``kminmax/example_N.dip``: the noisy range ``[min, max]`` of the first two noisy queries;
    ``OUTPUT[i − 2] = 1`` when query ``i`` falls inside it; a query below the range lets the
    next one be tested (the artifact's ``ELSE`` of ``Q > MIN``), anything else stops."""
    low = high = queries[0] + _draw(prng, gaussian, scale)
    second = queries[1] + _draw(prng, gaussian, scale)
    if second > high:
        high = second
    elif second < low:
        low = second
    out = [0] * (len(queries) - 2)
    for i, query in enumerate(queries[2:]):
        noisy = query + _draw(prng, gaussian, scale)
        if noisy > low:
            if noisy < high:
                out[i] = 1
            break
    return tuple(out)


def mrange(prng, queries, epsilon=None, *, scale, gaussian, length):
    """``mrange/mrange_N.dip``: a noisy interval ``(low, high)`` (means 0 and 1, scale
    ``2·scale``); ``OUTPUT[i] = 1`` while the i-th noisy copy of ``INPUT[0]`` (the artifact
    reads ``INPUT[0]`` every time) lies inside it, stopping at the first outside."""
    high = 1 + _draw(prng, gaussian, 2 * scale)
    low = _draw(prng, gaussian, 2 * scale)
    out = [0] * length
    for i in range(length):
        noisy = queries[0] + _draw(prng, gaussian, scale)
        if not (noisy > low and noisy < high):
            break
        out[i] = 1
    return tuple(out)


# ---- the benchmarks ----

@dataclass(frozen=True)
class Family:
    """One folder of the artifact's ``examples``: its files, parameters and exactdp's model.

    ``model(n)`` is an exactdp mechanism or program; ``negate`` maps the artifact's input ``x``
    to exactdp's ``−x`` (below-threshold and noisy-min through their mirror images)."""
    folder: str
    sizes: tuple[int, ...]
    model: Callable[[int], object]
    eps_priv: str
    eps: str = "0.5"
    truncation: int = 4
    negate: bool = False
    file: str = "example_{n}.dip"


def _svt_gaussian(n):
    return exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8, T=0, c=1)


def _program(function, **params):
    return lambda n: exactdp.program(function, **params)


def _threshold(threshold, query, gaussian, below, eps=Fraction(1, 2)):
    """The threshold program of ``gauss``/``lap(eps/threshold)`` and ``(eps/query)`` (0: no
    noise); ``gaussian``: the two laws, ``True`` for ``gauss``."""
    return _program(threshold_test, threshold_scale=threshold / eps, query_scale=query / eps,
                    threshold_gaussian=gaussian[0], query_gaussian=gaussian[1], below=below)


FAMILIES = [
    Family("svt", (2, 5, 25), _svt_gaussian, "1.24", negate=True),
    Family("svt_max", tuple(range(1, 26)), _svt_gaussian, "1.24"),
    Family("nonpriv_svt", (3, 6), _threshold(1, 0, (True, True), True), "1.24"),
    Family("nonpriv_svt_max", (3, 6), _threshold(1, 0, (True, True), False), "1.24"),
    Family("new_nonpriv_svt", (5, 6),
           _threshold(0, 2, (True, True), True, Fraction(8)), "4", eps="8"),
    Family("new_nonpriv_svt_max", (5, 6),
           _threshold(0, 2, (True, True), False, Fraction(8)), "4", eps="8"),
    Family("svt_mix1", (2, 5, 17), _threshold(2, 4, (False, True), True), "1.24",
           truncation=8),
    Family("svt_mix1_max", tuple(range(1, 19)), _threshold(2, 4, (False, True), False),
           "1.24", truncation=8),
    Family("svt_mix2", (2, 5, 10), _threshold(2, 4, (True, False), True), "1.24",
           truncation=8),
    Family("svt_mix2_max", (2, 5, 10), _threshold(2, 4, (True, False), False), "1.24",
           truncation=8),
    Family("svt_laplace", (2, 5, 11), lambda n: exactdp.mechanism("svt1", eps="0.5", c=1, T=0),
           "0.5", truncation=8, negate=True),
    Family("svt_laplace_max", tuple(range(1, 10)),
           lambda n: exactdp.mechanism("svt1", eps="0.5", c=1, T=0), "0.5", truncation=8),
    Family("noisy_max", (2, 3, 4, 5),
           lambda n: exactdp.mechanism("noisy_max_gaussian", sigma=4), "0.5"),
    Family("noisy_min", (2, 3, 4),
           lambda n: exactdp.mechanism("noisy_max_gaussian", sigma=4), "0.5", negate=True),
    Family("noisy_max_laplace", (3, 4),
           lambda n: exactdp.mechanism("noisy_max_laplace", eps="0.5"), "0.5", truncation=8),
    Family("noisy_min_laplace", (3, 4),
           lambda n: exactdp.mechanism("noisy_max_laplace", eps="0.5"), "0.5", truncation=8,
           negate=True),
    Family("kminmax", (3, 4), _program(kminmax, scale=4, gaussian=True), "0.5"),
    Family("kminmax_laplace", (3, 4), _program(kminmax, scale=4, gaussian=False), "0.5",
           truncation=8),
    Family("mrange", (1, 2, 3), lambda n: exactdp.program(mrange, scale=4, gaussian=True,
                                                          length=n),
           "0.5", file="mrange_{n}.dip"),
    Family("mrange_laplace", (1, 2, 3), lambda n: exactdp.program(mrange, scale=4, gaussian=False,
                                                                  length=n),
           "0.5", truncation=8, file="mrange_{n}.dip"),
]
BY_FOLDER = {family.folder: family for family in FAMILIES}


def single_pair(n: int) -> list[list[int]]:
    """The artifact's ``inputs_N.json``: ``0^N`` and the unit vector at :data:`CHANGED`."""
    changed = CHANGED.get(n, n - 1)
    return [[0] * n, [int(i == changed) for i in range(n)]]


# ---- one exactdp run (in a child process) ----

def exactdp_run(folder: str, n: int, mode: str) -> dict:
    """exactdp's verdict and certified δ on one benchmark, with the CPU seconds it took."""
    family = BY_FOLDER[folder]
    sign = -1 if family.negate else 1
    start = time.process_time()
    try:
        mech = family.model(n)
        if mode == "single":
            d1, d2 = ([sign * v for v in d] for d in single_pair(n))
            point = exactdp.privacy_profile(mech, d1, d2, [family.eps_priv], dps=DIGITS,
                                            allow_any_pair=True)[0]
            value = point.delta
        else:
            result = verify(mech, [0, sign], n, eps=family.eps_priv, delta=DELTA, dps=DIGITS,
                            allow_any_pair=True)
            value = result.value
    except exactdp.ExactDPError as error:
        message = str(error).splitlines()[0]  # "η3 (law, drawn at …) is compared with …"
        if " (" in message and ") " in message:
            message = f"{message.split(' (', 1)[0]} {message.rsplit(') ', 1)[1]}"
        return {"verdict": "refused", "detail": message, "cpu": time.process_time() - start}
    seconds = time.process_time() - start
    verdict = {"within": "private", "violation": "not private", "undecided": "undecided"}
    return {"verdict": verdict[value.compared_with(Fraction(DELTA))],
            "detail": f"δ = {exactdp.format_value(value.value, 6)}", "cpu": seconds}


def exactdp_median(folder: str, n: int, mode: str, repeats: int) -> dict:
    """:func:`exactdp_run` in fresh processes, ``repeats`` times each way: ``cold`` (the first
    call of the process: it imports the modules it needs, scipy.special among them) and
    ``loaded`` (after an untimed call on ``N + 1`` queries, which imports them but shares no
    result with the timed call); the last answer and the median CPU seconds of each."""
    runs = {"cold": [], "loaded": []}
    for _ in range(repeats):
        for way, runs_of_way in runs.items():
            child = subprocess.run([sys.executable, __file__, "--child", folder, str(n), mode,
                                    way], capture_output=True, text=True, check=False)
            if child.returncode:
                raise RuntimeError(f"{folder} {n} {mode}: "
                                   f"{child.stderr.strip().splitlines()[-1]}")
            runs_of_way.append(json.loads(child.stdout))
    return runs["cold"][-1] | {way: statistics.median(run["cpu"] for run in runs_of_way)
                               for way, runs_of_way in runs.items()}


# ---- one DiPApprox run ----

def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], cwd: str, limit: float) -> tuple[float, str]:
    """``(CPU seconds of the children, stdout)`` of ``command`` run in ``cwd``; past ``limit``
    seconds every process still working in ``cwd`` is ended (DiPApprox starts its compiled
    program in a session of its own) and :class:`subprocess.TimeoutExpired` raised."""
    before = _children_cpu()
    try:
        child = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                               timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and os.readlink(entry / "cwd") == cwd:
                    os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass
        raise
    if child.returncode:
        raise RuntimeError(f"{' '.join(command)}: {child.stderr.strip()[-300:]}")
    return _children_cpu() - before, child.stdout


def dipapprox_median(artifact: Path, family: Family, n: int, mode: str, repeats: int,
                     limit: float) -> dict:
    """DiPApprox's verdict and the median CPU seconds of its whole command and of its compiled
    program alone (re-run with the same arguments; past :data:`LONG` seconds, one run of the
    command, which stands for both)."""
    python = os.environ.get("DIPAPPROX_PYTHON", sys.executable)
    claim = ["-e", family.eps, "-d", DELTA, "-k", str(family.truncation),
             "--epriv", family.eps_priv]
    command = [python, str(artifact / "src" / "main.py"), "-f",
               str(artifact / "examples" / family.folder / family.file.format(n=n)), *claim]
    if mode == "single":
        inputs = artifact / "examples" / "inputs" / f"inputs_{n}.json"
        if json.loads(inputs.read_text()) != [single_pair(n)]:
            raise RuntimeError(f"{inputs} is not the pair this script assumes")
        command += ["--input", str(inputs)]
    binary = ["./temp_program", "-eps", family.eps, "-delta", DELTA,
              "-k", str(family.truncation), "-D", "1", "-epriv", family.eps_priv]
    whole, alone, verdict = [], [], None
    with tempfile.TemporaryDirectory() as work:
        for _ in range(repeats):
            seconds, output = _timed(command, work, limit)
            whole.append(seconds)
            verdict = DIP_VERDICTS[re.search(r'"DP":\s*(-?\d)', output).group(1)]
            if seconds > LONG:
                alone.append(seconds)
                break
            alone.append(_timed(binary, work, limit)[0])
    return {"verdict": verdict, "cpu": statistics.median(whole),
            "integration": statistics.median(alone)}


# ---- the table ----

def _cases(args) -> list[tuple[Family, int, str]]:
    folders = args.only.split(",") if args.only else [f.folder for f in FAMILIES]
    sizes = {int(s) for s in args.sizes.split(",")} if args.sizes else None
    cases = []
    for folder in folders:
        family = BY_FOLDER[folder]
        for n in family.sizes:
            if sizes is None or n in sizes:
                cases += [(family, n, mode) for mode in args.modes.split(",")
                          if mode == "single" or n <= args.largest_domain]
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", help="comma-separated folders (default: all)")
    parser.add_argument("--sizes", help="comma-separated N (default: the artifact's)")
    parser.add_argument("--modes", default="single,all")
    parser.add_argument("--largest-domain", type=int, default=7,
                        help="largest N of an 'all' run (the artifact's script stops at 7)")
    parser.add_argument("--core", type=int, default=0, help="the one core to run on")
    parser.add_argument("--limit", type=float, default=600,
                        help="seconds before a DiPApprox run is abandoned (as its script)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        folder, n, mode, way = args.child
        if way == "loaded":
            exactdp_run(folder, int(n) + 1, "single")
        print(json.dumps(exactdp_run(folder, int(n), mode)))
        return
    os.sched_setaffinity(0, {args.core})
    artifact = os.environ.get("DIPAPPROX")
    print(f"one core ({args.core}); CPU seconds, medians of {args.repeats}; exactdp's δ "
          f"certified to {DIGITS} digits; exactdp cold: a fresh process's first call (imports "
          f"included), loaded: after a call on N + 1 queries; DiPApprox: its whole command, and "
          f"its compiled program alone")
    if not artifact:
        print("DIPAPPROX is not set: DiPApprox was not run")
    print(f"{'benchmark':<22} {'mode':<6} {'exactdp':<11} {'cold':>6} {'loaded':>6}  "
          f"{'DiPApprox':<11} {'command':>7} {'C alone':>7}  {'ratio':>5} {'ratio':>5}  "
          f"exactdp's δ")
    print(f"{'':<22} {'':<6} {'':<11} {'':>6} {'':>6}  {'':<11} {'':>7} {'':>7}  "
          f"{'cmd/':>5} {'C/':>5}")
    print(f"{'':<22} {'':<6} {'':<11} {'':>6} {'':>6}  {'':<11} {'':>7} {'':>7}  "
          f"{'cold':>5} {'load':>5}")
    for family, n, mode in _cases(args):
        ours = exactdp_median(family.folder, n, mode, args.repeats)
        theirs = {"verdict": "not run", "cpu": None, "integration": None}
        if artifact:
            try:
                theirs = dipapprox_median(Path(artifact), family, n, mode, args.repeats,
                                          args.limit)
            except subprocess.TimeoutExpired:
                theirs = {"verdict": "timeout", "cpu": None, "integration": None}
        answered = ours["verdict"] != "refused"
        cells = [f"{theirs[key]:7.2f}" if theirs[key] else f"{'-':>7}"
                 for key in ("cpu", "integration")]
        ratios = [_ratio(theirs[key], ours[way]) if answered else f"{'-':>5}"
                  for key, way in (("cpu", "cold"), ("integration", "loaded"))]
        flag = ("  DISAGREE" if theirs["verdict"] in ("private", "not private")
                and ours["verdict"] in ("private", "not private")
                and theirs["verdict"] != ours["verdict"] else "")
        print(f"{family.folder + '_' + str(n):<22} {mode:<6} {ours['verdict']:<11} "
              f"{ours['cold']:6.3f} {ours['loaded']:6.3f}  {theirs['verdict']:<11} {cells[0]} "
              f"{cells[1]}  {ratios[0]} {ratios[1]}  {ours['detail']}{flag}", flush=True)


def _ratio(theirs: float | None, ours: float) -> str:
    """``theirs / ours`` in five characters (``-`` when DiPApprox gave no time)."""
    if not theirs:
        return f"{'-':>5}"
    ratio = theirs / max(ours, 1e-3)
    return f"{ratio:5.1f}" if ratio < 100 else f"{ratio:5.0f}"

if __name__ == "__main__":
    main()
