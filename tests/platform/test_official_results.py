"""recam_freeze: an immutable snapshot; publishing shows it; CSV, JSON and LaTeX exports (paper Tables 6-7)."""

import csv
import io
import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from competitions.models import GoldAnswers
from leaderboards.exports import latex_cross
from leaderboards.models import OfficialResult
from leaderboards.official import official_tables
from leaderboards.selectors import LeaderboardRow
from recam.metrics import SCORER_VERSION
from teams.services import team_get_or_create_baseline
from tests.platform.factories import TeamFactory
from tests.platform.ops import N, make_phase, submit


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def board(db, django_capture_on_commit_callbacks):
    phase = make_phase(kind="evaluation", results_hidden=True, counted_policy="last")
    cap = django_capture_on_commit_callbacks
    submit(
        cap,
        phase,
        team_get_or_create_baseline(competition=phase.competition, name="GA Reader"),
        2,
        force=True,
    )
    strong, weak = (TeamFactory(competition=phase.competition, name=n) for n in ("strong_1", "weak"))
    submit(cap, phase, strong, 9)
    submit(cap, phase, strong, 7, trained_on=2)  # Acc. Cross 70.0, a drop of 20.0 points
    submit(cap, phase, weak, 4)
    return phase, strong


def test_freeze_snapshots_counted_scores_scorer_and_gold_and_never_changes(
    board, django_capture_on_commit_callbacks
):
    phase, strong = board
    args = ("--phase", phase.kind, "--competition", phase.competition.slug)
    out = run("recam_freeze", *args)
    assert "results are still hidden" in out
    result = OfficialResult.objects.get()
    gold = {str(g.test_set.subtask): g.sha256 for g in GoldAnswers.objects.filter(test_set__phase=phase)}
    assert (result.scorer_version, result.gold_sha256, result.counted_policy) == (
        SCORER_VERSION,
        gold,
        "last",
    )
    (table,) = [t for t in official_tables(result=result) if t.subtask == 1]
    ranked = [(r.rank, r.team, r.correct, r.cross_correct) for r in table.rows]
    # 9 vs 4 right of 10 is not significant (exact McNemar p = 0.0625): the two teams share rank 1.
    assert ranked == [(None, "GA Reader", 2, None), (1, "strong_1", 9, 7), (1, "weak", 4, None)]
    assert [r.rank_tied_with for r in table.rows] == [(), ("weak",), ("strong_1",)]
    assert all(r.accuracy_lo < r.accuracy < r.accuracy_hi for r in table.rows)
    submit(django_capture_on_commit_callbacks, phase, strong, 1)  # after the freeze: the snapshot stays
    (again,) = [t for t in official_tables(result=OfficialResult.objects.get()) if t.subtask == 1]
    assert [r.correct for r in again.rows] == [2, 9, 4]
    assert [r.entries for r in again.rows] == [1, 2, 1]  # "Entries" as frozen, not the 3 of strong_1 now


def test_latex_export_has_the_papers_layout(board):
    phase, _ = board
    args = ("--phase", phase.kind, "--competition", phase.competition.slug)
    run("recam_freeze", *args)
    latex = run("recam_leaderboard", *args, "--frozen", "--format", "latex")
    assert r"Rank & Team & Acc & Acc. Cross \\" in latex
    lines = [line for line in latex.splitlines() if " & " in line]
    pm = r"\$\\pm\$\d+\.\d"  # the half 95% interval, e.g. 90.0$\pm$9.5
    assert re.fullmatch(rf"- & GA Reader & 20\.0{pm} & - \\\\", lines[1]), lines[1]
    assert re.fullmatch(
        rf"1\$\^{{=}}\$ & strong\\_1 & 90\.0{pm} & 70\.0{pm} \(\$\\downarrow\$20\.0\) \\\\", lines[2]
    )
    assert re.fullmatch(rf"1\$\^{{=}}\$ & weak & 40\.0{pm} & - \\\\", lines[3]), lines[3]
    assert "exact McNemar test" in latex
    assert "Holm" in latex
    frozen = json.loads(run("recam_leaderboard", *args, "--frozen", "--format", "json"))
    assert frozen["scorer_version"] == SCORER_VERSION
    assert frozen["frozen_at"]
    rows = list(csv.DictReader(io.StringIO(run("recam_leaderboard", *args, "--frozen", "--format", "csv"))))
    assert {r["team"] for r in rows if r["test_subtask"] == "1"} == {"GA Reader", "strong_1", "weak"}


def test_latex_cross_cell_matches_the_paper():
    row = LeaderboardRow(1, "t", False, 0.951, 951, 1000, None, 0.918, 918, 1000)
    assert latex_cross(row) == r"91.8 ($\downarrow$3.3)"


def test_publish_shows_the_frozen_board_with_download_links(
    board, client, django_capture_on_commit_callbacks
):
    phase, strong = board
    args = ("--phase", phase.kind, "--competition", phase.competition.slug)
    run("recam_freeze", *args)
    run("recam_publish", *args)
    submit(django_capture_on_commit_callbacks, phase, strong, 1)  # live board changes; the frozen one shows
    page = client.get(reverse("leaderboard", args=[phase.competition.slug, phase.kind])).content.decode()
    assert "Official results, frozen" in page
    assert "90.00" in page
    assert "10.00" not in page
    for fmt in ("csv", "json", "latex"):
        url = reverse("leaderboard_export", args=[phase.competition.slug, phase.kind, fmt])
        assert url in page
        response = client.get(url)
        assert response.status_code == 200
        assert "official" in response["Content-Disposition"]
    assert (
        b"strong\\_1"
        in client.get(
            reverse("leaderboard_export", args=[phase.competition.slug, phase.kind, "latex"])
        ).content
    )


def test_freeze_without_gold_is_refused(db):
    from competitions.models import GoldAnswers as Gold

    phase = make_phase(kind="evaluation")
    Gold.objects.filter(test_set__phase=phase).delete()
    with pytest.raises(CommandError, match="no gold answers"):
        run("recam_freeze", "--phase", phase.kind, "--competition", phase.competition.slug)
    assert N == 10
