"""Headless Chromium: an organizer creates a phase, loads its questions, uploads the gold, previews the
hidden board and publishes it (a real Celery worker scores); a newcomer signs up, resets the password
by e-mail, downloads from the Data page; pages at 390 px never scroll sideways."""

import json
import re
import zipfile

import pytest
from django.core import mail

from competitions.models import Competition, Phase
from competitions.services import competition_load_recam
from submissions.models import Submission
from submissions.services import submission_create
from teams.services import team_create
from tests.integration.conftest import wait_for_status
from tests.integration.test_browser import ARTIFACTS, sign_up
from tests.platform.factories import UserFactory

pytestmark = [pytest.mark.integration, pytest.mark.browser]
N = 40  # questions in the organizer's small test set


def _login(page, url, username, password="a-long-test-password"):
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("form button[type=submit]")


def _shot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def _questions(recam_data_dir, tmp_path) -> tuple:
    lines = (
        (recam_data_dir / "training_data" / "Task_1_dev.jsonl").read_text(encoding="utf-8").splitlines()[:N]
    )
    records = [{"id": i, **json.loads(line)} for i, line in enumerate(lines)]
    public = tmp_path / "eval_subtask1.jsonl"
    public.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "label"}) + "\n" for r in records)
    )
    gold = tmp_path / "gold_subtask1.csv"
    gold.write_text("".join(f"{r['id']},{r['label']}\n" for r in records))
    return records, public, gold


def test_organizer_creates_a_phase_loads_gold_previews_and_publishes(
    worker, live_server, chromium, recam_data_dir, tmp_path
):
    competition = Competition.objects.create(slug="mini", title="Mini ReCAM")
    UserFactory(username="boss", is_staff=True, is_superuser=True)
    records, public, gold = _questions(recam_data_dir, tmp_path)
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(30_000)
    _login(page, live_server.url, "boss")
    page.click("#nav-console")
    assert page.locator("#nav-admin").get_attribute("href") == "/admin/"
    page.click("#new-phase-evaluation")
    assert page.input_value("#id_max_submissions_per_day") == "3"  # the sane default
    assert page.input_value("#id_ends_at") != ""
    page.fill("#id_starts_at", "2020-01-01T00:00")
    _shot(page, "console-new-phase.png")
    page.click("#phase-save")
    page.wait_for_selector("text=Load its test set next")
    page.select_option("#ts-subtask", "1")
    page.set_input_files("#ts-file", str(public))
    page.click("#test-set-upload")
    page.wait_for_selector(f"text={N} questions loaded from eval_subtask1.jsonl, without labels")
    phase = Phase.objects.get(competition=competition, kind="evaluation")
    assert phase.results_hidden
    assert phase.max_submissions_per_day == 3

    user = UserFactory()
    team = team_create(competition=competition, user=user, name="Owls")
    predictions = {r["id"]: (r["label"] if r["id"] % 2 else (r["label"] + 1) % 5) for r in records}
    body = "".join(f"{k},{v}\n" for k, v in sorted(predictions.items())).encode()
    submission = submission_create(
        phase=phase,
        team=team,
        submitted_by=user,
        filename="subtask1.csv",
        data=body,
        system_name="half-right",
    )
    wait_for_status(submission, {Submission.Status.WAITING_GOLD})

    page.reload()
    page.select_option("#gold-subtask", "1")
    page.set_input_files("#gold-file", str(gold))
    page.click("#gold-upload")
    page.wait_for_selector(f"text={N} gold labels stored")
    wait_for_status(submission, {Submission.Status.SCORED})
    expected = f"{100 * sum(predictions[r['id']] == r['label'] for r in records) / N:.2f}"
    page.reload()
    assert page.locator("#preview-1 tr:has-text('Owls') td.acc").inner_text() == expected
    assert "half-right" in page.locator("#preview-1").inner_text()
    _shot(page, "console-phase-preview.png")

    page.goto(f"{live_server.url}/c/mini/leaderboard/evaluation/")
    assert page.locator("#results-hidden").count() == 1
    page.goto(f"{live_server.url}/console/mini/evaluation/")
    page.click("#publish")
    page.wait_for_selector("text=Results published.")
    page.click("#freeze")
    page.click("#confirm-freeze")
    page.wait_for_selector("text=Official results frozen (1 row);")
    page.goto(f"{live_server.url}/c/mini/leaderboard/evaluation/")
    cell = page.locator("table[data-subtask='1'] tr:has-text('Owls') td.acc").inner_text()
    accuracy, interval = cell.split(" ", 1)  # "50.00 ±15.0": the score, then half its 95% interval
    assert accuracy == expected
    assert interval.startswith("±")
    assert page.locator("#frozen").count() == 1
    _shot(page, "console-published-board.png")


