"""Terminal rendering of the API's answers."""

import doctest

import client.render
from client import render
from client.cli import _parse_trained_on


def test_render_doctests():
    assert doctest.testmod(client.render).failed == 0


def test_submission_shows_validity_and_hidden_scores():
    text = render.submission(
        {
            "id": 3,
            "phase": "evaluation",
            "team": "A",
            "status": "scored",
            "results_hidden": True,
            "validity": "valid upload (sha256 abc...; subtask1.csv: 2,025 predictions)",
            "scores": [],
        }
    )
    assert "submission 3 (evaluation, team A): scored" in text
    assert "2,025 predictions" in text
    assert "hidden until the organizers publish" in text


def test_trained_on_forms():
    assert _parse_trained_on(("1",)) == {1: 1, 2: 1}
    assert _parse_trained_on(("2:1",)) == {2: 1}
    assert _parse_trained_on(("2", "1:1")) == {1: 1, 2: 2}


def test_submission_shows_the_queue_place_and_eta():
    from client import render

    waiting = {"id": 7, "status": "queued", "queue": {"position": 3, "ahead": 2, "eta_seconds": 6.0}}
    assert "queue: place 3 (2 ahead), estimated 6 s until scored" in render.submission(waiting)
    unknown = {"id": 7, "status": "queued", "queue": {"position": 1, "ahead": 0, "eta_seconds": None}}
    assert "no estimate yet" in render.submission(unknown)
    assert "queue:" not in render.submission({"id": 7, "status": "scored", "queue": None})
