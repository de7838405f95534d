from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views
from accounts.ratelimit import key_ip, key_ip_username, ratelimit

urlpatterns = [
    path("signup/", ratelimit(scope="signup", key=key_ip)(views.signup), name="signup"),
    path(
        "login/", ratelimit(scope="login", key=key_ip_username)(auth_views.LoginView.as_view()), name="login"
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
]
