"""Thin API views: parse the request, call one service or selector, serialise the answer."""

from django.conf import settings
from django.contrib.auth import authenticate
from django.http import Http404
from django.utils import timezone
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework import status
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.errors import api_exception_handler
from api.selectors import is_organizer, leaderboard_tables_json, phase_for_api, submissions_for_api
from api.services import token_get_or_create
from competitions.errors import ApplicationError
from leaderboards.format_board import format_export_meta
from leaderboards.selectors import phase_statistics_state
from submissions.quotas import quota_status
from submissions.selectors import submission_get_for_user
from submissions.services import submission_create, submission_select
from teams.selectors import team_for_user


def documented(**kwargs):
    """``extend_schema`` built on drf-spectacular's AutoSchema whatever DEFAULT_SCHEMA_CLASS says."""

    def decorator(method):
        method.schema = AutoSchema
        return extend_schema(**kwargs)(method)

    return decorator


COMPETITION = OpenApiParameter(
    "competition", str, description="competition slug (default: the site's ReCAM competition)"
)


class ApiView(APIView):
    """Token (or browser session) authentication (settings.REST_FRAMEWORK), JSON only, errors as
    ``{"detail", "problems"}``."""

    permission_classes = (IsAuthenticated,)
    renderer_classes = (JSONRenderer,)
    schema = AutoSchema()

    def get_exception_handler(self):
        return api_exception_handler


class PhaseSubmissionsView(ApiView):
    parser_classes = (MultiPartParser, FormParser)

    @documented(
        operation_id="submission_create",
        request={"multipart/form-data": s.SubmissionUploadSerializer},
        parameters=[COMPETITION],
        responses={201: s.SubmissionSerializer, 400: s.ErrorSerializer},
        description="Upload predictions to a phase. Validated in the request: a 400 lists every problem "
        "with file and line, and an invalid upload is not stored, queued or counted.",
    )
    def post(self, request, phase: str) -> Response:
        phase_obj = phase_for_api(kind=phase, competition=request.query_params.get("competition"))
        upload = s.SubmissionUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        team = team_for_user(competition=phase_obj.competition, user=request.user)
        if team is None:
            raise ApplicationError(
                "you are not in a team in this competition: create or join one on the site first"
            )
        file = upload.validated_data["file"]
        # As the web form: an upload over the limit is refused from its size alone, its bytes never read.
        submission = submission_create(
            phase=phase_obj,
            team=team,
            filename=file.name,
            data=file.read() if file.size <= settings.SUBMISSION_MAX_BYTES else b"",
            size=file.size,
            submitted_by=request.user,
            trained_on=upload.trained_on(),
            system_name=upload.validated_data["system_name"],
            description=upload.validated_data["description"],
        )
        # Answered from the rows just written (files and no scores yet, primed by submission_create):
        # the state at the commit, without reading the submission back.
        body = s.SubmissionSerializer(submission, context=_context(request)).data
        return Response(body, status=status.HTTP_201_CREATED)


class SubmissionListView(ApiView):
    @documented(
        operation_id="submission_list",
        parameters=[COMPETITION, OpenApiParameter("phase", str, description="only this phase")],
        responses={200: s.SubmissionSerializer(many=True)},
        description="Your team's submissions, newest first (organizers: all submissions).",
    )
    def get(self, request) -> Response:
        phase = request.query_params.get("phase")
        queryset = submissions_for_api(
            user=request.user, competition=request.query_params.get("competition"), phase=phase
        )
        return Response(s.SubmissionSerializer(queryset, many=True, context=_context(request)).data)


class SubmissionDetailView(ApiView):
    @documented(
        operation_id="submission_retrieve",
        responses={200: s.SubmissionSerializer, 404: s.ErrorSerializer},
        description="Status, validity and scores of a submission: 404 unless it is your team's (or you organize).",
    )
    def get(self, request, pk: int) -> Response:
        submission = submission_get_for_user(user=request.user, submission_id=pk)
        if submission is None:
            raise Http404("no such submission among your team's")
        return Response(s.SubmissionSerializer(submission, context=_context(request)).data)


