"""Sign-up, activation and passwords: no open redirect, no e-mail enumeration, tokens revoked with a new
password, no 500 for a POST without the trailing slash."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from api.services import token_get_or_create
from tests.platform.factories import UserFactory

PASSWORDS = {"password1": "a-long-test-password", "password2": "a-long-test-password"}


def _signup(client, username: str, email: str, query: str = ""):
    return client.post(reverse("signup") + query, {"username": username, "email": email, **PASSWORDS})


def _link(message) -> str:
    return re.search(r"https?://[^/\s]+(/accounts/activate/\S+)", message.body).group(1)


def test_signup_sends_an_activation_link_that_logs_the_new_user_in(db, client):
    response = _signup(client, "ada", "ada@example.org")
    assert response.url == reverse("signup_sent")
    ada = get_user_model().objects.get(username="ada")
    assert not ada.is_active
    assert client.get("/").wsgi_request.user.is_anonymous  # nobody logged in before the link is opened
    (message,) = mail.outbox
    assert message.to == ["ada@example.org"]
    assert client.get(_link(message)).url == reverse("home")
    assert client.get("/").wsgi_request.user.username == "ada"
    client.logout()
    assert client.get(_link(message)).status_code == 400  # used once
    assert client.login(username="ada", password="a-long-test-password")


def test_signup_answers_the_same_whether_or_not_the_address_has_an_account(db, client):
    """Red-team defect: "An account with this e-mail exists" told anyone which addresses had accounts."""
    UserFactory(username="grace", email="grace@example.org")
    taken = _signup(client, "mallory", "Grace@Example.org")
    fresh = _signup(client, "ada", "ada@example.org")
    assert (taken.status_code, taken.url) == (fresh.status_code, fresh.url) == (302, reverse("signup_sent"))
    assert not get_user_model().objects.filter(username="mallory").exists()  # nothing created for it
    assert [m.to for m in mail.outbox] == [["Grace@Example.org"], ["ada@example.org"]]
    assert "already belongs to the account 'grace'" in mail.outbox[0].body  # told only to its owner


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example/", "http:evil.example"]
)
def test_next_never_leads_off_the_site(db, client, target):
    """Red-team defect: /accounts/signup/?next=https://evil.example/ answered 302 there."""
    query = "?" + "next=" + target
    response = _signup(client, "ada", "ada@example.org", query)
    assert "evil.example" not in response.url
    landing = client.get(_link(mail.outbox[0]))
    assert landing.url == reverse("home")
    assert client.get(_link(mail.outbox[0]).split("?")[0] + "?next=/c/x/").status_code == 400  # used


def test_next_within_the_site_is_kept(db, client):
    _signup(client, "ada", "ada@example.org", "?next=/accounts/password-change/")
    assert client.get(_link(mail.outbox[0])).url == "/accounts/password-change/"


def _token_works(key: str) -> bool:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api.get("/api/submissions/").status_code == 200


def test_a_password_reset_revokes_the_api_tokens(db, client):
    """Red-team defect: API tokens kept working after a password reset."""
    user = UserFactory(username="ada", email="ada@example.org")
    key = token_get_or_create(user=user).key
    assert _token_works(key)
    client.post(reverse("password_reset"), {"email": "ada@example.org"})
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True).redirect_chain[-1][0]
    new = {"new_password1": "another-long-password-9", "new_password2": "another-long-password-9"}
    assert client.post(form_page, new).status_code == 302
    assert not Token.objects.filter(user=user).exists()
    assert not _token_works(key)


def test_a_password_change_revokes_the_api_tokens(db, client):
    user = UserFactory(username="ada")
    key = token_get_or_create(user=user).key
    client.force_login(user)
    form = {"old_password": "a-long-test-password"}
    form |= {"new_password1": "another-long-password-9", "new_password2": "another-long-password-9"}
    assert client.post(reverse("password_change"), form).url == reverse("password_change_done")
    assert not _token_works(key)


def test_the_admin_password_form_revokes_the_api_tokens(db, client):
    user = UserFactory(username="ada")
    key = token_get_or_create(user=user).key
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    new = {"password1": "another-long-password-9", "password2": "another-long-password-9"}
    response = client.post(reverse("admin:auth_user_password_change", args=[user.pk]), new)
    assert response.status_code == 302
    assert not _token_works(key)


def test_changepassword_and_set_password_anywhere_revoke_the_api_tokens(db, monkeypatch):
    from django.core.management import call_command

    user = UserFactory(username="ada")
    key = token_get_or_create(user=user).key
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "another-long-password-9")
    call_command("changepassword", "ada")
    assert not _token_works(key)
    key = token_get_or_create(user=user).key
    user.first_name = "Ada"
    user.save()  # a save without a new password keeps the token
    assert _token_works(key)
    user.set_password("a-third-long-password-7")
    user.save()
    assert not _token_works(key)


@pytest.mark.parametrize("debug", [True, False])
def test_a_post_without_the_trailing_slash_is_redirected_with_its_method_not_a_500(
    db, client, settings, debug
):
    """Red-team defect: in development, POST /accounts/login answered 500 (Django's APPEND_SLASH check)."""
    settings.DEBUG = debug
    response = client.post("/accounts/login?next=/c/x/", {"username": "ada", "password": "x"})
    assert response.status_code == 308  # the client repeats the POST at the new address
    assert response["Location"] == "/accounts/login/?next=/c/x/"
    assert client.get("/accounts/login").status_code == 301  # GETs as before
