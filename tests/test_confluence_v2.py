"""Single-page reads use REST v2 on Confluence Cloud and v1 on Data Center; CQL search stays
on v1 on both. The real connector against the fake Confluence, which serves v2 only when it
plays Cloud; assertions on the paths it was asked."""

from __future__ import annotations

import pytest

from connectors.confluence import ConfluenceSource
from core.index import EvidenceIndex
from tests.fakes.confluence_server import FakeConfluence, generated_pages
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import run_sync, sync_settings

FLAVOURS = [
    pytest.param(True, "/wiki/api/v2/pages/", id="cloud"),
    pytest.param(False, "/confluence/rest/api/content/", id="data-center"),
]


def single_page_reads(fake: FakeConfluence) -> list[str]:
    """The paths of the page reads the fake saw (not searches, not restriction checks, not
    the lists of a page's comments and attachments)."""
    lists = ("-comments", "/attachments", "/child/comment", "/child/attachment")
    return [
        r.path
        for r in fake.requests
        if ("/api/v2/pages/" in r.path or "/rest/api/content/" in r.path)
        and not r.path.endswith(("/search", "/ancestors", "/byOperation/read", *lists))
    ]


def labelled_pages() -> list:
    pages = generated_pages(12, space="GEN")
    pages[11].labels = ["howto", "onboarding"]
    return pages


@pytest.mark.parametrize(("cloud", "prefix"), FLAVOURS)
def test_a_page_read_by_id_uses_the_flavours_endpoint(tmp_path, cloud, prefix):
    with FakeConfluence(labelled_pages(), cloud=cloud) as fake:
        source = ConfluenceSource(sync_settings(tmp_path, fake))
        searched = {f.page.id: f.page for batch in source.changes("GEN", None) for f in batch.pages}
        read = source.fetch("100011")
        gone = source.fetch("999999")

    assert gone is None
    assert read is not None and not read.restricted
    page = read.page
    assert (page.space, page.ancestors) == ("GEN", ("100010",))
    assert page.labels == ("howto", "onboarding")
    from_search = searched["100011"]
    for name in ("id", "space", "title", "url", "body", "version", "updated_at", "labels"):
        assert getattr(page, name) == getattr(from_search, name), name
    assert single_page_reads(fake) == [prefix + "100011", prefix + "999999"]
    assert fake.searches()  # CQL search stays on v1
    v2 = [r for r in fake.requests if "/api/v2/" in r.path]
    if cloud:
        first = v2[0]
        assert first.params == {"body-format": "storage", "include-labels": "true"}
    else:
        assert v2 == []


def test_cloud_asks_each_space_key_once(tmp_path):
    with FakeConfluence(generated_pages(5, space="GEN"), cloud=True) as fake:
        source = ConfluenceSource(sync_settings(tmp_path, fake))
        for page_id in ("100001", "100002", "100003"):
            assert source.fetch(page_id).page.space == "GEN"
    spaces = [r.path for r in fake.requests if "/api/v2/spaces/" in r.path]
    assert len(spaces) == 1


@pytest.mark.parametrize(("cloud", "prefix"), FLAVOURS)
def test_read_restrictions_of_a_page_read_by_id(tmp_path, cloud, prefix):
    with FakeConfluence(generated_pages(12, space="GEN"), cloud=cloud) as fake:
        fake.restrict("100003")  # its own restriction
        fake.restrict("100010", users=(), groups=("hr",))  # inherited by 100011
        settings = sync_settings(tmp_path, fake)
        source = ConfluenceSource(settings.replace(sync_skip_restricted="true"))
        assert source.fetch("100003").restricted
        assert source.fetch("100011").restricted
        assert not source.fetch("100005").restricted
        kept = ConfluenceSource(settings)  # indexed, with who may read them
        someone = "user:acc-someone" if cloud else "user:someone"
        assert kept.fetch("100003").access.to_json() == [[someone]]
        assert kept.fetch("100011").access.to_json() == [["group:hr"]]
        assert kept.fetch("100005").access.to_json() == []
        assert not kept.fetch("100011").restricted


def test_cloud_sync_reads_a_moved_page_again_through_v2(tmp_path):
    """A move changes no `lastmodified`: the listing spots it and the sync reads the page
    again by id, through v2 on Cloud."""
    with FakeConfluence(generated_pages(12, space="GEN"), cloud=True) as fake:
        settings = sync_settings(tmp_path, fake, CONFBOT_SYNC_OVERLAP_MINUTES="0")
        index = EvidenceIndex(settings, HashEmbedder())
        assert run_sync(settings, index, "GEN").added == 12
        fake.move("100004", "100010")
        fake.requests.clear()
        report = run_sync(settings, index, "GEN")
    assert report.error is None and report.moved == 1
    assert single_page_reads(fake) == ["/wiki/api/v2/pages/100004"]
    assert index.page("100004").ancestors == ("100010",)
