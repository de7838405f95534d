from django.db import connection
from django.test.utils import CaptureQueriesContext

from submissions.services import submission_create, submission_score
from tests.platform.factories import TeamFactory, member
from tasks.app import app


def test_probe(practice, competition, example_zip, django_capture_on_commit_callbacks):
    team = TeamFactory(competition=competition)
    member(team)
    for i in range(3):
        with django_capture_on_commit_callbacks(execute=False):
            with CaptureQueriesContext(connection) as create_q:
                s = submission_create(phase=practice, team=team, filename="p.zip", data=example_zip)
        with CaptureQueriesContext(connection) as q:
            submission_score(submission_id=s.pk)
    print("CREATE", len(create_q.captured_queries))
    for x in create_q.captured_queries:
        print("  C", x["sql"][:160])
    print("SCORE", len(q.captured_queries))
    for x in q.captured_queries:
        print("  S", x["sql"][:160])
