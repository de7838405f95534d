"""The project's composition root: settings, URLs, WSGI; and the Celery app, loaded with Django so that
services can send tasks by name (``celery.current_app``) without importing any task module."""

from tasks.app import app as celery_app

__all__ = ["celery_app"]
