"""Headless Chromium, a real Celery worker: an organizer creates a CLOTH and an SCDE competition in the
console, adds a practice phase to each and loads its test set (this platform's jsonl for CLOTH, with a
refused bad line first; the published SCDE split); a participant signs up, uploads to both, and reads
boards with the formats' metrics, their 95% intervals, statistical ranks and the chance row."""

import json
from pathlib import Path

import pytest

from competitions.models import Competition, TestSet
from recam.formats.cloth import ClothPassage
from tests.integration.test_browser import ARTIFACTS, sign_up, wait_for_statistics
from tests.integration.test_console_browser import _login
from tests.platform.factories import UserFactory

pytestmark = [pytest.mark.integration, pytest.mark.browser]

SCDE_DEV = Path(__file__).resolve().parents[1] / "recam" / "fixtures" / "scde_official" / "dev.json"


def _cloth_file(tmp_path, *, bad_line: int | None = None) -> Path:
    """This platform's CLOTH jsonl (as ``python -m datagen cloth`` writes it): 4 passages of 3 blanks."""
    lines = []
    for pid in range(4):
        record = ClothPassage(
            id=pid,
            article=f"Story {pid}: the _ went to the _ with a _.",
            options=(
                ("cat", "dog", "cow", "hen"),
                ("park", "shop", "lake", "zoo"),
                ("hat", "map", "box", "kite"),
            ),
            answers=(pid % 4, (pid + 1) % 4, (pid + 2) % 4),
        ).to_json()
        if pid + 1 == bad_line:
            record["answers"][2] = 7
        lines.append(json.dumps(record))
    path = tmp_path / ("cloth-bad.jsonl" if bad_line else "cloth-small.jsonl")
    path.write_text("\n".join(lines) + "\n")
    return path


def _create(page, url: str, slug: str, title: str, task_format: str) -> None:
    page.goto(f"{url}/console/")
    page.click("#new-competition")
    page.fill("#id_slug", slug)
    page.fill("#id_title", title)
    page.select_option("#id_task_format", task_format)
    page.click("#competition-create")
    page.wait_for_selector(f"text=Competition “{title}” created")
    page.click("#new-phase-practice")
    page.fill("#id_starts_at", "2020-01-01T00:00")
    page.click("#phase-save")
    page.wait_for_selector("text=Load its test set next")


def _load(page, path: Path, layout: str) -> None:
    page.check(f"#format-test-set-form input[name=layout][value={layout}]")
    page.set_input_files("#format-test-set-form input[type=file]", str(path))
    page.click("#format-test-set-upload")


def _upload(page, url: str, slug: str, team: str, body: str, tmp_path) -> None:
    page.goto(f"{url}/c/{slug}/team/")
    page.fill("#id_name", team)
    page.check("#id_accept_rules")
    page.click("button[name=create]")
    page.wait_for_selector("#invite-link")
    predictions = tmp_path / f"{slug}-predictions.csv"
    predictions.write_text(body)
    page.goto(f"{url}/c/{slug}/submit/")
    page.select_option("#id_phase", label="Practice")
    page.set_input_files("#id_file", str(predictions))
    page.click("#upload-button")
    page.wait_for_selector("#status.status-scored")


def _board(page, url: str, slug: str, task_format: str) -> dict:
    page.goto(f"{url}/c/{slug}/leaderboard/practice/")
    wait_for_statistics(page)
    table = f"table[data-format='{task_format}']"
    row = page.locator(f"{table} tr[data-team]").first
    return {
        "headers": [
            h.strip() for h in page.locator(f"{table} thead th").all_text_contents()
        ],  # not as CSS cases them
        "rank": row.locator("td.rank").inner_text(),
        "metrics": row.locator("td.metric").all_inner_texts(),
        "interval": row.locator("td.interval").inner_text(),
        "chance": page.locator("#chance-row td.metric").all_inner_texts(),
    }


def test_an_organizer_runs_cloth_and_scde_competitions_from_the_console(
    worker, live_server, chromium, tmp_path
):
    UserFactory(username="boss", is_staff=True, is_superuser=True)
    url = live_server.url
    organizer = chromium.new_page(viewport={"width": 1100, "height": 900})
    organizer.set_default_timeout(30_000)
    _login(organizer, url, "boss")

    _create(organizer, url, "cloze", "Word cloze", "cloth")
    _load(organizer, _cloth_file(tmp_path, bad_line=3), "jsonl")
    organizer.wait_for_selector(
        "text=Nothing changed: cloth-bad.jsonl:3: answers[2] (blank 3) must be an integer 0-3"
    )
    assert not TestSet.objects.exists()
    _load(organizer, _cloth_file(tmp_path), "jsonl")
    organizer.wait_for_selector(
        "text=Test set loaded: practice: cloth: 4 passages, 12 blanks from cloth-small.jsonl"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    organizer.screenshot(path=str(ARTIFACTS / "console-cloth-phase.png"), full_page=True)

    _create(organizer, url, "sentences", "Sentence cloze", "scde")
    _load(organizer, SCDE_DEV, "official")
    organizer.wait_for_selector(
        "text=scde: 2 passages, 5 blanks from dev.json (4 passages dropped by the cleaning rules)"
    )
    assert dict(Competition.objects.values_list("slug", "task_format")) == {
        "cloze": "cloth",
        "sentences": "scde",
    }

    participant = chromium.new_page(viewport={"width": 1100, "height": 900})
    participant.set_default_timeout(30_000)
    sign_up(participant, url, "ada")
    # CLOTH: passage p's answers are p, p+1, p+2 (mod 4); blank 3 is wrong everywhere: 8 of 12 right
    cloth_body = "".join(f"{p},1,{p % 4}\n{p},2,{(p + 1) % 4}\n{p},3,{(p + 3) % 4}\n" for p in range(4))
    _upload(participant, url, "cloze", "Cloze Owls", cloth_body, tmp_path)
    _upload(participant, url, "sentences", "Sentence Owls", "0,1,1\n0,2,0\n1,1,1\n1,2,0\n1,3,2\n", tmp_path)

    cloth = _board(participant, url, "cloze", "cloth")
    assert cloth["headers"][:5] == ["Rank", "Team", "System", "Acc", "Acc 95% interval"]
    assert cloth["rank"] == "1"
    assert cloth["metrics"] == ["66.67"]
    low, high = (float(x) for x in cloth["interval"].split("\u2013"))
    assert low < 66.67 < high
    assert cloth["chance"] == ["25.00"]
    participant.screenshot(path=str(ARTIFACTS / "leaderboard-cloth-console.png"), full_page=True)

    scde = _board(participant, url, "sentences", "scde")
    assert scde["headers"][3:7] == ["BA", "PA", "DE", "BA 95% interval"]
    assert scde["rank"] == "1"
    assert scde["metrics"] == ["83.33", "50.00", "0.500"]
    low, high = (float(x) for x in scde["interval"].split("\u2013"))
    assert low <= 66.67 < 83.33 < high <= 100.0  # passages' BA are 1 and 2/3: resampled two passages
    assert scde["chance"] == ["22.50", "5.00", "1.100"]
    participant.screenshot(path=str(ARTIFACTS / "leaderboard-scde-console.png"), full_page=True)
