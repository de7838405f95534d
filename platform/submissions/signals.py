"""What the submissions app announces to the apps above it (the leaderboards listen; see leaderboards/apps.py).

``team_results_changed`` is sent inside the writing transaction whenever a team's results in a phase
change (scored, failed, a submission selected), so a receiver's writes commit or roll back with them.
Sent this way, submissions never imports the leaderboards (one import direction: leaderboards -> submissions).
"""

from django.dispatch import Signal

# Keyword arguments: phase, team; scoring adds submission_id and answers (test subtask -> (gold sha256,
# chosen options, right/wrong per question), ``recam.stats.answer_strings``) from the file it parsed.
team_results_changed = Signal()
