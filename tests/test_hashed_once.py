"""A frozen dataclass's hash computed once and kept in its process (``exactdp/hashed_once.py``).

Reference: the hash of the fields' tuple, which the dataclass's own ``__hash__`` returns."""

import copy
import enum
import pickle
from dataclasses import dataclass
from fractions import Fraction

from exactdp.hashed_once import hashed_once


class Side(enum.Enum):
    LOW = "low"


@hashed_once
@dataclass(frozen=True)
class Pair:
    side: Side
    point: Fraction


def test_the_hash_is_the_fields_and_is_kept():
    pair = Pair(Side.LOW, Fraction(1, 3))
    assert hash(pair) == hash((Side.LOW, Fraction(1, 3)))
    assert pair.__dict__["_hash_once"] == hash(pair)
    assert pair == Pair(Side.LOW, Fraction(1, 3)) and {pair: 1}[Pair(Side.LOW, Fraction(1, 3))]


def test_a_copy_or_a_pickle_carries_the_fields_only():
    pair = Pair(Side.LOW, Fraction(1, 3))
    hash(pair)
    for other in (pickle.loads(pickle.dumps(pair)), copy.copy(pair), copy.deepcopy(pair)):
        assert "_hash_once" not in other.__dict__
        assert other == pair and hash(other) == hash(pair)
