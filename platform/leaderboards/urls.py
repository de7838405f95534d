from django.urls import path

from leaderboards import views

urlpatterns = [
    path("<slug:slug>/leaderboard/<str:phase>/", views.leaderboard, name="leaderboard"),
    path(
        "<slug:slug>/leaderboard/<str:phase>/export.<str:fmt>",
        views.leaderboard_export,
        name="leaderboard_export",
    ),
]
