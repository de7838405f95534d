"""Headless Chromium: an organizer creates a batch, two annotators answer it (keys and clicks), export."""

import json
import zipfile
from pathlib import Path

import pytest

from competitions.services import competition_load_recam
from tests.integration.conftest import _end_other_sessions
from tests.integration.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS
from tests.platform.factories import UserFactory
from tests.platform.validation_helpers import jsonl_bytes, make_annotator
from validation.models import Annotation

pytestmark = [pytest.mark.integration, pytest.mark.browser]
PASSWORD = "a-long-test-password"


@pytest.fixture
def browser(monkeypatch):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (scripts/setup.sh does)")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def drop_ready_database(django_db_setup, django_db_blocker):
    """The live server's request threads can leave PostgreSQL sessions open; end them before teardown."""
    yield
    with django_db_blocker.unblock():
        _end_other_sessions(this_process_too=True)


def _login(browser, base: str, username: str):
    page = browser.new_context(viewport={"width": 1100, "height": 900}, accept_downloads=True).new_page()
    page.set_default_timeout(60_000)  # the whole suite runs on 2 cores beside real workers
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)
    return page


def _answer(page, choose, *, by_keyboard: bool) -> None:
    """Answer the item on screen: ``choose(item) -> answer`` (the test looks the label up, not the page)."""
    item = (
        Annotation.objects.select_related("item").get(pk=int(page.input_value("input[name=annotation]"))).item
    )
    answer = choose(item)
    key = "n" if answer == -1 else str(answer + 1)
    page.wait_for_load_state("load")  # annotate.js listens for the keys only once it has run
    with page.expect_navigation():  # the answer is a form POST, then a redirect to the next item
        if by_keyboard:
            page.keyboard.press(key)
        else:
            page.click(f'#answer-form button[data-key="{key}"]')


def test_two_annotators_complete_a_batch_and_the_organizer_exports_it(
    transactional_db, live_server, browser, recam_data_dir, tmp_path, drop_ready_database
):
    UserFactory(username="org", is_staff=True)
    make_annotator("ann")
    make_annotator("bea")
    generated, gold = tmp_path / "generated.jsonl", tmp_path / "gold.jsonl"
    generated.write_bytes(
        jsonl_bytes(path=recam_data_dir / "training_data/Task_1_dev.jsonl", count=3, first_id=1000)
    )
    gold.write_bytes(jsonl_bytes(path=recam_data_dir / "training_data/Task_2_dev.jsonl", count=4))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    org = _login(browser, live_server.url, "org")
    org.goto(f"{live_server.url}/validation/")
    org.fill("#id_name", "browser batch")
    org.set_input_files("#id_file", str(generated))
    org.set_input_files("#id_gold_file", str(gold))
    org.fill("#id_annotations_per_question", "2")
    org.fill("#id_questions_per_assignment", "3")
    org.fill("#id_gold_rate", "0.34")
    org.screenshot(path=str(ARTIFACTS / "validation-new-batch.png"), full_page=True)
    org.click("#create-batch")
    org.wait_for_selector("#summary")
    batch_url = org.url

    ann = _login(browser, live_server.url, "ann")
    ann.goto(f"{live_server.url}/validation/")
    ann.click(".annotate-button")
    for _ in range(2):
        _answer(ann, lambda item: item.label, by_keyboard=True)
    ann.goto(f"{live_server.url}/validation/")  # leave, then resume where it stopped
    assert ann.inner_text(".annotate-button") == "Continue"
    ann.click(".annotate-button")
    assert ann.inner_text("#progress-text") == "2 of 4 answered"
    ann.screenshot(path=str(ARTIFACTS / "validation-annotate.png"), full_page=True)
    assert "label" not in ann.content().lower().replace("<label", "")
    for _ in range(2):
        _answer(ann, lambda item: item.label, by_keyboard=True)
    ann.wait_for_selector("#assignment-done")

    bea = _login(browser, live_server.url, "bea")
    bea.goto(f"{live_server.url}/validation/")
    bea.click(".annotate-button")
    for _ in range(4):  # "none fits" on question 1001: no majority of 2, so it is dropped
        _answer(
            bea,
            lambda item: -1 if (item.kind, item.question_id) == ("generated", 1001) else item.label,
            by_keyboard=False,
        )
    bea.wait_for_selector("#assignment-done")

    org.goto(batch_url)
    assert org.inner_text("#verdict-counts") == "2 / 1 / 0"
    assert org.inner_text("#human-accuracy") == "83.3"
    org.screenshot(path=str(ARTIFACTS / "validation-results.png"), full_page=True)
    with org.expect_download() as download:
        org.click("#export-link")
    archive_path = tmp_path / "export.zip"
    download.value.save_as(archive_path)
    with zipfile.ZipFile(archive_path) as archive:
        names = {Path(n).name: n for n in archive.namelist()}
        validated = archive.read(names["validated.jsonl"]).decode()
        summary = json.loads(archive.read(names["summary.json"]))
    assert [json.loads(line)["id"] for line in validated.splitlines()] == [1000, 1002]
    assert all(a["seconds"] > 0 for a in summary["annotators"])
    data_dir = tmp_path / "data"
    (data_dir / "training_data").mkdir(parents=True)
    (data_dir / "training_data" / "Task_1_dev.jsonl").write_text(validated)
    competition = competition_load_recam(data_dir=data_dir, slug="validated").competition
    assert competition.phases.get(kind="practice").test_sets.get(subtask=1).question_ids == [1000, 1002]
