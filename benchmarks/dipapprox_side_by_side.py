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
for line from the artifact's ``.dip`` files.  A program exactdp refuses is listed too: the row
says so with the refusal's message.

The artifact's ``dipc`` folder (programs of Laplace noise) is run as its
``scripts/benchmark_laplace.py`` runs it: each program on the ordered pairs of its file in
``examples/dipc_inputs`` (mode ``pairs``), the claim ``(ε, 0)`` (pure ε-DP), ``-k 8``:
``svt_4`` at ε = 1 (``--prec 24``), ``svt_5`` at 0.5, ``svt_6`` at 1; the four programs its
scripts do not run (``svt_3``, ``nmax3``, ``new_nmax3``, ``sparse``) at ε = 1 on the pairs of
:data:`DIPC`.  exactdp's δ is the largest ``privacy_profile`` of the pairs, or for ``sparse``,
whose 316 pairs are every neighbouring pair of ``{-1,0,1}^3`` (every answer moving by at most
1, a program's neighbours), the worst of ``verify`` on that domain.

Each exactdp run is a fresh child process (no cache shared between repeats), timed in CPU
seconds of the call: *cold*, the process's first call (the modules it needs are imported then),
and *loaded*, after an untimed call on ``N + 1`` queries, or for ``dipc`` on the first pair
with 2 added to every entry (the modules imported, no result shared).  If the environment
variable ``DIPAPPROX`` names the artifact's directory (built: its ``src/main.py`` runs with the
Python named by ``DIPAPPROX_PYTHON``, default this one, and compiles its generated C against
FLINT/Arb), the artifact runs on the same input in the same run: its whole command (parse, C
generation, ``gcc``, integration; CPU seconds of the children) and its compiled program alone,
re-run (a command of more than ``LONG`` = 30 s runs once and stands for both).  Without
``DIPAPPROX`` only exactdp's side is printed.  Nothing is downloaded or built here.  The whole
script is pinned to one core (``--core``).

