from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"
