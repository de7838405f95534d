"""The console's CLOTH and SCDE flow: a competition of a task format, its phase's test set uploaded as this
platform's jsonl or in the published layouts, every bad record named with its file and line, nothing
stored changed by a refused file, and the phase re-scored by the service ``recam_format_test_set`` uses."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from competitions.errors import ApplicationError
from competitions.models import Competition, GoldAnswers, TestSet
from competitions.services import competition_create, competition_update
from competitions.task_formats import format_public_path
from console import services
from recam.formats.cloth import ClothPassage
from recam.formats.scde import ScdePassage
from submissions.models import Submission
from submissions.services import submission_create
from tests.platform.factories import PhaseFactory, TeamFactory, UserFactory, member

FIXTURES = Path(__file__).parents[1] / "recam" / "fixtures"
SCDE_DEV = FIXTURES / "scde_official" / "dev.json"
CLOTH_DIR = FIXTURES / "cloth_official"


def cloth_jsonl(passages: int = 3, *, answers: bool = True) -> bytes:
    """This platform's CLOTH jsonl (as ``python -m datagen cloth`` writes it): 2 blanks per passage."""
    records = [
        ClothPassage(
            id=pid,
            article=f"Passage {pid}: the _ sat on the _ all day.",
            options=(("cat", "dog", "cow", "hen"), ("mat", "hat", "bat", "rat")),
            answers=(pid % 4, (pid + 1) % 4) if answers else None,
        ).to_json()
        for pid in range(passages)
    ]
    return "".join(json.dumps(r) + "\n" for r in records).encode()


@pytest.fixture
def staff_client(client, db):
    client.force_login(UserFactory(is_staff=True))
    return client


def cloth_phase(kind: str = "practice"):
    return PhaseFactory(
        competition=Competition.objects.create(slug="cl", title="CL", task_format="cloth"), kind=kind
    )


def _post_test_set(client, phase, data: bytes, name: str, layout: str = "jsonl"):
    url = reverse("console_format_test_set", args=[phase.competition.slug, phase.kind])
    upload = io.BytesIO(data)
    upload.name = name
    return client.post(url, {"layout": layout, "file": upload}, follow=True)


def _stored(phase) -> dict:
    """Everything a test-set load writes: the row, the gold row and both files' bytes."""
    test_set = TestSet.objects.get(phase=phase)
    gold = GoldAnswers.objects.filter(test_set=test_set).first()
    return {
        "test_set": (test_set.source_name, test_set.source_sha256, test_set.question_ids, test_set.slots),
        "gold": gold and (gold.sha256, gold.path),
        "gold_file": gold and (Path(settings.GOLD_ROOT) / gold.path).read_bytes(),
        "public_file": format_public_path(test_set=test_set).read_bytes(),
    }


def test_an_organizer_creates_a_cloth_and_an_scde_competition(staff_client):
    page = staff_client.get(reverse("console_competition_new")).content.decode()
    assert 'value="scde"' in page
    assert 'value="cloth"' in page
    for slug, fmt in (("cloze", "cloth"), ("sentences", "scde")):
        response = staff_client.post(
            reverse("console_competition_new"),
            {"slug": slug, "title": f"A {fmt} task", "description": "", "task_format": fmt},
            follow=True,
        )
        assert response.redirect_chain[-1][0] == reverse("console_competition", args=[slug])
        assert Competition.objects.get(slug=slug).task_format == fmt
    assert "CLOTH (multi-blank passage" in staff_client.get(reverse("console")).content.decode()


def test_a_reserved_or_taken_address_is_refused_on_the_form(staff_client):
    Competition.objects.create(slug="taken", title="Taken")
    for slug, message in (("datasets", "taken by the console"), ("taken", "already exists")):
        response = staff_client.post(
            reverse("console_competition_new"), {"slug": slug, "title": "T", "task_format": "scde"}
        )
        assert response.status_code == 400
        assert message in response.content.decode()
    assert Competition.objects.count() == 1
    with pytest.raises(ApplicationError, match="unknown task format 'squad'"):
        competition_create(slug="x", title="X", task_format="squad")


