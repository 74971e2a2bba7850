"""What `verl-week doctor` asks the model endpoint: the models it serves (GET {LLM_BASE_URL}/models,
the cheapest call of the OpenAI API: no tokens spent). The key is sent as the client sends it
and never appears in an error."""

from __future__ import annotations

from urllib.parse import urlsplit

import requests

from service.errors import AuthRefusedError, NotFoundError, UnreachableError

TIMEOUT_SECONDS = 10.0
HTTP_OK = 200
HTTP_NOT_FOUND = 404
REFUSED = frozenset({401, 403})


def check_key(
    base_url: str, api_key: str | None, model: str, timeout: float = TIMEOUT_SECONDS
) -> None:
    """AuthRefusedError when the endpoint refuses `api_key`, asked without spending a token: a
    chat completion with no messages, which an OpenAI-compatible server refuses (400) once the
    key passes, or with 401/403 before."""
    url = base_url.rstrip("/") + "/chat/completions"
    host = urlsplit(base_url).netloc
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    body = {"model": model, "messages": [], "max_tokens": 1}
    try:
        response = requests.post(url, headers=headers, json=body, timeout=timeout)
    except requests.RequestException as exc:
        raise UnreachableError(
            f"the model endpoint {host} is unreachable ({type(exc).__name__})"
        ) from None
    if response.status_code in REFUSED:
        raise AuthRefusedError(f"{host} refused LLM_API_KEY (HTTP {response.status_code})")


def served_models(
    base_url: str, api_key: str | None, timeout: float = TIMEOUT_SECONDS
) -> list[str]:
    """The ids of `data[]` in the endpoint's model list.

    AuthRefusedError for a refused key, NotFoundError when the endpoint lists no models (404),
    UnreachableError for anything else that is no list."""
    url = base_url.rstrip("/") + "/models"
    host = urlsplit(base_url).netloc
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = requests.get(url, headers=headers, timeout=timeout)
    except requests.RequestException as exc:
        raise UnreachableError(
            f"the model endpoint {host} is unreachable ({type(exc).__name__})"
        ) from None
    if response.status_code in REFUSED:
        raise AuthRefusedError(f"{host} refused LLM_API_KEY (HTTP {response.status_code})")
    if response.status_code == HTTP_NOT_FOUND:
        raise NotFoundError(f"{host} lists no models (GET /models: 404)")
    try:
        data = response.json().get("data") if response.status_code == HTTP_OK else None
    except (ValueError, AttributeError):
        data = None
    if not isinstance(data, list):
        raise UnreachableError(
            f"{host} answered GET /models with HTTP {response.status_code}, no model list"
        )
    return [str(item.get("id")) for item in data if isinstance(item, dict) and item.get("id")]
