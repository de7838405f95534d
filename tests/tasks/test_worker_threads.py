"""A Celery worker computes on one torch thread unless the operator chose another count."""

import os

from celery.signals import celeryd_init

from lexicon.threads import ENV
from tasks.app import _one_torch_thread_per_worker


def test_a_worker_gets_one_thread_by_default(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    celeryd_init.send(sender="test-worker@host", instance=None, conf=None, options={})

    assert os.environ[ENV] == "1"


def test_the_operators_choice_is_kept(monkeypatch):
    monkeypatch.setenv(ENV, "4")
    _one_torch_thread_per_worker()

    assert os.environ[ENV] == "4"
