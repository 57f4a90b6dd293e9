"""Linear expressions over the noises a traced program draws, and the symbolic ``prng`` that
draws them.

The function is called with a :class:`SymbolicPRNG` whose draws are *noise symbols*; arithmetic
on them builds :class:`Linear` expressions ``c + Σ_k a_k η_k`` with exact rational constants
(``exact_numbers.py``).  A comparison between expressions that contain noises is a *branch* of
the run being traced (``tracing.py``); ``.max()``/``.argmax()`` of an array of symbols
(:class:`SymbolicArray`) branch once per candidate winner.  While a program is traced, numpy's
array constructors build such an array from a list of expressions (:func:`numpy_of_symbols`).

The noises a program may draw are the entries of :data:`NOISES`, the one place where they are
recognised.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import threading
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq

from ..discrete_gaussian_law import DiscreteGaussian
from ..errors import InputError
from ..noise import DiscreteLaplace, Exponential, Gaussian, Gumbel, Laplace, NoiseLaw
from .exact_numbers import ONE, SYMBOLIC, ZERO, Exact, as_fraction, as_rational, to_fraction
from .locations import TracingError, describe_location, program_line, program_location, \
    unsupported


class Linear:
    """``const + Σ_k coeffs[k]·η_k`` over the noise symbols of the current run.

    Supports ``+``, ``-``, ``*`` and ``/`` by concrete numbers; a comparison with anything is a
    branch of the current run (``==`` with a continuous noise is false: it has probability 0;
    with a discrete one it is refused), but with a float infinity, which it answers at once.
    """

    __slots__ = ("coeffs", "const")
    __hash__ = None

    def __init__(self, coeffs: dict, const=ZERO):
        self.coeffs = coeffs
        self.const = const

    @property
    def is_constant(self) -> bool:
        return not self.coeffs

    def _add(self, other, sign=1):
        if isinstance(other, Linear):
            coeffs = dict(self.coeffs)
            for key, value in other.coeffs.items():
                total = coeffs.get(key, 0) + sign * value
                if total:
                    coeffs[key] = total
                else:
                    coeffs.pop(key, None)
            return Linear(coeffs, self.const + sign * other.const)
        value = as_rational(other)
        if value is None:
            return NotImplemented
        return Linear(self.coeffs, self.const + sign * value)

    def scaled(self, factor) -> "Linear":
        if factor == 0:
            return Linear({}, ZERO)
        return Linear({k: v * factor for k, v in self.coeffs.items()}, self.const * factor)

    def __add__(self, other):
        if type(other) is Exact:  # a query plus a noise: the common case, kept short
            return Linear(self.coeffs, self.const + other.value)
        return self._add(other)

    __radd__ = __add__
    def __sub__(self, other): return self._add(other, -1)
    def __rsub__(self, other):
        result = self._add(other, -1)
        return result if result is NotImplemented else result.scaled(-ONE)
    def __neg__(self): return self.scaled(-ONE)
    def __pos__(self): return self

    def __mul__(self, other):
        if isinstance(other, Linear):
            if other.is_constant:
                return self.scaled(other.const)
            if self.is_constant:
                return other.scaled(self.const)
            raise unsupported("a product of two noises")
        value = as_rational(other)
        return NotImplemented if value is None else self.scaled(value)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, Linear):
            if not other.is_constant:
                raise unsupported("a division by a noise")
            other = other.const
        value = as_rational(other)
        if value is None:
            return NotImplemented
        if value == 0:
            raise ZeroDivisionError("division by zero")
        return self.scaled(1 / value)

    def __rtruediv__(self, other):
        raise unsupported("a division by a noise")

    def _difference(self, other):
        difference = self - other
        if difference is NotImplemented:
            raise unsupported(f"a comparison of a noise with {type(other).__name__}")
        return difference

    def _compare(self, other, positive: bool, strict: bool) -> bool:
        if type(other) in _FLOATS and other in _INFINITIES:
            return (other < 0) == positive   # every value is above −∞ and below +∞
        run = current()
        if run.replaying and run.replays_by_coefficients:
            # a comparison the previous run already answered: its difference has a noise
            # whenever the two sides' coefficients differ, no need to build it
            kind = type(other)
            others = other.coeffs if kind is Linear else _NO_COEFFS if kind in _NUMBERS \
                else None
            if others is not None and self.coeffs != others:
                return run.replayed()
        return run.branch(self._difference(other), positive, strict)

    def __gt__(self, other): return self._compare(other, True, True)
    def __ge__(self, other): return self._compare(other, True, False)
    def __lt__(self, other): return self._compare(other, False, True)
    def __le__(self, other): return self._compare(other, False, False)

    def __eq__(self, other):
        difference = self - other
        if difference is NotImplemented:
            return False
        if difference.is_constant:
            return difference.const == 0
        settled = RUNS[-1].settle(difference, operator.eq) if RUNS else None
        if settled is not None:
            return settled
        if RUNS and RUNS[-1].integer_valued(difference.coeffs):
            raise unsupported("== or != of a discrete noise (a tie has a positive probability)")
        return False

    def __ne__(self, other):
        return not self == other

    def __bool__(self):
        if self.is_constant:
            return bool(self.const)
        raise unsupported("the truth value of a noise")

    def __float__(self):
        if self.is_constant:
            return float(self.const)
        raise unsupported("float() of a noise")

    def __int__(self):
        if self.is_constant:
            return int(self.const)
        raise unsupported("int() of a noise")

    def __index__(self):
        raise unsupported("a noise used as an integer (index, range, int)")

    def __abs__(self):
        return self if self >= 0 else -self

    def __pow__(self, other):
        raise unsupported("a power of a noise")

    def __round__(self, digits=None):
        raise unsupported("round() of a noise")

    __floor__ = __ceil__ = __trunc__ = __round__

    def with_fractions(self) -> "Linear":
        """The same expression with ``Fraction`` coefficients (as paths hand it out)."""
        return Linear({k: to_fraction(v) for k, v in self.coeffs.items()},
                      to_fraction(self.const))

    def __repr__(self):
        terms = " + ".join(f"{v}·η{k + 1}" for k, v in sorted(self.coeffs.items()))
        return f"{terms} + {self.const}" if terms else str(self.const)

    __array_priority__ = 100

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return SymbolicArray._apply(ufunc, method, inputs, kwargs)


SYMBOLIC.add(Linear)

#: The coefficients of a concrete number; the concrete number types of :meth:`Linear._compare`.
_NO_COEFFS: dict = {}
_NUMBERS = frozenset({int, float, Exact, fmpq, Fraction, np.float64, np.int64})
_FLOATS = frozenset({float, np.float64, np.float32})
_INFINITIES = (float("inf"), float("-inf"))


def _constant_or_linear(value: Linear):
    """A constant expression as its exact number, anything else unchanged."""
    return Exact(value.const) if type(value) is Linear and not value.coeffs else value


# ----------------------------------------------------------------------------- arrays of symbols

#: ufuncs applied element by element to arrays that hold expressions.
_UFUNCS = {np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.positive,
           np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
           np.maximum, np.minimum, np.absolute}
#: ufuncs whose ``reduce`` and ``accumulate`` are applied to arrays that hold expressions: sums
#: along an axis, ``.mean()``, ``.cumsum()``, and ``.any()``/``.all()`` of comparisons.
_REDUCED_UFUNCS = {np.add, np.logical_or, np.logical_and}


def _object_array(value):
    if isinstance(value, np.ndarray):
        return value.view(np.ndarray).astype(object) if value.dtype != object \
            else value.view(np.ndarray)
    if isinstance(value, Linear):
        box = np.empty((), dtype=object)
        box[()] = value
        return box
    return value


def _wrap(result):
    if isinstance(result, np.ndarray):
        if result.ndim == 0:
            return result[()]
        return result.view(SymbolicArray)
    return result


#: numpy's indexing, called directly (``super()`` would double the cost of ``noisy[i]``).
_NDARRAY_GETITEM = np.ndarray.__getitem__


class SymbolicArray(np.ndarray):
    """A numpy array (dtype object) holding expressions: element-wise arithmetic and comparisons
    with broadcasting, indexing, ``.max()``, ``.argmax()``, ``.min()``, ``.argmin()``,
    ``.sum()``, ``.mean()``, ``.cumsum()``, ``.any()``, ``.all()`` (and the numpy functions of
    the same names)."""

    @staticmethod
    def _apply(ufunc, method, inputs, kwargs):
        supported = ufunc in _UFUNCS if method == "__call__" else \
            method in ("reduce", "accumulate") and ufunc in _REDUCED_UFUNCS
        if not supported or kwargs.get("out") is not None:
            raise unsupported(f"numpy.{ufunc.__name__}"
                              f"{'' if method == '__call__' else '.' + method} on noises")
        if ufunc is np.maximum or ufunc is np.minimum:
            pick = (lambda a, b: a if a >= b else b) if ufunc is np.maximum \
                else (lambda a, b: a if a <= b else b)
            ufunc = np.frompyfunc(pick, 2, 1)
        elif ufunc is np.absolute:
            ufunc = np.frompyfunc(abs, 1, 1)
        kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}
        if method != "__call__":
            ufunc = getattr(ufunc, method)
        return _wrap(ufunc(*(_object_array(x) for x in inputs), **kwargs))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return self._apply(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        handler = _FUNCTIONS.get(func)
        if handler is not None:
            return handler(*args, **kwargs)
        if func in _PLAIN_FUNCTIONS:
            args = tuple(a.view(np.ndarray) if isinstance(a, SymbolicArray) else a for a in args)
            return _wrap(func(*args, **kwargs))
        raise unsupported(f"numpy.{func.__name__} on noises")

    def _extreme(self, axis=None, out=None, keepdims=False, largest=True, options=None):
        if axis is not None or out is not None or keepdims:
            raise unsupported("max/argmax with axis, out or keepdims on noises")
        if options:  # numpy's ``initial`` and ``where`` of max/min
            raise unsupported(f"max/min with {', '.join(sorted(options))} on noises")
        return current().extreme(list(self.view(np.ndarray).ravel()), largest)

    def argmax(self, axis=None, out=None, keepdims=False):
        return self._extreme(axis, out, keepdims)[0]

    def max(self, axis=None, out=None, keepdims=False, **options):
        return self._extreme(axis, out, keepdims, options=options)[1]

    def argmin(self, axis=None, out=None, keepdims=False):
        return self._extreme(axis, out, keepdims, largest=False)[0]

    def min(self, axis=None, out=None, keepdims=False, **options):
        return self._extreme(axis, out, keepdims, largest=False, options=options)[1]

    def sum(self, axis=None, **kwargs):
        if kwargs.get("out") is not None:
            raise unsupported("sum with out on noises")
        if axis is not None:
            return _wrap(self.view(np.ndarray).sum(axis=axis, **kwargs))
        total = Linear({}, ZERO)
        for item in self.view(np.ndarray).ravel():
            total = total + item
        return _constant_or_linear(total)

    def __getitem__(self, index):
        item = _NDARRAY_GETITEM(self, index)
        if type(item) is SymbolicArray and not item.size and self.size and RUNS:
            RUNS[-1].empty_index = program_location()  # named if the program returns no value
        return item

    def tolist(self):
        return list(self.view(np.ndarray).ravel()) if self.ndim == 1 \
            else self.view(np.ndarray).tolist()

    def __float__(self):
        raise unsupported("float() of an array of noises")

    def astype(self, dtype, *args, **kwargs):
        if np.dtype(dtype) != object:
            raise unsupported(f"astype({np.dtype(dtype)}) of an array of noises")
        return self


_FUNCTIONS = {
    np.argmax: SymbolicArray.argmax, np.max: SymbolicArray.max, np.amax: SymbolicArray.max,
    np.argmin: SymbolicArray.argmin, np.min: SymbolicArray.min, np.amin: SymbolicArray.min,
    np.sum: SymbolicArray.sum,
}
#: Functions that only move entries around, add them, scale them by numbers or read their truth
#: values: applied to the object array as they are.
_PLAIN_FUNCTIONS = {np.concatenate, np.append, np.stack, np.hstack, np.vstack, np.copy,
                    np.asarray, np.array, np.atleast_1d, np.ravel, np.reshape, np.flip,
                    np.shape, np.ndim, np.size, np.full_like, np.zeros_like,
                    np.mean, np.cumsum, np.dot, np.where, np.count_nonzero, np.any, np.all}


# ----------------------------------------------------------------------------- numpy's entry points

def _symbolic_if_noisy(array):
    """``array`` as a :class:`SymbolicArray` when, in a traced run, it is numpy's object array
    holding expressions; anything else unchanged."""
    if RUNS and type(array) is np.ndarray and array.dtype == object \
            and any(isinstance(item, Linear) for item in array.flat):
        return array.view(SymbolicArray)
    return array


def _symbolic_constructor(construct):
    """numpy's ``construct`` (``array``, ``asarray``, ``asanyarray``) building a
    :class:`SymbolicArray` from expressions: ``np.array([q + prng.laplace(…) for q in
    queries])`` is then the noisy vector ``prng.laplace(…, size=n)`` makes, whose ``.argmax()``
    is one event (numpy's own scan of an object array compares its entries pairwise, a chain of
    comparisons)."""
    @functools.wraps(construct)
    def constructor(*args, **kwargs):
        return _symbolic_if_noisy(construct(*args, **kwargs))
    return constructor


def _sequence_as_array(function):
    """numpy's ``function`` of :data:`_FUNCTIONS` (``np.argmax``, ``np.max``, …) taking a list
    or tuple of expressions as the :class:`SymbolicArray` of them."""
    @functools.wraps(function)
    def on_sequences(a, *args, **kwargs):
        if RUNS and isinstance(a, (list, tuple)):
            a = _symbolic_if_noisy(_NUMPY_ORIGINALS["asarray"](a))
        return function(a, *args, **kwargs)
    return on_sequences


#: numpy's entry points replaced while a program is traced (:func:`numpy_of_symbols`).
_NUMPY_ORIGINALS = {name: getattr(np, name) for name in
                    ("array", "asarray", "asanyarray",
                     *(function.__name__ for function in _FUNCTIONS))}
_NUMPY_REPLACEMENTS = {
    name: (_symbolic_constructor if name in ("array", "asarray", "asanyarray")
           else _sequence_as_array)(original)
    for name, original in _NUMPY_ORIGINALS.items()}
_numpy_users = 0
_NUMPY_LOCK = threading.Lock()


@contextlib.contextmanager
def numpy_of_symbols():
    """While open, ``np.array``, ``np.asarray`` and ``np.asanyarray`` of expressions build a
    :class:`SymbolicArray`, and ``np.argmax``, ``np.max``, … of a list of expressions take it
    as one (:func:`_symbolic_constructor`, :func:`_sequence_as_array`); outside a traced run
    they are numpy's.  Entry points reached otherwise than as attributes of the ``numpy``
    module (``from numpy import array``) are numpy's own."""
    global _numpy_users
    with _NUMPY_LOCK:
        if not _numpy_users:
            for name, replacement in _NUMPY_REPLACEMENTS.items():
                setattr(np, name, replacement)
        _numpy_users += 1
    try:
        yield
    finally:
        with _NUMPY_LOCK:
            _numpy_users -= 1
            if not _numpy_users:
                for name, original in _NUMPY_ORIGINALS.items():
                    setattr(np, name, original)


