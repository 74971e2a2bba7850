"""The Slack app: slack-bolt in HTTP mode (or Socket Mode) answering `/verl-week` and the card's
buttons through the command engine.

Talks to Slack: the signed requests come in at POST /slack/events (bolt checks the v0
signature and the 5-minute window and answers 401 itself), answers go back in the ack body or
through `response_url`. Three jobs only: extract (text, caller), call the engine, render the
Answer with render.slack. Regenerate is acknowledged first and rebuilt after the ack.
"""

from __future__ import annotations

import json
import logging
import re
import weakref
from collections.abc import Awaitable, Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import anyio
from slack_bolt import App, BoltContext, BoltRequest, BoltResponse
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_bolt.context.ack import Ack
from slack_bolt.context.respond import Respond
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_bolt.request.internals import build_context
from slack_sdk import WebClient
from slack_sdk.signature import SignatureVerifier
from starlette.requests import Request
from starlette.responses import Response

from service.commands import buttons
from service.commands.answer import Answer, Caller, EngineContext, answer_failure
from service.commands.flow import CommandFlow, ObserveCommand, Regenerate, new_incident
from service.commands.grammar import Command
from service.render.slack import ACTION_PREFIX, ACTION_REPORT, SlackMessage, render_answer
from service.slack.lane import CommandLane, Listener

logger = logging.getLogger(__name__)

DEFAULT_COMMAND = "/verl-week"
PLATFORM = "slack"
# bolt runs each listener in an executor of this many threads while the request's thread polls
# every 10 ms for its ack: requests dispatched beyond it would only poll (and contend for the
# GIL with the event loop answering /livez) until a listener thread frees up
DISPATCH_THREADS = 10
HTTP_OK = 200
HTTP_UNAUTHORIZED = 401
TIMESTAMP_HEADER = "x-slack-request-timestamp"
TIMESTAMP_RE = re.compile(r"^[0-9]{1,12}$")  # Unix seconds, ASCII digits only (int() takes "١٢")
SIGNATURE_HEADER = "x-slack-signature"
# `v0=` and a hex digest; bolt's compare_digest raises TypeError on a non-ASCII str
SIGNATURE_RE = re.compile(r"^[\x21-\x7e]{1,200}$")
EPHEMERAL = "ephemeral"
IN_CHANNEL = "in_channel"

Endpoint = Callable[[Request], Awaitable[Response]]
Responder = Callable[..., Any]
# each App's slash-command lane, for its endpoint (build_slack_app → build_slack_endpoint)
_LANES: weakref.WeakKeyDictionary[App, CommandLane] = weakref.WeakKeyDictionary()


@dataclass
class SlackCommands:
    """The listeners' shared state: the command flow and the answer language."""

    flow: CommandFlow
    language: str

    def message(self, reply: Answer) -> SlackMessage:
        lang = reply.language or self.language
        return reply.rendered(PLATFORM, lang, lambda: render_answer(reply, lang))

    def fields(self, reply: Answer) -> dict[str, Any]:
        """ack/respond keyword arguments for `reply`: ephemeral unless the user said public."""
        message = self.message(reply)
        response_type = IN_CHANNEL if reply.public else EPHEMERAL
        return {"text": message.text, "blocks": message.blocks, "response_type": response_type}

    def talk(self, ack: Callable[..., Any], respond: Responder, *, in_ack: bool) -> SlackTalk:
        return SlackTalk(self, ack, respond, in_ack)


@dataclass
class SlackTalk:
    """A command's way back: the answer in the ack body (slash commands) or, for buttons, an
    empty ack and the answer through response_url; later answers through response_url."""

    commands: SlackCommands
    ack: Callable[..., Any]
    respond: Responder
    in_ack: bool

    def first(self, reply: Answer) -> None:
        # ack first: Slack shows the user an error when the ack takes over 3 s (§2.2)
        fields = self.commands.fields(reply)
        if self.in_ack:
            self.ack(**fields)
        else:
            self.ack()
            _safe_respond(self.respond, replace_original=False, **fields)

    def later(self, reply: Answer) -> None:
        _safe_respond(self.respond, replace_original=False, **self.commands.fields(reply))


def _safe_respond(respond: Responder, **fields: Any) -> None:
    try:
        respond(**fields)
    except OSError:  # response_url unreachable: nothing else can tell the user
        logger.warning("response_url failed", exc_info=True)


