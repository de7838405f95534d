"""The board's "Entries" column: the team's scored submissions in the phase, stored on each row.

Existing rows are filled from the submissions (live rows only: a frozen snapshot stays as it was frozen).
"""

from django.db import migrations, models
from django.db.models import Count
from django.utils import timezone


def fill_entries(apps, schema_editor):
    LeaderboardEntry = apps.get_model("leaderboards", "LeaderboardEntry")
    Submission = apps.get_model("submissions", "Submission")
    counts = (
        Submission.objects.filter(status="scored", scores__isnull=False)
        .values("phase_id", "team_id")
        .annotate(n=Count("id", distinct=True))
    )
    now = timezone.now()  # a new updated_at: the cached boards (keyed by it) are rendered again
    for row in counts:
        rows = LeaderboardEntry.objects.filter(phase_id=row["phase_id"], team_id=row["team_id"])
        rows.update(entries=row["n"], updated_at=now)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0003_stats_intervals"),
        ("submissions", "0002_quota_and_selection"),
    ]

    operations = [
        migrations.AddField(
            model_name="leaderboardentry",
            name="entries",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="officialresultrow",
            name="entries",
            field=models.PositiveIntegerField(
                blank=True, help_text="scored submissions when frozen", null=True
            ),
        ),
        migrations.RunPython(fill_entries, migrations.RunPython.noop),
    ]
