"""A thin wrapper around the platform's token API: one method per endpoint, errors as ApiError."""

from dataclasses import dataclass, field
from pathlib import Path

import requests

from recam.submission import Problem  # the parser's problem type, packaged with the client (pyproject)

DEFAULT_URL = "http://127.0.0.1:8000"
# The states after which nothing changes until an organizer acts ("waiting": valid, gold not loaded yet).
FINAL_STATUSES = frozenset({"scored", "failed", "waiting"})


class ApiError(Exception):
    """The server refused the request (or could not be reached); ``problems`` lists upload problems."""

    def __init__(
        self, message: str, *, status: int | None = None, problems: tuple[Problem, ...] = ()
    ) -> None:
        self.message = message
        self.status = status
        self.problems = problems
        super().__init__("\n".join([message, *(f"  {p}" for p in problems)]))


@dataclass
class RecamApi:
    base_url: str = DEFAULT_URL
    token: str | None = None
    competition: str | None = None
    timeout: float = 60.0
    session: requests.Session = field(default_factory=requests.Session, repr=False)

    def _url(self, path: str) -> str:
        return self.base_url.rstrip("/") + "/api/" + path.lstrip("/")

    def _params(self, extra: dict | None = None) -> dict:
        params = dict(extra or {})
        if self.competition:
            params["competition"] = self.competition
        return params

    def _request(self, method: str, path: str, *, auth: bool = True, **kwargs) -> dict | list:
        headers = {"Accept": "application/json"}
        if auth:
            if not self.token:
                raise ApiError(
                    "no API token: set RECAM_TOKEN (see your token at /api/token/ or ask an organizer)"
                )
            headers["Authorization"] = f"Token {self.token}"
        url = self._url(path)
        try:
            response = self.session.request(method, url, headers=headers, timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            raise ApiError(f"cannot reach the server at {self.base_url}: {exc}") from None
        if response.status_code >= 400:
            raise _error_from(response)
        try:
            return response.json()
        except ValueError:
            raise ApiError(f"{url} answered {response.status_code} with non-JSON content") from None

    def submit(
        self,
        *,
        phase: str,
        path: Path,
        trained_on: dict[int, int] | None = None,
        system_name: str = "",
        description: str = "",
    ) -> dict:
        data = {"system_name": system_name, "description": description}
        for subtask, trained in (trained_on or {}).items():
            data[f"trained_on_{subtask}"] = str(trained)
        with Path(path).open("rb") as handle:
            files = {"file": (Path(path).name, handle)}
            return self._request(
                "POST", f"phases/{phase}/submissions/", params=self._params(), data=data, files=files
            )

    def status(self, *, submission_id: int) -> dict:
        return self._request("GET", f"submissions/{submission_id}/")

    def list_submissions(self, *, phase: str | None = None) -> list[dict]:
        return self._request("GET", "submissions/", params=self._params({"phase": phase} if phase else None))

    def data_files(self, *, phase: str) -> dict[str, str]:
        """``{file name: URL}`` of a phase's public files (questions without labels, example, kit)."""
        url = self.base_url.rstrip("/") + f"/data/{phase}/files.json"
        body = self._get(url, params=self._params())
        return body.json()["files"]

    def download(self, *, url: str, target: Path) -> int:
        """Fetch ``url`` into ``target`` (written whole or not at all); returns the bytes written."""
        data = self._get(url).content
        partial = target.with_name(target.name + ".partial")
        partial.write_bytes(data)
        partial.replace(target)
        return len(data)

    def _get(self, url: str, **kwargs) -> requests.Response:
        try:
            response = self.session.get(url, timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            raise ApiError(f"cannot reach the server at {self.base_url}: {exc}") from None
        if response.status_code >= 400:
            raise ApiError(
                f"{url}: the server answered {response.status_code} {response.reason}",
                status=response.status_code,
            )
        return response

    def leaderboard(self, *, phase: str) -> dict:
        return self._request("GET", f"phases/{phase}/leaderboard/", auth=False, params=self._params())


def _error_from(response: requests.Response) -> ApiError:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return ApiError(
            f"the server answered {response.status_code} {response.reason}", status=response.status_code
        )
    problems = tuple(
        Problem(file=p.get("file", ""), message=p.get("message", ""), line=p.get("line"))
        for p in body.get("problems", [])
        if isinstance(p, dict)
    )
    message = body.get("detail") or "; ".join(f"{k}: {v}" for k, v in body.items() if k != "problems")
    return ApiError(
        f"{message or 'request refused'} (HTTP {response.status_code})",
        status=response.status_code,
        problems=problems,
    )
