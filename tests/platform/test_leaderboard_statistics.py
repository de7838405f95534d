"""Intervals and statistically tied ranks on the board: stored per score change, shown, exported, frozen."""

import csv
import datetime as dt
import io
import json
from unittest import mock

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse

from competitions.services import gold_store, phase_test_set_store
from leaderboards.intervals import leaderboard_statistics_refresh
from leaderboards.models import LeaderboardEntry, ScoreVector
from leaderboards.official import official_tables
from leaderboards.selectors import leaderboard_tables
from leaderboards.services import leaderboard_refresh_phase, official_result_freeze
from recam import stats
from recam.stats import accuracy_interval
from recam.submission import format_predictions
from submissions.services import submission_create
from tests.platform.factories import PhaseFactory, TeamFactory, UserFactory

Q = 400  # questions: enough for a 10-point difference to be significant


@pytest.fixture
def phase(db):
    phase = PhaseFactory(kind="practice", counted_policy="last")
    gold = {i: i % 5 for i in range(Q)}
    for subtask in (1, 2):
        test_set = phase_test_set_store(
            phase=phase, subtask=subtask, question_ids=list(range(Q)), source_name="t", source_sha256="0" * 64
        )
        gold_store(test_set=test_set, labels=gold, source_name="t")
    return phase


def _answers(right: set[int]) -> dict[int, int]:
    return {i: i % 5 if i in right else (i + 1) % 5 for i in range(Q)}


def _upload(capture, phase, team, right: set[int], *, trained_on: int = 1):
    with capture(execute=True):
        return submission_create(
            phase=phase,
            team=team,
            filename="subtask1.csv",
            data=format_predictions(_answers(right)).encode(),
            trained_on={1: trained_on},
        )


@pytest.fixture
def board(phase, django_capture_on_commit_callbacks):
    cap = django_capture_on_commit_callbacks
    rng = np.random.default_rng(5)
    base = set(np.flatnonzero(rng.random(Q) < 0.5).tolist())
    wrong = sorted(set(range(Q)) - base)
    teams = {
        n: TeamFactory(competition=phase.competition, name=n) for n in ("orig", "copy", "plus1", "strong")
    }
    _upload(cap, phase, teams["orig"], base)
    _upload(cap, phase, teams["copy"], base)  # identical file
    _upload(cap, phase, teams["plus1"], base | {wrong[0]})  # differs on one question
    _upload(cap, phase, teams["strong"], base | set(wrong[:60]))  # +15 points on the same questions
    _upload(cap, phase, teams["strong"], base | set(wrong[:40]), trained_on=2)  # its Acc. Cross
    return phase, base


def _rows(phase):
    (table,) = [t for t in leaderboard_tables(phase=phase) if t.subtask == 1]
    return {row.team: row for row in table.rows}


def test_identical_and_one_question_apart_tie_and_a_clearly_better_file_ranks_above(board):
    phase, base = board
    rows = _rows(phase)
    assert rows["strong"].rank == 1
    assert rows["strong"].rank_tied_with == ()
    assert {rows[n].rank for n in ("orig", "copy", "plus1")} == {2}
    assert rows["orig"].rank_tied_with == ("copy", "plus1")
    assert rows["strong"].rank_test.startswith("exact McNemar")
    # The stored interval is the one recam.stats computes from the same answers.
    expected = accuracy_interval(correct=[int(i in base) for i in range(Q)])
    assert (rows["orig"].accuracy_lo, rows["orig"].accuracy_hi) == pytest.approx((expected.lo, expected.hi))
    strong = rows["strong"]
    assert strong.cross_accuracy_lo < strong.cross_accuracy < strong.cross_accuracy_hi
    assert 0 < strong.drop_lo < strong.drop < strong.drop_hi  # 5 points lower on the same questions


