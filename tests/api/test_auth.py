"""Token authentication: no token, a wrong token, the management command and the token endpoint."""

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from tests.api.conftest import token_client

pytestmark = pytest.mark.django_db


def test_submission_list_without_token_is_401_json(alice):
    response = APIClient().get("/api/submissions/")
    assert response.status_code == 401
    assert "credentials" in response.json()["detail"].lower()


def test_wrong_token_is_401(alice):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    response = client.get("/api/submissions/")
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid token."


def test_recam_token_command_prints_a_working_token(alice, capsys):
    user, _ = alice
    call_command("recam_token", user.username)
    key = capsys.readouterr().out.strip()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/submissions/").status_code == 200


def test_recam_token_reset_revokes_the_old_token(alice, capsys):
    user, _ = alice
    old = token_client(user)
    call_command("recam_token", user.username, "--reset")
    assert old.get("/api/submissions/").status_code == 401


def test_recam_token_unknown_user_fails(platform_dirs, db):
    with pytest.raises(Exception, match="no user named 'nobody'"):
        call_command("recam_token", "nobody")


def test_token_endpoint_exchanges_password_for_the_same_token(alice):
    user, _ = alice
    first = APIClient().post(
        "/api/token/", {"username": "alice", "password": "alice-pass-1234"}, format="json"
    )
    second = APIClient().post("/api/token/", {"username": "alice", "password": "alice-pass-1234"})
    assert first.status_code == 200
    assert first.json()["token"] == second.json()["token"]
    assert token_client(user).get("/api/token/").json()["token"] == first.json()["token"]


def test_token_endpoint_refuses_a_wrong_password(alice):
    response = APIClient().post("/api/token/", {"username": "alice", "password": "nope"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"detail": "unknown username or wrong password"}


def test_token_page_for_a_logged_in_session(alice):
    client = APIClient()
    client.login(username="alice", password="alice-pass-1234")
    response = client.get("/api/token/")
    assert response.status_code == 200
    assert response.json()["username"] == "alice"
    assert len(response.json()["token"]) == 40


def test_token_get_anonymous_is_refused(platform_dirs, db):
    assert APIClient().get("/api/token/").status_code in (401, 403)


def test_http_basic_credentials_get_no_password_check(alice, monkeypatch):
    """Red-team defect: DRF's default Basic authentication checked a password on every API request
    (outside the login rate limit and lockout); the API offers tokens and sessions only."""
    import django.contrib.auth

    checked = []
    real = django.contrib.auth.authenticate
    monkeypatch.setattr(
        "django.contrib.auth.authenticate", lambda *a, **k: checked.append(k) or real(*a, **k)
    )
    monkeypatch.setattr(
        "rest_framework.authentication.authenticate", lambda *a, **k: checked.append(k) or real(*a, **k)
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic YWxpY2U6d3JvbmctcGFzc3dvcmQ=")  # alice:wrong-password
    for url in ("/api/schema/", "/api/submissions/"):
        response = client.get(url)
        assert "username/password" not in response.content.decode()
    assert checked == []
    assert "Basic" not in client.get("/api/submissions/").get("WWW-Authenticate", "")
