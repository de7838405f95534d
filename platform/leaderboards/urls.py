from django.urls import path

from leaderboards import analytics_views, views

urlpatterns = [
    path("<slug:slug>/leaderboard/", views.leaderboard_index, name="leaderboard_index"),
    path("<slug:slug>/leaderboard/<str:phase>/", views.leaderboard, name="leaderboard"),
    path(
        "<slug:slug>/leaderboard/<str:phase>/export.<str:fmt>",
        views.leaderboard_export,
        name="leaderboard_export",
    ),
    path("<slug:slug>/statistics/", views.statistics_explained, name="statistics_explained"),
    path(
        "<slug:slug>/analytics/<str:phase>/<int:subtask>/",
        analytics_views.question_analytics,
        name="question_analytics",
    ),
]
