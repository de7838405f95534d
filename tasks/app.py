"""The Celery application, configured from Django settings (CELERY_* names)."""

import os
import sys
from pathlib import Path

from celery import Celery

_PLATFORM_DIR = Path(__file__).resolve().parents[1] / "platform"
if str(_PLATFORM_DIR) not in sys.path:  # platform/ is a source root, not a package
    sys.path.insert(0, str(_PLATFORM_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Every module that defines tasks is listed here, so any worker knows every task.
TASK_MODULES: list[str] = [
    "tasks.options",
    "tasks.scoring",
    "tasks.datagen",
    "tasks.reaper",
    "tasks.baselines",
]

app = Celery("recam", include=TASK_MODULES)
app.config_from_object("django.conf:settings", namespace="CELERY")
