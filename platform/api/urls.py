"""The token API under /api/ (included from config/urls.py)."""

from django.urls import path

from api import views

app_name = "api"

urlpatterns = [
    path("schema/", views.SchemaView.as_view(), name="schema"),
    path("token/", views.TokenView.as_view(), name="token"),
    path("phases/<str:phase>/submissions/", views.PhaseSubmissionsView.as_view(), name="phase-submissions"),
    path("phases/<str:phase>/leaderboard/", views.LeaderboardView.as_view(), name="leaderboard"),
    path("submissions/", views.SubmissionListView.as_view(), name="submission-list"),
    path("submissions/<int:pk>/", views.SubmissionDetailView.as_view(), name="submission-detail"),
]
