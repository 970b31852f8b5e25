"""Confluence Cloud and Data Center/Server through atlassian-python-api.

Authentication, the base URL and headers are the library's (`atlassian.Confluence`): Cloud
with the account email and an API token (basic auth), Data Center with a personal access
token (bearer). Paging and retries are ours: the library's `cql()` paging stops after one
page in some versions, and its Retry-After handling sleeps as long as the server says. So
the library's own backoff and Retry-After sleeps are switched off, every call goes through
`ConfluenceClient.get_json` (bounded retry), and search results are paged here: by the
`_links.next` cursor on Cloud, by `start`/`limit` on Server, until exhausted.

REST v1 endpoints used (same paths on Cloud under `/wiki` and on Data Center):
- `GET rest/api/content/search?cql=...&expand=...`: changed pages and the space listing
  (CQL search has no v2 equivalent, so it stays on v1 on Cloud too); blog posts are pages
  of their space (`type in (page, blogpost)`) unless `sync_blog_posts` is off;
- `GET rest/api/search?cql=...&limit=1`: how many pages a sync will read (`totalSize`), for
  the progress display of `confbot sync`;
- `GET rest/api/content/{id}?expand=...`: one page (retries, repairs, deletion checks), on
  Data Center only;
- `GET rest/api/content/{id}/restriction/byOperation/read`: read restrictions of an
  ancestor, and on Cloud of the page itself (v2 has no restrictions endpoint).

On Cloud, where Atlassian deprecated the v1 content endpoint, one page is read with REST v2
(`GET api/v2/pages/{id}?body-format=storage&include-labels=true`), its ancestors with
`GET api/v2/pages/{id}/ancestors` (root first; a 404 for the page means a blog post, read
with `GET api/v2/blogposts/{id}`, which has no ancestors) and its space key with
`GET api/v2/spaces/{space id}` (asked once per space). v2 names the last editor by account
id only, so that is the author of a page read this way.

The last-updated time and author are read from `version.when` and `version.by`, which both
APIs return with `expand=version` (the same values as `history.lastUpdated`, so `history` is
not expanded). Cloud users have `displayName`/`publicName`/`accountId`, no `username`; Data
Center users have `displayName` and `username`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlparse

import requests

from connectors.permissions import ConfluencePermissions, content_restriction
from connectors.scope import scope_cql
from connectors.source import Batch, Fetched, Listed
from connectors.times import parse_interval
from core.access import PageAccess
from core.pages import Page
from core.settings import Settings

log = logging.getLogger(__name__)

RESTRICTIONS_EXPAND = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"
CONTENT_EXPAND = f"body.storage,version,ancestors,metadata.labels,space,{RESTRICTIONS_EXPAND}"
LISTING_EXPAND = f"version,ancestors,{RESTRICTIONS_EXPAND}"
LISTING_LIMIT = 200
"""Pages asked for per listing request; without bodies servers allow large pages."""

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


V2_ANCESTORS_LIMIT = 250
"""Most ancestors one v2 request returns (the API's maximum); page trees are far shallower."""


class ConfluenceError(RuntimeError):
    """A Confluence request failed for good (a 4xx, or retries or the deadline exhausted);
    `status` is the HTTP status of a 4xx."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def is_cloud(settings: Settings) -> bool:
    """Whether the settings point at Confluence Cloud (explicit, or a *.atlassian.net host)."""
    if settings.confluence_cloud is not None:
        return settings.confluence_cloud
    host = urlparse(settings.confluence_url).hostname or ""
    return host == "atlassian.net" or host.endswith(".atlassian.net")


def cql_date(moment: datetime) -> str:
    """A CQL date literal (`yyyy-MM-dd HH:mm`, minute precision) for an aware datetime, in UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def cql_string(value: str) -> str:
    """A double-quoted CQL string literal."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def types_cql(types: tuple[str, ...]) -> str:
    """The CQL clause for content types: `type = page`, `type in (page, blogpost)`."""
    return f"type = {types[0]}" if len(types) == 1 else f"type in ({', '.join(types)})"


def changes_cql(
    space: str, since: datetime | None, types: tuple[str, ...] = ("page",), scope: str = ""
) -> str:
    """CQL for the pages (of `types`, within `scope`: see connectors.scope) of `space`
    modified at or after `since` (all when None)."""
    cql = f"space = {cql_string(space)} and {types_cql(types)}"
    if scope:
        cql += f" and {scope}"
    if since is not None:
        cql += f" and lastmodified >= {cql_string(cql_date(since))}"
    return cql + " order by lastmodified asc"


def listing_cql(space: str, types: tuple[str, ...] = ("page",), scope: str = "") -> str:
    """CQL for every current page (of `types`, within `scope`) of `space`, oldest first (a
    stable order while paging)."""
    within = f" and {scope}" if scope else ""
    return f"space = {cql_string(space)} and {types_cql(types)}{within} order by created asc"


def retry_after_seconds(value: str | None, maximum: float) -> float | None:
    """A Retry-After header (delta-seconds or HTTP-date) in seconds, clamped to [0, maximum];
    None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if not math.isfinite(seconds):
        return maximum
    return min(max(seconds, 0.0), maximum)


def storage_body(item: dict[str, Any]) -> str:
    """The storage-format body of a page (v1 content or v2 page, same shape)."""
    body = item["body"]["storage"]["value"]
    if not isinstance(body, str):
        raise ValueError(f"body.storage.value is {type(body).__name__}, not text")
    return body


def page_from_v2(page: dict[str, Any], space: str, ancestors: tuple[str, ...], base: str) -> Page:
    """A `Page` from a REST v2 page (`body-format=storage`, `include-labels=true`), with the
    space key and ancestor ids (root first) that v2 serves from other endpoints."""
    version = page["version"]
    body = storage_body(page)
    webui = (page.get("_links") or {}).get("webui", "")
    labels = (page.get("labels") or {}).get("results") or []
    return Page(
        id=str(page["id"]),
        space=space,
        title=page["title"],
        url=base.rstrip("/") + webui if webui else "",
        body=body,
        body_format="storage",
        version=int(version["number"]),
        updated_at=version.get("createdAt", ""),
        author=version.get("authorId") or page.get("authorId") or "",
        ancestors=ancestors,
        labels=tuple(label["name"] for label in labels),
    )


def page_from_content(content: dict[str, Any], base_url: str) -> Page:
    """A `Page` from a content object expanded with `CONTENT_EXPAND`; `url` is its web UI link."""
    version = content["version"]
    by = version.get("by") or {}
    author = (
        by.get("displayName") or by.get("publicName") or by.get("username") or by.get("accountId")
    )
    labels = ((content.get("metadata") or {}).get("labels") or {}).get("results") or []
    webui = (content.get("_links") or {}).get("webui", "")
    body = storage_body(content)
    return Page(
        id=str(content["id"]),
        space=content["space"]["key"],
        title=content["title"],
        url=base_url.rstrip("/") + webui if webui else "",
        body=body,
        body_format="storage",
        version=int(version["number"]),
        updated_at=version.get("when", ""),
        author=author or "",
        ancestors=tuple(str(a["id"]) for a in content.get("ancestors") or ()),
        labels=tuple(label["name"] for label in labels),
    )


class ConfluenceClient:
    """REST calls through the library's session, with bounded retry and our own paging."""

    def __init__(self, settings: Settings):
        from atlassian import Confluence

        url = settings.require("confluence_url").rstrip("/")
        token = settings.require("confluence_token")
        self.cloud = is_cloud(settings)
        if self.cloud and not urlparse(url).path:
            url += "/wiki"
        # The library's Retry-After sleeps and backoff are off: get_json retries, bounded.
        common = {
            "timeout": settings.confluence_timeout,
            "backoff_and_retry": False,
            "retry_with_header": False,
        }
        if self.cloud:
            user = settings.require("confluence_user")
            self.api = Confluence(url, username=user, password=token, cloud=True, **common)
        elif settings.confluence_user:
            self.api = Confluence(
                url, username=settings.confluence_user, password=token, cloud=False, **common
            )
        else:
            self.api = Confluence(url, token=token, cloud=False, **common)
        self.url = url
        self.max_retries = settings.confluence_max_retries
        self.backoff = settings.confluence_backoff
        self.retry_after_max = settings.confluence_retry_after_max
        self.deadline = settings.confluence_deadline
        self.requests = 0
        self.retries = 0

    def get_json(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """GET `path` (relative to the base URL) as JSON; None on 404.

        429 waits for Retry-After (clamped to `confluence_retry_after_max`, or the backoff
        when absent); 5xx, connection errors and unreadable bodies back off exponentially;
        at most `confluence_max_retries` retries within `confluence_deadline` seconds.
        Other 4xx fail at once.
        """
        started = time.monotonic()
        attempt = 0
        while True:
            self.requests += 1
            wait: float | None = None
            try:
                response = self.api.get(path, params=params, advanced_mode=True)
            except requests.RequestException as exc:
                problem = f"{type(exc).__name__}: {exc}"
            else:
                status = response.status_code
                if status == 404:
                    return None
                if status < 400:
                    try:
                        return response.json()
                    except ValueError as exc:
                        problem = f"unreadable JSON: {exc}"
                elif status in RETRY_STATUSES:
                    problem = f"HTTP {status}"
                    if status == 429:
                        wait = retry_after_seconds(
                            response.headers.get("Retry-After"), self.retry_after_max
                        )
                else:
                    raise ConfluenceError(
                        f"GET {path}: HTTP {status} {response.reason}: {response.text[:200]}",
                        status=status,
                    )
            if wait is None:
                wait = self.backoff * 2**attempt
            attempt += 1
            if attempt > self.max_retries:
                raise ConfluenceError(f"GET {path}: {problem}; gave up after {attempt} tries")
            if time.monotonic() - started + wait > self.deadline:
                raise ConfluenceError(
                    f"GET {path}: {problem}; a retry would pass the {self.deadline:g} s deadline"
                )
            log.info("GET %s: %s; retrying in %.2f s", path, problem, wait)
            self.retries += 1
            time.sleep(wait)

    def search(self, cql: str, expand: str, limit: int) -> Iterator[dict[str, Any]]:
        """Every response page of a CQL content search, following the pagination to the end."""
        path = "rest/api/content/search"
        params: dict[str, Any] | None = {"cql": cql, "expand": expand, "limit": limit}
        start = 0
        while True:
            data = self.get_json(path, params)
            if data is None:
                raise ConfluenceError(f"GET {path}: HTTP 404 (is the base URL right?)")
            results = data.get("results") or []
            yield data
            links = data.get("_links") or {}
            if not results:
                return
            if self.cloud:
                if not links.get("next"):
                    return
                path, params = self._relative(links["next"], links.get("context", "")), None
            else:
                if len(results) < int(data.get("limit") or limit) and not links.get("next"):
                    return
                start += len(results)
                params = {"cql": cql, "expand": expand, "limit": limit, "start": start}

    def container_ids(self, cql: str) -> set[str]:
        """The ids of the pages holding the results of a CQL search (the containers of the
        attachments or comments it finds)."""
        pages: set[str] = set()
        for data in self.search(cql, "container", 200):
            for item in data.get("results") or []:
                container = item.get("container") or {}
                if container.get("id"):
                    pages.add(str(container["id"]))
        return pages

    def count(self, cql: str) -> int | None:
        """How many results a CQL search has (`totalSize` of `GET rest/api/search`, which
        Cloud and Data Center both return; content search does not on Cloud), or None when
        the server does not say."""
        data = self.get_json("rest/api/search", {"cql": cql, "limit": 1})
        total = (data or {}).get("totalSize")
        return total if isinstance(total, int) and total >= 0 else None

    def _relative(self, link: str, context: str) -> str:
        """A `_links.next` link as a path relative to our base URL (never another host)."""
        parsed = urlparse(link)
        path = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        for prefix in (urlparse(self.url).path.rstrip("/"), context.rstrip("/")):
            if prefix and path.startswith(prefix + "/"):
                path = path[len(prefix) :]
                break
        return path.lstrip("/")

    def content(self, page_id: str, expand: str) -> dict[str, Any] | None:
        """One content object by id (REST v1), or None when it does not exist."""
        return self.get_json(f"rest/api/content/{page_id}", {"expand": expand})

    def page_v2(self, page_id: str) -> dict[str, Any] | None:
        """One page by id with its storage body and labels (REST v2, Cloud), or None when it
        does not exist."""
        return self.get_json(
            f"api/v2/pages/{page_id}", {"body-format": "storage", "include-labels": "true"}
        )

    def blogpost_v2(self, post_id: str) -> dict[str, Any] | None:
        """One blog post by id with its storage body and labels (REST v2, Cloud), or None
        when it does not exist."""
        return self.get_json(
            f"api/v2/blogposts/{post_id}", {"body-format": "storage", "include-labels": "true"}
        )

    def ancestors_v2(self, page_id: str) -> tuple[str, ...]:
        """The ids of a page's ancestor pages, root first (REST v2, Cloud)."""
        data = self.get_json(f"api/v2/pages/{page_id}/ancestors", {"limit": V2_ANCESTORS_LIMIT})
        results = (data or {}).get("results") or []
        return tuple(str(a["id"]) for a in results if a.get("type", "page") == "page")

    def space_key_v2(self, space_id: str) -> str:
        """The key of the space with a v2 space id (REST v2, Cloud)."""
        data = self.get_json(f"api/v2/spaces/{space_id}")
        if not data or not data.get("key"):
            raise ConfluenceError(f"GET api/v2/spaces/{space_id}: no such space")
        return str(data["key"])


class ConfluenceSource:
    """Pages of Confluence spaces for the sync (one instance per sync run).

    Read restrictions: a page's own come with it (`expand=restrictions.read...`), each
    ancestor's are asked once per run from `restriction/byOperation/read`, since view
    restrictions are inherited; together they are the page's `PageAccess`
    (`connectors.permissions`). With `sync_skip_restricted` a restricted page is skipped.
    A listing carries every page's own restriction, so it recomputes the access of every
    page of the space (`listing_access`): restrictions changed without a new version.
    """

    cheap_listing = False  # a listing pages through every page of the space

    def __init__(self, settings: Settings, client: ConfluenceClient | None = None):
        self.client = client or ConfluenceClient(settings)
        self.page_size = settings.confluence_page_size
        self.overlap = timedelta(minutes=settings.sync_overlap_minutes)
        self.skip_restricted = settings.sync_skip_restricted
        # Ancestors' read restrictions, with the monotonic time they were asked; a source that
        # lives across runs (the worker's) asks again once `sync_listing_interval` has passed.
        self.restriction_ttl = parse_interval(settings.sync_listing_interval).total_seconds()
        self._ancestor_restriction: dict[str, tuple[frozenset[str], float]] = {}
        self.permissions = ConfluencePermissions(self.client)
        self._space_keys: dict[str, str] = {}
        """v2 space id → space key (Cloud page reads)."""
        self.types = ("page", "blogpost") if settings.sync_blog_posts else ("page",)
        """Content types synced: blog posts are pages of their space (no ancestors)."""
        self.settings = settings

    def changes(self, space: str, since: datetime | None) -> Iterator[Batch]:
        """Pages of `space` modified since `since` minus the overlap window, oldest first.

        The window reaches `sync_overlap_minutes` back because CQL compares minutes in the
        API user's time zone; pages seen twice are recognized as unchanged by the sync.
        """
        since = since - self.overlap if since is not None else None
        cql = changes_cql(space, since, self.types, scope_cql(self.settings, space))
        for data in self.client.search(cql, CONTENT_EXPAND, self.page_size):
            base = (data.get("_links") or {}).get("base") or self.client.url
            batch = Batch(pages=[], total=data.get("totalSize"))
            for item in data.get("results") or []:
                if item.get("status", "current") != "current":
                    continue  # archived: left out (the listing drops it from the index)
                try:
                    page = page_from_content(item, base)
                    fetched = self._fetched(page, content_restriction(item))
                except (KeyError, TypeError, ValueError, ConfluenceError) as exc:
                    page_id = str(item.get("id", "?"))
                    log.warning("page %s: %r; retried next run", page_id, exc)
                    batch.failures.append((page_id, repr(exc)))
                    continue
                batch.pages.append(fetched)
            yield batch

    def count(self, space: str, since: datetime | None) -> int | None:
        """How many pages `changes(space, since)` will yield, asked before it starts (one
        search request), so a progress display has its total up front; None when the
        server does not say or cannot be asked (the changes' own responses may say later)."""
        since = since - self.overlap if since is not None else None
        cql = changes_cql(space, since, self.types, scope_cql(self.settings, space))
        try:
            return self.client.count(cql)
        except ConfluenceError as exc:
            log.info("could not count the pages of space %s to sync: %s", space, exc)
            return None

    def fetch(self, page_id: str) -> Fetched | None:
        """One page with its body; None when it is gone, trashed, archived or out of its
        space's scope (connectors.scope). REST v2 on Cloud, v1 on Data Center."""
        fetched = self._fetch_v2(page_id) if self.client.cloud else self._fetch_v1(page_id)
        if fetched is None or not self._in_scope(fetched.page):
            return None
        return fetched

    def _in_scope(self, page: Page) -> bool:
        """Whether a page matches its space's scope (one CQL search when the space has one)."""
        scope = scope_cql(self.settings, page.space)
        if not scope:
            return True
        cql = f"id = {page.id} and {scope}"
        return any(data.get("results") for data in self.client.search(cql, "version", 1))

    def _fetch_v1(self, page_id: str) -> Fetched | None:
        item = self.client.content(page_id, CONTENT_EXPAND)
        if item is None or item.get("status", "current") != "current":
            return None
        base = (item.get("_links") or {}).get("base") or self.client.url
        page = page_from_content(item, base)
        return self._fetched(page, content_restriction(item))

    def _fetch_v2(self, page_id: str) -> Fetched | None:
        item = self.client.page_v2(page_id)
        blog = item is None and "blogpost" in self.types
        if blog:
            item = self.client.blogpost_v2(page_id)
        if item is None or item.get("status", "current") != "current":
            return None
        space_id = str(item["spaceId"])
        if space_id not in self._space_keys:
            self._space_keys[space_id] = self.client.space_key_v2(space_id)
        ancestors = () if blog else self.client.ancestors_v2(page_id)
        base = (item.get("_links") or {}).get("base") or self.client.url
        page = page_from_v2(item, self._space_keys[space_id], ancestors, base)
        return self._fetched(page, self.permissions.restriction(page_id))

    def listing(self, space: str) -> dict[str, Listed]:
        """Every current page of `space` (id, version, title, ancestors), without bodies."""
        out: dict[str, Listed] = {}
        cql = listing_cql(space, self.types, scope_cql(self.settings, space))
        for data in self.client.search(cql, LISTING_EXPAND, LISTING_LIMIT):
            for item in data.get("results") or []:
                if item.get("status", "current") != "current":
                    continue  # archived
                out[str(item["id"])] = Listed(
                    id=str(item["id"]),
                    version=int(item["version"]["number"]),
                    title=item.get("title", ""),
                    ancestors=tuple(str(a["id"]) for a in item.get("ancestors") or ()),
                    restriction=content_restriction(item) if "restrictions" in item else None,
                )
        return out

    def listing_access(self, listed: dict[str, Listed]) -> dict[str, PageAccess]:
        """The access of every listed page from the listing's own restrictions (a page or
        ancestor the listing carries none for is asked), so one listing sees every
        restriction change."""
        now = time.monotonic()
        own: dict[str, frozenset[str]] = {}
        for page_id, item in listed.items():
            if item.restriction is None:
                own[page_id] = self.permissions.restriction(page_id)
            else:
                own[page_id] = item.restriction
            self._ancestor_restriction[page_id] = (own[page_id], now)
        out = {}
        for page_id, item in listed.items():
            chain = [own[page_id]]
            for ancestor_id in item.ancestors:
                if ancestor_id in own:
                    chain.append(own[ancestor_id])
                else:  # not in this listing: asked
                    chain.append(self._ancestor(ancestor_id))
            out[page_id] = PageAccess.of(chain)
        return out

    def space_access(self, space: str, groups: set[str]) -> tuple[frozenset[str], dict, dict]:
        """A space's view permission, the members of `groups` (names) and of the groups
        the permission names, and the accounts seen: (readers, {group principal: user
        principals}, {account: (e-mail, name)})."""
        readers = self.permissions.space_readers(space)
        names = set(groups) | {p[len("group:") :] for p in readers if p.startswith("group:")}
        members = {f"group:{n}": self.permissions.members(n) for n in sorted(names)}
        return readers, members, dict(self.permissions.people)

    def _fetched(self, page: Page, own: frozenset[str]) -> Fetched:
        access = self._access(own, page.ancestors)
        return Fetched(page, self.skip_restricted and bool(access.restrictions), access)

    def _access(self, own: frozenset[str], ancestors: tuple[str, ...]) -> PageAccess:
        """A page's access: its `own` restriction and each ancestor's (asked once per
        `sync_listing_interval`), as view restrictions are inherited."""
        return PageAccess.of([own, *(self._ancestor(a) for a in ancestors)])

    def _ancestor(self, page_id: str) -> frozenset[str]:
        """An ancestor's own read restriction, asked again once `sync_listing_interval`
        has passed since it was last known."""
        cached = self._ancestor_restriction.get(page_id)
        if cached is None or time.monotonic() - cached[1] >= self.restriction_ttl:
            cached = (self.permissions.restriction(page_id), time.monotonic())
            self._ancestor_restriction[page_id] = cached
        return cached[0]