def test_statistics_are_written_per_score_change_not_per_page_view(board, client, django_assert_num_queries):
    phase, _ = board
    written = leaderboard_statistics_refresh(phase=phase)
    assert written == 0  # nothing changed since the last score: nothing recomputed or rewritten
    assert ScoreVector.objects.filter(error="").count() == 5
    url = reverse("leaderboard", args=[phase.competition.slug, phase.kind])
    client.get(url)  # fills the cache
    with django_assert_num_queries(1):
        page = client.get(url).content.decode()
    assert "±" in page
    assert '<sup class="tie">=</sup>' in page
    assert "exact McNemar test" in page


def test_exports_carry_interval_rank_and_ties_and_the_freeze_keeps_them(board, client):
    phase, _ = board
    args = [phase.competition.slug, phase.kind]
    rows = list(
        csv.DictReader(
            io.StringIO(client.get(reverse("leaderboard_export", args=[*args, "csv"])).content.decode())
        )
    )
    orig = next(r for r in rows if r["team"] == "orig")
    assert float(orig["accuracy_lo"]) < float(orig["accuracy"]) < float(orig["accuracy_hi"])
    assert (orig["rank"], orig["rank_tied_with"]) == ("2", "copy; plus1")
    data = json.loads(client.get(reverse("leaderboard_export", args=[*args, "json"])).content)
    strong = next(r for r in data["rows"] if r["team"] == "strong")
    assert strong["drop_lo"] < strong["drop"] < strong["drop_hi"]
    assert strong["rank_tied_with"] == []
    latex = client.get(reverse("leaderboard_export", args=[*args, "latex"])).content.decode()
    assert r"$\pm$" in latex
    assert "exact McNemar test" in latex
    assert r"2$^{=}$ & orig" in latex
    result = official_result_freeze(phase=phase)
    LeaderboardEntry.objects.filter(phase=phase).update(accuracy_lo=None, stat_rank=None)  # later changes...
    (frozen,) = [t for t in official_tables(result=result) if t.subtask == 1]
    frozen_orig = next(r for r in frozen.rows if r.team == "orig")  # ...do not reach the snapshot
    assert frozen_orig.accuracy_lo == float(orig["accuracy_lo"])
    assert frozen_orig.rank_tied_with == (
        "copy",
        "plus1",
    )


def test_a_team_without_answers_per_question_keeps_the_rank_by_accuracy(board):
    phase, _ = board
    ScoreVector.objects.filter(score__submission__team__name="copy").update(correct="", error="gone")
    LeaderboardEntry.objects.filter(phase=phase).update(stats_key="")
    leaderboard_statistics_refresh(phase=phase)
    rows = _rows(phase)
    assert rows["strong"].rank == 1
    assert rows["plus1"].rank == 2
    assert rows["orig"].rank == 3
    assert rows["copy"].accuracy_lo is None
    assert rows["orig"].accuracy_lo is not None
    assert all(r.rank_test == "" for r in rows.values())


def test_the_api_board_carries_the_statistics(board, client):
    phase, _ = board
    body = client.get(f"/api/phases/{phase.kind}/leaderboard/?competition={phase.competition.slug}").json()
    (table,) = [t for t in body["tables"] if t["subtask"] == 1]
    orig = next(r for r in table["rows"] if r["team"] == "orig")
    assert orig["accuracy_lo"] < orig["accuracy"] < orig["accuracy_hi"]
    assert orig["rank"] == 2
    assert orig["rank_tied_with"] == ["copy", "plus1"]
    assert orig["rank_test"].startswith("exact McNemar")


