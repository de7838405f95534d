"""Intervals and tied ranks on CLOTH and SCDE boards, by the statistics task ReCAM boards use, equal to a
from-scratch ``recam.stats`` computation over the formats' own vectors; the metrics in the exports, the
organizers' download and the frozen snapshot."""

import csv
import importlib
import io
import json
import zipfile

import numpy as np
import pytest
from django.urls import reverse

from competitions.models import Competition
from competitions.task_formats import format_test_set_load
from leaderboards.intervals import leaderboard_statistics_refresh, score_vector_build
from leaderboards.models import LeaderboardEntry, OfficialResultRow, ScoreVector
from leaderboards.services import official_result_freeze
from recam import stats
from recam.formats import get_format
from recam.formats.blanks import format_blank_predictions
from recam.formats.cloth import ClothPassage, write_cloth
from recam.formats.scde import ScdePassage, write_scde
from submissions.models import Score
from submissions.services import submission_create
from tests.platform.factories import PhaseFactory, TeamFactory, member

RESAMPLES, SEED = 300, 11


def _cloth(rng) -> list[ClothPassage]:
    options = (("a", "b", "c", "d"),) * 5
    return [
        ClothPassage(
            id=pid,
            article=" ".join(["w _"] * 5),
            options=options,
            answers=tuple(int(a) for a in rng.integers(0, 4, 5)),
        )
        for pid in range(60)
    ]


def _scde(rng) -> list[ScdePassage]:
    passages = []
    for pid in range(80):
        blanks = 3 + pid % 3  # 3-5 blanks: BA over passages differs from the accuracy over blanks
        answers = tuple(int(a) for a in rng.permutation(7)[:blanks])
        sentences = tuple(s for k in range(1, blanks + 1) for s in (f"Passage {pid} sentence {k}.", f"<{k}>"))
        passages.append(
            ScdePassage(id=pid, sentences=sentences, candidates=tuple("ABCDEFG"), answers=answers)
        )
    return passages


def _answers(passages, rng, right_share: float) -> dict:
    """Predictions right on about ``right_share`` of the blanks, else another option."""
    predictions = {}
    for p in passages:
        for b, gold in enumerate(p.answers, start=1):
            choices = 4 if isinstance(p, ClothPassage) else len(p.candidates)
            predictions[(p.id, b)] = int(gold) if rng.random() < right_share else (int(gold) + 1) % choices
    return predictions


@pytest.fixture(params=["cloth", "scde"])
def board(request, db, settings, tmp_path, django_capture_on_commit_callbacks):
    """A phase of each format with 4 teams: two identical files, one a blank apart, one clearly better."""
    settings.RECAM_BOOTSTRAP_RESAMPLES, settings.RECAM_BOOTSTRAP_SEED = RESAMPLES, SEED
    fmt = request.param
    rng = np.random.default_rng(3)
    passages = _cloth(rng) if fmt == "cloth" else _scde(rng)
    path = tmp_path / f"{fmt}.jsonl"
    (write_cloth if fmt == "cloth" else write_scde)(path, passages)
    competition = Competition.objects.create(slug=f"{fmt}-stats", title=fmt, task_format=fmt)
    phase = PhaseFactory(competition=competition, counted_policy="last")
    format_test_set_load(phase=phase, path=path)
    base = _answers(passages, rng, 0.5)
    wrong = [key for key, label in base.items() if label != _gold(passages)[key]]
    strong = dict(base) | {key: _gold(passages)[key] for key in wrong[:80]}
    files = {"orig": base, "copy": dict(base), "plus1": base | {wrong[0]: _gold(passages)[wrong[0]]}}
    files["strong"] = strong
    for name, predictions in files.items():
        team = TeamFactory(competition=competition, name=name)
        member(team)
        with django_capture_on_commit_callbacks(execute=True):
            submission_create(
                phase=phase, team=team, filename="p.csv", data=format_blank_predictions(predictions).encode()
            )
    return phase, get_format(fmt), passages, files


def _gold(passages) -> dict:
    return {(p.id, b): int(label) for p in passages for b, label in enumerate(p.answers, start=1)}


