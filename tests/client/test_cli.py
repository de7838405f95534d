"""``python -m client`` against a live server: submit and wait, status, list, leaderboard, errors."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from client.api import ApiError, RecamApi
from client.cli import main, wait_for_result
from submissions.models import Submission
from tests.api.conftest import independent_accuracy

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_submit_and_wait_prints_the_scores(alice_env, example_zip_path, recam_data_dir):
    result = run("submit", "--phase", "practice", str(example_zip_path), "--system", "example", "--wait")
    assert result.exit_code == 0, result.output
    submission = Submission.objects.get()
    assert submission.system_name == "example"
    assert f"accepted: submission {submission.pk}" in result.output
    assert f"submission {submission.pk} (practice, team Alpha): scored" in result.output
    correct, total = independent_accuracy(
        recam_data_dir / "submission_example" / "subtask1.csv",
        recam_data_dir / "training_data" / "Task_1_dev.jsonl",
    )
    [row] = [line.split() for line in result.output.splitlines() if line.startswith("1 ")]
    assert row[2:5] == [str(correct), str(total), f"{100 * correct / total:.2f}"]  # as the site prints it


def test_submit_trained_on_marks_a_cross_file(alice_env, example_zip_path):
    result = run("submit", "--phase", "practice", str(example_zip_path), "--trained-on", "2:1")
    assert result.exit_code == 0, result.output
    trained = dict(Submission.objects.get().files.values_list("subtask", "trained_on"))
    assert trained == {1: 1, 2: 1}


def test_an_invalid_file_prints_every_problem_and_exits_non_zero(alice_env, tmp_path):
    bad = tmp_path / "subtask1.csv"
    bad.write_text("id,label\n0,9\n")
    result = CliRunner().invoke(main, ["submit", "--phase", "practice", str(bad)])
    assert result.exit_code == 1
    assert "the upload is invalid: 3 problems (HTTP 400)" in result.output
    assert "subtask1.csv, line 1: header row 'id,label'" in result.output
    assert "subtask1.csv, line 2: label 9 is out of range: labels are 0-4" in result.output
    assert Submission.objects.count() == 0


def test_status_list_and_another_teams_404(alice_env, bob, example_zip_path, monkeypatch):
    run("submit", "--phase", "practice", str(example_zip_path))
    pk = Submission.objects.get().pk
    status = run("status", str(pk), "--json")
    assert json.loads(status.output)["id"] == pk
    listing = run("list")
    assert listing.output.splitlines()[2].split()[:3] == [str(pk), "practice", "scored"]
    from api.services import token_get_or_create

    monkeypatch.setenv("RECAM_TOKEN", token_get_or_create(user=bob[0]).key)
    refused = CliRunner().invoke(main, ["status", str(pk)])
    assert refused.exit_code == 1
    assert "(HTTP 404)" in refused.output


def test_leaderboard_json_and_table(alice_env, example_zip_path):
    run("submit", "--phase", "practice", str(example_zip_path))
    board = json.loads(run("leaderboard", "--phase", "practice", "--format", "json").output)
    assert [t["rows"][0]["team"] for t in board["tables"]] == ["Alpha", "Alpha"]
    table = run("leaderboard", "--phase", "practice").output
    assert "Subtask 1: Imperceptibility" in table
    assert any(line.split()[:2] == ["1", "Alpha"] for line in table.splitlines())


def test_missing_token_is_a_clear_error(server, monkeypatch):
    monkeypatch.setenv("RECAM_URL", server)
    monkeypatch.delenv("RECAM_TOKEN", raising=False)
    result = CliRunner().invoke(main, ["list"])
    assert result.exit_code == 1
    assert "no API token: set RECAM_TOKEN" in result.output


def test_wait_follows_the_status_until_it_is_final(alice_env, example_zip_path):
    run("submit", "--phase", "practice", str(example_zip_path))
    submission = Submission.objects.get()
    Submission.objects.filter(pk=submission.pk).update(status="queued")
    api = RecamApi(base_url=alice_env["RECAM_URL"], token=alice_env["RECAM_TOKEN"])
    seen: list[str] = []
    original = api.status

    def recording_status(**kwargs):
        body = original(**kwargs)
        seen.append(body["status"])
        if len(seen) == 2:  # the worker "finishes" while the client is polling
            Submission.objects.filter(pk=submission.pk).update(status="scored")
        return body

    api.status = recording_status
    result = wait_for_result(api, submission_id=submission.pk, timeout=60, interval=0.05)
    assert result["status"] == "scored"
    assert seen[:2] == ["queued", "queued"]


def test_wait_gives_up_after_the_timeout(alice_env, example_zip_path):
    run("submit", "--phase", "practice", str(example_zip_path))
    pk = Submission.objects.get().pk
    Submission.objects.filter(pk=pk).update(status="queued")
    api = RecamApi(base_url=alice_env["RECAM_URL"], token=alice_env["RECAM_TOKEN"])
    with pytest.raises(ApiError, match=f"submission {pk} still queued after 0 s"):
        wait_for_result(api, submission_id=pk, timeout=0, interval=0.01)


def test_python_m_client_runs_as_a_program(alice_env):
    env = {**os.environ, **alice_env}
    done = subprocess.run(
        [sys.executable, "-m", "client", "leaderboard", "--phase", "evaluation"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("leaderboard: recam-2021 / evaluation")
    unknown = subprocess.run(
        [sys.executable, "-m", "client", "leaderboard", "--phase", "finals"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert unknown.returncode == 1
    assert "no phase 'finals'" in unknown.stderr


def test_leaderboard_is_compact_in_points_like_the_site(alice_env, example_zip_path, recam_data_dir):
    run("submit", "--phase", "practice", str(example_zip_path))
    correct, total = independent_accuracy(
        recam_data_dir / "submission_example" / "subtask1.csv",
        recam_data_dir / "training_data" / "Task_1_dev.jsonl",
    )
    lines = run("leaderboard", "--phase", "practice").output.splitlines()
    assert lines[3].split() == ["rank", "team", "acc", "acc.", "cross"]
    assert lines[5].split()[:3] == ["1", "Alpha", f"{100 * correct / total:.2f}"]


def test_an_unreachable_server_exits_non_zero(monkeypatch):
    monkeypatch.setenv("RECAM_URL", "http://127.0.0.1:9")
    for args in (["leaderboard", "--phase", "practice"], ["data", "--phase", "practice"], ["list"]):
        monkeypatch.setenv("RECAM_TOKEN", "x")
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1, args
        assert "cannot reach the server at http://127.0.0.1:9" in result.output


def test_data_downloads_the_public_files_without_labels(alice_env, tmp_path):
    out = tmp_path / "data"
    result = run("data", "--phase", "practice", "--out", str(out))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["example-practice.zip", "recam-starting-kit.zip", "subtask1.jsonl", "subtask2.jsonl"]
    rows = [json.loads(line) for line in (out / "subtask1.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows
    assert all("label" not in row for row in rows)
    assert run("data", "--phase", "no-such-phase", "--out", str(out)).exit_code == 1


def _offline(monkeypatch) -> None:
    monkeypatch.setenv("RECAM_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("RECAM_TOKEN", "x")


@pytest.mark.parametrize("name", ["../../escaped.txt", "/tmp/absolute.txt", "sub/x.txt", "..", "C:x", "a\\b"])
def test_data_refuses_file_names_that_leave_the_out_folder(monkeypatch, tmp_path, name):
    """Red-team defect: `recam data` joined server-given names onto --out, so ../../x escaped it."""
    _offline(monkeypatch)
    written = []
    monkeypatch.setattr(RecamApi, "data_files", lambda self, phase: {"ok.jsonl": "u1", name: "u2"})
    monkeypatch.setattr(RecamApi, "download", lambda self, url, target: written.append(target) or 1)
    out = tmp_path / "deep" / "out"
    result = CliRunner().invoke(main, ["data", "--phase", "practice", "--out", str(out)])
    assert result.exit_code == 1
    assert "not plain file names" in result.output
    assert repr(name) in result.output
    assert written == []


def test_leaderboard_shows_control_characters_escaped(monkeypatch):
    """Red-team defect: a team name's terminal escapes reached the terminal raw."""
    _offline(monkeypatch)
    row = {"rank": 1, "team": "\x1b]0;pwned\x07Owls", "accuracy": 0.5, "cross_accuracy": None, "drop": None}
    board = {"competition": "c", "phase": "p", "tables": [{"title": "ST1", "rows": [row]}]}
    monkeypatch.setattr(RecamApi, "leaderboard", lambda self, phase: board)
    result = CliRunner().invoke(main, ["leaderboard", "--phase", "practice"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    assert "\x07" not in result.output
    assert "\\x1b]0;pwned\\x07Owls" in result.output
