from django.urls import path

from teams import factsheet_views, views

urlpatterns = [
    path("c/<slug:slug>/team/", views.team_page, name="team"),
    path("teams/join/<str:code>/", views.team_join_page, name="team_join"),
    path("c/<slug:slug>/team/fact-sheet/", factsheet_views.fact_sheet_page, name="fact_sheet"),
    path(
        "c/<slug:slug>/fact-sheets/<str:phase>.<str:fmt>",
        factsheet_views.fact_sheets_export,
        name="fact_sheets_export",
    ),
]