class LeaderboardView(ApiView):
    authentication_classes = ()
    permission_classes = (AllowAny,)

    @documented(
        operation_id="leaderboard_retrieve",
        parameters=[COMPETITION],
        responses={200: s.LeaderboardSerializer, 404: s.ErrorSerializer},
        description="A phase's public leaderboard, one table per test set (the paper's Tables 6 and 7).",
    )
    def get(self, request, phase: str) -> Response:
        phase_obj = phase_for_api(kind=phase, competition=request.query_params.get("competition"))
        hidden = phase_obj.results_hidden
        tables = [] if hidden else leaderboard_tables_json(phase=phase_obj)
        body = {
            "competition": phase_obj.competition.slug,
            "phase": phase_obj.kind,
            "results_hidden": hidden,
            **format_export_meta(phase=phase_obj),  # the format's scorer version; CLOTH / SCDE: its metrics
            **phase_statistics_state(phase=phase_obj),
            "tables": tables,
        }
        return Response(body)  # shaped as s.LeaderboardSerializer documents; tables come from the cache


class PhaseQuotaView(ApiView):
    @documented(
        operation_id="quota_retrieve",
        parameters=[COMPETITION],
        responses={200: s.QuotaSerializer, 404: s.ErrorSerializer},
        description="What your team has left in the phase now (per UTC day and in total) and when the day resets.",
    )
    def get(self, request, phase: str) -> Response:
        phase_obj = phase_for_api(kind=phase, competition=request.query_params.get("competition"))
        team = team_for_user(competition=phase_obj.competition, user=request.user)
        if team is None:
            raise ApplicationError(
                "you are not in a team in this competition: create or join one on the site first"
            )
        now = timezone.now()
        status_ = quota_status(team=team, phase=phase_obj, at=now)
        body = {"phase": phase_obj.kind, "open": phase_obj.is_open(at=now), **status_.as_dict()}
        return Response(body)


class SubmissionSelectView(ApiView):
    @documented(
        operation_id="submission_select",
        request=None,
        responses={200: s.SubmissionSerializer, 400: s.ErrorSerializer, 404: s.ErrorSerializer},
        description="Make this submission your team's counted one (phases whose policy is 'selected').",
    )
    def post(self, request, pk: int) -> Response:
        submission = submission_get_for_user(user=request.user, submission_id=pk)
        if submission is None or not submission.team.memberships.filter(user=request.user).exists():
            raise Http404("no such submission among your team's")
        submission_select(submission=submission)
        return Response(s.SubmissionSerializer(submission, context=_context(request)).data)


class TokenView(ApiView):
    permission_classes = (AllowAny,)
    parser_classes = (JSONParser, FormParser, MultiPartParser)

    @documented(
        operation_id="token_retrieve",
        responses={200: s.TokenSerializer},
        description="Your API token (created if needed), for a logged-in browser session or a token.",
    )
    def get(self, request) -> Response:
        if not request.user.is_authenticated:
            raise AuthenticationFailed("log in on the site first, or POST your username and password here")
        return Response(_token_body(request.user))

    @documented(
        operation_id="token_create",
        request=s.TokenRequestSerializer,
        responses={200: s.TokenSerializer, 400: s.ErrorSerializer},
        description="Exchange a username and password for the API token (created if needed).",
    )
    def post(self, request) -> Response:
        credentials = s.TokenRequestSerializer(data=request.data)
        credentials.is_valid(raise_exception=True)
        user = authenticate(request=request, **credentials.validated_data)
        if user is None:
            raise ApplicationError("unknown username or wrong password")
        return Response(_token_body(user))


class SchemaView(SpectacularAPIView):
    """The OpenAPI description of this API (the schema endpoint itself is left out of it)."""

    schema = None


def _token_body(user) -> dict:
    return {"username": user.get_username(), "token": token_get_or_create(user=user).key}


def _context(request) -> dict:
    return {"request": request, "organizer": is_organizer(user=request.user)}