def test_the_task_format_is_fixed_once_a_test_set_is_loaded(staff_client):
    phase = cloth_phase()
    competition = phase.competition
    competition_update(competition=competition, title="CL", description="", task_format="scde")
    competition_update(competition=competition, title="CL", description="", task_format="cloth")
    services.format_test_set_upload(phase=phase, data=cloth_jsonl(), filename="cloth.jsonl", official=False)
    with pytest.raises(ApplicationError, match="the task format stays cloth"):
        competition_update(competition=competition, title="CL", description="", task_format="scde")
    page = staff_client.get(reverse("console_competition", args=["cl"])).content.decode()
    assert "fixed: the competition has test sets or uploads" in page
    staff_client.post(
        reverse("console_competition", args=["cl"]), {"title": "Renamed", "task_format": "scde"}
    )
    competition.refresh_from_db()
    assert (competition.title, competition.task_format) == ("Renamed", "cloth")


def test_a_generated_cloth_file_loads_from_the_console_with_slots_gold_and_public_copy(staff_client):
    phase = cloth_phase()
    page = staff_client.get(reverse("console_phase", args=["cl", "practice"])).content.decode()
    assert 'id="format-test-set-form"' in page
    assert 'id="test-set-form"' not in page
    response = _post_test_set(staff_client, phase, cloth_jsonl(), "cloth.jsonl")
    assert "Test set loaded: practice: cloth: 3 passages, 6 blanks from cloth.jsonl, gold sha256" in (
        response.content.decode()
    )
    test_set = TestSet.objects.get(phase=phase)
    assert test_set.slots == {"0": [2, 4], "1": [2, 4], "2": [2, 4]}
    public = format_public_path(test_set=test_set).read_text().splitlines()
    assert len(public) == 3
    assert all("answers" not in json.loads(line) for line in public)
    assert "25.00" in response.content.decode()  # CLOTH's chance row: a quarter of the blanks


def test_a_bad_line_is_named_with_file_and_line_and_nothing_stored_changes(staff_client):
    phase = cloth_phase()
    _post_test_set(staff_client, phase, cloth_jsonl(), "cloth.jsonl")
    before = _stored(phase)
    lines = cloth_jsonl(4).decode().splitlines()
    record = json.loads(lines[2])
    record["options"][1] = ["mat", "hat", "bat"]  # 3 options for a CLOTH blank
    lines[2] = json.dumps(record)
    response = _post_test_set(staff_client, phase, ("\n".join(lines) + "\n").encode(), "cloth-v2.jsonl")
    text = response.content.decode()
    assert response.status_code == 200
    assert (
        "Nothing changed: cloth-v2.jsonl:3: options[1] (blank 2) must hold exactly 4 options, got 3" in text
    )
    assert "/tmp" not in text  # the message names the uploaded file, not where the server kept it
    assert _stored(phase) == before


@pytest.mark.parametrize(
    ("data", "name", "layout", "message"),
    [
        (b"\xff\xfe{}", "cloth.jsonl", "jsonl", "cloth.jsonl: not UTF-8 text"),
        (b'{"article": "a _ b"}\n', "cloth.jsonl", "jsonl", "cloth.jsonl:1: missing field(s) options"),
        (b"\n\n", "cloth.jsonl", "jsonl", "cloth.jsonl: no passage to load"),
        (b"", "cloth.jsonl", "jsonl", "file: The submitted file is empty."),
        (b"{}", "cloth.jsonl", "other", "layout: Select a valid choice."),
        (b"[1, 2", "high0.json", "official", "high0.json:1: not valid JSON"),
        (b"[" * 100_000, "high0.json", "official", "high0.json: JSON nested too deeply to read"),
        (b'{"a": ' + b"[" * 100_000 + b"\n", "cloth.jsonl", "jsonl", "cloth.jsonl:1: JSON nested too deeply"),
        (
            b"PK\x03\x04",
            "cloth.zip",
            "jsonl",
            "cloth.zip: a .zip is read only as CLOTH's published folder layout",
        ),
    ],
)
def test_every_refused_file_says_why_and_leaves_the_test_set(staff_client, data, name, layout, message):
    phase = cloth_phase()
    _post_test_set(staff_client, phase, cloth_jsonl(), "cloth.jsonl")
    before = _stored(phase)
    text = _post_test_set(staff_client, phase, data, name, layout).content.decode()
    assert f"Nothing changed: {message}" in text.replace("&#x27;", "'")
    assert _stored(phase) == before


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_cloths_published_folder_loads_as_a_zip_and_a_member_outside_it_is_refused(staff_client):
    phase = cloth_phase()
    members = {str(p.relative_to(CLOTH_DIR)): p.read_bytes() for p in sorted(CLOTH_DIR.rglob("*.json"))}
    text = _post_test_set(staff_client, phase, _zip(members), "cloth-test.zip", "official").content.decode()
    assert "cloth: 2 passages, 6 blanks from cloth-test" in text
    bad = _zip({"high/high0.json": b"{}", "../escape.json": b"{}"})
    text = _post_test_set(staff_client, phase, bad, "cloth-test.zip", "official").content.decode()
    assert "member &#x27;../escape.json&#x27; points outside the archive" in text
    broken = _zip(
        {"high/high0.json": json.dumps({"article": "a _", "options": [list("abcd")], "answers": ["E"]})}
    )
    text = _post_test_set(staff_client, phase, broken, "cloth-test.zip", "official").content.decode()
    assert "cloth-test/high/high0.json: answers[0] (blank 1) must be a letter A-D, got &#x27;E&#x27;" in text
    assert TestSet.objects.get(phase=phase).source_name == "cloth-test"


