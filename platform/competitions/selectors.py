"""Reads: competitions, phases, test sets and (for the scoring service only) gold labels."""

import hashlib
from pathlib import Path

from django.conf import settings
from django.db.models import Prefetch, QuerySet

from competitions.models import Competition, GoldAnswers, Phase, TestSet


def competition_get(*, slug: str) -> Competition | None:
    return (
        Competition.objects.filter(slug=slug)
        .prefetch_related(Prefetch("phases", queryset=Phase.objects.prefetch_related("test_sets__gold")))
        .first()
    )


def competition_list() -> QuerySet[Competition]:
    return Competition.objects.order_by("created_at")


def phase_get(*, competition: Competition, kind: str) -> Phase | None:
    return Phase.objects.filter(competition=competition, kind=kind).first()


def phase_by_slug(*, slug: str, kind: str, prefetch: tuple[str, ...] = ("test_sets",)) -> Phase | None:
    """The phase ``kind`` of the competition ``slug``, its competition joined and ``prefetch`` loaded."""
    return (
        Phase.objects.filter(competition__slug=slug, kind=kind)
        .select_related("competition")
        .prefetch_related(*prefetch)
        .first()
    )


def phase_expected_ids(*, phase: Phase) -> dict[int, frozenset[int]]:
    """``{subtask: test ids}`` for every test set of the phase: what an upload is validated against."""
    return {ts.subtask: frozenset(ts.question_ids) for ts in phase.test_sets.all()}


def gold_path(*, gold: GoldAnswers) -> Path:
    return Path(settings.GOLD_ROOT) / gold.path


def gold_labels(*, test_set: TestSet) -> tuple[dict[int, int], str] | None:
    """The gold ``{id: label}`` and its sha256, or None when no gold is loaded yet.

    The stored file is checked against the recorded sha256, so a score always names the exact gold it used.
    A CLOTH or SCDE test set (one with slots) has no ReCAM labels: None (its gold: competitions.task_formats).
    """
    if test_set.slots:
        return None
    gold = GoldAnswers.objects.filter(test_set=test_set).first()
    if gold is None:
        return None
    path = gold_path(gold=gold)
    # Read, checked and parsed once per process while the file stays the same (its recorded sha256, inode,
    # size, modification and change times: a file replaced by a rename has a new inode, one rewritten in
    # place a new change time): the scoring worker asks for it on every submission.
    stat = path.stat()
    version = (gold.sha256, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    known = _GOLD_READ.get(str(path))
    if known is not None and known[0] == version:
        return dict(known[1]), gold.sha256
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != gold.sha256:
        raise ValueError(f"{path}: sha256 {digest} differs from the recorded {gold.sha256}")
    labels: dict[int, int] = {}
    for lineno, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        qid, label = line.split(",")
        labels[int(qid)] = int(label)
        if not 0 <= labels[int(qid)] <= 4:
            raise ValueError(f"{path}, line {lineno}: label {label} out of range")
    _GOLD_READ[str(path)] = (version, dict(labels))
    return labels, digest


_GOLD_READ: dict[str, tuple[tuple, dict[int, int]]] = {}  # path -> (version, labels)
