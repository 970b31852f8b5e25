"""`confbot doctor`: check every configured integration and say, one line each, OK or what is
wrong and which setting fixes it.

Checks, in order: the data folder is writable; the state database answers (and whether its
migrations are current); the Chroma server answers its heartbeat; the page source: the
Confluence URL is a Confluence REST API, the credentials sign in, each configured space is
readable (or the files folder exists); Slack: `auth.test` accepts the bot token, the token
has every bot scope of `bot/manifest.yml`, the app token opens a Socket Mode connection
(`apps.connections.open`) or HTTP mode's signing secret is set; the LLM endpoint answers one
tiny request with the configured model; the embeddings endpoint embeds one word. An
integration that is not configured is SKIP, with the setting that turns it on.

Every request is made once, without retries and with a short timeout, so a dead service
costs seconds. Secrets never reach the output: each line is redacted of every secret
setting's value and of URL passwords before it is printed.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from core.redact import redact_text, secret_values
from core.settings import Settings, SettingsError

OK, FAIL, SKIP = "OK", "FAIL", "SKIP"
TIMEOUT = 10.0
"""Seconds each request of a check may take."""
MANIFEST = Path(__file__).resolve().parent / "manifest.yml"


@dataclass(frozen=True)
class Check:
    """The outcome of one check: `status` OK, FAIL or SKIP; `fix` names the settings (or the
    action) that repair a failure."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.status:<4}  {self.name}: {self.detail}"
        return f"{text} → {self.fix}" if self.fix and self.status == FAIL else text


def _ok(name: str, detail: str) -> Check:
    return Check(name, OK, detail)


def _fail(name: str, detail: str, fix: str) -> Check:
    return Check(name, FAIL, detail, fix)


def _skip(name: str, detail: str) -> Check:
    return Check(name, SKIP, detail)


_OS_ERROR = re.compile(r"\[Errno -?\d+\] ([^'\")\]]+)")
_TIMED_OUT = re.compile(r"(?:read|connect)?\s*timed? ?out", re.IGNORECASE)


