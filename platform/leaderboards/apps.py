from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"

    def ready(self) -> None:
        from leaderboards.intervals import score_vectors_store
        from leaderboards.services import leaderboard_refresh
        from submissions.signals import team_results_changed

        def refresh(
            *, phase, team, submission_id=None, answers=None, **_kwargs
        ) -> None:  # in the sender's transaction
            if answers:
                score_vectors_store(submission_id=submission_id, answers=answers)
            leaderboard_refresh(phase=phase, team=team)

        team_results_changed.connect(refresh, weak=False, dispatch_uid="leaderboards.refresh")
