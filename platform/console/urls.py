from django.urls import path

from console import views, views_datasets

urlpatterns = [
    path("", views.index, name="console"),
    path("datasets/", views_datasets.datasets, name="console_datasets"),
    path("datasets/upload/", views_datasets.pairs_upload, name="console_pairs_upload"),
    path("datasets/jobs/<int:pk>/", views_datasets.job_page, name="console_job"),
    path("datasets/jobs/<int:pk>/status.json", views_datasets.job_status, name="console_job_status"),
    path("datasets/jobs/<int:pk>/action/", views_datasets.job_action, name="console_job_action"),
    path("datasets/jobs/<int:pk>/load/", views_datasets.job_load, name="console_job_load"),
    path("datasets/jobs/<int:pk>/validate/", views_datasets.job_validate, name="console_job_validate"),
    path("new-competition/", views.competition_new, name="console_competition_new"),
    path("<slug:slug>/", views.competition_console, name="console_competition"),
    path("<slug:slug>/new-phase/<str:kind>/", views.phase_new, name="console_phase_new"),
    path("<slug:slug>/<str:kind>/", views.phase_console, name="console_phase"),
    path("<slug:slug>/<str:kind>/settings/", views.phase_settings, name="console_phase_settings"),
    path("<slug:slug>/<str:kind>/test-set/", views.phase_test_set, name="console_test_set"),
    path("<slug:slug>/<str:kind>/gold/", views.phase_gold, name="console_gold"),
    path(
        "<slug:slug>/<str:kind>/format-test-set/", views.phase_format_test_set, name="console_format_test_set"
    ),
    path("<slug:slug>/<str:kind>/publish/", views.phase_publish_view, name="console_publish"),
    path("<slug:slug>/<str:kind>/freeze/", views.phase_freeze, name="console_freeze"),
    path("<slug:slug>/<str:kind>/submissions/", views.phase_submissions_action, name="console_submissions"),
]
