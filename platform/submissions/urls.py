from django.urls import path

from accounts.ratelimit import key_user, ratelimit
from submissions import views

urlpatterns = [
    path("c/<slug:slug>/submit/", ratelimit(scope="upload", key=key_user)(views.submit), name="submit"),
    path("c/<slug:slug>/submissions/", views.my_submissions, name="my_submissions"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission_detail"),
    path("submissions/<int:pk>/status.json", views.submission_status_json, name="submission_status"),
    path("submissions/<int:pk>/download/", views.submission_download, name="submission_download"),
    path("submissions/<int:pk>/select/", views.submission_select_view, name="submission_select"),
    path(
        "c/<slug:slug>/phases/<str:phase>/submissions.zip",
        views.phase_submissions_download,
        name="phase_submissions_download",
    ),
]
