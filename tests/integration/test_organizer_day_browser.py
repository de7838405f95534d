"""Headless Chromium + a real Celery worker, on a fresh database: the organizer's whole day.

XSum pairs -> a console generation job (the smallest real settings the form allows) -> a validation
batch with one careless annotator, which still completes after the organizer acts -> the kept
questions loaded into the evaluation phase -> a participant's upload, ids by the Data page's rule ->
a confirmed freeze. Along the way: the navigation fits 1280 px, and wide tables at 390 px say they
scroll and hide no column. Screenshots go to var/artifacts/organizer-day/ (the docs' images come from
there)."""

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model

from competitions.models import Phase
from competitions.services import competition_load_recam
from console.models import GenerationJob
from leaderboards.models import OfficialResult
from submissions.models import Submission
from teams.services import team_create
from tests.integration.test_browser import ARTIFACTS
from tests.platform.factories import UserFactory
from validation.models import Annotation, ValidationBatch

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.slow]
PAIRS = 12
PASSWORD = "a-long-test-password"
SHOTS = ARTIFACTS / "organizer-day"


def _page(chromium, base: str, username: str, *, width: int = 1280):
    page = chromium.new_context(viewport={"width": width, "height": 900}, accept_downloads=True).new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)
    return page


def _shot(page, name: str, *, height: int | None = None) -> None:
    """A full-page screenshot, or its top ``height`` pixels (the docs' images of long pages)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    clip = {"x": 0, "y": 0, "width": page.viewport_size["width"], "height": height} if height else None
    page.screenshot(path=str(SHOTS / name), full_page=True, clip=clip)


def _nav_wrapped(page) -> list[str]:
    """The navigation items below its first line (none: it does not wrap)."""
    return page.evaluate(
        """() => {
          const items = [...document.querySelectorAll('header nav > *')];
          const first = items[0].getBoundingClientRect();
          return items.filter(e => e.getBoundingClientRect().top >= first.bottom).map(e => e.textContent.trim());
        }"""
    )


def _annotate_everything(page, base: str, batch: ValidationBatch, *, careless: bool) -> int:
    """Take assignments until none is left; the label for generated questions, and for gold checks
    the label (careful) or a wrong option (careless). Returns the number of answers."""
    answers = 0
    while True:
        page.goto(f"{base}/validation/")
        page.click(f"tr[data-batch='{batch.pk}'] .annotate-button")
        page.wait_for_load_state("load")
        if "/assignments/" not in page.url:
            return answers  # "nothing left for you to annotate"
        while page.locator("input[name=annotation]").count():
            annotation_id = int(page.input_value("input[name=annotation]"))
            item = Annotation.objects.select_related("item").get(pk=annotation_id).item
            answer = (item.label + 1) % 5 if careless and item.kind == "gold" else item.label
            with page.expect_navigation():
                page.click(f'#answer-form button[data-key="{answer + 1}"]')
            answers += 1


def test_the_organizers_day_on_a_fresh_database(
    worker, live_server, chromium, xsum_path, recam_data_dir, tmp_path, settings
):
    settings.VALIDATION_GOLD_FILE = ""  # the batch's own subtask's dev set
    base = live_server.url
    competition = competition_load_recam(data_dir=recam_data_dir).competition
    slug = competition.slug
    UserFactory(username="boss", is_staff=True, is_superuser=True)
    for name in ("ann", "bea", "cal", "pat"):
        UserFactory(username=name)
    pairs = tmp_path / "xsum_pairs.jsonl"
    pairs.write_text("\n".join(xsum_path.read_text(encoding="utf-8").splitlines()[:PAIRS]) + "\n")

    # 1. XSum pairs -> a generation job on the workers.
    boss = _page(chromium, base, "boss")
    boss.goto(f"{base}/console/datasets/")
    _shot(boss, "nav-1280.png")
    assert _nav_wrapped(boss) == []  # the staff navigation fits 1280 px
    boss.set_input_files("#id_file", str(pairs))
    boss.click("#pairs-upload")
    boss.wait_for_selector("text=Stored")
    label = next(o for o in boss.locator("#id_pairs option").all_inner_texts() if "xsum_pairs" in o)
    boss.select_option("#id_pairs", label=label)
    boss.select_option("#id_subtask", "2")
    boss.fill("#id_folds", "2")
    boss.fill("#id_readers", "ga")
    boss.select_option("#id_ranker", "readers")  # the paper's path: no LM on this small CPU run
    boss.uncheck("#id_gate")
    boss.fill("#id_epochs", "1")
    boss.fill("#id_shard_size", "4")
    _shot(boss, "console-datasets.png")
    boss.click("#generation-start")
    boss.wait_for_selector("#job-progress")
    job = GenerationJob.objects.get()
    boss.wait_for_selector("#recam-ready, #job-outcome, #job-resume", timeout=1_500_000)
    job.refresh_from_db()
    assert job.status == "done", job.message
    assert boss.locator("#recam-ready").count() == 1, boss.locator("#job-outcome").inner_text()
    assert "XSum pairs read" in boss.locator("#funnel").inner_text()
    assert boss.locator("#options-report h2").count() >= 1  # markdown rendered, not shown raw
    assert boss.locator("#id_subtask").input_value() == "2"  # the load form follows the job
    assert boss.locator("#id_phase option:checked").inner_text() == str(
        competition.phases.get(kind="evaluation")
    )
    _shot(boss, "console-job-done.png")

    # 2. A validation batch: annotators added from its page, one of them careless.
    boss.click("#send-to-validation")
    boss.wait_for_selector("#next-step")
    batch = ValidationBatch.objects.get()
    assert batch.gold_source_name.endswith("Task_2_dev.jsonl")
    boss.fill("#id_usernames", "ann bea cal")
    boss.click("#add-annotators-form button")
    boss.wait_for_selector("text=can annotate now")
    boss.fill("#id_annotations_per_question", "2")
    boss.click("#batch-settings-form button")
    boss.wait_for_selector("text=batch settings saved")
    cal = _page(chromium, base, "cal")
    assert _annotate_everything(cal, base, batch, careless=True) > 0
    ann = _page(chromium, base, "ann")
    assert _annotate_everything(ann, base, batch, careless=False) > 0
    boss.reload()
    assert "no (gold accuracy too low" in boss.locator("#annotators").inner_text()
    assert "not counted: cal" in boss.locator("#questions").inner_text()
    assert " free." in boss.locator("#next-step").inner_text()  # "N slots free": cal's, released
    _shot(boss, "validation-batch-pending.png", height=2300)
    bea = _page(chromium, base, "bea")
    assert _annotate_everything(bea, base, batch, careless=False) > 0  # cal's slots, freed
    boss.reload()
    assert "the batch is complete" in boss.locator("#next-step").inner_text()
    _shot(boss, "validation-batch-complete.png", height=1500)
    with boss.expect_download() as download:
        boss.click("#export-link")
    archive = zipfile.ZipFile(io.BytesIO(download.value.path().read_bytes()))
    validated = archive.read(f"validation-batch-{batch.pk}/validated.jsonl")
    kept = validated.decode().splitlines()
    assert kept, "no question kept"
    (tmp_path / "validated.jsonl").write_bytes(validated)

    # 3. The kept questions into the evaluation phase (renumbered to line numbers on load).
    boss.goto(f"{base}/console/{slug}/evaluation/")
    boss.select_option("#test-set-form select[name=subtask]", "2")
    boss.set_input_files("#test-set-form input[name=file]", str(tmp_path / "validated.jsonl"))
    boss.click("#test-set-form button")
    boss.wait_for_selector(f"text=Subtask 2: {len(kept)} questions loaded from validated.jsonl")

    # 4. A participant follows the Data page: one id,label line per question, id = its line number.
    evaluation = Phase.objects.get(competition=competition, kind="evaluation")
    team_create(competition=competition, user=get_user_model().objects.get(username="pat"), name="Owls")
    pat = _page(chromium, base, "pat", width=390)
    pat.goto(f"{base}/c/{slug}/data/evaluation/")
    with pat.expect_download() as download:
        pat.click("#questions-2")
    lines = download.value.path().read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == list(range(len(kept)))
    predictions = tmp_path / "subtask2.csv"
    predictions.write_text("".join(f"{i},0\n" for i, _ in enumerate(lines)))
    pat.goto(f"{base}/c/{slug}/submit/")
    pat.select_option("#id_phase", label=evaluation.title)
    pat.set_input_files("#id_file", str(predictions))
    pat.click("#upload-button")
    pat.wait_for_selector("#status.status-scored")
    assert Submission.objects.get().status == "scored"

    # 5. The freeze: a confirmation page says what is not final; confirming closes the phase.
    boss.goto(f"{base}/console/{slug}/evaluation/")
    boss.click("#publish")
    boss.wait_for_selector("text=Results published.")
    boss.click("#freeze")
    boss.wait_for_selector("#freeze-checks")
    assert "no closing date" in boss.locator("#check-open").inner_text()
    assert "Subtask 1 has no gold answers" in boss.locator("#freeze-checks").inner_text()
    _shot(boss, "console-freeze-confirm.png")
    boss.click("#confirm-freeze")
    boss.wait_for_selector("text=closed to uploads")
    assert OfficialResult.objects.filter(phase=evaluation).count() == 1
    assert Phase.objects.get(pk=evaluation.pk).ends_at is not None

    # 6. The frozen board, on a phone: Subtask 1 marked not official, wide tables scroll with a cue.
    pat.goto(f"{base}/c/{slug}/leaderboard/evaluation/")
    assert pat.locator(".unofficial[data-subtask='1']").is_visible()
    table = pat.locator("table.leaderboard[data-subtask='2']")
    box = table.locator("xpath=..")
    assert pat.locator(".scroll-hint").first.is_visible()
    box.evaluate("element => { element.scrollLeft = element.scrollWidth; }")
    header = table.locator("th", has_text="Acc. Cross").bounding_box()
    assert header["x"] >= 0  # reachable by scrolling, not clipped away
    assert header["x"] + header["width"] <= 390 + 1
    _shot(pat, "board-frozen-390.png")
    pat.goto(f"{base}/c/{slug}/submissions/")
    assert pat.locator(".scroll-hint").first.is_visible()
    header = pat.locator("main table").first.locator("th", has_text="Status")
    header.scroll_into_view_if_needed()  # scrolls the table's own box sideways
    status = header.bounding_box()
    assert status["x"] >= 0  # the Status column is reachable on a phone
    assert status["x"] + status["width"] <= 390 + 1
    boss.goto(f"{base}/c/{slug}/leaderboard/evaluation/")
    assert _nav_wrapped(boss) == []
    _shot(boss, "board-frozen.png")
