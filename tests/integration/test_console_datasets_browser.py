"""Headless Chromium + a real Celery worker: an organizer uploads a small XSum pairs file, starts a
generation job (candidates -> options), follows the live progress bar, cancels and resumes it, loads the ReCAM
questions with their gold into a phase. Slow on a loaded CPU (it trains a reader per fold)."""

import json

import pytest

from competitions.services import competition_load_recam
from console.models import GenerationJob
from tests.integration.test_browser import ARTIFACTS
from tests.integration.test_console_browser import _login
from tests.platform.factories import UserFactory

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.slow]
PAIRS = 12


def test_xsum_pairs_to_a_loaded_phase_on_the_site(
    worker, live_server, chromium, xsum_path, recam_data_dir, tmp_path
):
    competition = competition_load_recam(data_dir=recam_data_dir).competition
    UserFactory(username="boss", is_staff=True, is_superuser=True)
    pairs = tmp_path / "small_pairs.jsonl"
    lines = xsum_path.read_text(encoding="utf-8").splitlines()[:PAIRS]
    pairs.write_text("\n".join(lines) + "\nnot json\n", encoding="utf-8")
    page = chromium.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(60_000)
    _login(page, live_server.url, "boss")
    page.goto(f"{live_server.url}/console/datasets/")
    page.set_input_files("#id_file", str(pairs))
    page.click("#pairs-upload")
    page.wait_for_selector("text=Stored")
    assert f"{PAIRS} pairs; 1 bad lines skipped" in page.locator(".messages").inner_text()
    label = next(o for o in page.locator("#id_pairs option").all_inner_texts() if "small_pairs" in o)
    page.select_option("#id_pairs", label=label)
    page.select_option("#id_subtask", "2")
    page.fill("#id_folds", "2")
    page.fill("#id_readers", "ga")
    page.select_option("#id_ranker", "readers")  # the paper's path: no LM on this small CPU run
    page.uncheck("#id_gate")
    page.fill("#id_epochs", "1")
    page.fill("#id_shard_size", "4")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "console-datasets.png"), full_page=True)
    page.click("#generation-start")
    page.wait_for_selector("#job-progress")
    job = GenerationJob.objects.get()
    page.wait_for_function(
        "['running', 'failed'].includes(document.getElementById('job-status').textContent)", timeout=300_000
    )
    job.refresh_from_db()
    assert job.status == "running", job.message  # a job that fails at once says why here
    page.screenshot(path=str(ARTIFACTS / "console-job-running.png"), full_page=True)
    page.click("#job-cancel")  # stops at the worker's next progress write (after the current shard)
    page.wait_for_selector("#job-resume", timeout=600_000)  # the page reloads when the job ends
    job.refresh_from_db()
    assert job.status == "cancelled", job.message
    assert "cancelled at" in page.locator("#job-message").inner_text()
    page.click("#job-resume")
    page.wait_for_selector("text=finished shards and folds are reused")
    page.wait_for_selector("#recam-ready", timeout=1_500_000)  # the page reloads when the job ends
    job.refresh_from_db()
    assert job.status == "done", job.message
    funnel = json.loads(
        (worker / "datasets" / "jobs" / str(job.pk) / "candidates.jsonl.funnel.json").read_text()
    )
    assert funnel["funnel"]["pairs_processed"] == PAIRS
    assert funnel["funnel"]["bad_lines"] == 1
    kept = page.locator("#funnel tr[data-key='kept']")
    assert kept.locator("td").first.inner_text() == "target words kept"  # a label, not the raw key
    page.screenshot(path=str(ARTIFACTS / "console-job-done.png"), full_page=True)
    questions = int(page.locator("#recam-ready").inner_text().split()[0])
    assert questions > 0
    page.select_option("#id_phase", label=str(competition.phases.get(kind="evaluation")))
    page.select_option("#id_subtask", "2")
    page.click("#load-into-phase")
    page.wait_for_selector(f"text={questions} questions and their gold loaded")
    test_set = competition.phases.get(kind="evaluation").test_sets.get(subtask=2)
    assert test_set.num_questions == questions
    assert test_set.gold.num_labels == questions