# ----------------------------------------------------------------------------- the symbolic prng

@dataclass(frozen=True)
class Noise:
    """One draw: its law and the program location ``(file, line)`` that drew it."""

    law: NoiseLaw
    location: tuple

    @property
    def line(self) -> str:
        """``file:line: source`` of the draw."""
        return describe_location(self.location)


def draw_scale(value, law_name: str) -> Fraction:
    """The exact scale of a draw (a :class:`TracingError` naming the program's line if it is
    not a number or negative)."""
    scale = as_fraction(value.const if isinstance(value, Linear) and value.is_constant
                        else value)
    if scale is None:
        raise unsupported(f"a {law_name} scale that is not a number ({value!r})")
    if scale < 0:
        raise TracingError(f"a {law_name} scale must not be negative, got {scale} "
                           f"(at {program_line()})")
    return scale


def _size(size):
    if size is None:
        return None
    if isinstance(size, tuple):
        if len(size) != 1:
            raise unsupported(f"a draw of shape {size}")
        size = size[0]
    return operator.index(size)


@dataclass(frozen=True)
class NoiseDraw:
    """A noise a traced program may draw: its name in messages, its law made from its scale,
    whether it takes numpy's ``loc``, and whether it is a method of ``prng`` (numpy's
    signature) or an exactdp function taking ``prng`` (:func:`discrete_laplace`,
    :func:`discrete_gaussian`)."""

    name: str
    law: type
    located: bool = True
    prng_method: bool = True


