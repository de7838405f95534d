from django.contrib import admin
from django.urls import include, path

from accounts.ratelimit import key_ip_username, ratelimit
from competitions import views as competition_views

urlpatterns = [
    path("", competition_views.home, name="home"),
    path("c/<slug:slug>/", competition_views.competition_detail, name="competition"),
    path("accounts/", include("accounts.urls")),
    path("", include("teams.urls")),
    path("", include("submissions.urls")),
    path("c/", include("leaderboards.urls")),
    # The admin's login is limited like the site's (before admin.site.urls, so this path wins).
    path("admin/login/", ratelimit(scope="login", key=key_ip_username)(admin.site.login)),
    path("admin/", admin.site.urls),
    path("console/", include("console.urls")),
    path("", include("onboarding.urls")),
    path("api/", include("api.urls")),
    path("validation/", include("validation.urls")),
]
