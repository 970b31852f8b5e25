"""The Confluence client's requests and parsing, against canned responses (`responses`)."""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime, timedelta, timezone
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from connectors.confluence import (
    CONTENT_EXPAND,
    ConfluenceClient,
    ConfluenceError,
    ConfluenceSource,
    changes_cql,
    cql_date,
    is_cloud,
    page_from_content,
    retry_after_seconds,
)
from core.settings import Settings

CLOUD = "https://example.atlassian.net/wiki"
SERVER = "https://wiki.example.com/confluence"
SEARCH = "/rest/api/content/search"


def settings_for(url: str, cloud: bool | None, **extra: str) -> Settings:
    environ = {
        "CONFBOT_CONFLUENCE_URL": url,
        "CONFBOT_CONFLUENCE_TOKEN": "tok",
        "CONFBOT_CONFLUENCE_BACKOFF": "0.001",
        "CONFBOT_CONFLUENCE_RETRY_AFTER_MAX": "0.01",
        "CONFBOT_DATA_DIR": "/nonexistent-unused",
        **extra,
    }
    if cloud is not None:
        environ["CONFBOT_CONFLUENCE_CLOUD"] = str(cloud).lower()
    if cloud:
        environ["CONFBOT_CONFLUENCE_USER"] = "bot@example.com"
    return Settings.load(environ=environ)


def content(page_id: str, version: int = 1, ancestors=(), restricted=False) -> dict:
    """A content object as the search returns it with CONTENT_EXPAND."""
    users = [{"type": "known", "displayName": "Eve"}] if restricted else []
    return {
        "id": page_id,
        "type": "page",
        "status": "current",
        "title": f"Page {page_id}",
        "space": {"key": "ENG", "name": "Engineering"},
        "version": {
            "number": version,
            "when": "2024-03-01T10:15:30.000Z",
            "by": {"type": "known", "accountId": "abc", "displayName": "Ada Lovelace"},
        },
        "ancestors": [{"id": a, "type": "page", "title": f"Page {a}"} for a in ancestors],
        "metadata": {"labels": {"results": [{"prefix": "global", "name": "howto"}]}},
        "body": {"storage": {"value": f"<p>Body of {page_id}</p>", "representation": "storage"}},
        "restrictions": {
            "read": {
                "operation": "read",
                "restrictions": {"user": {"results": users, "size": len(users)}, "group": {}},
            }
        },
        "_links": {"webui": f"/spaces/ENG/pages/{page_id}/Page+{page_id}"},
    }