def test_recounting_a_whole_phase_ranks_it_once_not_once_per_team(board, django_capture_on_commit_callbacks):
    phase, _ = board
    before = {row.team: (row.rank, row.rank_tied_with) for row in _rows(phase).values()}
    LeaderboardEntry.objects.filter(phase=phase).update(stats_key="", stat_rank=None)  # force a recompute
    with (
        mock.patch.object(stats, "rank_entries", wraps=stats.rank_entries) as ranked,
        mock.patch.object(stats, "accuracy_interval", wraps=stats.accuracy_interval) as intervals,
        django_capture_on_commit_callbacks(execute=True),  # the statistics task runs after the commit
    ):
        assert leaderboard_refresh_phase(phase=phase) == 4
    assert ranked.call_count == 1  # one table (Subtask 1) ranked once; per team it was 4 times
    assert intervals.call_count == 5  # each row's Acc once, plus the one Acc. Cross
    assert {row.team: (row.rank, row.rank_tied_with) for row in _rows(phase).values()} == before


def _baseline(capture, phase, name: str, right: set[int]):
    from teams.services import team_get_or_create_baseline

    team = team_get_or_create_baseline(competition=phase.competition, name=name)
    with capture(execute=True):
        submission_create(
            phase=phase,
            team=team,
            filename="subtask1.csv",
            data=format_predictions(_answers(right)).encode(),
            trained_on={1: 1},
            force=True,
        )


def test_baselines_are_unranked_and_neither_rank_nor_tie_with_teams(
    board, django_capture_on_commit_callbacks
):
    phase, base = board
    _baseline(django_capture_on_commit_callbacks, phase, "Perfect baseline", set(range(Q)))
    _baseline(django_capture_on_commit_callbacks, phase, "Copy baseline", base)  # orig's very answers
    (table,) = [t for t in leaderboard_tables(phase=phase) if t.subtask == 1]
    assert [row.team for row in table.rows[:2]] == ["Perfect baseline", "Copy baseline"]  # on top
    rows = {row.team: row for row in table.rows}
    for name in ("Perfect baseline", "Copy baseline"):
        assert (rows[name].rank, rows[name].rank_tied_with, rows[name].rank_test) == (None, (), "")
        assert rows[name].is_baseline
    assert rows["Copy baseline"].accuracy_lo == rows["orig"].accuracy_lo  # intervals like any row
    assert rows["strong"].rank == 1  # a better baseline does not push the teams down
    assert rows["orig"].rank_tied_with == ("copy", "plus1")  # nor joins their ties


def test_a_row_with_only_a_cross_result_names_its_system(phase, django_capture_on_commit_callbacks):
    team = TeamFactory(competition=phase.competition, name="cross only")
    with django_capture_on_commit_callbacks(execute=True):
        submission_create(
            phase=phase,
            team=team,
            filename="subtask1.csv",
            data=format_predictions(_answers(set(range(10)))).encode(),
            trained_on={1: 2},
            system_name="my-st2-system",
        )
    (table,) = [t for t in leaderboard_tables(phase=phase, with_submissions=True) if t.subtask == 1]
    (row,) = table.rows
    assert (row.rank, row.accuracy, row.system_name) == (None, None, "my-st2-system")


def test_numbers_do_not_wrap_and_organizers_get_links_to_analytics_and_fact_sheets(board, client):
    phase, _ = board
    url = reverse("leaderboard", args=[phase.competition.slug, phase.kind])
    page = client.get(url).content.decode()
    assert page.count('class="num acc" style="white-space:nowrap"') == 4  # "57.83 ±3.4" on one line
    assert page.count('class="num cross" style="white-space:nowrap"') == 4
    assert 'id="organizer-links"' not in page
    client.force_login(UserFactory(is_staff=True))
    page = client.get(url).content.decode()
    for subtask in (1, 2):
        assert reverse("question_analytics", args=[phase.competition.slug, phase.kind, subtask]) in page
    assert reverse("fact_sheets_export", args=[phase.competition.slug, phase.kind, "latex"]) in page


def test_the_text_board_of_the_command_shows_intervals_and_tie_marks(board):
    phase, _ = board
    out = io.StringIO()
    call_command(
        "recam_leaderboard", "--phase", phase.kind, "--competition", phase.competition.slug, stdout=out
    )
    text = out.getvalue()
    orig = next(line for line in text.splitlines() if " orig " in line)
    assert orig.split()[0] == "2="
    assert "±" in orig
    assert "=: rank shared with statistically tied teams (exact McNemar" in text