#: The noises a traced program may draw, by name: the one place where they are recognised.
NOISES = {
    "laplace": NoiseDraw("Laplace", Laplace),
    "exponential": NoiseDraw("exponential", Exponential, located=False),
    "gumbel": NoiseDraw("Gumbel", Gumbel),
    "normal": NoiseDraw("normal", Gaussian),
    "discrete_laplace": NoiseDraw("discrete Laplace", DiscreteLaplace, located=False,
                                  prng_method=False),
    "discrete_gaussian": NoiseDraw("discrete Gaussian", DiscreteGaussian, located=False,
                                   prng_method=False),
}


class SymbolicPRNG:
    """The ``prng`` a traced program receives: the methods of :data:`NOISES` (numpy's
    signatures: ``laplace``, ``exponential``, ``gumbel``, ``normal``) draw noise symbols; any
    other method is refused."""

    def __init__(self, run):
        self._run = run  # the run being traced (``tracing.Run``)

    def draw(self, noise: str, loc, scale, size):
        """``size`` draws (``None``: one) of ``loc +`` the noise :data:`NOISES` names."""
        kind = NOISES[noise]
        count = None if size is None else _size(size)
        run = self._run
        if count is None:
            return _constant_or_linear(run.draw(kind.name, kind.law, scale, loc))
        values = np.empty(count, dtype=object)
        for index in range(count):
            values[index] = run.draw(kind.name, kind.law, scale, loc)
        return values.view(SymbolicArray)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        known = ", ".join(f"prng.{n}" for n, d in NOISES.items() if d.prng_method)
        raise unsupported(f"prng.{name} (the exact interpreter knows {known})")