def test_the_statistics_task_gives_intervals_and_ranks_equal_to_recam_stats_from_scratch(board):
    phase, fmt, passages, files = board
    entries = {e.team_name: e for e in LeaderboardEntry.objects.filter(phase=phase)}
    headline = fmt.metrics[0].key
    for name, predictions in files.items():
        items = fmt.vectors(predictions=predictions, records=passages)[headline]  # blanks, or passages (SCDE)
        expected = stats.accuracy_interval(correct=items, resamples=RESAMPLES, seed=SEED)
        entry = entries[name]
        assert entry.accuracy == pytest.approx(expected.estimate)
        assert (entry.accuracy_lo, entry.accuracy_hi) == pytest.approx((expected.lo, expected.hi))
    names = sorted(files, key=lambda n: (-entries[n].accuracy, entries[n].submitted_at))
    matrix = np.stack([fmt.rank_vector(predictions=files[n], records=passages) for n in names])
    ranking = stats.rank_entries(matrix=matrix)
    assert [entries[n].stat_rank for n in names] == list(ranking.ranks)
    assert entries["strong"].stat_rank == 1
    assert entries["orig"].stat_rank == entries["copy"].stat_rank == entries["plus1"].stat_rank == 2


def test_the_format_board_shows_interval_rank_ties_and_statistics_version(board, client):
    phase, fmt, _passages, _files = board
    page = client.get(reverse("leaderboard", args=[phase.competition.slug, phase.kind])).content.decode()
    assert f"{fmt.metrics[0].label} 95% interval</th>" in page
    assert f"over {fmt.interval_over}, 1,000 resamples" in page
    assert 'id="statistics-version"' in page
    row = page[page.index('data-team="orig"') :].split("</tr>")[0]
    assert '<sup class="tie">=</sup>' in row
    entry = LeaderboardEntry.objects.get(phase=phase, team_name="orig")
    assert f"{100 * entry.accuracy_lo:.2f}\u2013{100 * entry.accuracy_hi:.2f}" in row  # lo-hi
    assert 'id="chance-row"' in page


def test_a_score_without_a_vector_gets_it_built_from_the_stored_file(board):
    phase, _fmt, _passages, _files = board
    score = Score.objects.get(submission__team__name="plus1")
    stored = ScoreVector.objects.get(score=score)
    stored_bits = stored.correct
    assert len(stored_bits) == score.total
    assert stored_bits.count("1") == score.correct
    stored.delete()
    rebuilt = score_vector_build(score=score)
    assert (rebuilt.correct, rebuilt.gold_sha256, rebuilt.error) == (stored_bits, score.gold_sha256, "")
    LeaderboardEntry.objects.filter(phase=phase).update(stats_key="", stat_rank=None)
    leaderboard_statistics_refresh(phase=phase)
    assert LeaderboardEntry.objects.get(phase=phase, team_name="strong").stat_rank == 1


def test_exports_and_the_download_carry_every_metric(board, admin_client):
    phase, fmt, _passages, _files = board
    args = [phase.competition.slug, phase.kind]
    keys = [m.key for m in fmt.metrics]
    scores = {s.submission.team.name: s.metrics for s in Score.objects.select_related("submission__team")}
    rows = list(
        csv.DictReader(
            io.StringIO(admin_client.get(reverse("leaderboard_export", args=[*args, "csv"])).content.decode())
        )
    )
    for row in rows:
        assert {k: float(row[k]) for k in keys} == scores[row["team"]]
        assert row["accuracy_lo"] != ""
    exported = json.loads(admin_client.get(reverse("leaderboard_export", args=[*args, "json"])).content)
    assert exported["task_format"] == fmt.name
    assert exported["scorer_version"] == fmt.scorer_version
    assert [m["key"] for m in exported["metrics"]] == keys
    assert {r["team"]: r["metrics"] for r in exported["rows"]} == scores
    archive = zipfile.ZipFile(
        io.BytesIO(
            b"".join(admin_client.get(reverse("phase_submissions_download", args=args)).streaming_content)
        )
    )
    manifest = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode())))
    assert {r["team"]: {k: float(r[k]) for k in keys} for r in manifest} == scores