def test_a_burst_of_score_changes_queues_one_statistics_task(phase, settings):
    from leaderboards import statistics
    from leaderboards.models import PhaseStatistics
    from tasks.app import app

    app.conf.task_always_eager = False  # the debounce as a worker sees it (restored by the fixture)
    with mock.patch.object(statistics, "_send") as send:
        for _ in range(20):
            statistics.statistics_requested(phase_id=phase.pk)
    assert send.call_count == 1  # one claim per burst, whatever the number of changes
    state = PhaseStatistics.objects.get(phase=phase)
    assert (state.requested, state.computed, state.updating) == (20, 0, True)
    with mock.patch.object(statistics, "_send") as resend:
        assert statistics.statistics_run(phase_id=phase.pk) == "deferred"  # the burst has not gone quiet
    assert resend.call_count == 1
    assert 0 < resend.call_args.kwargs["countdown"] <= 1.0
    PhaseStatistics.objects.filter(phase=phase).update(
        requested_at=state.requested_at - dt.timedelta(seconds=5)
    )
    assert statistics.statistics_run(phase_id=phase.pk).startswith("version 1")
    state.refresh_from_db()
    assert (state.computed, state.recomputes, state.updating, state.scheduled_at) == (20, 1, False, None)
    with mock.patch.object(statistics, "_send") as send:
        statistics.statistics_requested(phase_id=phase.pk)  # a later change queues a new task
    assert send.call_count == 1


def test_an_older_snapshot_never_overwrites_a_newer_version(board):
    from leaderboards import intervals
    from leaderboards.models import PhaseStatistics

    phase, _ = board
    stale = intervals._snapshot(phase.pk)
    assert intervals.leaderboard_statistics_refresh(phase=phase) >= 0  # a newer recompute writes first
    assert intervals._write(phase.pk, stale, stale.entries) == -1
    assert PhaseStatistics.objects.get(phase=phase).recomputes == stale.version + 1


def test_scoring_stores_the_answer_vector_from_the_parsed_file(board):
    phase, _base = board
    vectors = ScoreVector.objects.filter(score__submission__phase=phase)
    assert vectors.count() == 5
    assert not vectors.filter(error__gt="").exists()
    with mock.patch("leaderboards.intervals.submission_parse_stored") as parse:
        LeaderboardEntry.objects.filter(phase=phase).update(stats_key="")
        leaderboard_statistics_refresh(phase=phase)
    parse.assert_not_called()  # the recompute reads the stored vectors: no file is parsed again


def test_the_board_says_which_statistics_version_it_shows_and_when_ranks_are_updating(board, client):
    from leaderboards.models import PhaseStatistics

    phase, _ = board
    url = reverse("leaderboard", kwargs={"slug": phase.competition.slug, "phase": phase.kind})
    state = PhaseStatistics.objects.get(phase=phase)
    page = client.get(url).content.decode()
    assert f"statistics version {state.recomputes}, computed" in page
    assert f"{state.computed_at:%Y-%m-%d %H:%M} UTC" in page
    assert "ranks-updating" not in page
    PhaseStatistics.objects.filter(phase=phase).update(requested=state.computed + 1)
    assert "ranks-updating" in client.get(url).content.decode()


def test_the_api_board_gives_the_statistics_version_and_whether_it_is_updating(board, client):
    from leaderboards.models import PhaseStatistics

    phase, _ = board
    url = f"/api/phases/{phase.kind}/leaderboard/?competition={phase.competition.slug}"
    state = PhaseStatistics.objects.get(phase=phase)
    body = client.get(url).json()
    assert (body["statistics_version"], body["statistics_updating"]) == (state.recomputes, False)
    PhaseStatistics.objects.filter(phase=phase).update(requested=state.computed + 1)
    assert client.get(url).json()["statistics_updating"] is True
