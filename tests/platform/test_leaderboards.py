import csv
import datetime as dt
import io

import pytest
from django.urls import reverse

from competitions.services import gold_store, phase_test_set_store
from leaderboards.exports import board_records
from leaderboards.models import LeaderboardEntry
from leaderboards.selectors import leaderboard_tables
from leaderboards.services import leaderboard_refresh
from recam.submission import format_predictions
from submissions.models import Submission
from submissions.services import submission_create, submission_mark_failed
from teams.services import team_get_or_create_baseline
from tests.platform.factories import PhaseFactory, TeamFactory

N = 10  # questions per test set; gold label 0 everywhere


@pytest.fixture
def phase(db):
    phase = PhaseFactory()
    for subtask in (1, 2):
        test_set = phase_test_set_store(
            phase=phase, subtask=subtask, question_ids=list(range(N)), source_name="t", source_sha256="0" * 64
        )
        gold_store(test_set=test_set, labels=dict.fromkeys(range(N), 0), source_name="t")
    return phase


@pytest.fixture
def submit(phase, django_capture_on_commit_callbacks):
    def _submit(
        team, correct: int, *, subtask: int = 1, trained_on: int | None = None, when=None
    ) -> Submission:
        body = format_predictions({i: 0 if i < correct else 1 for i in range(N)}).encode()
        with django_capture_on_commit_callbacks(execute=True):
            submission = submission_create(
                phase=phase,
                team=team,
                filename=f"subtask{subtask}.csv",
                data=body,
                trained_on={subtask: trained_on or subtask},
            )
        if when is not None:  # pin the received time to order ties
            Submission.objects.filter(pk=submission.pk).update(received_at=when)
            submission.refresh_from_db()
            leaderboard_refresh(phase=phase, team=team)
        return submission

    return _submit


def _table(phase, subtask=1):
    return next(t for t in leaderboard_tables(phase=phase) if t.subtask == subtask)


def test_best_score_per_team_and_ties_share_a_rank_earlier_first(phase, submit):
    t0 = dt.datetime(2021, 1, 10, tzinfo=dt.UTC)
    a, b, c, d = (TeamFactory(competition=phase.competition, name=n) for n in ("a", "b", "c", "d"))
    submit(a, 6, when=t0)
    submit(a, 8, when=t0 + dt.timedelta(hours=3))  # a's best counts
    submit(b, 8, when=t0 + dt.timedelta(hours=1))  # same as a's best, but earlier
    submit(c, 9, when=t0 + dt.timedelta(hours=5))
    submit(d, 5, when=t0)
    rows = _table(phase).rows
    # Ten questions: no difference is significant (exact McNemar, Holm), so every team shares rank 1;
    # the order within a rank stays by accuracy, the earlier submission first.
    assert [(r.rank, r.team, r.correct) for r in rows] == [(1, "c", 9), (1, "b", 8), (1, "a", 8), (1, "d", 5)]
    assert rows[0].rank_tied_with == ("a", "b", "d")


def test_baselines_are_marked_and_unranked_on_top(phase, submit):
    submit(TeamFactory(competition=phase.competition, name="team"), 4)
    submit(team_get_or_create_baseline(competition=phase.competition, name="GA Reader"), 7)
    rows = _table(phase).rows
    assert [(r.rank, r.team, r.is_baseline) for r in rows] == [(None, "GA Reader", True), (1, "team", False)]


def test_cross_scores_fill_the_cross_column_with_the_drop(phase, submit):
    team = TeamFactory(competition=phase.competition)
    submit(team, 9, subtask=1)
    submit(team, 6, subtask=1, trained_on=2)
    (row,) = _table(phase).rows
    assert (row.accuracy, row.cross_accuracy) == (0.9, 0.6)
    assert row.drop == pytest.approx(0.3)


def test_a_team_with_only_a_cross_result_is_listed_unranked(phase, submit):
    submit(TeamFactory(competition=phase.competition, name="ranked"), 3)
    submit(TeamFactory(competition=phase.competition, name="cross-only"), 7, trained_on=2)
    rows = _table(phase).rows
    assert [(r.rank, r.team) for r in rows] == [(1, "ranked"), (None, "cross-only")]


def test_unscored_and_failed_submissions_never_appear(phase, submit, django_capture_on_commit_callbacks):
    scored_team = TeamFactory(competition=phase.competition, name="scored")
    submit(scored_team, 5)
    failed = submit(TeamFactory(competition=phase.competition, name="failed"), 9)
    submission_mark_failed(submission=failed, reason="test")
    with django_capture_on_commit_callbacks(execute=False):  # queued, never scored
        submission_create(
            phase=phase,
            team=TeamFactory(competition=phase.competition, name="queued"),
            filename="subtask1.csv",
            data=format_predictions(dict.fromkeys(range(N), 0)).encode(),
        )
    assert [r.team for r in _table(phase).rows] == ["scored"]
    assert set(LeaderboardEntry.objects.values_list("team_name", flat=True)) == {"scored"}


def test_rows_are_materialised_when_the_score_is_written(phase, submit):
    team = TeamFactory(competition=phase.competition)
    submit(team, 4)
    entry = LeaderboardEntry.objects.get(team=team, test_subtask=1)
    assert (entry.correct, entry.total) == (4, N)
    submit(team, 7)
    entry.refresh_from_db()
    assert (entry.correct, entry.total) == (7, N)