def _prng_method(name: str, located: bool):
    """The method ``prng.name`` with numpy's signature, drawing the noise ``NOISES[name]``."""
    if located:
        def method(self, loc=0.0, scale=1.0, size=None):
            return self.draw(name, loc, scale, size)
    else:
        def method(self, scale=1.0, size=None):
            return self.draw(name, 0, scale, size)
    method.__name__ = name
    return method


for _name, _noise in NOISES.items():
    if _noise.prng_method:
        setattr(SymbolicPRNG, _name, _prng_method(_name, _noise.located))


def discrete_laplace(prng, scale=1.0, size=None):
    """Discrete Laplace noise ``DLap(scale)`` on the integers (``exactdp.noise.DiscreteLaplace``):
    a plain numpy sample (an ``int`` array, or one ``int``) when the program runs, a noise
    symbol when it is traced.

    Parameters
    ----------
    prng : numpy.random.Generator or the traced program's symbolic prng
    scale : number
        ``b ≥ 0``: ``Pr[η = k] ∝ e^{−|k|/b}`` (0: no noise).
    size : int or None
    """
    if isinstance(prng, SymbolicPRNG):
        return prng.draw("discrete_laplace", 0, scale, size)
    value = as_fraction(scale)
    if value is None or value < 0:
        raise InputError(f"a discrete Laplace scale must be a non-negative number, got "
                         f"{scale!r}")
    if value == 0:
        return 0 if size is None else np.zeros(size, dtype=np.int64)
    draws = DiscreteLaplace(value).sample(prng, size, loc=0)
    return int(draws) if size is None else draws


