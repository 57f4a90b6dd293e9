"""Each claim evaluated once per test session (shared by the ``test_claims_*`` modules)."""

from __future__ import annotations

import functools

from exactdp.claims import get_claim


@functools.cache
def result(claim_id: str):
    """The :class:`~exactdp.claims.ClaimResult` of ``claim_id``."""
    return get_claim(claim_id).evaluate(lambda: None)


def series(claim_id: str, label_start: str) -> dict:
    """``{size: point}`` of the series of ``claim_id`` whose label starts with ``label_start``."""
    points = {p["size"]: p for p in result(claim_id).points if p["series"].startswith(label_start)}
    assert points, f"no series starting with {label_start!r} in {claim_id}"
    return points