def test_export_records_carry_rank_and_counts(phase, submit):
    submit(TeamFactory(competition=phase.competition, name="x"), 3, subtask=2)
    (record,) = board_records(tables=leaderboard_tables(phase=phase))  # the one row -> dict mapping
    assert (record["test_subtask"], record["rank"], record["team"], record["correct"]) == (2, 1, "x", 3)


# The page's query count does not grow with the number of teams (anonymous visitor: no session query).
PAGE_QUERIES = 4  # the phase, the phase list, its test sets, the entries


@pytest.mark.parametrize("teams", [1, 30])
def test_leaderboard_page_costs_a_constant_number_of_queries(
    phase, submit, client, teams, django_assert_num_queries
):
    for i in range(teams):
        team = TeamFactory(competition=phase.competition)
        submit(team, i % N, subtask=1 + i % 2)
    url = reverse("leaderboard", args=[phase.competition.slug, phase.kind])
    with django_assert_num_queries(PAGE_QUERIES):
        response = client.get(url)
    assert response.status_code == 200
    assert response.content.count(b'class="num acc"') == teams


def test_entries_count_the_teams_scored_submissions_in_the_phase_on_page_and_exports(
    phase, submit, client, django_assert_num_queries
):
    owls, bats = (TeamFactory(competition=phase.competition, name=n) for n in ("Owls", "Bats"))
    submit(owls, 3)
    submit(owls, 7)
    submit(owls, 5, subtask=2)  # another test set: still an entry of the phase
    failed = submit(owls, 9)
    submission_mark_failed(submission=failed, reason="broken")  # no longer scored: not counted
    submit(bats, 4)
    rows = {row.team: row for row in _table(phase).rows}
    assert (rows["Owls"].entries, rows["Bats"].entries) == (3, 1)
    assert next(r for r in _table(phase, 2).rows if r.team == "Owls").entries == 3
    url = reverse("leaderboard", args=[phase.competition.slug, phase.kind])
    with django_assert_num_queries(PAGE_QUERIES):  # materialised on the row: no query per team
        page = client.get(url).content.decode()
    assert '<th class="num" title="scored submissions of the team in this phase">Entries</th>' in page
    assert page.count('<td class="num entries">3</td>') == 2  # Owls in both tables
    assert '<td class="num entries">1</td>' in page
    csv_text = client.get(reverse("leaderboard_export", args=[phase.competition.slug, phase.kind, "csv"]))
    header, *lines = csv_text.content.decode().splitlines()
    column = header.split(",").index("entries")
    assert sorted(line.split(",")[column] for line in lines) == ["1", "3", "3"]
    exported = client.get(reverse("leaderboard_export", args=[phase.competition.slug, phase.kind, "json"]))
    assert sorted(r["entries"] for r in exported.json()["rows"]) == [1, 3, 3]


def test_the_leaderboard_link_goes_to_the_first_phase_that_exists(db, client):
    competition = PhaseFactory(kind="evaluation", title="Evaluation", order=2).competition  # no practice
    PhaseFactory(competition=competition, kind="post-evaluation", title="Post", order=3)
    page = client.get(reverse("rules", args=[competition.slug])).content.decode()
    link = reverse("leaderboard_index", args=[competition.slug])
    assert f'href="{link}" id="nav-leaderboard"' in page
    response = client.get(link, follow=True)
    assert response.redirect_chain == [(reverse("leaderboard", args=[competition.slug, "evaluation"]), 302)]
    assert response.status_code == 200
    empty = PhaseFactory(kind="practice").competition
    empty.phases.all().delete()
    assert client.get(reverse("leaderboard_index", args=[empty.slug])).status_code == 404


def test_the_migration_fills_entries_of_rows_written_before_it(phase, submit):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("leaderboards.migrations.0004_console2_entries")
    owls = TeamFactory(competition=phase.competition, name="Owls")
    submit(owls, 3)
    submit(owls, 4, subtask=2)
    submit(TeamFactory(competition=phase.competition, name="Bats"), 5)
    LeaderboardEntry.objects.update(entries=None)  # as the rows were before the column existed
    migration.fill_entries(apps, None)
    filled = sorted(LeaderboardEntry.objects.values_list("team_name", "test_subtask", "entries"))
    assert filled == [("Bats", 1, 1), ("Owls", 1, 2), ("Owls", 2, 2)]


def test_the_csv_export_guards_formulas_in_team_and_system_names(phase, submit, client):
    """Red-team defect: a team named =HYPERLINK(...) went unescaped into the CSV export."""
    team = TeamFactory(competition=phase.competition, name='=HYPERLINK("https://evil.example","x")')
    submission = submit(team, 7)
    Submission.objects.filter(pk=submission.pk).update(system_name="@SUM(1+1)")
    leaderboard_refresh(phase=phase, team=team)
    response = client.get(reverse("leaderboard_export", args=[phase.competition.slug, phase.kind, "csv"]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows[0]["team"] == '\'=HYPERLINK("https://evil.example","x")'
    assert rows[0]["system_name"] == "'@SUM(1+1)"
    assert rows[0]["accuracy"] == "0.7"  # numbers are left alone
