"""GitHubHttp's requests on urllib3 directly: what requests read from the environment (proxies,
`no_proxy`, CA bundles, netrc) still decides where and how they go; timeouts, broken answers and
redirects behave as under requests; no failure names the token."""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
import urllib3
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from service.errors import UnreachableError
from service.github.http import GitHubHttp
from service.github.transport import Answer, Transport
from tests.fakes._server import FakeAPI, _handler_for, serve

SECRET = "ghp-secret-token-for-tests"
ELSEWHERE = "http://api.example.test"  # never resolved: a proxy answers for it
BODY = {"full_name": "o/r"}


def _client(
    api_url: str, *, max_retries: int = 2, timeout: float = 30.0, user_agent: str = "verl-week"
) -> GitHubHttp:
    return GitHubHttp(
        api_url=api_url,
        graphql_url=f"{api_url}/graphql",
        token=SECRET,
        max_retries=max_retries,
        timeout=timeout,
        user_agent=user_agent,
        backoff_base=0.001,
        backoff_cap=0.01,
    )


@pytest.fixture
def api() -> Iterator[FakeAPI]:
    fake = FakeAPI()
    fake.route_prefix("GET", "/repos/", lambda rec: (200, {}, BODY))
    fake.route("POST", "/graphql", lambda rec: (200, {}, {"data": {"echo": rec.json()}}))
    with serve(fake):
        yield fake


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """None of the shell's proxy, CA or netrc settings: each test sets its own."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUESTS_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))


# --- headers, bodies, the answer ----------------------------------------------------------


def test_headers_and_json_body_are_requests_own(api: FakeAPI) -> None:
    http = _client(api.url, user_agent="verl-week/test")
    assert http.graphql("query Q { x }", {"n": 1}) == {
        "echo": {"query": "query Q { x }", "variables": {"n": 1}}
    }
    sent = api.calls("POST", "/graphql")[0]
    assert sent.header("Authorization") == f"Bearer {SECRET}"
    assert sent.header("User-Agent") == "verl-week/test"
    assert sent.header("Accept") == "application/vnd.github+json"
    assert sent.header("X-GitHub-Api-Version") == "2022-11-28"
    assert sent.header("Content-Type") == "application/json"
    assert sent.header("Accept-Encoding") == requests.utils.DEFAULT_ACCEPT_ENCODING
    assert sent.header("Connection") == "keep-alive"


def test_an_answer_is_decoded_once_and_reads_like_a_response() -> None:
    headers = urllib3.HTTPHeaderDict(
        {
            "Content-Type": "application/json; charset=utf-8",
            "Link": '<https://x.test/a?page=2>; rel="next", <https://x.test/a?page=9>; rel="last"',
        }
    )
    answer = Answer(200, headers, '{"a": "é"}'.encode(), "https://x.test/a")
    assert answer.json() is answer.json()  # the same object: one decoding
    assert answer.text == '{"a": "é"}'
    assert answer.links["next"]["url"] == "https://x.test/a?page=2"
    assert answer.ok
    broken = Answer(502, headers, b"<html>", "https://x.test/a")
    with pytest.raises(ValueError, match="Expecting value"):
        broken.json()
    with pytest.raises(ValueError, match="Expecting value"):  # the failure is kept too
        broken.json()
    assert not broken.ok


# --- the environment: proxies, no_proxy, netrc, CA bundles ----------------------------------


def test_http_proxy_from_the_environment_carries_the_request(
    api: FakeAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, password = "someone", "proxy-pass"
    monkeypatch.setenv("HTTP_PROXY", api.url.replace("//", f"//{user}:{password}@"))
    assert _client(ELSEWHERE).get("/repos/o/r").data == BODY
    sent = api.calls("GET", "/repos/o/r")[0]
    assert sent.header("Host") == "api.example.test"
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    assert sent.header("Proxy-Authorization") == f"Basic {token}"
    assert sent.header("Authorization") == f"Bearer {SECRET}"


def test_no_proxy_hosts_go_direct(api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert _client(api.url).get("/repos/o/r").data == BODY


def test_each_origin_is_routed_as_requests_would(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.test:3128")
    monkeypatch.setenv("NO_PROXY", "skip.example.test")
    transport, session = Transport({}, pool_size=4), requests.Session()
    for url in ("http://api.example.test/x", "http://skip.example.test:8080/y"):
        wanted = requests.utils.select_proxy(
            url, session.merge_environment_settings(url, {}, None, None, None)["proxies"]
        )
        manager = transport.route(url).manager
        proxy = manager.proxy if isinstance(manager, urllib3.ProxyManager) else None
        assert (proxy.url if proxy else None) == wanted
    assert transport.route("http://api.example.test/a") is transport.route(
        "HTTP://API.example.test/b"
    )


def test_netrc_replaces_the_authorization_as_requests_does(
    api: FakeAPI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password from-netrc\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    _client(api.url).get("/repos/o/r")
    token = base64.b64encode(b"someone:from-netrc").decode()
    assert api.calls("GET", "/repos/o/r")[0].header("Authorization") == f"Basic {token}"


def _certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@contextmanager
def _tls(api: FakeAPI, cert_file: Path, key_file: Path) -> Iterator[str]:
    """`api` served over TLS on 127.0.0.1; its https URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(api))
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("variable", ["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"])
def test_the_ca_bundle_of_the_environment_is_trusted(
    variable: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cert_file, key_file = _certificate(tmp_path)
    fake = FakeAPI()
    fake.route_prefix("GET", "/repos/", lambda rec: (200, {}, BODY))
    with _tls(fake, cert_file, key_file) as url:
        with pytest.raises(UnreachableError, match=r"\(SSLError\) after 1 attempts"):
            _client(url, max_retries=0).get("/repos/o/r")  # certifi's bundle: not trusted
        monkeypatch.setenv(variable, str(cert_file))
        assert _client(url).get("/repos/o/r").data == BODY


def test_the_ca_bundle_defaults_to_certifi() -> None:
    transport = Transport({}, pool_size=4)
    assert transport.route("https://api.github.com/x").manager.connection_pool_kw["ca_certs"] == (
        requests.utils.DEFAULT_CA_BUNDLE_PATH
    )


def test_a_missing_ca_bundle_fails_as_under_requests(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "absent.pem"))
    with pytest.raises(OSError, match="Could not find a suitable TLS CA certificate bundle"):
        _client("https://127.0.0.1:9").get("/repos/o/r")


