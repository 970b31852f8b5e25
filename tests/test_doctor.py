"""`confbot doctor` through its front door (`bot.cli.main`) against the fakes: a fake
Confluence (Cloud and Data Center), the fake Slack Web API, the fake OpenAI-compatible
server (chat and embeddings, checking the key and the model). A healthy setup passes; each
check is then made to fail on its own, and the failing line must say which setting fixes
it, the exit code must be 1, and no secret may appear in anything printed or logged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.cli import main
from bot.doctor import manifest_scopes
from tests.fakes.confluence_server import FakeConfluence, generated_pages
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.slack_api_server import MANIFEST_SCOPES, FakeSlack

SECRETS = {
    "CONFBOT_CONFLUENCE_TOKEN": "conf-secret-token-123",
    "SLACK_BOT_TOKEN": "xoxb-secret-bot-456",
    "SLACK_APP_TOKEN": "xapp-secret-app-789",
    "SLACK_SIGNING_SECRET": "signing-secret-abc",
    "OPENAI_API_KEY": "sk-secret-key-def",
    "CONFBOT_ADMIN_TOKEN": "admin-secret-ghi",
}
CLOSED = "http://127.0.0.1:1"  # nothing listens on port 1
CHROMA = os.environ.get("CONFBOT_TEST_CHROMA_URL")  # CI's Chroma server, when there is one


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_", "OPENAI_")) or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def fakes():
    pages = generated_pages(6, space="ENG") + generated_pages(4, space="HR")
    for n, page in enumerate(pages[6:]):
        page.id = str(200000 + n)
        page.ancestors = []
    cloud = FakeConfluence(pages, token=SECRETS["CONFBOT_CONFLUENCE_TOKEN"])
    center = FakeConfluence(pages, cloud=False, token=SECRETS["CONFBOT_CONFLUENCE_TOKEN"])
    openai = FakeOpenAI(api_key=SECRETS["OPENAI_API_KEY"], models={"fake-model", "fake-embed"})
    with cloud, center, openai, FakeSlack() as slack:
        yield {"cloud": cloud, "center": center, "openai": openai, "slack": slack}


@pytest.fixture
def fresh(fakes):
    """The fakes with no failure injected."""
    fakes["slack"].failures.clear()
    fakes["slack"].scopes = MANIFEST_SCOPES
    fakes["cloud"].hidden_spaces.clear()
    fakes["center"].hidden_spaces.clear()
    return fakes


def healthy(tmp_path: Path, fakes, flavour: str = "cloud") -> dict[str, str]:
    confluence = fakes[flavour]
    environ = {
        "CONFBOT_DATA_DIR": str(tmp_path / "data"),
        "CONFBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'state.sqlite'}",
        **confluence.settings_environ(),
        "CONFBOT_SYNC_SPACES": "ENG,HR",
        "CONFBOT_SLACK_API_URL": fakes["slack"].base_url,
        "CONFBOT_LLM_BASE_URL": fakes["openai"].base_url,
        "CONFBOT_LLM_MODEL": "fake-model",
        "CONFBOT_EMBEDDER": "openai",
        "CONFBOT_EMBEDDINGS_BASE_URL": fakes["openai"].base_url,
        "CONFBOT_EMBEDDINGS_MODEL": "fake-embed",
        **SECRETS,
    }
    if CHROMA:
        environ["CONFBOT_CHROMA_URL"] = CHROMA
    return environ


def doctor(monkeypatch, capsys, caplog, environ: dict[str, str]) -> tuple[int, dict[str, str]]:
    """Run `confbot doctor`; its exit code and its lines by check name. Asserts that no
    secret of `environ` was printed or logged."""
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    code = main(["doctor"])
    captured = capsys.readouterr()
    everything = captured.out + captured.err + caplog.text
    for name, value in environ.items():
        if name in SECRETS or "TOKEN" in name or "KEY" in name:
            assert value not in everything, f"{name} was printed"
    lines = {}
    for line in captured.out.splitlines()[:-1]:
        status, rest = line.split(None, 1)
        check, _, detail = rest.partition(": ")
        lines[check] = f"{status} {detail}"
    return code, lines


@pytest.mark.parametrize("flavour", ["cloud", "center"])
def test_a_healthy_setup_passes(tmp_path, fresh, flavour, monkeypatch, capsys, caplog):
    environ = healthy(tmp_path, fresh, flavour)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["sync"]) == 0
    capsys.readouterr()
    code, lines = doctor(monkeypatch, capsys, caplog, environ)
    assert code == 0, lines
    assert all(line.startswith(("OK", "SKIP")) for line in lines.values()), lines
    for name in (
        "data folder",
        "state database",
        "Confluence URL",
        "Confluence credentials",
        "Confluence space ENG",
        "Confluence space HR",
        "Slack bot token",
        "Slack scopes",
        "Slack Socket Mode",
        "LLM",
        "embeddings",
        "settings",
        "index",
        "answer",
    ):
        assert lines[name].startswith("OK"), (name, lines)
    assert "10 pages" in lines["index"]
    assert "6 pages readable" in lines["Confluence space ENG"]
    assert fresh["openai"].chat_requests[-1].json["model"] == "fake-model"
    if flavour == "cloud":
        assert any(r.path == "/wiki/api/v2/spaces" for r in fresh["cloud"].requests)


def test_nothing_configured_is_skipped_not_failed(tmp_path, monkeypatch, capsys, caplog):
    environ = {"CONFBOT_DATA_DIR": str(tmp_path / "data")}
    code, lines = doctor(monkeypatch, capsys, caplog, environ)
    assert code == 0
    for name in ("Chroma", "Confluence", "Slack", "LLM", "embeddings"):
        assert lines[name].startswith("SKIP"), lines


def closed_postgres(env, fakes):
    env["CONFBOT_DATABASE_URL"] = "postgresql+psycopg2://confbot:hunter2pw@127.0.0.1:1/confbot"


def file_as_folder(env, fakes):
    blocker = Path(env["CONFBOT_DATA_DIR"]).parent / "a-file"
    blocker.write_text("not a folder")
    env["CONFBOT_DATA_DIR"] = str(blocker / "data")


FAILURES = {
    "data folder": (file_as_folder, "data folder", "CONFBOT_DATA_DIR"),
    "database": (closed_postgres, "state database", "CONFBOT_DATABASE_URL"),
    "chroma": (
        lambda env, f: env.update(CONFBOT_CHROMA_URL=CLOSED),
        "Chroma",
        "CONFBOT_CHROMA_URL",
    ),
    "confluence unreachable": (
        lambda env, f: env.update(CONFBOT_CONFLUENCE_URL=CLOSED + "/wiki"),
        "Confluence URL",
        "CONFBOT_CONFLUENCE_URL",
    ),
    "not confluence": (
        lambda env, f: env.update(CONFBOT_CONFLUENCE_URL=f["cloud"].url + "/elsewhere"),
        "Confluence URL",
        "CONFBOT_CONFLUENCE_URL",
    ),
    "wrong token": (
        lambda env, f: env.update(CONFBOT_CONFLUENCE_TOKEN="conf-wrong-token-000"),
        "Confluence credentials",
        "CONFBOT_CONFLUENCE_TOKEN",
    ),
    "no account email": (
        lambda env, f: env.pop("CONFBOT_CONFLUENCE_USER"),
        "Confluence credentials",
        "CONFBOT_CONFLUENCE_USER",
    ),
    "unreadable space": (
        lambda env, f: f["cloud"].hidden_spaces.add("HR"),
        "Confluence space HR",
        "CONFBOT_SYNC_SPACES",
    ),
    "unknown space": (
        lambda env, f: env.update(CONFBOT_SYNC_SPACES="ENG,NOPE"),
        "Confluence space NOPE",
        "CONFBOT_SYNC_SPACES",
    ),
    "no spaces": (
        lambda env, f: env.update(CONFBOT_SYNC_SPACES=""),
        "Confluence spaces",
        "CONFBOT_SYNC_SPACES",
    ),
    "files folder": (
        lambda env, f: env.update(
            CONFBOT_SYNC_SOURCE="files", CONFBOT_SYNC_FILES_PATH="/nonexistent/pages"
        ),
        "files source",
        "CONFBOT_SYNC_FILES_PATH",
    ),
    "slack token": (
        lambda env, f: f["slack"].fail("auth.test", "invalid_auth"),
        "Slack bot token",
        "SLACK_BOT_TOKEN",
    ),
    "slack unreachable": (
        lambda env, f: env.update(CONFBOT_SLACK_API_URL=CLOSED + "/api/"),
        "Slack bot token",
        "CONFBOT_SLACK_API_URL",
    ),
    "scopes": (
        lambda env, f: setattr(f["slack"], "scopes", "chat:write,app_mentions:read"),
        "Slack scopes",
        "bot/manifest.yml",
    ),
    "app token": (
        lambda env, f: env.update(SLACK_APP_TOKEN="xoxb-not-an-app-token"),
        "Slack Socket Mode",
        "SLACK_APP_TOKEN",
    ),
    "no event mode": (
        lambda env, f: (env.pop("SLACK_APP_TOKEN"), env.pop("SLACK_SIGNING_SECRET")),
        "Slack events",
        "SLACK_SIGNING_SECRET",
    ),
    "llm unreachable": (
        lambda env, f: env.update(CONFBOT_LLM_BASE_URL=CLOSED + "/v1"),
        "LLM",
        "CONFBOT_LLM_BASE_URL",
    ),
    "llm key": (
        lambda env, f: env.update(OPENAI_API_KEY="sk-wrong-key-000"),
        "LLM",
        "OPENAI_API_KEY",
    ),
    "llm model": (
        lambda env, f: env.update(CONFBOT_LLM_MODEL="no-such-model"),
        "LLM",
        "CONFBOT_LLM_MODEL",
    ),
    "embeddings unreachable": (
        lambda env, f: env.update(CONFBOT_EMBEDDINGS_BASE_URL=CLOSED + "/v1"),
        "embeddings",
        "CONFBOT_EMBEDDINGS_BASE_URL",
    ),
    "embeddings model": (
        lambda env, f: env.update(CONFBOT_EMBEDDINGS_MODEL="no-such-embedder"),
        "embeddings",
        "CONFBOT_EMBEDDINGS_MODEL",
    ),
    "embeddings endpoint unset": (
        lambda env, f: env.pop("CONFBOT_EMBEDDINGS_BASE_URL"),
        "embeddings",
        "CONFBOT_EMBEDDINGS_BASE_URL",
    ),
    "bge model folder": (
        lambda env, f: env.update(
            CONFBOT_EMBEDDER="bge-m3", CONFBOT_EMBEDDER_MODEL_PATH="/nonexistent/bge-m3"
        ),
        "embeddings",
        "CONFBOT_EMBEDDER_MODEL_PATH",
    ),
    "unknown embedder": (
        lambda env, f: env.update(CONFBOT_EMBEDDER="word2vec"),
        "setting",
        "CONFBOT_EMBEDDER",
    ),
    "bad schedule": (
        lambda env, f: env.update(CONFBOT_SYNC_SCHEDULE="every5min"),
        "setting",
        "CONFBOT_SYNC_SCHEDULE",
    ),
}


@pytest.mark.parametrize("case", FAILURES)
def test_each_check_fails_with_the_setting_that_fixes_it(
    tmp_path, fresh, case, monkeypatch, capsys, caplog
):
    inject, check, setting = FAILURES[case]
    environ = healthy(tmp_path, fresh)
    inject(environ, fresh)
    code, lines = doctor(monkeypatch, capsys, caplog, environ)
    assert code == 1
    assert lines[check].startswith("FAIL"), lines
    assert setting in lines[check]
    # Nothing was synced in these cases: the empty index fails too, whatever else does.
    assert lines["index"].startswith("FAIL")
    failed = [n for n, line in lines.items() if line.startswith("FAIL") and n != "index"]
    if case not in ("llm key",):  # a wrong key fails the LLM and the embeddings alike
        assert failed == [check], lines


def test_data_center_space_without_access(tmp_path, fresh, monkeypatch, capsys, caplog):
    fresh["center"].hidden_spaces.add("ENG")
    code, lines = doctor(monkeypatch, capsys, caplog, healthy(tmp_path, fresh, "center"))
    assert code == 1 and lines["Confluence space ENG"].startswith("FAIL")
    assert any(r.path == "/confluence/rest/api/space/ENG" for r in fresh["center"].requests)


def test_the_fake_grants_the_manifest_scopes():
    assert manifest_scopes() == set(MANIFEST_SCOPES.split(","))


def test_the_documented_e5_embedder_is_accepted(tmp_path, monkeypatch, capsys, caplog):
    environ = {"CONFBOT_DATA_DIR": str(tmp_path / "data"), "CONFBOT_EMBEDDER": "e5"}
    code, lines = doctor(monkeypatch, capsys, caplog, environ)
    assert code == 0, lines
    assert lines["settings"].startswith("OK")
    assert lines["embeddings"].startswith("SKIP") and "e5" in lines["embeddings"]


def test_a_bad_schedule_is_the_error_serve_stops_with(tmp_path, monkeypatch, capsys, caplog):
    """doctor and serve reject `every5min` with one and the same line; serve exits 2 with
    it, before binding a port, without a traceback."""
    environ = {"CONFBOT_DATA_DIR": str(tmp_path / "data"), "CONFBOT_SYNC_SCHEDULE": "every5min"}
    code, lines = doctor(monkeypatch, capsys, caplog, environ)
    assert code == 1
    assert lines["setting"].startswith("FAIL CONFBOT_SYNC_SCHEDULE: schedule 'every5min'")
    assert "set CONFBOT_SYNC_SCHEDULE" in lines["setting"]
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    doctor_said = lines["setting"].removeprefix("FAIL ").split(" → ")[0]
    assert err == f"confbot: configuration error: {doctor_said}\n"


def test_a_refused_connection_is_one_short_line(tmp_path, fresh, monkeypatch, capsys, caplog):
    environ = healthy(tmp_path, fresh)
    environ["CONFBOT_CONFLUENCE_URL"] = CLOSED + "/wiki"
    environ["CONFBOT_CHROMA_URL"] = CLOSED
    code, lines = doctor(monkeypatch, capsys, caplog, environ)
    assert "connection refused" in lines["Confluence URL"].lower(), lines["Confluence URL"]
    for name in ("Confluence URL", "Chroma"):
        assert "0x" not in lines[name] and len(lines[name]) < 160, lines[name]


def test_an_empty_index_fails_and_names_the_command(tmp_path, fresh, monkeypatch, capsys, caplog):
    code, lines = doctor(monkeypatch, capsys, caplog, healthy(tmp_path, fresh))
    assert code == 1
    assert lines["index"].startswith("FAIL empty") and "confbot sync" in lines["index"]
    assert "answer" not in lines
