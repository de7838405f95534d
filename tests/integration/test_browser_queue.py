"""The submission page shows the place in the scoring queue and an ETA, and updates both live (headless Chromium)."""

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from submissions.models import Submission
from tests.integration.test_browser import browser_page  # noqa: F401 - the Chromium fixture
from tests.platform.factories import PhaseFactory, TeamFactory, UserFactory, member

pytestmark = [pytest.mark.integration, pytest.mark.browser]
Status = Submission.Status


@pytest.fixture(scope="session")
def drop_ready_at_end(django_db_setup, django_db_blocker):
    """End the live server's idle database sessions (PostgreSQL) so the test database can be dropped: once,
    at the end of the run; ending them after this test killed sessions the next tests still held."""
    from tests.integration.conftest import _end_other_sessions

    yield
    with django_db_blocker.unblock():
        _end_other_sessions(this_process_too=True)


@pytest.fixture
def drop_ready(drop_ready_at_end, transactional_db):
    return None


def _submission(team, phase, status, **times):
    return Submission.objects.create(
        team=team,
        phase=phase,
        file="submissions/x.zip",
        original_filename="x.zip",
        sha256="0" * 64,
        size=10,
        status=status,
        received_at=times.pop("received_at", timezone.now()),
        **times,
    )


def test_queue_place_and_eta_update_without_reloading(drop_ready, live_server, browser_page, settings):  # noqa: F811
    settings.SCORING_WORKERS = 1
    phase = PhaseFactory(kind="practice")
    team, other = TeamFactory(competition=phase.competition), TeamFactory(competition=phase.competition)
    user = UserFactory()
    member(team, user)
    now = timezone.now()
    for k in range(5):  # recent scoring times: 4 s each
        start = now - dt.timedelta(minutes=10 - k)
        _submission(
            other, phase, Status.SCORED, scoring_started_at=start, finished_at=start + dt.timedelta(seconds=4)
        )
    ahead = _submission(other, phase, Status.QUEUED, queued_at=now - dt.timedelta(seconds=30))
    mine = _submission(team, phase, Status.QUEUED, queued_at=now - dt.timedelta(seconds=10))

    client = Client()
    client.force_login(user)
    page = browser_page
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/submissions/{mine.pk}/")
    place = page.locator("#queue-place")
    assert place.inner_text().startswith(
        "Place in the scoring queue: 2 (1 ahead); estimated 8 s until scored"
    )
    page.evaluate("window.__not_reloaded = true")

    Submission.objects.filter(pk=ahead.pk).update(status=Status.SCORED, finished_at=timezone.now())
    page.wait_for_function("document.getElementById('queue-place').textContent.includes('1 (0 ahead)')")
    assert "estimated 8 s" not in place.inner_text()
    assert "estimated 4 s until scored" in place.inner_text()
    assert page.evaluate("window.__not_reloaded") is True  # updated by polling, not by a reload