def discrete_gaussian(prng, sigma=1.0, size=None):
    """Discrete Gaussian noise ``N_ℤ(0, σ²)`` on the integers
    (``exactdp.discrete_gaussian_law.DiscreteGaussian``; Canonne, Kamath & Steinke, NeurIPS
    2020): a plain numpy sample (an ``int`` array, or one ``int``) when the program runs, a
    noise symbol when it is traced.

    Parameters
    ----------
    prng : numpy.random.Generator or the traced program's symbolic prng
    sigma : number
        ``σ > 0``: ``Pr[η = k] ∝ e^{−k²/(2σ²)}``.
    size : int or None
    """
    value = as_fraction(sigma.const if isinstance(sigma, Linear) and sigma.is_constant
                        else sigma)
    if value is None or value <= 0:
        shown = repr(sigma) if value is None else value
        raise InputError(f"a discrete Gaussian sigma must be a positive number, got {shown}")
    if isinstance(prng, SymbolicPRNG):
        return prng.draw("discrete_gaussian", 0, value, size)
    draws = DiscreteGaussian(value).sample(prng, size, loc=0)
    return int(draws) if size is None else draws


def linear_key(coeffs: dict) -> tuple[tuple, Fraction]:
    """``(key, factor)`` with ``coeffs = factor · key`` and the first coefficient of ``key``
    equal to 1 (noises in drawing order)."""
    items = sorted(coeffs.items())
    factor = items[0][1]
    return tuple((k, v / factor) for k, v in items), factor



#: The runs being traced, innermost last (``tracing.trace`` pushes and pops them).
RUNS: list = []


def current():
    """The run being traced (an error outside of one)."""
    if not RUNS:
        raise InputError("a noise symbol was used outside of the traced program")
    return RUNS[-1]
