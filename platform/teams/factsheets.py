"""Fact sheets: the team-level reads (is a sheet complete, has a freeze locked it).

Saving (which re-counts the board) and the exports with the official results are in leaderboards.factsheets.
"""

from competitions.models import Phase
from teams.models import FactSheet, Team

FIELDS = ["system_name", "model", "pretrained_weights", "external_data", "ensemble", "ensemble_size"]
FIELDS += ["trained_on_trial_dev", "abstract"]


def fact_sheet_locked_by(*, team: Team) -> Phase | None:
    """The phase whose official results froze the fact sheet (a phase requiring it that has been frozen)."""
    return (
        Phase.objects.filter(
            competition_id=team.competition_id, fact_sheet_required=True, official_results__isnull=False
        )
        .distinct()
        .first()
    )


def fact_sheet_is_complete(*, team: Team) -> bool:
    sheet = FactSheet.objects.filter(team=team).first()
    return sheet is not None and sheet.is_complete