def query(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


@pytest.mark.parametrize(
    ("since", "cql"),
    [
        (None, 'space = "ENG" and type = page order by lastmodified asc'),
        (
            datetime(2024, 3, 1, 10, 15, 59, tzinfo=UTC),
            'space = "ENG" and type = page and lastmodified >= "2024-03-01 10:15"'
            " order by lastmodified asc",
        ),
    ],
)
def test_changes_cql(since, cql):
    assert changes_cql("ENG", since) == cql
    with_posts = cql.replace("type = page", "type in (page, blogpost)")
    assert changes_cql("ENG", since, ("page", "blogpost")) == with_posts


def test_cql_date_is_utc_minutes():
    moment = datetime(2024, 3, 1, 12, 5, 59, tzinfo=timezone(timedelta(hours=2)))
    assert cql_date(moment) == "2024-03-01 10:05"


@pytest.mark.parametrize(
    ("header", "maximum", "expected"),
    [
        (None, 60, None),
        ("", 60, None),
        ("5", 60, 5.0),
        ("0.5", 60, 0.5),
        ("3600", 60, 60.0),
        ("-3", 60, 0.0),
        ("soon", 60, None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 60, 0.0),
    ],
)
def test_retry_after_seconds(header, maximum, expected):
    assert retry_after_seconds(header, maximum) == expected


@pytest.mark.parametrize(
    ("url", "cloud", "expected"),
    [
        ("https://acme.atlassian.net/wiki", None, True),
        ("https://wiki.acme.com", None, False),
        ("https://wiki.acme.com", True, True),
        ("https://acme.atlassian.net/wiki", False, False),
    ],
)
def test_is_cloud(url, cloud, expected):
    assert is_cloud(settings_for(url, cloud)) is expected


def test_page_from_content_reads_every_field():
    page = page_from_content(content("42", version=3, ancestors=["1", "7"]), CLOUD)
    assert page.id == "42"
    assert page.space == "ENG"
    assert page.url == f"{CLOUD}/spaces/ENG/pages/42/Page+42"
    assert page.body == "<p>Body of 42</p>"
    assert page.body_format == "storage"
    assert page.version == 3
    assert page.updated_at == "2024-03-01T10:15:30.000Z"
    assert page.author == "Ada Lovelace"
    assert page.ancestors == ("1", "7")
    assert page.labels == ("howto",)


def test_server_author_falls_back_to_username():
    item = content("1")
    item["version"]["by"] = {"type": "known", "username": "ada"}
    assert page_from_content(item, SERVER).author == "ada"


@responses.activate
def test_cloud_search_follows_next_links_with_basic_auth():
    first = {
        "results": [content("1"), content("2")],
        "start": 0,
        "limit": 2,
        "size": 2,
        "totalSize": 3,
        "_links": {
            "base": CLOUD,
            "context": "/wiki",
            "next": f"{SEARCH}?next=true&cursor=abc&limit=2&start=2&cql=x",
        },
    }
    last = {"results": [content("3")], "start": 2, "limit": 2, "size": 1, "_links": {}}
    responses.get(CLOUD + SEARCH, json=first)
    responses.get(CLOUD + SEARCH, json=last)
    source = ConfluenceSource(settings_for(CLOUD, True, CONFBOT_CONFLUENCE_PAGE_SIZE="2"))
    batches = list(source.changes("ENG", None))

    assert [p.page.id for b in batches for p in b.pages] == ["1", "2", "3"]
    assert batches[0].total == 3
    first_query, second_query = query(responses.calls[0]), query(responses.calls[1])
    assert first_query["cql"] == [
        'space = "ENG" and type in (page, blogpost) order by lastmodified asc'
    ]
    assert first_query["expand"] == [CONTENT_EXPAND]
    assert first_query["limit"] == ["2"]
    assert second_query["cursor"] == ["abc"]
    assert urlsplit(responses.calls[1].request.url).path == "/wiki" + SEARCH
    expected = "Basic " + base64.b64encode(b"bot@example.com:tok").decode()
    assert all(c.request.headers["Authorization"] == expected for c in responses.calls)


@responses.activate
def test_server_search_pages_by_start_with_bearer_token():
    def page(start: int, count: int) -> dict:
        items = [content(str(start + i)) for i in range(count)]
        return {"results": items, "start": start, "limit": 2, "size": count, "_links": {}}

    responses.get(SERVER + SEARCH, json=page(0, 2))
    responses.get(SERVER + SEARCH, json=page(2, 2))
    responses.get(SERVER + SEARCH, json=page(4, 1))
    source = ConfluenceSource(settings_for(SERVER, False, CONFBOT_CONFLUENCE_PAGE_SIZE="2"))
    ids = [p.page.id for b in source.changes("ENG", None) for p in b.pages]

    assert ids == ["0", "1", "2", "3", "4"]
    assert [query(c).get("start") for c in responses.calls] == [None, ["2"], ["4"]]
    assert all(c.request.headers["Authorization"] == "Bearer tok" for c in responses.calls)


@responses.activate
def test_since_widens_the_window_by_the_overlap():
    responses.get(SERVER + SEARCH, json={"results": [], "limit": 50, "_links": {}})
    settings = settings_for(SERVER, False, CONFBOT_SYNC_OVERLAP_MINUTES="90")
    list(ConfluenceSource(settings).changes("ENG", datetime(2024, 3, 1, 12, 0, tzinfo=UTC)))
    assert 'lastmodified >= "2024-03-01 10:30"' in query(responses.calls[0])["cql"][0]


@responses.activate
def test_429_waits_for_clamped_retry_after_and_retries():
    responses.get(SERVER + "/rest/api/content/1", status=429, headers={"Retry-After": "3600"})
    responses.get(SERVER + "/rest/api/content/1", status=503)
    responses.get(SERVER + "/rest/api/content/1", json=content("1"))
    client = ConfluenceClient(settings_for(SERVER, False))
    started = time.monotonic()
    assert client.content("1", CONTENT_EXPAND)["id"] == "1"
    assert time.monotonic() - started < 1.0  # Retry-After 3600 clamped to 0.01 s
    assert len(responses.calls) == 3  # the library retried nothing itself
    assert client.retries == 2


@responses.activate
def test_gives_up_after_max_retries():
    responses.get(SERVER + "/rest/api/content/1", status=500)
    client = ConfluenceClient(settings_for(SERVER, False, CONFBOT_CONFLUENCE_MAX_RETRIES="3"))
    with pytest.raises(ConfluenceError, match="gave up after 4 tries"):
        client.content("1", CONTENT_EXPAND)
    assert len(responses.calls) == 4


@responses.activate
def test_deadline_bounds_the_retries():
    responses.get(SERVER + "/rest/api/content/1", status=502)
    settings = settings_for(
        SERVER,
        False,
        CONFBOT_CONFLUENCE_BACKOFF="0.05",
        CONFBOT_CONFLUENCE_MAX_RETRIES="50",
        CONFBOT_CONFLUENCE_DEADLINE="0.3",
    )
    with pytest.raises(ConfluenceError, match="deadline"):
        ConfluenceClient(settings).content("1", CONTENT_EXPAND)
    assert len(responses.calls) <= 4  # 0.05 + 0.1 + 0.2 would pass 0.3 s


@responses.activate
def test_client_errors_are_not_retried():
    responses.get(SERVER + SEARCH, status=400, json={"message": "bad CQL"})
    with pytest.raises(ConfluenceError, match="HTTP 400"):
        list(ConfluenceSource(settings_for(SERVER, False)).changes("ENG", None))
    assert len(responses.calls) == 1


@responses.activate
def test_fetch_returns_none_for_missing_or_trashed_pages():
    responses.get(SERVER + "/rest/api/content/1", status=404)
    trashed = {**content("2"), "status": "trashed"}
    responses.get(SERVER + "/rest/api/content/2", json=trashed)
    source = ConfluenceSource(settings_for(SERVER, False))
    assert source.fetch("1") is None
    assert source.fetch("2") is None


@responses.activate
def test_restrictions_of_the_page_and_each_ancestor_once():
    restriction = SERVER + "/rest/api/content/{}/restriction/byOperation/read"
    open_ = {"operation": "read", "restrictions": {"user": {"results": []}, "group": {}}}
    closed = {"operation": "read", "restrictions": {"group": {"results": [{"name": "hr"}]}}}
    responses.get(restriction.format("10"), json=open_)
    responses.get(restriction.format("20"), json=closed)
    results = [
        content("1", restricted=True),
        content("2", ancestors=["10"]),
        content("3", ancestors=["10", "20"]),
        content("4", ancestors=["10"]),
    ]
    responses.get(SERVER + SEARCH, json={"results": results, "limit": 50, "_links": {}})
    source = ConfluenceSource(settings_for(SERVER, False, CONFBOT_SYNC_SKIP_RESTRICTED="true"))
    pages = [p for b in source.changes("ENG", None) for p in b.pages]

    assert [(p.page.id, p.restricted) for p in pages] == [
        ("1", True),
        ("2", False),
        ("3", True),
        ("4", False),
    ]
    # who may read them: "Eve" has no id, so page 1 is readable by nobody (fail closed)
    assert [p.access.to_json() for p in pages] == [[["unreadable"]], [], [["group:hr"]], []]
    paths = [urlsplit(c.request.url).path for c in responses.calls]
    asked = [path for path in paths if path.endswith("/byOperation/read")]
    assert sorted(asked) == [
        "/confluence/rest/api/content/10/restriction/byOperation/read",
        "/confluence/rest/api/content/20/restriction/byOperation/read",
    ]


@responses.activate
def test_restricted_pages_are_kept_with_their_access_when_not_skipped():
    restriction = SERVER + "/rest/api/content/{}/restriction/byOperation/read"
    dc_user = {"type": "known", "username": "eve", "userKey": "k1", "displayName": "Eve"}
    named = {"operation": "read", "restrictions": {"user": {"results": [dc_user]}}}
    responses.get(restriction.format("10"), json=named)
    results = [content("1", restricted=True), content("2", ancestors=["10"])]
    responses.get(SERVER + SEARCH, json={"results": results, "limit": 50, "_links": {}})
    settings = settings_for(SERVER, False, CONFBOT_SYNC_SKIP_RESTRICTED="false")
    pages = [p for b in ConfluenceSource(settings).changes("ENG", None) for p in b.pages]
    assert [p.restricted for p in pages] == [False, False]
    assert [p.access.to_json() for p in pages] == [[["unreadable"]], [["user:eve"]]]


@responses.activate
def test_malformed_results_are_reported_not_raised():
    broken = content("2")
    del broken["body"]
    responses.get(
        SERVER + SEARCH, json={"results": [content("1"), broken], "limit": 50, "_links": {}}
    )
    (batch,) = ConfluenceSource(settings_for(SERVER, False)).changes("ENG", None)
    assert [p.page.id for p in batch.pages] == ["1"]
    assert [page_id for page_id, _ in batch.failures] == ["2"]


@responses.activate
def test_listing_asks_without_bodies():
    item = {"id": "5", "title": "T", "version": {"number": 4}, "ancestors": [{"id": "1"}]}
    responses.get(SERVER + SEARCH, json={"results": [item], "limit": 200, "_links": {}})
    listed = ConfluenceSource(settings_for(SERVER, False)).listing("ENG")
    assert listed["5"].version == 4
    assert listed["5"].ancestors == ("1",)
    assert query(responses.calls[0])["expand"] == [
        "version,ancestors,restrictions.read.restrictions.user,restrictions.read.restrictions.group"
    ]
    assert listed["5"].restriction is None  # not in the answer: asked when needed
    assert query(responses.calls[0])["cql"] == [
        'space = "ENG" and type in (page, blogpost) order by created asc'
    ]


def test_cloud_needs_the_account_email():
    settings = settings_for(CLOUD, True).replace(confluence_user="")
    with pytest.raises(ValueError, match="CONFBOT_CONFLUENCE_USER"):
        ConfluenceClient(settings)