Run: ``DIPAPPROX=/path/to/approximate-dp python benchmarks/dipapprox_side_by_side.py
[--repeats 3] [--only svt_max,dipc_svt_4] [--sizes 2,5] [--modes single,all,pairs] [--core 0]``
from the repository root.
"""

from __future__ import annotations

import argparse
import itertools
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


def all_above_threshold(prng, queries, epsilon=None, *, scale):
    """``dipc/svt_6.dip``: every noisy query compared with one noisy threshold (mean 0), the
    noises ``Lap(scale)``; ``OUTPUT[i] = 1`` when query ``i`` is above it (none stops)."""
    threshold = prng.laplace(scale=scale)
    return tuple(int(query + prng.laplace(scale=scale) > threshold) for query in queries)


def below_threshold_sign(prng, queries, epsilon=None, *, scale):
    """``dipc/svt_3.dip``: the first noisy query below one noisy threshold (mean 0), the noises
    ``Lap(scale)``, stops; its ``OUTPUT[i]`` is 1 when that noisy query is at least 0, else 0
    (as the artifact writes it, the same as no query below the threshold)."""
    threshold = prng.laplace(scale=scale)
    out = [0] * len(queries)
    for i, query in enumerate(queries):
        noisy = query + prng.laplace(scale=scale)
        if noisy < threshold:
            out[i] = 0 if noisy < 0 else 1
            break
    return tuple(out)


def noisy_max_bucket(prng, queries, epsilon=None, *, scale, cuts, values):
    """``dipc/nmax3.dip`` and ``new_nmax3.dip``: the largest of three noisy queries (noises
    ``Lap(scale)``, found by the artifact's nested comparisons), released as ``values[k]`` for
    the first cut ``cuts[k]`` it is below (the last value when none).  The artifact's unused
    threshold noise ``TH`` is not drawn (it changes no output's probability)."""
    first, second, third = (query + prng.laplace(scale=scale) for query in queries)
    if first > second:
        top = first if first > third else third
    else:
        top = second if second > third else third
    for cut, value in zip(cuts, values):
        if top < cut:
            return (value,)
    return (values[-1],)


def sparse(prng, queries, epsilon=None, *, threshold_scale, query_scale):
    """``dipc/sparse.dip``: three queries, each against a threshold of its own (``Lap`` noises,
    threshold means 0); after query 0 is above its threshold, query 1, and query 2 only if
    query 1 is not; after query 0 is not, query 1 and then query 2 whatever query 1 gave."""
    def above(query):
        return query + prng.laplace(scale=query_scale) > prng.laplace(scale=threshold_scale)

    out = [0, 0, 0]
    if above(queries[0]):
        out[0] = 1
        if above(queries[1]):
            out[1] = 1
        elif above(queries[2]):
            out[2] = 1
    else:
        if above(queries[1]):
            out[1] = 1
        if above(queries[2]):
            out[2] = 1
    return tuple(out)


# ---- the benchmarks ----

@dataclass(frozen=True)
class Family:
    """One folder of the artifact's ``examples`` (or one program of its ``dipc`` folder): its
    files, parameters and exactdp's model.

    ``model(n)`` is an exactdp mechanism or program; ``negate`` maps the artifact's input ``x``
    to exactdp's ``−x`` (below-threshold and noisy-min through their mirror images).  A
    ``dipc`` program has a ``name`` of its own, is run on the ordered ``pairs`` of its file
    ``pairs_file`` in ``examples/dipc_inputs`` (mode ``pairs``) with the claim ``(ε, delta)``,
    and may pass the artifact more ``options``; when the pairs are every neighbouring pair of
    ``domain^N`` (every answer moving by at most 1, a program's neighbours), exactdp decides
    them with ``verify``, each input's outputs computed once."""
    folder: str
    sizes: tuple[int, ...]
    model: Callable[[int], object]
    eps_priv: str
    eps: str = "0.5"
    truncation: int = 4
    negate: bool = False
    file: str = "example_{n}.dip"
    name: str = ""
    pairs: tuple = ()
    pairs_file: str = ""
    delta: str = DELTA
    options: tuple[str, ...] = ()
    domain: tuple = ()

    @property
    def key(self) -> str:
        """The name ``--only`` takes: the program's own name, else the folder's."""
        return self.name or self.folder


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


def _swapped(pairs: list) -> tuple:
    """Each ordered pair and its reverse, as the artifact's ``dipc_inputs`` list them."""
    return tuple(pair for d1, d2 in pairs for pair in ((d1, d2), (d2, d1)))


#: ``{-1,0,1}^3`` at distance at most 1 in every entry, ordered, distinct (``3.json``).
_NEAR_CUBE = tuple((d1, d2) for d1 in itertools.product((-1, 0, 1), repeat=3)
                   for d2 in itertools.product((-1, 0, 1), repeat=3)
                   if d1 != d2 and all(abs(a - b) <= 1 for a, b in zip(d1, d2)))


def _dipc(name: str, n: int, model, eps: str, pairs: tuple, pairs_file: str = "",
          options: tuple[str, ...] = (), domain: tuple = ()) -> Family:
    """A program of the artifact's ``dipc`` folder, claim ``(ε, 0)`` with truncation ``-k 8``
    (its ``scripts/benchmark_laplace.py``)."""
    return Family("dipc", (n,), model, eps, eps=eps, truncation=8,
                  file=f"{name}.dip", name=f"dipc_{name}", pairs=pairs,
                  pairs_file=pairs_file or f"{name}.json", delta="0", options=options,
                  domain=domain)


#: The ``dipc`` folder: ``svt_4``, ``svt_5`` and ``svt_6`` as the artifact's
#: ``scripts/benchmark_laplace.py`` runs them (ε = 1, 0.5, 1; ``--prec 24`` for ``svt_4``);
#: the four programs its scripts do not run at ε = 1, on the pairs of ``svt_3.json``,
#: ``nmax3.json`` (``new_nmax3`` too, which has no file of its own) and ``3.json`` (``sparse``).
DIPC = [
    _dipc("svt_4", 2, _program(threshold_test, threshold_scale=4,
                               query_scale=Fraction("1.33333333333334"),
                               threshold_gaussian=False, query_gaussian=False, below=False),
          "1", _swapped([((-1, 0), (0, -1))]), options=("--prec", "24")),
    _dipc("svt_5", 2, _program(threshold_test, threshold_scale=4, query_scale=0,
                               threshold_gaussian=False, query_gaussian=False, below=False),
          "0.5", (((-1, 0), (-1, -1)),)),
    _dipc("svt_6", 3, _program(all_above_threshold, scale=2), "1",
          _swapped([((-1, -1, 0), (0, 0, -1))])),
    _dipc("svt_3", 5, _program(below_threshold_sign, scale=2), "1",
          _swapped([((-1,) * 5, (0,) * 5)])),
    _dipc("nmax3", 3, _program(noisy_max_bucket, scale=2, cuts=(-1, 0), values=(-1, 0, 1)),
          "1", _swapped([((1, 0, 1), (1, 1, 1))])),
    _dipc("new_nmax3", 3, _program(noisy_max_bucket, scale=2, cuts=(0,), values=(0, 1)),
          "1", _swapped([((1, 0, 1), (1, 1, 1))]), pairs_file="nmax3.json"),
    _dipc("sparse", 3, _program(sparse, threshold_scale=2, query_scale=4), "1",
          _NEAR_CUBE, pairs_file="3.json", domain=(-1, 0, 1)),
]
FAMILIES += DIPC
BY_KEY = {family.key: family for family in FAMILIES}


def single_pair(n: int) -> list[list[int]]:
    """The artifact's ``inputs_N.json``: ``0^N`` and the unit vector at :data:`CHANGED`."""
    changed = CHANGED.get(n, n - 1)
    return [[0] * n, [int(i == changed) for i in range(n)]]


# ---- one exactdp run (in a child process) ----

def _pairs(family: Family, mode: str) -> tuple:
    """The ordered pairs of a ``pairs`` run; ``shifted``: the first of them with 2 added to
    every entry (the untimed call of a *loaded* run)."""
    if mode == "pairs":
        return family.pairs
    return (tuple(tuple(v + 2 for v in d) for d in family.pairs[0]),)


def exactdp_run(key: str, n: int, mode: str) -> dict:
    """exactdp's verdict and certified δ on one benchmark, with the CPU seconds it took: on
    the single pair, on the whole domain (``all``), or the largest δ of the ``pairs``."""
    family = BY_KEY[key]
    sign = -1 if family.negate else 1
    start = time.process_time()
    try:
        mech = family.model(n)
        if mode == "all":
            value = verify(mech, [0, sign], n, eps=family.eps_priv, delta=family.delta,
                           dps=DIGITS, allow_any_pair=True).value
        elif mode == "pairs" and family.domain:
            verdict = verify(mech, family.domain, n, eps=family.eps_priv, delta=family.delta,
                             dps=DIGITS)
            if verdict.pairs != len(family.pairs):
                raise RuntimeError(f"verify compared {verdict.pairs} pairs, the artifact "
                                   f"{len(family.pairs)}")
            value = verdict.value
        else:
            pairs = (_pairs(family, mode) if family.pairs else
                     [[[sign * v for v in d] for d in single_pair(n)]])
            value = max((exactdp.privacy_profile(mech, list(d1), list(d2), [family.eps_priv],
                                                 dps=DIGITS, allow_any_pair=True)[0].delta
                         for d1, d2 in pairs), key=lambda delta: delta.upper)
    except exactdp.ExactDPError as error:
        message = str(error).splitlines()[0]  # "η3 (law, drawn at …) is compared with …"
        if " (" in message and ") " in message:
            message = f"{message.split(' (', 1)[0]} {message.rsplit(') ', 1)[1]}"
        return {"verdict": "refused", "detail": message, "cpu": time.process_time() - start}
    seconds = time.process_time() - start
    verdict = {"within": "private", "violation": "not private", "undecided": "undecided"}
    return {"verdict": verdict[value.compared_with(Fraction(family.delta))],
            "detail": f"δ = {exactdp.format_value(value.value, 6)}", "cpu": seconds}


def exactdp_median(key: str, n: int, mode: str, repeats: int) -> dict:
    """:func:`exactdp_run` in fresh processes, ``repeats`` times each way: ``cold`` (the first
    call of the process: it imports the modules it needs) and ``loaded`` (after an untimed
    call on ``N + 1`` queries, or on a shifted pair in mode ``pairs``, which imports them but
    shares no result with the timed call); the last answer and the median CPU seconds of
    each."""
    runs = {"cold": [], "loaded": []}
    for _ in range(repeats):
        for way, runs_of_way in runs.items():
            child = subprocess.run([sys.executable, __file__, "--child", key, str(n), mode,
                                    way], capture_output=True, text=True, check=False)
            if child.returncode:
                raise RuntimeError(f"{key} {n} {mode}: "
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
    claim = ["-e", family.eps, "-d", family.delta, "-k", str(family.truncation),
             "--epriv", family.eps_priv, *family.options]
    command = [python, str(artifact / "src" / "main.py"), "-f",
               str(artifact / "examples" / family.folder / family.file.format(n=n)), *claim]
    if mode == "pairs":
        inputs = artifact / "examples" / "dipc_inputs" / family.pairs_file
        listed = {tuple(map(tuple, pair)) for pair in json.loads(inputs.read_text())}
        if listed != set(family.pairs):
            raise RuntimeError(f"{inputs} does not list the pairs this script assumes")
        command += ["--input", str(inputs)]
    if mode == "single":
        inputs = artifact / "examples" / "inputs" / f"inputs_{n}.json"
        if json.loads(inputs.read_text()) != [single_pair(n)]:
            raise RuntimeError(f"{inputs} is not the pair this script assumes")
        command += ["--input", str(inputs)]
    binary = ["./temp_program", "-eps", family.eps, "-delta", family.delta,
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
    """The benchmarks to run: a ``dipc`` program on its pairs (mode ``pairs``), every other
    folder single and/or on the whole domain (``--modes``)."""
    keys = args.only.split(",") if args.only else [f.key for f in FAMILIES]
    sizes = {int(s) for s in args.sizes.split(",")} if args.sizes else None
    modes = args.modes.split(",")
    cases = []
    for key in keys:
        family = BY_KEY[key]
        for n in family.sizes:
            if family.pairs:
                cases += [(family, n, "pairs")] if "pairs" in modes else []
            elif sizes is None or n in sizes:
                cases += [(family, n, mode) for mode in modes
                          if mode == "single" or (mode == "all" and n <= args.largest_domain)]
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", help="comma-separated folders, or dipc_NAME for a program "
                        "of the dipc folder (default: all)")
    parser.add_argument("--sizes", help="comma-separated N (default: the artifact's; not "
                        "for dipc)")
    parser.add_argument("--modes", default="single,all,pairs")
    parser.add_argument("--largest-domain", type=int, default=7,
                        help="largest N of an 'all' run (the artifact's script stops at 7)")
    parser.add_argument("--core", type=int, default=0, help="the one core to run on")
    parser.add_argument("--limit", type=float, default=600,
                        help="seconds before a DiPApprox run is abandoned (as its script)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        key, n, mode, way = args.child
        if way == "loaded":
            exactdp_run(key, int(n) + (mode != "pairs"),
                        "shifted" if mode == "pairs" else "single")
        print(json.dumps(exactdp_run(key, int(n), mode)))
        return
    os.sched_setaffinity(0, {args.core})
    artifact = os.environ.get("DIPAPPROX")
    print(f"one core ({args.core}); CPU seconds, medians of {args.repeats}; exactdp's δ "
          f"certified to {DIGITS} digits; exactdp cold: a fresh process's first call (imports "
          f"included), loaded: after a call on N + 1 queries (pairs: on a shifted pair); "
          f"DiPApprox: its whole command, and "
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
        ours = exactdp_median(family.key, n, mode, args.repeats)
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
        name = family.name or f"{family.folder}_{n}"
        print(f"{name:<22} {mode:<6} {ours['verdict']:<11} "
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
