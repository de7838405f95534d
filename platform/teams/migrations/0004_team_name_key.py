"""The look-alike key of each team name, stored and unique per competition (accounts.names.name_key).

Existing look-alike pairs (possible before the constraint: two sign-ups racing past the check) keep
their names; the later team's key gets its id appended so the constraint holds, and the organizer
sees both on the teams page."""

from django.db import migrations, models

from accounts.names import name_key


def fill_keys(apps, schema_editor):
    Team = apps.get_model("teams", "Team")
    seen = set()
    for team in Team.objects.order_by("pk").iterator():
        key = name_key(team.name)
        if (team.competition_id, key) in seen:
            key = f"{key}#{team.pk}"
        seen.add((team.competition_id, key))
        Team.objects.filter(pk=team.pk).update(name_key=key)


class Migration(migrations.Migration):
    dependencies = [("teams", "0003_console2_rules_acceptance")]

    operations = [
        migrations.AddField(
            model_name="team",
            name="name_key",
            field=models.CharField(default="", editable=False, max_length=240),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="team",
            constraint=models.UniqueConstraint(
                fields=("competition", "name_key"), name="unique_team_name_key"
            ),
        ),
    ]
