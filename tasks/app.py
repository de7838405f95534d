"""The Celery application, configured from Django settings (CELERY_* names)."""

import os
import sys
from pathlib import Path

from celery import Celery
from celery.signals import celeryd_init

_PLATFORM_DIR = Path(__file__).resolve().parents[1] / "platform"
if str(_PLATFORM_DIR) not in sys.path:  # platform/ is a source root, not a package
    sys.path.insert(0, str(_PLATFORM_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Every module that defines tasks is listed here, so any worker knows every task.
TASK_MODULES: list[str] = [
    "tasks.options",
    "tasks.scoring",
    "tasks.statistics",
    "tasks.datagen",
    "tasks.reaper",
    "tasks.console_datasets",
    "tasks.quality",
    "tasks.baselines",
]

app = Celery("recam", include=TASK_MODULES)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.set_default()  # services send by name through celery.current_app, from any thread


@celeryd_init.connect
def _scoring_worker_options(conf=None, options=None, **_kwargs) -> None:
    """A worker that consumes only the scoring queue gets the scoring broker options (settings.py).

    Its unacknowledged deliveries live in their own Redis hash with a short visibility timeout, so a
    worker killed mid-scoring has its task handed to another within about a minute; workers that also
    take model jobs keep the long timeout (they would otherwise re-deliver hours-long jobs).
    """
    from django.conf import settings

    queues = (options or {}).get("queues") or []
    if isinstance(queues, str):
        queues = queues.split(",")
    if conf is not None and [q.strip() for q in queues] == [settings.CELERY_SCORING_QUEUE]:
        conf.broker_transport_options = dict(settings.SCORING_BROKER_TRANSPORT_OPTIONS)