# --- failures: timeouts, broken answers, redirects; never the token -------------------------


def test_a_read_timeout_is_retried_then_unreachable(api: FakeAPI) -> None:
    api.latency = 0.5
    http = _client(api.url, timeout=0.1, max_retries=1)
    with pytest.raises(UnreachableError) as info:
        http.get("/repos/o/r")
    assert str(info.value) == f"cannot reach GitHub at {api.url[7:]} (ReadTimeout) after 2 attempts"
    assert SECRET not in str(info.value)
    assert http.stats.retries == 1


@contextmanager
def _raw_server(answers: list[bytes]) -> Iterator[str]:
    """A server that writes `answers` in turn as they are (one a connection), then closes."""
    listener = socket.create_server(("127.0.0.1", 0))

    def run() -> None:
        for answer in answers:
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(answer)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


def _answer(body: bytes, length: int | None = None) -> bytes:
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close"
    return f"{head}\r\nContent-Length: {length or len(body)}\r\n\r\n".encode() + body


def test_a_truncated_body_is_retried(caplog: pytest.LogCaptureFixture) -> None:
    whole = b'{"full_name": "o/r"}'
    with _raw_server([_answer(whole[:7], length=len(whole)), _answer(whole)]) as url:
        http = _client(url)
        assert http.get("/repos/o/r").data == BODY
    assert http.stats.retries == 1


def test_a_dropped_connection_is_retried_and_named_without_the_token() -> None:
    with _raw_server([b"", b"", b""]) as url:
        http = _client(url)
        with pytest.raises(UnreachableError) as info:
            http.get("/repos/o/r")
    assert "(ConnectionError) after 3 attempts" in str(info.value)
    assert SECRET not in str(info.value)


def test_a_redirect_to_another_host_drops_the_token(api: FakeAPI) -> None:
    elsewhere = api.url.replace("127.0.0.1", "localhost")
    api.route(
        "GET", "/repos/old/r", lambda rec: (301, {"location": f"{elsewhere}/repos/new/r"}, {})
    )
    page = _client(api.url).get("/repos/old/r")
    assert page.data == BODY
    moved, landed = api.calls("GET", "/repos/old/r")[0], api.calls("GET", "/repos/new/r")[0]
    assert moved.header("Authorization") == f"Bearer {SECRET}"
    assert landed.header("Authorization") is None


def test_too_many_redirects_fail_at_once(api: FakeAPI) -> None:
    api.route("GET", "/repos/loop/r", lambda rec: (302, {"location": "/repos/loop/r"}, {}))
    http = _client(api.url)
    with pytest.raises(UnreachableError, match=r"\(TooManyRedirects\) after 1 attempts"):
        http.get("/repos/loop/r")
    assert len(api.calls("GET", "/repos/loop/r")) == 31


def test_the_answering_url_is_where_redirects_led(api: FakeAPI) -> None:
    api.route("GET", "/repos/old/r", lambda rec: (301, {"location": "/repos/new/r"}, {}))
    answer = Transport({}, pool_size=2).send("GET", f"{api.url}/repos/old/r", headers={}, timeout=5)
    assert answer.url == f"{api.url}/repos/new/r"
    assert answer.json() == BODY


def test_connections_are_kept_for_the_next_request(api: FakeAPI) -> None:
    transport = Transport({}, pool_size=2)
    for _ in range(3):
        transport.send("GET", f"{api.url}/repos/o/r", headers={}, timeout=5)
    pool = transport.route(api.url).manager.connection_from_url(api.url)
    assert pool.num_connections == 1
    transport.close()
