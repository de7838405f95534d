"""Rate limits on login, sign-up and upload (web and API): a clear 429 page or JSON, nothing stored."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.ratelimit import Rate, parse_rate, ratelimit_hit
from api.services import token_get_or_create
from submissions.models import Submission
from teams.services import team_create
from tests.platform.factories import UserFactory


@pytest.fixture(autouse=True)
def fresh_cache(settings):
    settings.RATELIMIT_ENABLED = True
    caches[settings.RATELIMIT_CACHE].clear()
    yield
    caches[settings.RATELIMIT_CACHE].clear()


@pytest.mark.parametrize("text", ["10", "a/5", "0/60", "5/0", "5/-1", ""])
def test_a_bad_rate_names_the_setting(text):
    with pytest.raises(ValueError, match=r"RATELIMIT_LOGIN=.*COUNT/SECONDS"):
        parse_rate(text=text, setting="RATELIMIT_LOGIN")


def test_the_window_allows_count_then_refuses_until_it_ends():
    rate = parse_rate(text="3/60")
    assert rate == Rate(count=3, seconds=60)
    decisions = [ratelimit_hit(scope="t", key="k", rate=rate, now=120.0 + i) for i in range(4)]
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert decisions[-1].retry_after == 57  # the window [120, 180) ends 57 s after 123
    assert ratelimit_hit(scope="t", key="other", rate=rate, now=124.0).allowed  # another client
    assert ratelimit_hit(scope="t", key="k", rate=rate, now=180.0).allowed  # the next window


def _login(client, username: str):
    return client.post(reverse("login"), {"username": username, "password": "wrong-password"})


def test_login_is_limited_per_address_and_username(db, client, settings):
    settings.RATELIMIT_LOGIN = "2/300"
    assert [_login(client, "ada").status_code for _ in range(2)] == [200, 200]  # the form with its error
    refused = _login(client, "ada")
    assert refused.status_code == 429
    assert b"Too many login attempts: please wait" in refused.content
    assert int(refused["Retry-After"]) > 0
    assert b"Traceback" not in refused.content
    assert _login(client, "grace").status_code == 200
    assert client.get(reverse("login")).status_code == 200  # showing the form is not counted


def test_signup_is_limited_per_address(db, client, settings):
    settings.RATELIMIT_SIGNUP = "1/3600"
    form = {"password1": "a-long-test-password", "password2": "a-long-test-password"}
    assert client.post(reverse("signup"), {"username": "ada", "email": "a@x.org", **form}).status_code == 302
    refused = client.post(reverse("signup"), {"username": "grace", **form})
    assert refused.status_code == 429
    assert b"Too many sign-ups from your address" in refused.content
    assert not get_user_model().objects.filter(username="grace").exists()


def test_web_upload_is_limited_per_user_and_stores_nothing(
    competition, practice, example_zip, client, settings
):
    settings.RATELIMIT_UPLOAD = "1/60"
    user = UserFactory()
    team_create(competition=competition, user=user, name="Owls")
    client.force_login(user)

    def upload():
        form = {"phase": practice.pk, "file": SimpleUploadedFile("p.zip", example_zip)}
        form |= {"trained_on_1": 1, "trained_on_2": 2, "system_name": "s", "description": ""}
        return client.post(reverse("submit", args=[competition.slug]), form)

    assert upload().status_code == 302
    refused = upload()
    assert refused.status_code == 429
    assert b"Too many uploads" in refused.content
    assert Submission.objects.count() == 1
    json_refused = client.post(reverse("submit", args=[competition.slug]), {}, HTTP_ACCEPT="application/json")
    assert json_refused.status_code == 429
    assert json_refused.json()["detail"].startswith("Too many uploads")


def test_api_upload_and_token_are_limited_with_json(competition, example_zip, settings):
    settings.RATELIMIT_UPLOAD = "1/60"
    settings.RATELIMIT_LOGIN = "1/300"
    user = UserFactory(username="ada")
    team_create(competition=competition, user=user, name="Owls")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_get_or_create(user=user).key}")

    def upload():
        payload = {"file": SimpleUploadedFile("p.zip", example_zip)}
        return client.post(
            f"/api/phases/practice/submissions/?competition={competition.slug}", payload, format="multipart"
        )

    assert upload().status_code == 201
    refused = upload()
    assert refused.status_code == 429
    body = refused.json()
    assert body["detail"].startswith("Too many uploads: please wait")
    assert body["retry_after"] == int(refused["Retry-After"])
    assert Submission.objects.count() == 1
    credentials = {"username": "ada", "password": "a-long-test-password"}
    assert APIClient().post("/api/token/", credentials).status_code == 200
    assert APIClient().post("/api/token/", credentials).status_code == 429


def test_disabled_limits_let_everything_through(db, client, settings):
    settings.RATELIMIT_ENABLED = False
    settings.RATELIMIT_LOGIN = "1/300"
    assert {_login(client, "ada").status_code for _ in range(3)} == {200}


def test_admin_login_is_limited(db, client, settings):
    """Red-team defect 2: 15 wrong passwords then the right one logged the organizer in."""
    settings.RATELIMIT_LOGIN = "3/300"
    get_user_model().objects.create_superuser(username="boss", password="the-right-password")
    url = reverse("admin:login")

    def attempt(password: str):
        return client.post(url, {"username": "boss", "password": password, "next": "/admin/"})

    assert [attempt("wrong").status_code for _ in range(3)] == [200, 200, 200]
    refused = attempt("the-right-password")
    assert refused.status_code == 429
    assert b"Too many login attempts" in refused.content
    assert "_auth_user_id" not in client.session  # the right password after the limit does not log in


def test_unicode_look_alikes_share_the_bucket_django_authenticates(db, client, settings):
    """Red-team defect 3: fullwidth U+FF43 U+FF11 authenticates as 'c1' (NFKC) but got a fresh bucket."""
    settings.RATELIMIT_LOGIN = "2/300"
    UserFactory(username="c1")
    names = ["c1", "\uff43\uff11", "C1"]  # ascii, fullwidth, upper case
    statuses = [_login(client, name).status_code for name in names]
    assert statuses == [200, 200, 429]


def test_api_token_json_bodies_are_limited_per_username(db, settings):
    """Red-team defect 3: JSON bodies all shared one bucket per address (one client locked out a team)."""
    settings.RATELIMIT_LOGIN = "1/300"
    UserFactory(username="ada")
    UserFactory(username="grace")

    def token(username: str):
        return APIClient().post("/api/token/", {"username": username, "password": "wrong"}, format="json")

    assert token("ada").status_code == 400
    assert token("\uff41da").status_code == 429  # fullwidth 'a': the same account, the same bucket
    assert token("grace").status_code == 400  # another team member still gets their own attempts


@pytest.mark.parametrize("spellings", [("Token {}", "token {}", "TOKEN {}", "Token  {}", "\tToken {} ")])
def test_api_upload_limit_keys_on_the_token_user_not_the_header_spelling(
    competition, example_zip, settings, spellings
):
    """Red-team defect: re-spelling the Authorization header gave a fresh upload bucket each time."""
    settings.RATELIMIT_UPLOAD = "2/60"
    user = UserFactory(username="ada")
    team_create(competition=competition, user=user, name="Owls")
    key = token_get_or_create(user=user).key
    codes = []
    for spelling in spellings:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=spelling.format(key))
        payload = {"file": SimpleUploadedFile("p.zip", example_zip)}
        url = f"/api/phases/practice/submissions/?competition={competition.slug}"
        codes.append(client.post(url, payload, format="multipart").status_code)
    assert codes[2:] == [429] * (len(spellings) - 2)
    assert Submission.objects.count() <= 2


def test_the_web_session_and_the_token_share_one_upload_bucket(competition, example_zip, client, settings):
    settings.RATELIMIT_UPLOAD = "1/60"
    user = UserFactory(username="ada")
    team_create(competition=competition, user=user, name="Owls")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_get_or_create(user=user).key}")
    payload = {"file": SimpleUploadedFile("p.zip", example_zip)}
    url = f"/api/phases/practice/submissions/?competition={competition.slug}"
    assert api.post(url, payload, format="multipart").status_code == 201
    client.force_login(user)
    assert client.post(reverse("submit", args=[competition.slug]), {}).status_code == 429


def test_wrong_api_tokens_are_limited_per_address(db, settings):
    settings.RATELIMIT_API_TOKEN = "3/300"
    client = APIClient()
    codes = []
    for guess in range(5):
        client.credentials(HTTP_AUTHORIZATION=f"Token {guess:040x}")
        codes.append(client.get("/api/submissions/").status_code)
    assert codes == [401, 401, 401, 429, 429]
