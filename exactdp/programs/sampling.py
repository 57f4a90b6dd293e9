"""Sampling interpreter of programs: the user's function itself, called with a real generator.

``sample(program, queries, runs, rng)`` calls ``func(rng, queries, **kwargs)`` ``runs`` times
with the seeded ``numpy.random.Generator`` ``rng`` — exactly what StatDP's ``run_algorithm``
does (Wang, Ding, Wang, Kifer & Zhang, CCS 2018, arXiv:1805.10277; Ding et al., CCS 2018) — so
every draw of the program comes from ``rng`` and a seeded generator reproduces every run.  The
runs are made in :func:`~exactdp.programs.sandbox.sandbox`, which refuses any other randomness,
sends the program's standard output to standard error and stops a run that does not return.

Arithmetic: the sampler runs the program in binary floating point.  The query answers are
passed as a list of Python floats, the program's numeric parameters as floats (integers stay
integers, an infinite budget is ``math.inf``); the exact interpreter, not this one, keeps
exactdp's rule that ``0.7`` means seven tenths.  A sampled count is what the program does in
floats, which is what a run of the program on a computer does.

The outputs are recorded entry by entry (:class:`ProgramSamples`): a scalar is one entry, a
tuple, list or one-dimensional array its entries in order; each entry's *kind* (absent, boolean,
integer, number, ⊥) is kept beside its value, so the tester can infer the event space from the
return type (``exactdp.programs.outputs``).

Worker processes: a program loaded from a file (``load_program("file.py:fn")``) is pickled by
its file and function name and re-loaded in the worker (:func:`_reduce_program`), so the
tester's chunks run on spawned workers; a program built with :func:`exactdp.program` from a
function of an importable module pickles as that function does (a function defined in a
notebook or ``__main__`` runs with one job only).
"""

from __future__ import annotations

import copyreg
import dataclasses
import inspect
import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..sampling.sampler import query_array, sample
from .model import Program, load_program
from .sandbox import sandbox

#: Kind codes of an entry of an output (``ProgramSamples.kinds``).
ABSENT, BOOLEAN, INTEGER, NUMBER, BOTTOM = 0, 1, 2, 3, 4
#: Names of the kinds, for messages.
KIND_NAMES = {ABSENT: "absent", BOOLEAN: "boolean", INTEGER: "integer", NUMBER: "number",
              BOTTOM: "⊥ (None)"}


@dataclass(frozen=True)
class ProgramSamples:
    """The outputs of ``runs`` runs of a program, entry by entry.

    Attributes
    ----------
    values : numpy.ndarray of float, shape (runs, width)
        Entry ``j`` of run ``i`` (``True`` is 1, ``False`` 0; NaN when absent or ``None``);
        ``width`` is the longest output among the runs.
    kinds : numpy.ndarray of int8, shape (runs, width)
        Its kind: :data:`ABSENT` (past the end of a shorter output), :data:`BOOLEAN`,
        :data:`INTEGER`, :data:`NUMBER` or :data:`BOTTOM` (``None``).
    """

    values: np.ndarray
    kinds: np.ndarray


def entries(output) -> list:
    """The entries of one output: a scalar is one entry; a tuple, list or 1-D array its items."""
    if isinstance(output, np.ndarray):
        if output.ndim > 1:
            raise InputError(f"a program must return a scalar, a tuple, a list or a 1-D array, "
                             f"got an array of shape {output.shape}")
        return output.tolist() if output.ndim else [output.item()]
    if isinstance(output, (tuple, list)):
        return list(output)
    return [output]


def _encode(entry) -> tuple[int, float]:
    """``(kind, value)`` of one entry (numpy scalars as their Python values)."""
    if isinstance(entry, np.generic):
        entry = entry.item()
    if entry is None:
        return BOTTOM, math.nan
    if isinstance(entry, bool):
        return BOOLEAN, float(entry)
    if isinstance(entry, int):
        return INTEGER, float(entry)
    if isinstance(entry, (float, Fraction)):
        return NUMBER, float(entry)
    raise InputError(f"a program's output entries must be booleans, integers, numbers or None, "
                     f"got {entry!r} of type {type(entry).__name__}")