def test_newcomer_signs_up_resets_the_password_and_downloads_the_data(
    live_server, chromium, recam_data_dir, db
):
    competition = competition_load_recam(data_dir=recam_data_dir).competition
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(30_000)
    sign_up(page, live_server.url, "grace")
    page.click("form[action='/accounts/logout/'] button")
    page.goto(f"{live_server.url}/accounts/login/")
    page.click("#forgot")
    page.fill("#id_email", "grace@example.org")
    page.click("#reset-button")
    page.wait_for_selector("#reset-sent")
    assert [m.to for m in mail.outbox] == [["grace@example.org"]] * 2  # the activation, the reset
    link = re.search(r"https?://\S+/accounts/reset/\S+/", mail.outbox[1].body).group(0)
    page.goto(link)
    page.fill("#id_new_password1", "a-new-long-password-7")
    page.fill("#id_new_password2", "a-new-long-password-7")
    page.click("#set-password")
    page.wait_for_selector("#reset-complete")
    _login(page, live_server.url, "grace", "a-new-long-password-7")
    page.click("#nav-data")
    assert "0-based line number" in page.locator("#format").inner_text()
    _shot(page, "data-page.png")
    with page.expect_download() as download:
        page.click("#questions-1")
    text = download.value.path().read_text(encoding="utf-8")
    assert text.count("\n") == competition.phases.get(kind="practice").test_sets.get(subtask=1).num_questions
    assert '"label"' not in text
    with page.expect_download() as download:
        page.click("#example-zip")
    assert sorted(zipfile.ZipFile(download.value.path()).namelist()) == ["subtask1.csv", "subtask2.csv"]


PAGES_390 = (
    "/c/{slug}/",
    "/c/{slug}/data/practice/",
    "/c/{slug}/submissions/",
    "/c/{slug}/submit/",
    "/c/{slug}/team/",
    "/c/{slug}/leaderboard/practice/",
    "/c/{slug}/rules/",
    "/accounts/token/",
    "/submissions/{pk}/",
    "/console/{slug}/",
    "/console/{slug}/practice/",
)


def test_pages_fit_a_390_px_phone(worker, live_server, chromium, recam_data_dir, example_zip_bytes):
    competition = competition_load_recam(data_dir=recam_data_dir).competition
    practice = competition.phases.get(kind="practice")
    boss = UserFactory(username="phone-boss", is_staff=True, is_superuser=True)
    team = team_create(competition=competition, user=boss, name="A team with a rather long name indeed")
    submission = submission_create(
        phase=practice,
        team=team,
        submitted_by=boss,
        filename="p.zip",
        data=example_zip_bytes,
        system_name="a-long-system-name-without-any-spaces-at-all-0123456789",
    )
    wait_for_status(submission, {Submission.Status.SCORED})
    page = chromium.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, device_scale_factor=1)
    page.set_default_timeout(30_000)
    _login(page, live_server.url, "phone-boss")
    widths = {}
    for template in PAGES_390:
        path = template.format(slug=competition.slug, pk=submission.pk)
        page.goto(f"{live_server.url}{path}")
        widths[path] = page.evaluate("document.documentElement.scrollWidth")
        if path.endswith("/submissions/") or "/leaderboard/" in path or path.startswith("/console/"):
            _shot(page, "mobile-" + path.strip("/").replace("/", "-") + ".png")
    assert {p: w for p, w in widths.items() if w > 390} == {}, widths
