"""A real headless Chromium signs up, creates a team, uploads the example zip and reads the leaderboard."""

import os
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core import mail

from competitions.services import competition_load_recam
from recam.submission import make_zip
from teams.models import RulesAcceptance
from tests.platform.helpers import independent_count

pytestmark = [pytest.mark.integration, pytest.mark.browser]

ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def browser_page(monkeypatch):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (scripts/setup.sh does)")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.set_default_timeout(30_000)
        yield page
        browser.close()


def sign_up(page, base_url: str, username: str) -> None:
    """Sign up through the form and open the activation link e-mailed to the address (the site's flow)."""
    page.goto(f"{base_url}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.org")
    page.fill("#id_password1", "a-long-test-password")
    page.fill("#id_password2", "a-long-test-password")
    page.click("#signup-button")
    page.wait_for_selector("#signup-sent")  # the account is activated by the link sent to the address
    page.goto(re.search(r"https?://\S+/accounts/activate/\S+", mail.outbox[-1].body).group(0))


def wait_for_statistics(page, *, tries: int = 60) -> None:
    """Reload the board until the phase's statistics task has caught up with the scores (ranks, intervals).

    Scoring commits the accuracy at once; the ranks and intervals follow a moment later (docs/statistics.md).
    """
    for _ in range(tries):
        if page.locator("#ranks-updating").count() == 0 and page.locator("#statistics-version").count():
            return
        page.wait_for_timeout(500)
        page.reload()
    raise AssertionError("the board's statistics did not catch up with its scores")


def test_sign_up_team_upload_and_read_the_leaderboard(
    worker, live_server, browser_page, recam_data_dir, tmp_path
):
    competition = competition_load_recam(data_dir=recam_data_dir).competition
    folder = recam_data_dir / "submission_example"
    files = {name: (folder / name).read_bytes() for name in ("subtask1.csv", "subtask2.csv")}
    upload = tmp_path / "submission_example.zip"
    upload.write_bytes(make_zip(files))
    page = browser_page

    sign_up(page, live_server.url, "ada")

    page.goto(f"{live_server.url}/c/{competition.slug}/team/")
    page.fill("#id_name", "Abstract Owls")
    page.check("#id_accept_rules")
    page.click("button[name=create]")
    page.wait_for_selector("#invite-link")
    (accepted,) = RulesAcceptance.objects.filter(team__name="Abstract Owls")  # stored, not only checked
    assert (accepted.username, accepted.rules_version) == ("ada", settings.RULES_VERSION)

    page.goto(f"{live_server.url}/c/{competition.slug}/submit/")
    page.select_option("#id_phase", label="Practice (dev sets)")
    page.set_input_files("#id_file", str(upload))
    page.fill("#id_system_name", "example")
    page.click("#upload-button")
    page.wait_for_selector("#status.status-scored")  # the page polls the status JSON, then reloads

    page.click("#nav-leaderboard")  # the first phase that exists: practice here
    page.wait_for_url(f"{live_server.url}/c/{competition.slug}/leaderboard/practice/")
    row = page.locator("table[data-subtask='1'] tr:has-text('Abstract Owls')")
    wait_for_statistics(page)
    shown = row.locator("td.acc").inner_text()
    assert row.locator("td.entries").inner_text() == "1"  # one scored submission in the phase
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "leaderboard-practice.png"), full_page=True)
    correct, total = independent_count(
        predictions_csv=files["subtask1.csv"], gold_jsonl=recam_data_dir / "training_data/Task_1_dev.jsonl"
    )
    accuracy, half = shown.split(" ±")  # the 95% bootstrap interval's half width (docs/statistics.md)
    assert accuracy == f"{100 * correct / total:.2f}"
    p = correct / total
    assert float(half) == pytest.approx(100 * 1.96 * (p * (1 - p) / total) ** 0.5, abs=0.3)
    assert os.path.getsize(ARTIFACTS / "leaderboard-practice.png") > 0
