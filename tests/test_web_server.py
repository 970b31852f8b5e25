"""The web app on a real uvicorn server (a thread, a free port on 127.0.0.1): the smoke test
that what runs in-process also runs over real HTTP."""

from __future__ import annotations

import httpx
import pytest

from bot.serve import BackgroundServer, display_url
from bot.web import create_app
from tests.fakes.tiny_wiki import build_wiki, make_assistant


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", 8080, "http://127.0.0.1:8080"),
        ("0.0.0.0", 80, "http://127.0.0.1:80"),
        ("::1", 9000, "http://[::1]:9000"),
        ("confbot.internal", 8080, "http://confbot.internal:8080"),
    ],
)
def test_display_url(host, port, url):
    assert display_url(host, port) == url


def test_real_server_smoke(tmp_path):
    assistant = make_assistant(build_wiki(tmp_path / "wiki"), tmp_path)
    try:
        with (
            BackgroundServer(create_app(assistant)) as server,
            httpx.Client(base_url=server.url, timeout=30) as http,
        ):
            assert http.get("/healthz").json()["status"] == "ok"
            page = http.get("/ask", params={"space": "TEST", "page": "101"})
            assert page.status_code == 200 and "Bats: Bash Automated Testing System" in page.text
            assert http.get("/static/ask.js").status_code == 200
            body = {"question": "What does BATS stand for?", "conversation": "smoke-test-1"}
            turn = http.post("/api/ask", json={**body, "space": "TEST"}).json()
            assert "Bash Automated Testing System" in turn["answer"]
            ids = {"turn": turn["turn"], "conversation": "smoke-test-1", "space": "TEST"}
            explanation = http.post("/api/explain", json=ids).json()
            assert explanation["clusters"][0]["share"] > 0
            trace = http.get(f"/api/turns/{turn['turn']}", params=ids).json()
            assert trace["explanation"]["method"] == "counterfactual"
            assert http.post("/api/ask", content=b"nope").status_code == 400
        with pytest.raises(httpx.TransportError):
            httpx.get(server.url + "/healthz", timeout=2)
    finally:
        assistant.close()
