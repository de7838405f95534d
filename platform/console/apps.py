from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The organizers' console: pages over the competitions, submissions and leaderboards services."""

    name = "console"
    default_auto_field = "django.db.models.BigAutoField"
