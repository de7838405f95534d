from django.urls import path

from submissions import views

urlpatterns = [
    path("c/<slug:slug>/submit/", views.submit, name="submit"),
    path("c/<slug:slug>/submissions/", views.my_submissions, name="my_submissions"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission_detail"),
    path("submissions/<int:pk>/status.json", views.submission_status_json, name="submission_status"),
    path("submissions/<int:pk>/download/", views.submission_download, name="submission_download"),
]