def float_arguments(mech: Program) -> dict:
    """The program's keyword arguments as the sampler passes them: rationals as floats."""
    return {key: float(value) if isinstance(value, Fraction) else value
            for key, value in mech.kwargs}


def user_error(exc: BaseException, func, what: str) -> InputError:
    """One line for an exception raised by the user's function ``func``: its type, message and
    the innermost line of ``func``'s file it passed through."""
    source = getattr(getattr(func, "__code__", None), "co_filename", None)
    frames = inspect.getinnerframes(exc.__traceback__) if exc.__traceback__ else []
    lines = [frame.lineno for frame in frames if frame.filename == source]
    where = f" (line {lines[-1]} of {source})" if lines else ""
    return InputError(f"{what} raised {type(exc).__name__}: {exc}{where}")


#: numpy dtype kinds of scalar outputs recorded at once (:func:`_scalars`).
_SCALAR_KINDS = {"b": BOOLEAN, "i": INTEGER, "u": INTEGER, "f": NUMBER}


def _scalars(outputs: list) -> ProgramSamples | None:
    """The outputs as one column when every one is a boolean, integer or float scalar of one
    numpy kind (one conversion instead of one per run); ``None`` otherwise."""
    if not outputs or isinstance(outputs[0], (tuple, list, np.ndarray)):
        return None
    try:
        column = np.array(outputs)
    except (ValueError, OverflowError):
        return None
    kind = _SCALAR_KINDS.get(column.dtype.kind)
    if column.ndim != 1 or kind is None:
        return None
    return ProgramSamples(column.astype(float)[:, None],
                          np.full((len(outputs), 1), kind, dtype=np.int8))


@sample.register
def _(mech: Program, queries, runs: int, rng: np.random.Generator) -> ProgramSamples:
    answers = [float(q) for q in query_array(queries)]
    kwargs = float_arguments(mech)
    func, outputs = mech.func, []
    try:
        with sandbox(func, rng, mech.trace_timeout, "one sampled run of the program",
                     completed=outputs.__len__):
            for _ in range(runs):
                outputs.append(func(rng, list(answers), **kwargs))
    except InputError:
        raise
    except Exception as exc:  # the user's code: reported in one line, never a traceback
        raise user_error(exc, mech.func, f"{mech.name} on {answers}") from None
    scalars = _scalars(outputs)
    if scalars is not None:
        return scalars
    rows = [[_encode(entry) for entry in entries(output)] for output in outputs]
    width = max((len(row) for row in rows), default=0)
    values = np.full((runs, width), np.nan)
    kinds = np.full((runs, width), ABSENT, dtype=np.int8)
    for i, row in enumerate(rows):
        if row:
            kinds[i, :len(row)], values[i, :len(row)] = zip(*row)
    return ProgramSamples(values, kinds)


# ----------------------------------------------------------------------------- pickling

def _reload(source: str, function: str, state: dict) -> Program:
    """The program ``state`` describes, its function re-loaded from ``source`` (a worker)."""
    return dataclasses.replace(load_program(f"{source}:{function}", **dict(state["kwargs"])),
                               **state)


def _reduce_program(mech: Program):
    """Pickle a program loaded from a file by the file's path and the function's name: its
    module (``exactdp_user_…``) exists only in the process that loaded it."""
    module = sys.modules.get(getattr(mech.func, "__module__", None) or "")
    path = getattr(module, "__file__", None)
    if module is None or not module.__name__.startswith("exactdp_user_") or path is None:
        return object.__reduce_ex__(mech, 2)
    state = {f.name: getattr(mech, f.name) for f in dataclasses.fields(mech) if f.name != "func"}
    return _reload, (path, mech.func.__name__, state)


copyreg.pickle(Program, _reduce_program)
