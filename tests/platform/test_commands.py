"""The organizer commands other issues and the README rely on."""

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from submissions.models import Submission
from teams.models import Team
from tests.platform.helpers import independent_count


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_recam_competition_is_idempotent_and_reports_missing_files(db, recam_data_dir):
    first = run("recam_competition", "--data", str(recam_data_dir), "--slug", "c1")
    second = run("recam_competition", "--data", str(recam_data_dir), "--slug", "c1")
    assert first.splitlines()[0] == "created competition c1"
    assert second.splitlines()[0] == "kept competition c1"
    assert first.splitlines()[1:] == second.splitlines()[1:]


def test_recam_submit_baseline_and_leaderboard_formats(
    competition, example_zip, example_files, recam_data_dir, tmp_path, django_capture_on_commit_callbacks
):
    path = tmp_path / "preds.zip"
    path.write_bytes(example_zip)
    common = ("--competition", competition.slug, "--phase", "practice")
    with django_capture_on_commit_callbacks(execute=True):
        out = run("recam_submit", "--team", "GA Reader", "--baseline", *common, str(path))
    assert "queued" in out
    assert Team.objects.get(name="GA Reader").is_baseline
    assert Submission.objects.get().status == Submission.Status.SCORED
    correct, total = independent_count(
        predictions_csv=example_files["subtask2.csv"],
        gold_jsonl=recam_data_dir / "training_data/Task_2_dev.jsonl",
    )
    records = json.loads(run("recam_leaderboard", *common, "--format", "json"))["rows"]
    row = next(r for r in records if r["test_subtask"] == 2)
    assert (row["team"], row["rank"], row["baseline"], row["correct"], row["total"]) == (
        "GA Reader",
        None,
        True,
        correct,
        total,
    )
    rows = list(csv.DictReader(io.StringIO(run("recam_leaderboard", *common, "--format", "csv"))))
    assert {r["test_subtask"] for r in rows} == {"1", "2"}
    table = run("recam_leaderboard", *common)
    assert "GA Reader (baseline)" in table
    assert f"{100 * correct / total:.1f}" in table


def test_recam_submit_trained_on_makes_cross_scores(
    competition, example_files, tmp_path, django_capture_on_commit_callbacks
):
    path = tmp_path / "subtask1.csv"
    path.write_bytes(example_files["subtask1.csv"])
    with django_capture_on_commit_callbacks(execute=True):
        run("recam_submit", "--team", "B", "--baseline", "--competition", competition.slug, "--phase", "practice",
            "--trained-on", "2", str(path))  # fmt: skip
    score = Submission.objects.get().scores.get()
    assert (score.test_subtask, score.trained_on) == (1, 2)


def test_recam_submit_refuses_an_invalid_file_and_an_unknown_team(competition, tmp_path):
    path = tmp_path / "subtask1.csv"
    path.write_bytes(b"id,label\n")
    common = ("--competition", competition.slug, "--phase", "practice")
    with pytest.raises(CommandError, match="header row"):
        run("recam_submit", "--team", "X", "--baseline", *common, str(path))
    with pytest.raises(CommandError, match="no team 'Nobody'"):
        run("recam_submit", "--team", "Nobody", *common, str(path))
    assert not Submission.objects.exists()


def test_recam_gold_loads_a_csv_checked_against_the_test_set(competition, tmp_path):
    ids = competition.phases.get(kind="evaluation").test_sets.get(subtask=1).question_ids
    path = tmp_path / "gold.csv"
    path.write_text("".join(f"{qid},{qid % 5}\n" for qid in ids))
    out = run(
        "recam_gold", "--competition", competition.slug, "--phase", "evaluation", "--subtask", "1", str(path)
    )
    assert f"{len(ids):,} gold labels" in out
    path.write_text("0,1\n")
    with pytest.raises(CommandError, match="missing"):
        run(
            "recam_gold",
            "--competition",
            competition.slug,
            "--phase",
            "evaluation",
            "--subtask",
            "1",
            str(path),
        )


def test_recam_organizer_creates_then_keeps_the_account(db, settings, tmp_path, monkeypatch):
    monkeypatch.delenv("ORGANIZER_PASSWORD", raising=False)
    settings.ORGANIZER_PASSWORD_FILE = tmp_path / "organizer-password.txt"
    out = run("recam_organizer")
    assert "created" in out
    assert str(settings.ORGANIZER_PASSWORD_FILE) in out
    password = settings.ORGANIZER_PASSWORD_FILE.read_text().strip()
    user = get_user_model().objects.get(username=settings.ORGANIZER_USERNAME)
    assert user.is_superuser
    assert user.check_password(password)
    assert "kept" in run("recam_organizer")
    assert settings.ORGANIZER_PASSWORD_FILE.read_text().strip() == password


def test_recam_organizer_takes_the_password_from_the_environment(db, monkeypatch):
    monkeypatch.setenv("ORGANIZER_PASSWORD", "from-the-env-1234")
    out = run("recam_organizer")
    assert "ORGANIZER_PASSWORD" in out
    assert get_user_model().objects.get().check_password("from-the-env-1234")
