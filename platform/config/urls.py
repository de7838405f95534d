from django.contrib import admin
from django.urls import include, path

from competitions import views as competition_views

urlpatterns = [
    path("", competition_views.home, name="home"),
    path("c/<slug:slug>/", competition_views.competition_detail, name="competition"),
    path("accounts/", include("accounts.urls")),
    path("", include("teams.urls")),
    path("", include("submissions.urls")),
    path("c/", include("leaderboards.urls")),
    path("admin/", admin.site.urls),
    path("console/", include("console.urls")),
    path("", include("onboarding.urls")),
    path("api/", include("api.urls")),
    path("validation/", include("validation.urls")),
]
