"""What GitHubHttp sends as Authorization: the Credentials protocol it asks for each request's
header, and GITHUB_TOKEN as given (a GitHub App's tokens are in app_auth.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

TOKEN_HINT = "check GITHUB_TOKEN"  # noqa: S105 - a message


class Credentials(Protocol):
    """What GitHubHttp asks for the Authorization header of each request."""

    @property
    def hint(self) -> str:
        """What a user checks when GitHub refuses the credentials."""
        ...

    def authorization(self) -> str:
        """The Authorization header value to send now."""
        ...

    def refused(self, sent: str) -> bool:
        """GitHub answered 401 to `sent`: True when a new header is worth one more try."""
        ...


@dataclass(frozen=True)
class StaticToken:
    """GITHUB_TOKEN: the same header every time; a refusal is final."""

    token: str
    hint: str = TOKEN_HINT

    def authorization(self) -> str:
        return f"Bearer {self.token}"

    def refused(self, sent: str) -> bool:
        return False
