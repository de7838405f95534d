from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views
from accounts.ratelimit import key_ip, key_ip_username, ratelimit

urlpatterns = [
    path("signup/", ratelimit(scope="signup", key=key_ip)(views.signup), name="signup"),
    path("signup/sent/", views.signup_sent, name="signup_sent"),
    path("activate/<uidb64>/<token>/", views.activate, name="activate"),
    path(
        "login/", ratelimit(scope="login", key=key_ip_username)(auth_views.LoginView.as_view()), name="login"
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Password reset by e-mail (EMAIL_BACKEND: the console by default, SMTP by settings).
    path(
        "password-reset/",
        ratelimit(scope="signup", key=key_ip)(auth_views.PasswordResetView.as_view()),
        name="password_reset",
    ),
    path("password-reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    # A new password (reset or change) revokes the user's API tokens.
    path(
        "password-change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path("password-change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
]