def _error(exc: BaseException) -> str:
    """An exception in one short line: the operating system's reason (connection refused,
    name not known, timed out) when a client library wraps one in its own long repr, as
    urllib3's `Max retries exceeded ... NewConnectionError(<object at 0x...>)` does."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    reason = _OS_ERROR.search(text)
    if reason:
        return reason.group(1).strip().rstrip(".:")
    if len(text) > 120 and _TIMED_OUT.search(text):
        return f"timed out after {TIMEOUT:.0f} s"
    return text if len(text) <= 160 else text[:157] + "..."


# --------------------------------------------------------------------------- settings
def check_settings(settings: Settings) -> list[Check]:
    """Every setting `serve`, `worker` and `bot` read parses, with their own parsers
    (`bot.setting_checks`): the same error doctor prints is the one they would stop with."""
    from bot.setting_checks import setting_errors

    failures = [
        _fail("setting", str(error), _setting_of(error)) for error in setting_errors(settings)
    ]
    return failures or [_ok("settings", "every setting serve reads is valid")]


# --------------------------------------------------------------------------- storage
def check_data_folder(settings: Settings) -> Check:
    """The data folder exists (or can be made) and a file can be written in it."""
    name = "data folder"
    path = Path(settings.data_dir).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-"):
            pass
    except OSError as exc:
        return _fail(
            name, f"{path} cannot be written ({exc.strerror or exc})", "set CONFBOT_DATA_DIR"
        )
    return _ok(name, f"{path} is writable")


def check_database(settings: Settings) -> Check:
    """The state database answers a query; says whether its migrations are current."""
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from core.db import alembic_config

    url = settings.sqlalchemy_url
    shown = make_url(url).render_as_string(hide_password=True)
    name = "state database"
    connect_args = {} if url.startswith("sqlite") else {"connect_timeout": int(TIMEOUT)}
    engine = create_engine(url, connect_args=connect_args)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            current = MigrationContext.configure(connection).get_current_revision()
    except Exception as exc:
        return _fail(name, f"{shown}: {_error(exc)}", "set CONFBOT_DATABASE_URL")
    finally:
        engine.dispose()
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    if current == head:
        return _ok(name, f"{shown} answers, schema at {head}")
    return _ok(
        name,
        f"{shown} answers, schema at {current or 'none'} (the code's is {head}; applied when"
        " confbot starts, or now with `confbot init`)",
    )


def check_chroma(settings: Settings) -> Check:
    """The Chroma server answers its heartbeat (skipped for the embedded database)."""
    name = "Chroma"
    if not settings.chroma_url:
        return _skip(name, "embedded database in the data folder (CONFBOT_CHROMA_URL for a server)")
    try:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        url = urlparse(settings.chroma_url)
        client = chromadb.HttpClient(
            host=url.hostname or "localhost",
            port=url.port or (443 if url.scheme == "https" else 8000),
            ssl=url.scheme == "https",
            settings=ChromaSettings(anonymized_telemetry=False),
        )
        client.heartbeat()
    except Exception as exc:
        return _fail(
            name, f"{settings.chroma_url} does not answer: {_error(exc)}", "set CONFBOT_CHROMA_URL"
        )
    return _ok(name, f"{settings.chroma_url} answers")


# --------------------------------------------------------------------------- pages
def check_source(settings: Settings) -> list[Check]:
    """The page source the sync reads: Confluence or a folder of files."""
    if settings.sync_source == "files":
        path = Path(settings.sync_files_path).expanduser() if settings.sync_files_path else None
        if path is None or not path.is_dir():
            return [
                _fail(
                    "files source",
                    f"{settings.sync_files_path or '(empty)'} is not a folder",
                    "set CONFBOT_SYNC_FILES_PATH",
                )
            ]
        return [_ok("files source", f"{path}: {sum(1 for _ in path.iterdir())} files")]
    if settings.sync_source != "confluence":
        return [
            _fail(
                "page source",
                f"{settings.sync_source!r} is not one of: confluence, files",
                "set CONFBOT_SYNC_SOURCE",
            )
        ]
    if not settings.confluence_url:
        return [_skip("Confluence", "not configured (CONFBOT_CONFLUENCE_URL)")]
    return check_confluence(settings)


def check_confluence(settings: Settings) -> list[Check]:
    """URL, credentials and read access to each configured space."""
    from connectors.confluence import ConfluenceClient, ConfluenceError, cql_string

    quick = settings.replace(
        confluence_max_retries=0,
        confluence_timeout=int(TIMEOUT),
        confluence_deadline=TIMEOUT,
    )
    try:
        client = ConfluenceClient(quick)
    except SettingsError as exc:
        return [_fail("Confluence credentials", str(exc).split(":")[0], _setting_of(exc))]
    flavour = "Confluence Cloud" if client.cloud else "Confluence Data Center"
    try:
        user = client.get_json("rest/api/user/current")
    except ConfluenceError as exc:
        if exc.status in (401, 403):
            credentials = (
                "CONFBOT_CONFLUENCE_USER and CONFBOT_CONFLUENCE_TOKEN (an API token)"
                if client.cloud
                else "CONFBOT_CONFLUENCE_TOKEN (a personal access token)"
            )
            return [
                _ok("Confluence URL", f"{client.url} answers ({flavour})"),
                _fail(
                    "Confluence credentials",
                    f"rejected (HTTP {exc.status})",
                    f"set {credentials}",
                ),
            ]
        return [_fail("Confluence URL", f"cannot reach {client.url}: {_error(exc)}", _URL_FIX)]
    if user is None:
        return [
            _fail(
                "Confluence URL",
                f"{client.url} has no Confluence REST API (HTTP 404)",
                _URL_FIX,
            )
        ]
    checks = [_ok("Confluence URL", f"{client.url} answers ({flavour})")]
    if user.get("type") == "anonymous":
        checks.append(
            _fail("Confluence credentials", "signed in anonymously", "set CONFBOT_CONFLUENCE_TOKEN")
        )
        return checks
    who = user.get("displayName") or user.get("username") or user.get("accountId") or "?"
    checks.append(_ok("Confluence credentials", f"signed in as {who}"))
    if not settings.sync_spaces:
        checks.append(
            _fail("Confluence spaces", "no space to sync is configured", "set CONFBOT_SYNC_SPACES")
        )
    for space in settings.sync_spaces:
        name = f"Confluence space {space}"
        try:
            if client.cloud:
                found = client.get_json("api/v2/spaces", {"keys": space})
                readable = bool(found and found.get("results"))
            else:
                readable = client.get_json(f"rest/api/space/{space}") is not None
            if not readable:
                checks.append(
                    _fail(
                        name,
                        "not found, or this account may not read it",
                        "fix CONFBOT_SYNC_SPACES, or give the account read access",
                    )
                )
                continue
            cql = f"space = {cql_string(space)} and type = page"
            result = client.get_json("rest/api/content/search", {"cql": cql, "limit": 1})
        except ConfluenceError as exc:
            checks.append(_fail(name, str(exc), "give the account read access to the space"))
            continue
        total = (result or {}).get("totalSize")
        pages = f"{total} pages readable" if total is not None else "readable"
        checks.append(_ok(name, pages))
    return checks


_URL_FIX = "set CONFBOT_CONFLUENCE_URL (Cloud: https://SITE.atlassian.net/wiki)"


def _setting_of(exc: SettingsError) -> str:
    """`set VARIABLE` for a SettingsError that names one (`VARIABLE=value ...` or
    `VARIABLE: ...`)."""
    return f"set {re.split(r'[ =:]', str(exc), maxsplit=1)[0]}"


# --------------------------------------------------------------------------- Slack
def manifest_scopes(path: Path = MANIFEST) -> set[str]:
    """The bot scopes the app manifest asks for."""
    import yaml

    manifest = yaml.safe_load(path.read_text(encoding="utf-8"))
    return set(manifest["oauth_config"]["scopes"]["bot"])


def check_slack(settings: Settings) -> list[Check]:
    """The bot token, its scopes, and the way events arrive (Socket Mode or HTTP mode)."""
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    if not settings.slack_bot_token:
        return [_skip("Slack", "not configured (SLACK_BOT_TOKEN)")]
    client = WebClient(
        token=settings.slack_bot_token, base_url=settings.slack_api_url, timeout=int(TIMEOUT)
    )
    try:
        auth = client.auth_test()
    except SlackApiError as exc:
        error = exc.response.get("error", "?")
        return [_fail("Slack bot token", f"auth.test: {error}", "set SLACK_BOT_TOKEN (xoxb-...)")]
    except Exception as exc:
        return [
            _fail(
                "Slack bot token",
                f"cannot reach {settings.slack_api_url}: {_error(exc)}",
                "check the network, or CONFBOT_SLACK_API_URL",
            )
        ]
    checks = [_ok("Slack bot token", f"@{auth.get('user')} in team {auth.get('team')}")]
    headers = {name.lower(): value for name, value in (auth.headers or {}).items()}
    granted = {s.strip() for s in (headers.get("x-oauth-scopes") or "").split(",") if s.strip()}
    missing = sorted(manifest_scopes() - granted)
    if missing:
        checks.append(
            _fail(
                "Slack scopes",
                f"missing {', '.join(missing)}",
                "add them under OAuth & Permissions (as in bot/manifest.yml) and reinstall the app",
            )
        )
    else:
        checks.append(_ok("Slack scopes", "every bot scope of bot/manifest.yml is granted"))
    checks.append(_slack_events(settings))
    return checks


def _slack_events(settings: Settings) -> Check:
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    if settings.slack_app_token:
        name = "Slack Socket Mode"
        client = WebClient(
            token=settings.slack_app_token, base_url=settings.slack_api_url, timeout=int(TIMEOUT)
        )
        try:
            client.apps_connections_open(app_token=settings.slack_app_token)
        except SlackApiError as exc:
            return _fail(
                name,
                f"apps.connections.open: {exc.response.get('error', '?')}",
                "set SLACK_APP_TOKEN to an app-level token (xapp-...) with connections:write",
            )
        except Exception as exc:
            return _fail(name, f"cannot reach Slack: {_error(exc)}", "check the network")
        return _ok(name, "the app token opens a connection (apps.connections.open)")
    if settings.slack_signing_secret:
        return _ok("Slack HTTP mode", "signing secret set; Slack must post to /slack/events")
    return _fail(
        "Slack events",
        "neither Socket Mode nor HTTP mode is set up: no event can reach confbot",
        "set SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)",
    )


# --------------------------------------------------------------------------- models
def _openai_failure(name: str, exc: Exception, base: str, model: str) -> Check:
    """A failed request to an OpenAI-compatible endpoint, and what fixes it."""
    import openai

    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return _fail(name, f"{base} rejected the key ({_error(exc)})", "set OPENAI_API_KEY")
    if isinstance(exc, openai.NotFoundError):
        return _fail(
            name,
            f"{base}: model {model!r} or the endpoint's path not found ({_error(exc)})",
            f"set {'CONFBOT_LLM_MODEL' if name == 'LLM' else 'CONFBOT_EMBEDDINGS_MODEL'}"
            " to a model the endpoint serves, and check the URL ends in /v1",
        )
    if isinstance(exc, openai.APIConnectionError):
        setting = "CONFBOT_LLM_BASE_URL" if name == "LLM" else "CONFBOT_EMBEDDINGS_BASE_URL"
        return _fail(name, f"cannot reach {base}: {_error(exc)}", f"set {setting}")
    return _fail(name, f"{base}: {_error(exc)}", "see the endpoint's logs")


def _openai_client(base_url: str, api_key: str):
    from openai import OpenAI

    return OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=TIMEOUT, max_retries=0)


def check_llm(settings: Settings) -> Check:
    """One tiny chat completion with the configured model."""
    name = "LLM"
    if not settings.llm_base_url:
        return _skip(name, "not configured: answers are excerpts (CONFBOT_LLM_BASE_URL)")
    client = _openai_client(settings.llm_base_url, settings.openai_api_key)
    started = time.perf_counter()
    try:
        client.chat.completions.create(
            model=settings.llm_model,
            messages=[{"role": "user", "content": "Reply with the word OK."}],
            max_tokens=5,
            temperature=0,
        )
    except Exception as exc:
        return _openai_failure(name, exc, settings.llm_base_url, settings.llm_model)
    elapsed = (time.perf_counter() - started) * 1000
    return _ok(
        name, f"{settings.llm_model} at {settings.llm_base_url} answered in {elapsed:.0f} ms"
    )


def check_embeddings(settings: Settings) -> Check:
    """The configured embedder can embed: one word through the endpoint, or the local model
    folder and its package are there."""
    name = "embeddings"
    if settings.embedder in ("use", "e5"):
        model = "USE" if settings.embedder == "use" else "multilingual-e5-small"
        return _skip(name, f"built-in offline {model} model, nothing to reach (CONFBOT_EMBEDDER)")
    if settings.embedder == "bge-m3":
        path = Path(settings.embedder_model_path).expanduser()
        if not settings.embedder_model_path or not (path / "config.json").is_file():
            return _fail(
                name,
                f"{settings.embedder_model_path or '(empty)'} is not a BGE-M3 model folder",
                "set CONFBOT_EMBEDDER_MODEL_PATH",
            )
        try:
            import FlagEmbedding  # noqa: F401
        except ImportError:
            return _fail(name, "FlagEmbedding is not installed", "pip install 'confbot[bge]'")
        return _ok(name, f"BGE-M3 model at {path}")
    if settings.embedder != "openai":
        return _skip(name, "see the settings line (CONFBOT_EMBEDDER)")
    if not settings.embeddings_base_url:
        return _fail(name, "embedder=openai needs an endpoint", "set CONFBOT_EMBEDDINGS_BASE_URL")
    try:
        response = _openai_client(
            settings.embeddings_base_url, settings.openai_api_key
        ).embeddings.create(model=settings.embeddings_model, input=["confbot"])
    except Exception as exc:
        return _openai_failure(name, exc, settings.embeddings_base_url, settings.embeddings_model)
    dimensions = len(response.data[0].embedding) if response.data else 0
    return _ok(
        name,
        f"{settings.embeddings_model} at {settings.embeddings_base_url}: {dimensions} dimensions",
    )


# --------------------------------------------------------------------------- the index
def check_index(settings: Settings) -> list[Check]:
    """The index holds pages, and one question is answered from it end to end (retrieval
    and the configured answerer; nothing is recorded, so no turn shows in the statistics).
    The question is the sample wiki's first example when only its pages are indexed, else
    one about the title of an indexed page."""
    from bot.serve import example_questions, source_configured
    from core.answer import generate
    from core.assistant import make_llm
    from core.embeddings import make_embedder
    from core.index import EvidenceIndex
    from core.retrieve import Retriever

    try:
        embedder = make_embedder(settings)
        index = EvidenceIndex(settings, embedder)
    except Exception as exc:
        return [_fail("index", f"cannot be opened: {_error(exc)}", "see the lines above")]
    try:
        pages = index.pages()
        if not pages and not source_configured(settings):
            return [_skip("index", "empty; `confbot serve` indexes the sample wiki into it")]
        if not pages:
            return [
                _fail(
                    "index",
                    "empty: no page is indexed, every question would be declined",
                    "run `confbot sync` (or `confbot serve`, which indexes the sample wiki"
                    " when no source is configured)",
                )
            ]
        checks = [_ok("index", f"{len(pages)} pages, {index.count()} evidences")]
        question = next(iter(example_questions(index)), f"What is {pages[0].title}?")
        started = time.perf_counter()
        try:
            results = Retriever.from_settings(index, embedder, settings).search(question).results
            (answer,) = generate(make_llm(settings, index), question, [r.evidence for r in results])
        except Exception as exc:
            return [*checks, _fail("answer", f"{question!r}: {_error(exc)}", "see the log")]
        elapsed = (time.perf_counter() - started) * 1000
        outcome = (
            "declined (nothing relevant found)"
            if answer.out_of_scope
            else f"answered citing {answer.citations[0].title if answer.citations else 'nothing'}"
        )
        checks.append(_ok("answer", f"{question!r} {outcome} in {elapsed:.0f} ms"))
        return checks
    finally:
        index.close()


# --------------------------------------------------------------------------- all of it
CHECKS: list[Callable[[Settings], Check | list[Check]]] = [
    check_settings,
    check_data_folder,
    check_database,
    check_chroma,
    check_source,
    check_slack,
    check_llm,
    check_embeddings,
    check_index,
]


def run_checks(settings: Settings):
    """Every check, in order, each as soon as it is done."""
    for check in CHECKS:
        found = check(settings)
        yield from found if isinstance(found, list) else [found]


def redact(text: str, settings: Settings) -> str:
    """`text` without the value of any secret setting, nor passwords or credential
    parameters of any URL (`core.redact.redact_text`: the LLM's, the embeddings', Slack's,
    Confluence's alike)."""
    return redact_text(text, secret_values(settings), min_length=4)


def run(settings: Settings, out) -> int:
    """Print one line per check, then a summary; 1 when any check failed, else 0."""
    counts = {OK: 0, FAIL: 0, SKIP: 0}
    for check in run_checks(settings):
        counts[check.status] += 1
        print(redact(check.line(), settings), file=out, flush=True)
    print(f"{counts[OK]} OK, {counts[FAIL]} failed, {counts[SKIP]} not configured", file=out)
    return 1 if counts[FAIL] else 0
