"""One site: Data and Leaderboard in the navigation of every page, counts formatted one way (2,025),
and the board's statistics paragraph links to a page a visitor can open."""

import re

import pytest
from django.urls import reverse

from tests.platform.factories import UserFactory
from tests.platform.validation_helpers import make_batch


@pytest.fixture
def staff_client(client, db):
    client.force_login(UserFactory(is_staff=True))
    return client


def test_data_and_leaderboard_are_in_the_navigation_of_every_page(competition, staff_client, recam_data_dir):
    batch = make_batch(data_dir=recam_data_dir, generated=2)
    slug = competition.slug
    urls = [
        reverse("console"),
        reverse("console_phase", args=[slug, "evaluation"]),
        reverse("console_freeze", args=[slug, "evaluation"]),
        reverse("console_datasets"),
        reverse("validation:home"),
        reverse("validation:batch", args=[batch.pk]),
        reverse("api_token"),
        reverse("statistics_explained", args=[slug]),
    ]
    for url in urls:
        response = staff_client.get(url, follow=True)
        assert response.status_code == 200, url
        page = response.content.decode()
        assert 'id="nav-data"' in page, url
        assert 'id="nav-leaderboard"' in page, url


def test_counts_have_thousands_separators_everywhere(competition, staff_client):
    slug = competition.slug
    pages = [
        reverse("console_phase", args=[slug, "evaluation"]),
        reverse("competition", args=[slug]),
        reverse("phase_data", args=[slug, "evaluation"]),
    ]
    for url in pages:
        page = staff_client.get(url).content.decode()
        assert "2,025 questions" in page, url
        assert not re.search(r"\b2025 questions", page), url


def test_the_statistics_paragraph_links_to_a_page_a_visitor_can_open(competition, client):
    board = client.get(reverse("leaderboard", args=[competition.slug, "practice"])).content.decode()
    assert "docs/statistics.md" not in board
    link = re.search(r'<a href="([^"]+)" id="statistics-link">', board).group(1)
    page = client.get(link)
    assert page.status_code == 200
    text = page.content.decode()
    assert "<h2>Intervals and ranks (what, which library, why)</h2>" in text
    assert "<table>" in text
