"""Command-line client for the ReCAM platform's token API (Django-free; uses ``requests``).

``python -m client submit --phase evaluation predictions.zip --wait``; token from ``RECAM_TOKEN``,
server from ``RECAM_URL`` (default http://127.0.0.1:8000). See docs/reference/api.md.
"""
