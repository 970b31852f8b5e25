"""The web server's limits (`bot.http_limits`) on a real uvicorn server on 127.0.0.1:
half-sent requests are disconnected after the request deadline, connections beyond the
limit get 503 at once, and the log a flood of bad connections writes stays bounded."""

from __future__ import annotations

import logging
import socket
import time

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from bot.http_limits import RateLimitedLog, connection_limit
from bot.serve import BackgroundServer
from core.settings import Settings


async def hello(request):
    await request.body()
    return PlainTextResponse("ok")


APP = Starlette(routes=[Route("/", hello, methods=["GET", "POST"])])


def settings(**changes) -> Settings:
    return Settings.load(environ={}, overrides={"web_request_timeout": "0.5", **changes})


def connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    return sock


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes `sock` within `seconds` (reads until EOF)."""
    sock.settimeout(seconds)
    try:
        while sock.recv(1024):
            pass
        return True
    except TimeoutError:
        return False
    finally:
        sock.close()


@pytest.mark.parametrize(
    "partial",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n",  # a head that never ends
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab",  # a body that stalls
        b"",  # connected, nothing sent
    ],
    ids=["half-head", "half-body", "silent"],
)
def test_half_sent_requests_are_disconnected_after_the_deadline(partial):
    with BackgroundServer(APP, settings=settings()) as server:
        sock = connect(server.url)
        sock.sendall(partial)
        started = time.monotonic()
        assert closed_within(sock, 5)
        assert 0.3 < time.monotonic() - started < 3
        assert httpx.get(server.url + "/").text == "ok"  # others are served meanwhile


def test_a_kept_alive_connection_gets_a_new_deadline_per_request():
    with BackgroundServer(APP, settings=settings()) as server, httpx.Client() as client:
        for _ in range(3):  # the same connection, slower in total than one deadline
            assert client.get(server.url + "/").text == "ok"
            time.sleep(0.3)


def test_connections_beyond_the_limit_get_503_at_once():
    with BackgroundServer(APP, settings=settings(web_max_connections="3")) as server:
        held = [connect(server.url) for _ in range(4)]
        try:
            time.sleep(0.1)
            response = httpx.get(server.url + "/", timeout=2)
            assert response.status_code == 503
        finally:
            for sock in held:
                sock.close()


def test_the_connection_limit_fits_the_open_files_limit():
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert connection_limit(settings(web_max_connections="100")) == 100
    huge = connection_limit(settings(web_max_connections="1000000"))
    now, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert now >= soft and huge <= now - 256


def test_rate_limited_log_lets_a_burst_through_then_counts(caplog):
    logger = logging.getLogger("test.flood")
    limiter = RateLimitedLog(burst=3, every=0.2, max_chars=100)
    logger.addFilter(limiter)
    try:
        with caplog.at_level(logging.WARNING, logger="test.flood"):
            for number in range(1000):
                logger.warning("accept failed on connection %d: %s", number, "x" * 5000)
            time.sleep(0.25)
            logger.warning("accept failed on connection %d: %s", 1000, "y")
            try:
                raise ValueError("z" * 10_000)
            except ValueError:
                logger.exception("another kind")
    finally:
        logger.removeFilter(limiter)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 5  # 3 of the burst, 1 after the pause, the other kind
    assert all(len(m) < 200 for m in messages)
    assert "997 similar message(s) dropped" in messages[3]
    assert len(caplog.records[-1].exc_text) <= 100


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CONFBOT_WEB_PORT", "70000"),
        ("CONFBOT_WEB_PORT", "-1"),
        ("CONFBOT_WEB_MAX_CONNECTIONS", "0"),
        ("CONFBOT_WEB_REQUEST_TIMEOUT", "nan"),
        ("CONFBOT_WEB_PORT", "9" * 5000),
    ],
)
def test_numbers_out_of_range_name_their_variable(name, value):
    from core.settings import SettingsError

    with pytest.raises(SettingsError, match=name):
        Settings.load(environ={name: value})


def test_a_malformed_config_file_is_a_clear_error(tmp_path):
    from core.settings import SettingsError

    config = tmp_path / "confbot.toml"
    config.write_text('collection = "a\nweb_port = [')
    with pytest.raises(SettingsError, match="is not valid TOML"):
        Settings.load(environ={"CONFBOT_CONFIG": str(config)})
