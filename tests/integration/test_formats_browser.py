"""A real Chromium on an SCDE competition: a participant uploads a prediction file through the page, a real
worker scores it with BA / PA / DE, and the board shows them beside the chance row."""

from pathlib import Path

import pytest

from competitions.models import Competition, Phase
from competitions.task_formats import format_test_set_load
from submissions.models import Submission
from tests.integration.test_browser import ARTIFACTS, sign_up

pytestmark = [pytest.mark.integration, pytest.mark.browser]

SCDE_DEV = Path(__file__).resolve().parents[1] / "recam" / "fixtures" / "scde_official" / "dev.json"


def test_an_scde_upload_is_scored_and_the_board_shows_ba_pa_and_chance(
    worker, live_server, chromium, tmp_path
):
    competition = Competition.objects.create(slug="scde-it", title="Sentence cloze", task_format="scde")
    phase = Phase.objects.create(competition=competition, kind=Phase.Kind.PRACTICE, title="Practice", order=1)
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    predictions = tmp_path / "predictions.csv"
    predictions.write_text("0,1,1\n0,2,0\n1,1,1\n1,2,0\n1,3,2\n")  # passage 1's blank 3 takes a distractor
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(30_000)

    sign_up(page, live_server.url, "grace")
    page.goto(f"{live_server.url}/c/{competition.slug}/")
    assert "line per blank" in page.locator("#format-submission").inner_text()

    page.goto(f"{live_server.url}/c/{competition.slug}/team/")
    page.fill("#id_name", "Sentence Owls")
    page.check("#id_accept_rules")
    page.click("button[name=create]")
    page.wait_for_selector("#invite-link")

    page.goto(f"{live_server.url}/c/{competition.slug}/submit/")
    page.select_option("#id_phase", label="Practice")
    page.set_input_files("#id_file", str(predictions))
    page.click("#upload-button")
    page.wait_for_selector("#status.status-scored")
    assert Submission.objects.get().scores.get().metrics["passage_accuracy"] == 0.5

    page.goto(f"{live_server.url}/c/{competition.slug}/leaderboard/practice/")
    headers = page.locator("table[data-format='scde'] thead th").all_inner_texts()
    assert headers[3:6] == ["BA", "PA", "DE"]
    row = page.locator("table[data-format='scde'] tr:has-text('Sentence Owls') td.metric").all_inner_texts()
    assert row == ["83.33", "50.00", "0.500"]
    chance = page.locator("#chance-row td.metric").all_inner_texts()
    assert chance == ["22.50", "5.00", "1.100"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "leaderboard-scde.png"), full_page=True)


def test_a_bad_scde_file_is_refused_on_the_page_with_its_lines(worker, live_server, chromium, tmp_path):
    competition = Competition.objects.create(slug="scde-bad", title="Sentence cloze", task_format="scde")
    phase = Phase.objects.create(competition=competition, kind=Phase.Kind.PRACTICE, title="Practice", order=1)
    format_test_set_load(phase=phase, path=SCDE_DEV, official=True)
    bad = tmp_path / "predictions.csv"
    bad.write_text("0,1,1\n0,2,G\n")
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(30_000)
    sign_up(page, live_server.url, "alan")
    page.goto(f"{live_server.url}/c/{competition.slug}/team/")
    page.fill("#id_name", "Careless Owls")
    page.check("#id_accept_rules")
    page.click("button[name=create]")
    page.wait_for_selector("#invite-link")
    page.goto(f"{live_server.url}/c/{competition.slug}/submit/")
    page.select_option("#id_phase", label="Practice")
    page.set_input_files("#id_file", str(bad))
    page.click("#upload-button")
    text = page.locator("body").inner_text()
    assert "predictions.csv, line 2: label 'G' is written as a word or letter" in text
    assert "3 of 5 blanks have no prediction" in text
    assert not Submission.objects.exists()
