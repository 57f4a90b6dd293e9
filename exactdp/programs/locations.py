"""The program line an error names: the innermost frame of the user's code being traced.

A traced program's unsupported operation (:func:`unsupported`) and a failure while it runs are
reported as one line, ``file:line: source``, found by walking the stack past exactdp's
interpreter and numpy.
"""

from __future__ import annotations

import linecache
import os
import sys

import numpy as np

from ..errors import InputError

_HERE = os.path.dirname(os.path.abspath(__file__))
_NUMPY = os.path.dirname(os.path.abspath(np.__file__))


class TracingError(InputError):
    """A program uses an operation the exact interpreter does not model."""


#: co_filename → whether it is the user's code (not exactdp's interpreter, not numpy).
_USER_FILES: dict = {}
#: (co_filename, line) → whether the line is a ``while`` statement.
_WHILE_LINES: dict = {}


def is_user_code(file_name: str) -> bool:
    """Whether ``file_name`` (a code object's) is the user's code, not exactdp's interpreter
    nor numpy."""
    user = _USER_FILES.get(file_name)
    if user is None:
        user = _USER_FILES[file_name] = \
            not os.path.abspath(file_name).startswith((_HERE, _NUMPY))
    return user


def program_location() -> tuple[str, int]:
    """``(file, line)`` of the innermost frame of the user's program."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if is_user_code(name):
            return name, frame.f_lineno
        frame = frame.f_back
    return "unknown file", 0


def describe_location(location: tuple[str, int]) -> str:
    """``file:line: source`` of a program location."""
    name, line = location
    source = linecache.getline(name, line).strip()
    return f"{os.path.basename(name)}:{line}: {source}"


def program_line() -> str:
    """``file:line: source`` of the innermost frame of the user's program (outside exactdp's
    interpreter and numpy)."""
    return describe_location(program_location())


def in_while_condition() -> bool:
    """Whether the program's current line is a ``while`` statement."""
    location = program_location()
    answer = _WHILE_LINES.get(location)
    if answer is None:
        answer = _WHILE_LINES[location] = \
            linecache.getline(*location).lstrip().startswith("while ")
    return answer


def unsupported(what: str) -> TracingError:
    """The error for an operation the interpreter cannot trace, naming the program's line."""
    return TracingError(f"cannot trace {what} (at {program_line()})")
