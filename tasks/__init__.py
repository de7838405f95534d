"""Celery app and thin tasks: each fetches by id and calls one service.

Start a worker with ``celery -A tasks.app worker -Q scoring,cpu``.
"""
