"""The state of a traced program at a branch, as a key: two runs with equal keys have the same
future.

The program is deterministic given the answers to its comparisons (the premise of the forking
executor, ``tracing.py``), so what it does after a branch depends only on the state it is in
there: the frames of its own code (each one's code, the instruction it is at, its local
variables and cells, and its *value stack* — the operands it holds, a ``for`` loop's iterator
among them), the objects these reach, and the draws and step count of the run.
:func:`branch_state` builds that state as a hashable, structural snapshot: numbers by exact
value, the tracer's :class:`~.linear.Linear` expressions by their coefficients, lists, tuples,
dicts, sets, numpy arrays, cells, the builtin iterators (through ``__reduce__``, which exposes
their position), the program's own functions (code, defaults, closure) and the globals its code
names (code that names a way to read others — ``globals``, ``sys``, ``__dict__`` — is unknown),
with shared objects written once and referred to after (so that equal snapshots mean the same
object graph).  Objects of exactdp, numpy and the standard library — modules, classes,
builtin functions, library functions — enter by identity: they are constants of the trace
(kept alive for its duration, so that no identity is reused).  Anything else — an instance of a
class of the program, a generator, a frame entered from C code (``max()`` of noisy values, a
``sorted`` key), a ``try`` block, a bound method of an unknown object — makes the state unknown
(``None``), and the run is not merged.

CPython 3.11 does not expose a running frame's value stack to Python, so it is read from the
interpreter's frame record (``_PyInterpreterFrame``, ``Include/internal/pycore_frame.h``) with
``ctypes``: the frame's local slots, then as many stack slots as the stack holds — for the
innermost frame, which is at the comparison (``COMPARE_OP``) that called the tracer, the depth
before that instruction, found by following the stack effects of the code's instructions
(``dis.stack_effect``) and checked against the comparison's two operands on top; for a frame
that called the next one from Python, the stack pointer the interpreter saved.  Any other
interpreter version, or a frame whose layout does not check, gives ``None``.
"""

from __future__ import annotations

import ctypes
import dis
import os
import sys
import sysconfig
import types
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import fmpq, fmpz

from .exact_numbers import Exact
from .linear import Linear, SymbolicPRNG

#: The interpreter whose frame layout :class:`_InterpreterFrame` describes.
SUPPORTED = sys.implementation.name == "cpython" and sys.version_info[:2] == (3, 11)
#: ``PyFrameObject.f_frame``: after ``PyObject_HEAD`` and ``f_back``.
_FRAME_DATA_OFFSET = 3 * ctypes.sizeof(ctypes.c_void_p)
#: ``_PyInterpreterFrame.owner`` of a function's frame run by the thread (not a generator's).
_OWNED_BY_THREAD = 0
#: Instructions after which the next one is not executed.
_NO_FALLTHROUGH = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
                   "RETURN_VALUE", "RAISE_VARARGS", "RERAISE"}
#: The comparisons of :class:`Linear` that branch.
_COMPARISONS = {Linear.__gt__.__code__, Linear.__ge__.__code__, Linear.__lt__.__code__,
                Linear.__le__.__code__}
#: Immutable values compared by value (with their type: ``1``, ``1.0`` and ``True`` differ).
_VALUES = (type(None), bool, int, str, bytes, Fraction)
#: Builtin iterators whose ``__reduce__`` gives what they iterate and their position.
_ITERATORS = tuple({type(iter(x)) for x in ([], (), "", range(1), range(2 ** 64), {}, {}.values(),
                                            {}.items(), reversed([]), np.zeros(0))}
                   | {enumerate, zip, map, filter, reversed})
#: Globals of a module that describe it (identity, never its state).
_MODULE_METADATA = {"__builtins__", "__loader__", "__spec__"}
#: Names through which code can read globals it does not name, or state outside its objects.
_REFLECTIVE = {"globals", "vars", "locals", "eval", "exec", "compile", "__import__", "sys",
               "inspect", "importlib", "builtins", "gc", "__globals__", "__dict__", "f_globals",
               "__builtins__", "__closure__", "cell_contents", "__defaults__", "__kwdefaults__"}
