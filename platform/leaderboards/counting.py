"""Which submission counts for a team, per leaderboard slot, under a phase's policy (pure, no queries).

A slot is (test subtask, cross): "Acc" is (s, False), "Acc. Cross" (Subtask 3) is (s, True). One upload
can fill several slots, so the policy is applied per slot:

- ``best``: the highest accuracy, the earlier submission on a tie;
- ``last``: the latest submission;
- ``selected``: the submission the team selected most recently among those covering the slot,
  else the latest (the default before any choice).
"""

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

Slot = tuple[int, bool]


@dataclass(frozen=True)
class Candidate:
    submission_id: int
    slot: Slot
    received_at: dt.datetime
    selected_at: dt.datetime | None = None
    accuracy: float | None = None


def counted_per_slot(*, policy: str, candidates: Iterable[Candidate]) -> dict[Slot, Candidate]:
    """The counted candidate of every slot that has one.

    >>> t = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)
    >>> a = Candidate(1, (1, False), t, accuracy=0.9)
    >>> b = Candidate(2, (1, False), t + dt.timedelta(hours=1), accuracy=0.8)
    >>> counted_per_slot(policy="best", candidates=[a, b])[(1, False)].submission_id
    1
    >>> counted_per_slot(policy="last", candidates=[a, b])[(1, False)].submission_id
    2
    """
    by_slot: dict[Slot, list[Candidate]] = {}
    for candidate in candidates:
        by_slot.setdefault(candidate.slot, []).append(candidate)
    return {slot: _pick(policy, group) for slot, group in by_slot.items()}


def _latest(group: list[Candidate]) -> Candidate:
    return max(group, key=lambda c: (c.received_at, c.submission_id))


def _pick(policy: str, group: list[Candidate]) -> Candidate:
    if policy == "best":
        scored = [c for c in group if c.accuracy is not None]
        if not scored:
            raise ValueError("policy 'best' needs candidates with an accuracy")
        return min(scored, key=lambda c: (-c.accuracy, c.received_at, c.submission_id))
    if policy == "last":
        return _latest(group)
    if policy == "selected":
        selected = [c for c in group if c.selected_at is not None]
        if selected:
            return max(selected, key=lambda c: (c.selected_at, c.submission_id))
        return _latest(group)
    raise ValueError(f"unknown counted policy {policy!r}: expected best, selected or last")
