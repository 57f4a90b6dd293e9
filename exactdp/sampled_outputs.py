"""Many runs' outputs as arrays: what the samplers produce and what events are decided on.

The samplers (``exactdp.sampling``) fill these arrays; the events (``exactdp.events``) read them
(:meth:`exactdp.events.Event.mask`), and the exact engine writes enumerated ⊤/⊥ outputs in the
same form (:meth:`Samples.of_outputs`) to decide which of them an event holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Code of a position the run never reached (it stopped at the cutoff).
ABSENT = -1


@dataclass(frozen=True)
class Samples:
    """The outputs of ``runs`` independent runs on ``n`` queries.

    Attributes
    ----------
    answers : numpy.ndarray of int8, shape (runs, n)
        1 for ⊤, 0 for ⊥, :data:`ABSENT` after the run stopped.
    values : numpy.ndarray of float, shape (runs, n), or None
        The released numbers at ⊤ positions (NaN elsewhere) for mechanisms that release numbers.
    """

    answers: np.ndarray
    values: np.ndarray | None

    @classmethod
    def of_outputs(cls, outputs: list, n: int) -> "Samples":
        """The ⊤/⊥ ``outputs`` (sequences of booleans, shorter than ``n`` after a stop) as one
        run each, without released numbers."""
        answers = np.full((len(outputs), n), ABSENT, dtype=np.int8)
        for row, output in enumerate(outputs):
            answers[row, :len(output)] = output
        return cls(answers, None)


@dataclass(frozen=True)
class Columns:
    """The column (one value per run) of each component requested, keyed by the component: the
    tester's statistics accumulated while drawing (``exactdp.sampling.streaming``)."""

    columns: dict

    def column(self, component) -> np.ndarray:
        """The column of ``component``."""
        return self.columns[component]