# a card's verb button: the prefix and the verb (the report button is a URL, answered apart)
ACTION_VERB = re.compile(rf"^{ACTION_PREFIX}(?!report$)([a-z][a-z_]*)$")


def _action_command(body: dict[str, Any]) -> Command:
    """The Command a card button stands for: its value (commands/buttons.py reads it), else
    the verb its action_id names (an unknown verb gets the engine's helpful answer)."""
    action = (body.get("actions") or [{}])[0]
    found = ACTION_VERB.match(str(action.get("action_id") or ""))
    verb = found.group(1) if found else ""
    return buttons.decode(action.get("value"), verb) or Command(verb=verb)


def _action_caller(body: dict[str, Any]) -> Caller:
    channel = (body.get("channel") or {}).get("id") or ""
    return Caller(
        user_id=(body.get("user") or {}).get("id", ""), platform=PLATFORM, channel=channel
    )


def _on_slash(commands: SlackCommands, body: Mapping[str, Any], ack: Any, respond: Any) -> None:
    """A slash command: the flow answers in the ack body (bolt's listener and the lane's)."""
    caller = Caller(
        user_id=body.get("user_id", ""), platform=PLATFORM, channel=body.get("channel_id", "")
    )
    talk = commands.talk(ack, respond, in_ack=True)
    commands.flow.on_text(body.get("text", ""), caller, talk)


def _failure(commands: SlackCommands, error: Exception) -> dict[str, Any]:
    """A listener's unexpected failure, logged with a new incident id: the answer's fields."""
    incident = new_incident()
    logger.error("slack listener failed", exc_info=error, extra={"incident": incident})
    return commands.fields(answer_failure(incident))


def _json_response(fields: dict[str, Any]) -> BoltResponse:
    body = json.dumps(fields, ensure_ascii=False)
    return BoltResponse(status=HTTP_OK, body=body, headers={"content-type": "application/json"})


def _lane_listener(commands: SlackCommands, client: WebClient) -> Listener:
    """`_on_slash` for the lane, with bolt's own Ack and Respond, and bolt's error handling:
    a failure before the ack is the ack's answer, one after it goes through response_url."""

    def listener(body: dict[str, str], deliver: Callable[[BoltResponse], None]) -> None:
        ack = Ack()  # type: ignore[no-untyped-call, unused-ignore]  # bolt: unannotated __init__
        url = body.get("response_url")
        respond = Respond(response_url=url, proxy=client.proxy, ssl=client.ssl)

        def acknowledge(*args: Any, **kwargs: Any) -> BoltResponse:
            response = ack(*args, **kwargs)
            deliver(response)
            return response

        try:
            _on_slash(commands, body, acknowledge, respond)
        except Exception as error:
            fields = _failure(commands, error)
            if ack.response is None:
                deliver(_json_response(fields))
            else:
                _safe_respond(respond, replace_original=False, **fields)

    return listener


def _register(app: App, commands: SlackCommands, command_name: str) -> None:
    @app.command(command_name)
    def on_command(ack: Any, body: dict[str, Any], respond: Any) -> None:
        _on_slash(commands, body, ack, respond)

    @app.action(ACTION_VERB)
    def on_button(ack: Any, body: dict[str, Any], respond: Any) -> None:
        talk = commands.talk(ack, respond, in_ack=False)
        commands.flow.on_command(_action_command(body), _action_caller(body), talk)

    @app.action(ACTION_REPORT)
    def on_report(ack: Any) -> None:
        ack()  # a URL button still sends a payload that must be acknowledged (§2.4)

    @app.error
    def on_error(error: Exception, response: BoltResponse | None, respond: Any) -> Any:
        fields = _failure(commands, error)
        if response is not None:
            return _json_response(fields)
        if respond is not None:
            _safe_respond(respond, replace_original=False, **fields)
        return None


class _DropMessage(logging.Filter):
    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != self.message


@contextmanager
def _client_over_environment_token(bolt_logger: logging.Logger) -> Iterator[None]:
    """bolt reads SLACK_BOT_TOKEN from the environment even when given a client, and then warns
    "`token` will be unused" on every start (Docker, k8s and systemd all set it). The client
    carries that same token (service.platforms.slack builds it from the settings): the warning
    says nothing, so it is dropped while the App is built, and only that one."""
    quiet = _DropMessage(warning_client_prioritized_and_token_skipped())
    bolt_logger.addFilter(quiet)
    try:
        yield
    finally:
        bolt_logger.removeFilter(quiet)