def test_an_official_scde_split_loads_and_rescores_the_phase(
    staff_client, django_capture_on_commit_callbacks
):
    phase = PhaseFactory(competition=Competition.objects.create(slug="sc", title="SC", task_format="scde"))
    unanswered = [
        ScdePassage(id=0, sentences=("A.", "<1>", "B.", "<2>"), candidates=tuple("WXYZ")).to_json(),
        ScdePassage(id=1, sentences=("<1>", "C.", "<2>", "<3>"), candidates=tuple("VWXYZ")).to_json(),
    ]
    services.format_test_set_upload(
        phase=phase,
        data="".join(json.dumps(r) + "\n" for r in unanswered).encode(),
        filename="scde.jsonl",
        official=False,
    )
    team = TeamFactory(competition=phase.competition)
    member(team)
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(
            phase=phase, team=team, filename="p.csv", data=b"0,1,1\n0,2,0\n1,1,1\n1,2,0\n1,3,2\n"
        )
    submission.refresh_from_db()
    assert submission.status == Submission.Status.WAITING_GOLD
    with django_capture_on_commit_callbacks(execute=True):
        response = _post_test_set(staff_client, phase, SCDE_DEV.read_bytes(), "dev.json", "official")
    text = response.content.decode()
    assert "scde: 2 passages, 5 blanks from dev.json (4 passages dropped by the cleaning rules)" in text
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    assert submission.scores.get().metrics["passage_accuracy"] == 0.5
    preview = staff_client.get(reverse("console_phase", args=["sc", phase.kind])).content.decode()
    row = preview[preview.index('id="preview-format"') :].split("</tr>")[1]  # the team's row: BA, PA, DE
    cells = [c.split(">")[-1] for c in row.split("</td>") if 'class="num metric"' in c]
    assert cells == ["83.33", "50.00", "0.500"]
    zipped = _post_test_set(staff_client, phase, _zip({"dev.json": b"[]"}), "dev.zip", "official")
    assert "a .zip is read only as CLOTH" in zipped.content.decode()


def test_the_recam_forms_refuse_a_format_phase(staff_client):
    phase = cloth_phase()
    with pytest.raises(ApplicationError, match=r"a CLOTH .* competition loads its test set with the format"):
        services.test_set_load_upload(phase=phase, subtask=1, data=cloth_jsonl(), filename="c.jsonl")
    with pytest.raises(ApplicationError, match="loads its test set with the format test-set form"):
        services.gold_load_upload(phase=phase, subtask=1, data=b"0,1\n", filename="g.csv")
    assert not TestSet.objects.exists()


def test_a_recam_phase_keeps_its_forms(staff_client):
    phase = PhaseFactory(competition=Competition.objects.create(slug="rc", title="RC"))
    page = staff_client.get(reverse("console_phase", args=["rc", phase.kind])).content.decode()
    assert 'id="test-set-form"' in page
    assert 'id="gold-form"' in page
    assert 'id="format-test-set-form"' not in page
