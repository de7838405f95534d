from django.urls import path

from onboarding import views

urlpatterns = [
    path("c/<slug:slug>/data/", views.data_index, name="data_index"),
    path("c/<slug:slug>/data/<str:kind>/", views.phase_data, name="phase_data"),
    path(
        "c/<slug:slug>/data/<str:kind>/subtask<int:subtask>.jsonl",
        views.phase_questions,
        name="phase_questions",
    ),
    path("c/<slug:slug>/data/<str:kind>/example.zip", views.phase_example, name="phase_example"),
    path("c/<slug:slug>/rules/", views.rules, name="rules"),
    path("data/<str:kind>/files.json", views.phase_files_json, name="phase_files_json"),
    path("starting-kit.zip", views.starting_kit, name="starting_kit"),
    path("accounts/token/", views.api_token, name="api_token"),
]