#: Where library code lives: the standard library, installed packages, exactdp and numpy.
_LIBRARY = tuple(sorted({os.path.abspath(path) + os.sep for path in (
    *(sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")),
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    os.path.dirname(os.path.abspath(np.__file__)))}))


def _program_file(file_name) -> bool:
    """Whether a file is the program's own code (not a library's, not built in)."""
    return bool(file_name) and os.path.isabs(file_name) \
        and not os.path.abspath(file_name).startswith(_LIBRARY)


class _InterpreterFrame(ctypes.Structure):
    """The head of CPython 3.11's ``_PyInterpreterFrame``; ``localsplus`` follows it."""

    _fields_ = [("f_func", ctypes.c_void_p), ("f_globals", ctypes.c_void_p),
                ("f_builtins", ctypes.c_void_p), ("f_locals", ctypes.c_void_p),
                ("f_code", ctypes.c_void_p), ("frame_obj", ctypes.c_void_p),
                ("previous", ctypes.c_void_p), ("prev_instr", ctypes.c_void_p),
                ("stacktop", ctypes.c_int), ("is_entry", ctypes.c_bool),
                ("owner", ctypes.c_char)]


_LOCALSPLUS = ctypes.sizeof(_InterpreterFrame)
_POINTER = ctypes.sizeof(ctypes.c_void_p)


class _Unknown(Exception):
    """Part of the state cannot be snapshotted with certainty."""


def _record(frame) -> tuple[int, _InterpreterFrame]:
    """The address and head of a frame object's interpreter frame (checked against it)."""
    address = ctypes.c_void_p.from_address(id(frame) + _FRAME_DATA_OFFSET).value
    record = _InterpreterFrame.from_address(address)
    if record.f_code != id(frame.f_code) or record.frame_obj != id(frame) \
            or record.owner != bytes([_OWNED_BY_THREAD]):
        raise _Unknown
    return address, record


def _slots(address: int, start: int, stop: int) -> list:
    """The objects in ``localsplus[start:stop]`` (``_EMPTY`` for an unset slot)."""
    values = []
    for index in range(start, stop):
        pointer = ctypes.c_void_p.from_address(address + _LOCALSPLUS + _POINTER * index).value
        values.append(_EMPTY if pointer is None else ctypes.cast(pointer, ctypes.py_object).value)
    return values


_EMPTY = ("unset",)
_MISSING = ("missing",)


def _local_count(code) -> int:
    """``co_nlocalsplus``: the local, cell and free variables (a cell argument once)."""
    return len(set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars))


@lru_cache(maxsize=256)
def _stack_depths(code) -> dict | None:
    """The depth of the value stack before each instruction of ``code`` (offset → depth), by
    following the stack effects along every jump; ``None`` for code with an exception table
    (a ``try`` or ``with`` block) or inconsistent depths."""
    if code.co_exceptiontable:
        return None
    instructions = list(dis.get_instructions(code))
    index = {instruction.offset: k for k, instruction in enumerate(instructions)}
    depths: dict = {}
    work = [(0, 0)]
    while work:
        offset, depth = work.pop()
        while offset not in depths:
            depths[offset] = depth
            instruction = instructions[index[offset]]
            argument = instruction.arg if instruction.opcode >= dis.HAVE_ARGUMENT else None
            jumps = instruction.opcode in dis.hasjrel or instruction.opcode in dis.hasjabs
            if jumps:
                work.append((instruction.argval, depth + dis.stack_effect(
                    instruction.opcode, argument, jump=True)))
                depth += dis.stack_effect(instruction.opcode, argument, jump=False)
            else:
                depth += dis.stack_effect(instruction.opcode, argument)
            following = index[offset] + 1
            if instruction.opname in _NO_FALLTHROUGH or following == len(instructions):
                break
            offset = instructions[following].offset
        else:
            if depths[offset] != depth:
                return None
    return depths


