"""Reads: per-question analytics of a phase's board for the organizers (recam.analytics over ScoreVector rows).

One row per counted team with answers per question; optionally joined with the question-quality report
JSON of ``python -m datagen quality`` (read as plain JSON, never imported). Baseline rows are left out
unless asked for (``baselines=True``): the paper's analyses are of the participating systems, but on a
practice phase that only ``make baselines`` has filled, the baselines are the only answers there are.
"""

import csv
import io
import json
from dataclasses import dataclass, field

import numpy as np
from django.core.cache import cache
from django.db.models import Max

from competitions.models import Phase
from competitions.selectors import gold_labels
from leaderboards.models import LeaderboardEntry
from recam.analytics import OPTIONS, Analytics, analyse
from recam.records import loads_bounded
from submissions.models import Score

QUALITY_SUMMARY_KEYS = (
    "with_article_accuracy",
    "options_only_accuracy",
    "effective_options",
    "contextual_mi",
)
CACHE_SECONDS = 3600


class QualityReportError(ValueError):
    pass


@dataclass(frozen=True)
class QualityReport:
    summary: dict
    per_question: dict[int, dict] = field(default_factory=dict)


def quality_report_parse(*, data: bytes, name: str) -> QualityReport:
    """The datagen quality report: top-level summary numbers and a ``questions`` list (joined by id)."""
    try:
        report = loads_bounded(data.decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise QualityReportError(f"{name}: not a JSON file ({exc})") from exc
    except ValueError as exc:  # not UTF-8, or an integer of thousands of digits
        raise QualityReportError(f"{name}: {exc}") from exc
    if not isinstance(report, dict) or not isinstance(report.get("questions", []), list):
        raise QualityReportError(f"{name}: expected an object with a 'questions' list")
    per_question = {}
    for position, item in enumerate(report.get("questions", [])):
        if not isinstance(item, dict):
            raise QualityReportError(f"{name}: questions[{position}] is not an object")
        key = item.get("id", item.get("question_id", position))
        try:
            per_question[int(key)] = item
        except (TypeError, ValueError) as exc:
            raise QualityReportError(f"{name}: questions[{position}] has id {key!r}, not an integer") from exc
    summary = {k: report[k] for k in QUALITY_SUMMARY_KEYS if k in report}
    return QualityReport(summary=summary, per_question=per_question)


def phase_analytics(*, phase: Phase, subtask: int, baselines: bool = False) -> tuple[Analytics | None, int]:
    """The analytics of one test set (cached until the board changes) and the number of teams left out."""
    entries = LeaderboardEntry.objects.filter(phase=phase, test_subtask=subtask)
    if not baselines:
        entries = entries.filter(is_baseline=False)
    written = entries.aggregate(last=Max("updated_at"))["last"]
    stamp = written.timestamp() if written else 0
    key = f"analytics:{phase.pk}:{subtask}:{stamp}:{entries.count()}:{int(baselines)}"
    if (cached := cache.get(key)) is not None:
        return cached
    found = _matrix(phase, subtask, list(entries.exclude(submission=None).order_by("team_name")))
    result = (None, found[3]) if found[0] is None else _analyse(*found)
    cache.set(key, result, CACHE_SECONDS)
    return result


def phase_baseline_names(*, phase: Phase, subtask: int) -> set[str]:
    """The baseline rows' team names of one test set (the page marks them, or offers to include them)."""
    return set(
        LeaderboardEntry.objects.filter(phase=phase, test_subtask=subtask, is_baseline=True).values_list(
            "team_name", flat=True
        )
    )


def _analyse(choices, gold, teams, skipped, question_ids):
    return analyse(choices=choices, gold=gold, teams=teams, question_ids=question_ids), skipped


def _matrix(phase: Phase, subtask: int, entries: list[LeaderboardEntry]):
    test_set = phase.test_sets.filter(subtask=subtask).first()
    gold = gold_labels(test_set=test_set) if test_set else None
    if gold is None or not entries:
        return None, None, None, len(entries), None
    labels, gold_sha = gold
    ids = sorted(labels)
    scores = Score.objects.filter(
        submission_id__in=[e.submission_id for e in entries], test_subtask=subtask
    ).select_related("vector")
    vectors = {s.submission_id: getattr(s, "vector", None) for s in scores}
    rows, teams = [], []
    for entry in entries:
        vector = vectors.get(entry.submission_id)
        if (
            vector is None
            or vector.error
            or vector.gold_sha256 != gold_sha
            or len(vector.choices) != len(ids)
        ):
            continue
        rows.append(
            np.frombuffer(vector.choices.replace("-", "/").encode(), dtype=np.uint8).astype(np.int8) - 48
        )
        teams.append(entry.team_name)
    if not rows:
        return None, None, None, len(entries), None
    gold_vector = np.array([labels[i] for i in ids], dtype=np.int8)
    return np.stack(rows), gold_vector, teams, len(entries) - len(rows), ids  # "/" - "0" = -1: no answer


QUESTION_FIELDS = ["question_id", "gold", "share_correct"] + [f"pick_{k}" for k in range(OPTIONS)]
QUESTION_FIELDS += [
    "discrimination_pb",
    "irt_difficulty",
    "irt_discrimination",
    "flags",
    "strong_wrong_option",
]
QUESTION_FIELDS += ["unpicked_distractors"]


def analytics_rows(*, analytics: Analytics, quality: QualityReport | None = None) -> list[dict]:
    rows = []
    for q in analytics.questions:
        row = {
            "question_id": q.question_id,
            "gold": q.gold,
            "share_correct": round(q.share_correct, 4),
            **{f"pick_{k}": round(rate, 4) for k, rate in enumerate(q.pick_rates)},
            "discrimination_pb": None if q.discrimination_pb is None else round(q.discrimination_pb, 4),
            "irt_difficulty": None if q.irt_difficulty is None else round(q.irt_difficulty, 3),
            "irt_discrimination": None if q.irt_discrimination is None else round(q.irt_discrimination, 3),
            "flags": " ".join(q.flags),
            "strong_wrong_option": q.strong_wrong_option,
            "unpicked_distractors": " ".join(map(str, q.unpicked_distractors)),
        }
        if quality is not None:
            extra = quality.per_question.get(q.question_id, {})
            row |= {f"quality_{k}": v for k, v in extra.items() if k not in ("id", "question_id")}
        rows.append(row)
    return rows


def analytics_csv(*, analytics: Analytics, quality: QualityReport | None = None) -> str:
    rows = analytics_rows(analytics=analytics, quality=quality)
    fields = list(dict.fromkeys(QUESTION_FIELDS + [k for row in rows for k in row]))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
