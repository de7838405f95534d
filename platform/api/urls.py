"""The token API under /api/ (included from config/urls.py)."""

from django.urls import path

from accounts.ratelimit import key_ip_username, key_user, ratelimit
from api import views

app_name = "api"

urlpatterns = [
    path("schema/", views.SchemaView.as_view(), name="schema"),
    path("token/", ratelimit(scope="login", key=key_ip_username)(views.TokenView.as_view()), name="token"),
    path(
        "phases/<str:phase>/submissions/",
        ratelimit(scope="upload", key=key_user)(views.PhaseSubmissionsView.as_view()),
        name="phase-submissions",
    ),
    path("phases/<str:phase>/leaderboard/", views.LeaderboardView.as_view(), name="leaderboard"),
    path("phases/<str:phase>/quota/", views.PhaseQuotaView.as_view(), name="phase-quota"),
    path("submissions/<int:pk>/select/", views.SubmissionSelectView.as_view(), name="submission-select"),
    path("submissions/", views.SubmissionListView.as_view(), name="submission-list"),
    path("submissions/<int:pk>/", views.SubmissionDetailView.as_view(), name="submission-detail"),
]
