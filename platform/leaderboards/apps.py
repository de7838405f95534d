from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"

    def ready(self) -> None:
        from leaderboards.services import leaderboard_refresh
        from submissions.signals import team_results_changed

        def refresh(*, phase, team, **_kwargs) -> None:  # inside the sender's transaction
            leaderboard_refresh(phase=phase, team=team)

        team_results_changed.connect(refresh, weak=False, dispatch_uid="leaderboards.refresh")
