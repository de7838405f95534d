"""Organizers download every submission of a phase as a zip with a manifest; nobody else can."""

import csv
import io
import zipfile

import pytest
from django.core.management import call_command
from django.urls import reverse

from teams.services import team_create
from tests.platform.factories import UserFactory
from tests.platform.ops import make_phase, predictions, submit


@pytest.fixture
def phase_with_uploads(db, django_capture_on_commit_callbacks):
    phase = make_phase(counted_policy="last")
    player = UserFactory()
    team = team_create(competition=phase.competition, user=player, name="../Owls")
    first = submit(django_capture_on_commit_callbacks, phase, team, 3)
    last = submit(django_capture_on_commit_callbacks, phase, team, 8)
    return phase, player, first, last


def _manifest(data: bytes) -> tuple[list[dict], zipfile.ZipFile]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    return list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode()))), archive


def test_organizer_zip_has_files_and_manifest(phase_with_uploads, client):
    phase, _, first, last = phase_with_uploads
    client.force_login(UserFactory(is_staff=True))
    response = client.get(reverse("phase_submissions_download", args=[phase.competition.slug, phase.kind]))
    assert response.status_code == 200
    rows, archive = _manifest(b"".join(response.streaming_content))
    by_id = {int(r["submission_id"]): r for r in rows}
    assert (by_id[first.pk]["counted"], by_id[last.pk]["counted"]) == ("False", "True")
    assert by_id[last.pk]["sha256"] == last.sha256
    assert float(by_id[last.pk]["accuracy_subtask1"]) == 0.8
    assert by_id[last.pk]["status"] == "scored"
    assert by_id[last.pk]["team"] == "../Owls"
    assert archive.read(by_id[first.pk]["path_in_zip"]) == predictions(3)
    assert all(".." not in name.split("/") for name in archive.namelist())


def test_participants_and_visitors_cannot_download(phase_with_uploads, client):
    phase, player, _, _ = phase_with_uploads
    url = reverse("phase_submissions_download", args=[phase.competition.slug, phase.kind])
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(player)
    assert client.get(url).status_code == 404


def test_command_writes_the_same_zip(phase_with_uploads, tmp_path):
    phase, _, first, last = phase_with_uploads
    out = tmp_path / "all.zip"
    call_command("recam_download_submissions", "--phase", phase.kind, "--competition", phase.competition.slug,
                 "--out", str(out), stdout=io.StringIO())  # fmt: skip
    rows, _ = _manifest(out.read_bytes())
    assert sorted(int(r["submission_id"]) for r in rows) == sorted([first.pk, last.pk])
