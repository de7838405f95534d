"""Headless Chromium on the practice board as `make baselines` and two teams leave it: intervals and tie
marks on one line each, baselines unranked, and the organizer's way to the question analytics."""

import pytest

from competitions.services import competition_load_recam
from recam.submission import format_predictions, make_zip
from submissions.services import submission_create
from teams.services import team_get_or_create_baseline
from tests.integration.conftest import wait_for_status
from tests.integration.test_browser import ARTIFACTS, browser_page, wait_for_statistics  # noqa: F401 (the fixture)
from tests.platform.factories import TeamFactory, UserFactory

pytestmark = [pytest.mark.integration, pytest.mark.browser]

# A cell's content height in lines: about 1 when "23.54 ±2.8" is on one line, 2 when it wraps.
LINES = """cell => { const r = document.createRange(); r.selectNodeContents(cell);
  const s = getComputedStyle(cell); const line = parseFloat(s.lineHeight) || 1.2 * parseFloat(s.fontSize);
  return r.getBoundingClientRect().height / line; }"""


def _files(recam_data_dir, change: bool) -> bytes:
    """The example predictions of both subtasks; ``change``: the first answer of each file moved by one."""
    files = {}
    for name in ("subtask1.csv", "subtask2.csv"):
        lines = (recam_data_dir / "submission_example" / name).read_text().split()
        answers = {int(a): int(b) for a, b in (line.split(",") for line in lines)}
        if change:
            first = min(answers)
            answers[first] = (answers[first] + 1) % 5
        files[name] = format_predictions(answers)
    return make_zip(files)


def test_board_and_analytics_of_a_practice_phase_with_baselines(
    worker,
    live_server,
    browser_page,  # noqa: F811
    recam_data_dir,
):
    competition = competition_load_recam(data_dir=recam_data_dir).competition
    practice = competition.phases.get(kind="practice")
    teams = [
        team_get_or_create_baseline(competition=competition, name="GA Reader"),
        TeamFactory(competition=competition, name="Owls"),
        TeamFactory(competition=competition, name="Bats"),  # one answer apart from the Owls: tied
    ]
    for team, change in zip(teams, (False, False, True), strict=True):
        submission = submission_create(
            phase=practice,
            team=team,
            filename="preds.zip",
            data=_files(recam_data_dir, change),
            trained_on={1: 1, 2: 1},  # Subtask 2's file is a cross result (Acc. Cross of Subtask 2)
            force=team.is_baseline,
            system_name=f"{team.name.lower()}-attentive-reader-glove-st1",  # names as long as real ones
        )
        assert wait_for_status(submission, {"scored", "failed"}).status == "scored"
    page = browser_page
    page.goto(f"{live_server.url}/c/{competition.slug}/leaderboard/practice/")
    wait_for_statistics(page)
    table = page.locator("table[data-subtask='1']")
    baseline = table.locator("tr.baseline")
    assert baseline.locator("td.rank").inner_text() == "-"
    for name in ("Owls", "Bats"):
        row = table.locator(f"tr[data-team='{name}']")
        assert row.locator("td.rank").inner_text() == "1="  # tied: one answer apart
        assert "±" in row.locator("td.acc").inner_text()
    for cell in table.locator("td.acc, td.rank").all():
        assert cell.evaluate(LINES) < 1.5, cell.inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "statistics-board-practice.png"), full_page=True)
    assert page.locator("#organizer-links").count() == 0  # not for visitors

    UserFactory(username="org", is_staff=True)  # password: a-long-test-password
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "org")
    page.fill("#id_password", "a-long-test-password")
    page.click("button[type=submit]")
    page.wait_for_load_state("load")
    page.goto(f"{live_server.url}/c/{competition.slug}/leaderboard/practice/")
    page.click("#organizer-links a:has-text('Subtask 1')")
    page.wait_for_selector("#team-abilities")
    assert "2 teams, 837 questions" in page.inner_text("body")
    page.click("#baselines-toggle a")
    page.wait_for_selector("#team-abilities tr.baseline")
    assert "3 teams, 837 questions" in page.inner_text("body")
    page.screenshot(path=str(ARTIFACTS / "statistics-analytics-practice-1.png"), full_page=False)
