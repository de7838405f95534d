from django.db import migrations, models


def copy_metrics(apps, schema_editor):
    """Board rows written before they carried metrics: copy their counted score's (CLOTH and SCDE only)."""
    Score = apps.get_model("submissions", "Score")
    LeaderboardEntry = apps.get_model("leaderboards", "LeaderboardEntry")
    OfficialResultRow = apps.get_model("leaderboards", "OfficialResultRow")
    metrics = {
        (submission_id, subtask): values
        for submission_id, subtask, values in Score.objects.exclude(metrics={}).values_list(
            "submission_id", "test_subtask", "metrics"
        )
    }
    if not metrics:
        return
    for entry in LeaderboardEntry.objects.exclude(submission_id=None).only("submission_id", "test_subtask"):
        if (found := metrics.get((entry.submission_id, entry.test_subtask))) is not None:
            LeaderboardEntry.objects.filter(pk=entry.pk).update(metrics=found)
    for row in OfficialResultRow.objects.exclude(submission_id_frozen=None).only(
        "submission_id_frozen", "test_subtask"
    ):
        if (found := metrics.get((row.submission_id_frozen, row.test_subtask))) is not None:
            OfficialResultRow.objects.filter(pk=row.pk).update(metrics=found)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0005_phase_statistics"),
        ("submissions", "0003_score_metrics"),
    ]

    operations = [
        migrations.AddField(
            model_name="leaderboardentry",
            name="metrics",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="officialresultrow",
            name="metrics",
            field=models.JSONField(
                blank=True, default=dict, help_text="a CLOTH or SCDE row: its format's metrics"
            ),
        ),
        migrations.RunPython(copy_metrics, migrations.RunPython.noop),
    ]