def build_slack_app(
    *,
    client: WebClient,
    signing_secret: str,
    engine: EngineContext,
    regenerate: Regenerate | None,
    command: str = DEFAULT_COMMAND,
    language: str = "zh",
    observe: ObserveCommand | None = None,
) -> App:
    """A bolt App on `client` (SLACK_API_URL), with the command and button listeners."""
    bolt_logger = logging.getLogger("service.slack.bolt")
    executor = ThreadPoolExecutor(DISPATCH_THREADS, "slack-listener")
    with _client_over_environment_token(bolt_logger):
        app = App(
            client=client,
            signing_secret=signing_secret,
            token_verification_enabled=False,  # auth.test on the first request, not at start-up
            logger=bolt_logger,
            listener_executor=executor,
        )
    flow = CommandFlow(engine=engine, platform=PLATFORM, regenerate=regenerate, observe=observe)
    commands = SlackCommands(flow=flow, language=language)
    _register(app, commands, command)
    if signing_secret:  # HTTP mode; Socket Mode signs nothing and has no endpoint to lane
        verifier = SignatureVerifier(signing_secret=signing_secret)
        listener = _lane_listener(commands, client)
        _LANES[app] = CommandLane(app, command, verifier, executor, listener)
    return app


def command_lane(app: App) -> CommandLane | None:
    """The slash-command lane of an App built by `build_slack_app` (None for any other)."""
    return _LANES.get(app)


def _usable_body(body: bytes) -> bool:
    """A JSON object, or a form whose `payload` (if any) is a JSON object: what bolt reads."""
    text = body.decode("utf-8", errors="replace").strip()
    if text.startswith(("{", "[")) or text in ("null", "true", "false"):
        return _is_json_object(text)
    payload = dict(parse_qsl(text, keep_blank_values=True)).get("payload")
    return payload is None or _is_json_object(payload)


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):  # deeply nested junk overflows the parser's stack
        return False


def _plausible_headers(request: Request) -> bool:
    """A timestamp of ASCII digits and a signature of printable ASCII, when present: bolt
    would raise on anything else (int() of the timestamp, compare_digest of the signature)."""
    stamp = request.headers.get(TIMESTAMP_HEADER)
    signature = request.headers.get(SIGNATURE_HEADER)
    return (stamp is None or TIMESTAMP_RE.match(stamp) is not None) and (
        signature is None or SIGNATURE_RE.match(signature) is not None
    )


def _repair_command_body(bolt_request: BoltRequest) -> BoltRequest:
    """Work around bolt's parse_body: a form body containing the substring "payload" anywhere
    (a slash command whose text says "payload") is taken for an interactivity payload and parsed
    to {} (platform-facts §2.6, reproduced). Re-parse such a slash command as the form it is;
    the signature is still checked on the untouched raw body."""
    if bolt_request.body or not bolt_request.raw_body:
        return bolt_request
    fields = dict(parse_qsl(bolt_request.raw_body, keep_blank_values=True))
    if "command" in fields and "payload" not in fields:
        bolt_request.body = fields
        bolt_request.context = build_context(BoltContext({}), fields)
    return bolt_request


def build_slack_endpoint(app: App) -> Endpoint:
    """The Starlette handler of POST /slack/events: a slash command of ours through the lane
    (service/slack/lane.py) once bolt has authorized; anything else through bolt's dispatch in
    a worker thread, at most DISPATCH_THREADS at once (the others wait on the event loop)."""

    limiter = anyio.CapacityLimiter(DISPATCH_THREADS)
    lane = command_lane(app)

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        if not _plausible_headers(request) or not _usable_body(body):
            # bolt would raise on these (odd headers, a payload that is no object) and answer
            # 500 or "something went wrong": they are refused as unauthenticated
            return Response(status_code=HTTP_UNAUTHORIZED)
        fields = lane.fields(body) if lane is not None else None
        if lane is not None and fields is not None:  # a slash command of ours: no bolt dispatch
            return await lane.answer(request, body, fields)
        try:
            bolt_request = _repair_command_body(to_bolt_request(request, body))
        except ValueError:
            # bolt parses a `payload=` form as JSON before it checks the signature: a body it
            # can't parse is refused as unauthenticated, before anything else reads it
            return Response(status_code=HTTP_UNAUTHORIZED)
        bolt_response = await anyio.to_thread.run_sync(app.dispatch, bolt_request, limiter=limiter)
        return to_starlette_response(bolt_response)

    return endpoint