def _instruction(code, offset: int) -> str:
    """The name of the instruction a frame is at: an inlined call leaves the frame's last
    offset on the call's last inline cache entry."""
    codes = code.co_code
    while dis.opname[codes[offset]] == "CACHE" and offset > 0:
        offset -= 2
    return dis.opname[codes[offset]]


def _frame_values(frame, innermost: bool, operands: tuple) -> tuple[list, list]:
    """The local slots and the value stack of a frame of the program (module docstring)."""
    address, record = _record(frame)
    code = frame.f_code
    count = _local_count(code)
    if innermost:
        if _instruction(code, frame.f_lasti) != "COMPARE_OP":
            raise _Unknown
        depth = (_stack_depths(code) or {}).get(frame.f_lasti)
        if depth is None or depth < 2 or depth > code.co_stacksize:
            raise _Unknown
        top = [ctypes.c_void_p.from_address(address + _LOCALSPLUS + _POINTER * (count + k)).value
               for k in (depth - 2, depth - 1)]
        if top != [id(operand) for operand in operands] \
                and top != [id(operand) for operand in reversed(operands)]:
            raise _Unknown
    else:
        if _instruction(code, frame.f_lasti) != "CALL":
            raise _Unknown
        depth = record.stacktop - count
        if not 0 <= depth <= code.co_stacksize:
            raise _Unknown
    return _slots(address, 0, count), _slots(address, count, count + depth)


def branch_state(compare_frame, entry_frame, prng: SymbolicPRNG, pinned: list):
    """The state of the program at a comparison of :class:`Linear` that branches, as a hashable
    snapshot, or ``None`` when part of it is unknown (module docstring).

    Parameters
    ----------
    compare_frame : frame
        The frame of ``Linear._compare`` for the comparison.
    entry_frame : frame
        The tracer's frame that called the program.
    prng : SymbolicPRNG
        The run's ``prng`` (its state is the run's, keyed by the caller).
    pinned : list
        Objects that enter by identity are appended (kept alive while keys are compared).
    """
    if not SUPPORTED or compare_frame.f_code is not Linear._compare.__code__:
        return None
    try:
        comparison = compare_frame.f_back
        if comparison.f_code not in _COMPARISONS or not _record(comparison)[1].is_entry \
                or _record(compare_frame)[1].is_entry:
            return None
        operands = tuple(_slots(_record(compare_frame)[0], 0, 2))
        snapshot = _Snapshot(prng, pinned)
        frames = []
        frame, callee = comparison.f_back, None
        while frame is not entry_frame:
            if frame is None or not _program_file(frame.f_code.co_filename) \
                    or (callee is not None and _record(callee)[1].is_entry):
                return None   # a frame entered from C code, whose state is not visible
            local, stack = _frame_values(frame, callee is None, operands)
            frames.append((snapshot.identity(frame.f_code), frame.f_lasti,
                           snapshot.of(local), snapshot.of(stack),
                           snapshot.of_globals(frame.f_globals, frame.f_code)))
            frame, callee = frame.f_back, frame
        return tuple(frames) if frames else None
    except _Unknown:
        return None


