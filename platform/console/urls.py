from django.urls import path

from console import views

urlpatterns = [
    path("", views.index, name="console"),
    path("<slug:slug>/", views.competition_console, name="console_competition"),
    path("<slug:slug>/new-phase/<str:kind>/", views.phase_new, name="console_phase_new"),
    path("<slug:slug>/<str:kind>/", views.phase_console, name="console_phase"),
    path("<slug:slug>/<str:kind>/settings/", views.phase_settings, name="console_phase_settings"),
    path("<slug:slug>/<str:kind>/test-set/", views.phase_test_set, name="console_test_set"),
    path("<slug:slug>/<str:kind>/gold/", views.phase_gold, name="console_gold"),
    path("<slug:slug>/<str:kind>/publish/", views.phase_publish_view, name="console_publish"),
    path("<slug:slug>/<str:kind>/freeze/", views.phase_freeze, name="console_freeze"),
    path("<slug:slug>/<str:kind>/submissions/", views.phase_submissions_action, name="console_submissions"),
]
