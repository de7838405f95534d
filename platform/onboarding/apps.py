from django.apps import AppConfig


class OnboardingConfig(AppConfig):
    """The newcomer path: a Data page per phase, the starting kit, the API token page."""

    name = "onboarding"
    default_auto_field = "django.db.models.BigAutoField"