def test_the_latex_and_the_text_table_have_a_column_per_metric_and_the_chance_row(board, admin_client):
    from django.core.management import call_command

    phase, fmt, _passages, _files = board
    args = [phase.competition.slug, phase.kind]
    latex = admin_client.get(reverse("leaderboard_export", args=[*args, "latex"])).content.decode()
    labels = [m.label for m in fmt.metrics]
    assert " & ".join(["Rank", "Team", *labels]) + r" \\" in latex
    assert "Acc. Cross" not in latex
    strong = LeaderboardEntry.objects.get(phase=phase, team_name="strong")
    half = (strong.accuracy_hi - strong.accuracy_lo) / 2
    assert f"1 & strong & {100 * strong.accuracy:.2f}$\\pm${100 * half:.2f}" in latex
    assert "\n- & Chance & " in latex
    assert f"bootstrap interval over {fmt.interval_over}" in latex
    out = io.StringIO()
    call_command(
        "recam_leaderboard", "--competition", phase.competition.slug, "--phase", phase.kind, stdout=out
    )
    text = out.getvalue()
    assert all(label in text.splitlines()[2] for label in labels)
    assert any(line.split()[:2] == ["-", "Chance"] for line in text.splitlines())
    assert f"{100 * strong.accuracy:.2f} ±{100 * half:.2f}" in text


def test_the_api_board_carries_the_format_its_scorer_and_every_metric(board, client):
    phase, fmt, _passages, _files = board
    body = client.get(f"/api/phases/{phase.kind}/leaderboard/?competition={phase.competition.slug}").json()
    assert (body["task_format"], body["scorer_version"]) == (fmt.name, fmt.scorer_version)
    assert [m["key"] for m in body["metrics"]] == [m.key for m in fmt.metrics]
    scores = {s.submission.team.name: s.metrics for s in Score.objects.select_related("submission__team")}
    assert {row["team"]: row["metrics"] for row in body["tables"][0]["rows"]} == scores


def test_the_freeze_keeps_the_metrics_intervals_and_ranks_of_its_moment(board, client):
    phase, fmt, _passages, _files = board
    result = official_result_freeze(phase=phase, frozen_by="test")
    assert result.scorer_version == fmt.scorer_version
    frozen = {r.team_name: r for r in OfficialResultRow.objects.filter(result=result)}
    live = {e.team_name: e for e in LeaderboardEntry.objects.filter(phase=phase)}
    for name, entry in live.items():
        assert frozen[name].metrics == entry.metrics
        assert frozen[name].metrics == Score.objects.get(submission__team__name=name).metrics
        assert (frozen[name].accuracy_lo, frozen[name].rank) == (entry.accuracy_lo, entry.stat_rank)
    assert sorted(frozen["orig"].rank_tied_with) == ["copy", "plus1"]
    Score.objects.update(metrics={})  # a later change never reaches the snapshot
    LeaderboardEntry.objects.update(metrics={})
    page = client.get(reverse("leaderboard", args=[phase.competition.slug, phase.kind])).content.decode()
    row = page[page.index('data-team="strong"') :].split("</tr>")[0]
    cells = [c.split(">")[-1] for c in row.split("</td>") if 'class="num metric"' in c]
    shown = frozen["strong"].metrics
    assert cells[0] == f"{100 * shown[fmt.metrics[0].key]:.2f}"
    assert "Official results, frozen" in page


def test_the_migration_gives_rows_written_before_it_their_scores_metrics(board):
    from django.apps import apps

    migration = importlib.import_module("leaderboards.migrations.0006_board_metrics")
    phase, _fmt, _passages, _files = board
    result = official_result_freeze(phase=phase)
    LeaderboardEntry.objects.update(metrics={})
    OfficialResultRow.objects.update(metrics={})
    migration.copy_metrics(apps, None)
    scores = {s.submission.team.name: s.metrics for s in Score.objects.select_related("submission__team")}
    assert {e.team_name: e.metrics for e in LeaderboardEntry.objects.filter(phase=phase)} == scores
    assert {r.team_name: r.metrics for r in result.rows.all()} == scores
