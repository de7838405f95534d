"""Sign-up and its activation link (login, logout and password pages are Django's own views)."""

from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode

from accounts.forms import SignupForm
from accounts.services import account_activate, account_signup


def safe_next(request: HttpRequest, default: str = "home") -> str:
    """``?next=`` when it points into this site, else ``default`` (never another host: no open redirect)."""
    target = request.GET.get("next") or request.POST.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if allowed else reverse(default)


def signup(request):
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        then = urlencode({"next": safe_next(request)})  # where the activation link leads, on this site

        def activation_url(uidb64: str, token: str) -> str:
            return request.build_absolute_uri(f"{reverse('activate', args=[uidb64, token])}?{then}")

        account_signup(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
            activation_url=activation_url,
        )
        return redirect("signup_sent")  # the same answer whether or not the address has an account
    return render(request, "registration/signup.html", {"form": form})


def signup_sent(request):
    return render(request, "registration/signup_sent.html")


def activate(request, uidb64: str, token: str):
    user = account_activate(uidb64=uidb64, token=token)
    if user is None:
        return render(request, "registration/activation_invalid.html", status=400)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(request, f"Welcome, {user.get_username()}: your account is active.")
    return redirect(safe_next(request))
