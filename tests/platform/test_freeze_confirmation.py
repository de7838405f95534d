"""The freeze is a deliberate act: a confirmation page lists what is not final, the freeze closes the
phase to uploads, and the frozen board says which subtasks are not official yet."""

import pytest
from django.urls import reverse

from competitions.errors import ApplicationError
from competitions.models import Phase
from competitions.services import gold_store, phase_test_set_store
from leaderboards.models import OfficialResult
from submissions.services import submission_create
from tests.platform.factories import PhaseFactory, TeamFactory, UserFactory
from tests.platform.ops import N, predictions, submit


@pytest.fixture
def phase(db, django_capture_on_commit_callbacks):
    """Subtask 2 has gold and one scored upload; Subtask 1 has none and one upload waiting for it."""
    phase = PhaseFactory(kind="evaluation", title="Evaluation")
    for subtask in (1, 2):
        test_set = phase_test_set_store(
            phase=phase, subtask=subtask, question_ids=list(range(N)), source_name="t", source_sha256="0" * 64
        )
        if subtask == 2:
            gold_store(test_set=test_set, labels=dict.fromkeys(range(N), 0), source_name="t")
    team = TeamFactory(competition=phase.competition, name="alpha")
    assert submit(django_capture_on_commit_callbacks, phase, team, 6, subtask=1).status == "waiting"
    assert submit(django_capture_on_commit_callbacks, phase, team, 8, subtask=2).status == "scored"
    return phase


@pytest.fixture
def staff_client(client, db):
    client.force_login(UserFactory(is_staff=True))
    return client


def _url(phase, name="console_freeze"):
    return reverse(name, args=[phase.competition.slug, phase.kind])


def test_the_confirmation_page_lists_what_is_not_final_and_freezes_nothing(staff_client, phase):
    page = staff_client.get(_url(phase))
    assert page.status_code == 200
    text = page.content.decode()
    assert "1 valid submission waiting for gold answers" in text
    assert "Subtask 1 has no gold answers" in text
    assert "it has no closing date" in text
    assert "Close the phase and freeze" in text
    unconfirmed = staff_client.post(_url(phase))
    assert unconfirmed.status_code == 200  # the confirmation page again
    assert OfficialResult.objects.count() == 0
    assert Phase.objects.get(pk=phase.pk).ends_at is None


def test_a_confirmed_freeze_closes_the_phase_and_says_one_row(staff_client, phase):
    response = staff_client.post(_url(phase), {"confirm": "1"}, follow=True)
    text = response.content.decode()
    assert "Official results frozen (1 row);" in text
    assert "closed to uploads" in text
    assert OfficialResult.objects.count() == 1
    phase.refresh_from_db()
    assert phase.ends_at is not None
    with pytest.raises(ApplicationError, match="not open for submissions: it closed at"):
        submission_create(
            phase=phase,
            team=phase.competition.teams.get(),
            filename="subtask2.csv",
            data=predictions(3),
            trained_on={2: 2},
        )


def test_a_refused_freeze_leaves_the_phase_open(staff_client, db):
    empty = PhaseFactory(kind="evaluation", title="Evaluation")  # no gold at all: nothing to freeze
    response = staff_client.post(_url(empty), {"confirm": "1"}, follow=True)
    assert "Not frozen" in response.content.decode()
    assert Phase.objects.get(pk=empty.pk).ends_at is None


def test_the_frozen_board_says_which_subtasks_are_not_official(staff_client, client, phase):
    staff_client.post(_url(phase), {"confirm": "1"})
    client.logout()
    board = client.get(_url(phase, "leaderboard")).content.decode()
    assert "Subtask 1 is not official yet" in board
    assert "Subtask 2 is not official yet" not in board