class _Snapshot:
    """A structural snapshot of objects, shared objects referred to by their first visit."""

    def __init__(self, prng: SymbolicPRNG, pinned: list):
        self.prng, self.pinned, self.seen = prng, pinned, {}
        self.alive: list = []   # what was seen, so that no id is reused during the snapshot

    def identity(self, value) -> tuple:
        """A constant of the trace, by identity."""
        self.pinned.append(value)
        return ("is", id(value))

    def of(self, value):
        kind = type(value)
        if kind in _VALUES:
            return kind, value
        if kind is float:
            return kind, value.hex()
        if kind is fmpq or kind is fmpz:
            return exact_pair(value)
        if kind is Exact:
            return "Exact", exact_pair(value.value)
        if value is _EMPTY or value is Ellipsis or value is NotImplemented:
            return self.identity(value)
        if kind is SymbolicPRNG:
            if value is not self.prng:
                raise _Unknown
            return ("prng",)
        seen = self.seen.get(id(value))
        if seen is not None:
            return "seen", seen
        self.seen[id(value)] = len(self.seen)
        self.alive.append(value)
        return self._structure(kind, value)

    def _structure(self, kind, value):
        if kind is Linear:
            return "Linear", tuple(sorted((k, exact_pair(v)) for k, v in value.coeffs.items())), \
                exact_pair(value.const)
        if kind in (list, tuple, set, frozenset):
            return kind, tuple(self.of(item) for item in value)
        if kind is dict:
            return kind, tuple((self.of(k), self.of(v)) for k, v in value.items())
        if isinstance(value, np.ndarray):
            return self._array(value)
        if isinstance(value, np.generic) and value.dtype != object:
            return kind, value.dtype.str, value.tobytes()
        if kind in (range, slice):
            return kind, self.of(value.start), self.of(value.stop), self.of(value.step)
        if kind is types.CellType:
            try:
                return kind, self.of(value.cell_contents)
            except ValueError:
                return kind, _EMPTY
        if kind in _ITERATORS:
            return kind, self.of(value.__reduce__())
        if kind is types.FunctionType:
            return self._function(value)
        if kind is types.MethodType:
            return kind, self.of(value.__func__), self.of(value.__self__)
        if kind is types.BuiltinFunctionType:
            owner = value.__self__
            if owner is None or type(owner) is types.ModuleType:
                return self.identity(value)
            return kind, value.__name__, self.of(owner)
        if kind is types.ModuleType:
            if _program_file(getattr(value, "__file__", None)):
                return kind, self.of_module(vars(value))
            return self.identity(value)
        if isinstance(value, type):
            if _program_file(getattr(sys.modules.get(value.__module__), "__file__", None)):
                raise _Unknown   # a class of the program: its attributes are state
            return self.identity(value)
        raise _Unknown

    def _array(self, value: np.ndarray):
        geometry = (type(value), value.dtype.str, value.shape, value.strides)
        if value.base is not None:
            base = value.base
            if not isinstance(base, np.ndarray):
                raise _Unknown
            offset = value.__array_interface__["data"][0] - base.__array_interface__["data"][0]
            return geometry + (offset, self.of(base))
        if value.dtype == object:
            return geometry + (tuple(self.of(item) for item in value.ravel(order="K")),)
        return geometry + (value.tobytes(order="A"),)

    def _function(self, value: types.FunctionType):
        code = value.__code__
        if not _program_file(code.co_filename):
            return self.identity(value)
        return (types.FunctionType, self.identity(code), self.of(value.__defaults__),
                self.of(value.__kwdefaults__), self.of(value.__closure__),
                self.of(value.__dict__), self.of_globals(value.__globals__, code))

    def of_module(self, namespace: dict):
        """A module of the program reached as a value: its builtins, loader and spec by
        identity, the rest as values."""
        seen = self.seen.get(id(namespace))
        if seen is not None:
            return "seen", seen
        self.seen[id(namespace)] = len(self.seen)
        self.alive.append(namespace)
        return "module", tuple(
            (name, self.identity(item) if name in _MODULE_METADATA else self.of(item))
            for name, item in namespace.items())

    def of_globals(self, namespace: dict, code):
        """The globals ``code`` can read: the names it (or a function defined in it) uses;
        unknown when it names a way to reach others (:data:`_REFLECTIVE`)."""
        names = _global_names(code)
        if names is None:
            raise _Unknown
        return "globals", tuple(
            (name, self.of(namespace[name]) if name in namespace else _MISSING)
            for name in names if name not in _MODULE_METADATA)


@lru_cache(maxsize=256)
def _global_names(code) -> tuple | None:
    """The names ``code`` and the code objects among its constants use (global reads, and
    attributes: a superset), or ``None`` when one of them is in :data:`_REFLECTIVE`."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            inner = _global_names(constant)
            if inner is None:
                return None
            names.update(inner)
    return None if names & _REFLECTIVE else tuple(sorted(names))


def exact_pair(value) -> tuple[int, int]:
    """An exact rational as ``(numerator, denominator)``."""
    if type(value) is fmpz:
        return int(value), 1
    if type(value) is fmpq:
        return int(value.p), int(value.q)
    return value.numerator, value.denominator
