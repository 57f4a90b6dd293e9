"""The program mechanism: a user's function, its fixed keyword arguments and where it came from.

The values given to the function keep exactdp's rule that ``0.7`` means seven tenths: they are
stored as exact rationals here, and each interpreter hands them to the function in its own
arithmetic (the tracer as exact rationals, ``exactdp.programs.exact_numbers.Exact``; the sampler as
floats).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import math
import re
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable

from ..errors import InputError
from ..sequences import to_fraction
from ..mechanisms.base import Mechanism
from .sandbox import TRACE_TIMEOUT
from .tracing import PATH_LIMIT

#: ``path/to/file.py:function`` or ``package.module:function``.
_SPEC = re.compile(r"^(?P<source>[^:]+\.py|[A-Za-z_][\w.]*):(?P<function>[A-Za-z_]\w*)$")


def is_program_spec(text: str) -> bool:
    """Whether a mechanism name on the command line names a function (``FILE.py:FUNCTION`` or
    ``package.module:FUNCTION``) rather than a catalogue entry."""
    return ":" in text


@dataclass(frozen=True, kw_only=True)
class Program(Mechanism):
    """A mechanism given as a Python function ``func(prng, queries, epsilon, **kwargs)``.

    Attributes
    ----------
    func : callable
        The user's function.
    kwargs : tuple of (str, object)
        Its fixed keyword arguments (``epsilon`` among them), numbers as exact ``Fraction`` or
        ``int`` (``math.inf`` for an infinite budget); other Python objects are passed unchanged.
    path_limit : int
        Largest number of execution paths the exact interpreter explores on one input.
    step_limit : int or None
        Largest number of noise draws and comparisons in one execution path (``None``:
        ``tracing.step_limit``, 1000 plus 100 per query).
    trace_timeout : float or None
        Seconds one run of the function (the trace of one path, one sampled run) may take
        before it is stopped with an :class:`~exactdp.errors.InputError` (``None``: no limit);
        see ``exactdp.programs.sandbox``.
    """

    func: Callable = field(compare=False)
    kwargs: tuple = ()
    path_limit: int = PATH_LIMIT
    step_limit: int | None = None
    trace_timeout: float | None = TRACE_TIMEOUT

    @property
    def arguments(self) -> dict:
        """The fixed keyword arguments as a dict."""
        return dict(self.kwargs)


def _convert(name: str, value: object) -> object:
    """A parameter value as the program will receive it: a number given as text or float becomes
    an exact ``int``/``Fraction`` (``inf`` stays ``math.inf``); other objects stay as they are."""
    if isinstance(value, (bool, Fraction, int)) or callable(value):
        return value
    if isinstance(value, (str, float)):
        text = str(value).strip().lower()
        if text in {"inf", "+inf", "infinity"}:
            return math.inf
        number = to_fraction(value, name)
        return int(number) if number.denominator == 1 and "." not in text else number
    return value


def program(func: Callable, name: str | None = None, **kwargs) -> Program:
    """Wrap ``func(prng, queries, epsilon, **kwargs)`` as a mechanism.

    Parameters
    ----------
    func : callable
        The mechanism in StatDP's calling convention.
    name : str, optional
        Display name (default: the function's name).
    **kwargs
        Its keyword arguments, fixed for every run (``epsilon=1``, ``N=1``, ``T=0.5``).  The
        claimed budget is ``epsilon`` when given.

    Examples
    --------
    >>> def noisy_count(prng, queries, epsilon):
    ...     return queries[0] + prng.laplace(scale=1 / epsilon)
    >>> str(program(noisy_count, epsilon=0.5))
    'noisy_count(epsilon=0.5)'
    """
    if not callable(func):
        raise InputError(f"a program must be a function, got {func!r}")
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        signature = None
    converted = {key: _convert(key, value) for key, value in kwargs.items()}
    if signature is not None:
        try:
            signature.bind(None, None, **converted)
        except TypeError as exc:
            raise InputError(f"{func.__name__} cannot be called as {func.__name__}(prng, queries"
                             f"{''.join(', ' + k + '=…' for k in converted)}): {exc}") from None
    epsilon = converted.get("epsilon")
    claimed = epsilon if isinstance(epsilon, Fraction | int) and not isinstance(epsilon, bool) \
        else None
    return Program(name=name or func.__name__, func=func, kwargs=tuple(converted.items()),
                   claimed_eps=Fraction(claimed) if claimed is not None else None,
                   params=converted)


def _load_file(path: Path):
    if not path.is_file():
        raise InputError(f"no such file: {path}")
    module_name = f"exactdp_user_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # pickling for worker processes finds it by name
    spec.loader.exec_module(module)
    return module


def load_program(spec: str, **kwargs) -> Program:
    """The program ``FILE.py:FUNCTION`` or ``package.module:FUNCTION`` with its keyword arguments.

    An error while importing the file is reported in one line (its type, message and line).
    """
    match = _SPEC.match(spec.strip())
    if match is None:
        raise InputError(f"a program must be given as FILE.py:FUNCTION or "
                         f"package.module:FUNCTION, got {spec!r}")
    source, function = match["source"], match["function"]
    try:
        if source.endswith(".py"):
            module = _load_file(Path(source))
        else:
            module = importlib.import_module(source)
    except InputError:
        raise
    except Exception as exc:  # the user's code: any error is reported, never a traceback
        line = ""
        if exc.__traceback__ is not None:
            line = f" (line {inspect.getinnerframes(exc.__traceback__)[-1].lineno})"
        raise InputError(f"cannot import {source}: {type(exc).__name__}: {exc}{line}") from None
    if not hasattr(module, function):
        raise InputError(f"{source} has no function {function}")
    return program(getattr(module, function), name=spec.strip(), **kwargs)
