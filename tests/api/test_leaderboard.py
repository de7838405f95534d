"""The public leaderboard as JSON."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from recam.metrics import SCORER_VERSION
from submissions.scoring import submission_score
from tests.api.conftest import independent_accuracy, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored(alice, example_zip):
    response = token_client(alice[0]).post(
        "/api/phases/practice/submissions/",
        {"file": SimpleUploadedFile("p.zip", example_zip)},
        format="multipart",
    )
    submission_score(submission_id=response.json()["id"])


def test_leaderboard_is_public_and_holds_the_scored_team(scored, recam_data_dir):
    response = APIClient().get("/api/phases/practice/leaderboard/")
    assert response.status_code == 200
    board = response.json()
    assert (board["phase"], board["results_hidden"], board["scorer_version"]) == (
        "practice",
        False,
        SCORER_VERSION,
    )
    tables = {t["subtask"]: t for t in board["tables"]}
    assert sorted(tables) == [1, 2]
    for subtask, table in tables.items():
        correct, total = independent_accuracy(
            recam_data_dir / "submission_example" / f"subtask{subtask}.csv",
            recam_data_dir / "training_data" / f"Task_{subtask}_dev.jsonl",
        )
        [row] = table["rows"]
        assert (row["rank"], row["team"], row["correct"], row["total"]) == (1, "Alpha", correct, total)
        assert row["cross_accuracy"] is None
        assert row["drop"] is None


def test_leaderboard_of_a_hidden_phase_says_so(scored, practice):
    practice.results_hidden = True
    practice.save(update_fields=["results_hidden"])
    board = APIClient().get("/api/phases/practice/leaderboard/").json()
    assert board["results_hidden"] is True
    assert board["tables"] == []


def test_leaderboard_of_an_unknown_competition_is_404(competition):
    response = APIClient().get("/api/phases/practice/leaderboard/", {"competition": "nope"})
    assert response.status_code == 404


def test_a_new_score_shows_on_the_next_request(scored, bob, example_zip):
    assert [
        r["team"] for r in APIClient().get("/api/phases/practice/leaderboard/").json()["tables"][0]["rows"]
    ] == ["Alpha"]
    response = token_client(bob[0]).post(
        "/api/phases/practice/submissions/",
        {"file": SimpleUploadedFile("p.zip", example_zip)},
        format="multipart",
    )
    submission_score(submission_id=response.json()["id"])
    rows = APIClient().get("/api/phases/practice/leaderboard/").json()["tables"][0]["rows"]
    # The same file: a tie shares rank 1 and the earlier submission is listed first.
    assert [(r["rank"], r["team"]) for r in rows] == [(1, "Alpha"), (1, "Beta")]


def test_the_api_board_equals_the_selectors_board(scored, practice):
    from leaderboards.selectors import leaderboard_tables

    board = APIClient().get("/api/phases/practice/leaderboard/").json()
    expected = leaderboard_tables(phase=practice)
    assert [(t["subtask"], [r["accuracy"] for r in t["rows"]]) for t in board["tables"]] == [
        (t.subtask, [r.accuracy for r in t.rows]) for t in expected
    ]
