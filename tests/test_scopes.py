"""Scopes per space (labels in and out, page-tree roots, a CQL filter) and archived pages,
through the fake Confluence."""

from __future__ import annotations

import pytest

from connectors.scope import scope_cql
from connectors.sync import make_source
from core.index import EvidenceIndex
from core.settings import Settings, SettingsError
from tests.fakes.confluence_server import FakeConfluence, FakePage
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import run_sync, sync_settings


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, ""),
        ({"CONFBOT_SYNC_LABELS": "ENG=runbook, how-to;OPS=x"}, 'label in ("runbook", "how-to")'),
        ({"CONFBOT_SYNC_EXCLUDE_LABELS": "ENG=draft"}, 'label not in ("draft")'),
        ({"CONFBOT_SYNC_ROOTS": "ENG=12,34"}, "(id in (12, 34) or ancestor in (12, 34))"),
        (
            {"CONFBOT_SYNC_CQL": 'ENG=creator = "ada" or label = "x"'},
            '(creator = "ada" or label = "x")',
        ),
        (
            {"CONFBOT_SYNC_ROOTS": "ENG=12", "CONFBOT_SYNC_EXCLUDE_LABELS": "ENG=a"},
            'label not in ("a") and (id in (12) or ancestor in (12))',
        ),
        ({"CONFBOT_SYNC_ROOTS": "OPS=12"}, ""),
    ],
)
def test_scope_cql(environ, expected):
    assert scope_cql(Settings.load(environ=environ), "ENG") == expected


def test_a_root_must_be_a_page_id():
    settings = Settings.load(environ={"CONFBOT_SYNC_ROOTS": "ENG=Home"})
    with pytest.raises(SettingsError, match="CONFBOT_SYNC_ROOTS: ENG=Home is not a page id"):
        scope_cql(settings, "ENG")


def test_the_files_source_refuses_scopes(tmp_path):
    settings = Settings.load(environ={"CONFBOT_SYNC_LABELS": "ENG=a"})
    with pytest.raises(SettingsError, match="confluence source only"):
        make_source(settings, "files", str(tmp_path))


def tree() -> list[FakePage]:
    def page(id_: str, title: str, ancestors=(), labels=(), status="current") -> FakePage:
        body = f"<p>{title} notes for the team.</p>"
        return FakePage(
            id_, "ENG", title, body, ancestors=list(ancestors), labels=list(labels), status=status
        )

    return [
        page("800", "Handbook"),
        page("801", "Onboarding", ["800"], ["howto"]),
        page("802", "Half-written idea", ["800"], ["draft"]),
        page("803", "Lunch menu"),
        page("804", "Old process", ["800"], status="archived"),
        page("805", "Security", ["800", "801"]),
    ]


@pytest.mark.parametrize("cloud", [True, False], ids=["cloud", "data-center"])
def test_roots_and_excluded_labels_and_archived_pages(tmp_path, cloud):
    with FakeConfluence(tree(), cloud=cloud) as fake:
        settings = sync_settings(
            tmp_path, fake, CONFBOT_SYNC_ROOTS="ENG=800", CONFBOT_SYNC_EXCLUDE_LABELS="ENG=draft"
        )
        index = EvidenceIndex(settings, HashEmbedder())
        run_sync(settings, index, "ENG")
        assert index.page_ids("ENG") == {"800", "801", "805"}

        fake.pages["801"].labels.append("draft")  # a label does not make a new version
        fake.pages["805"].status = "archived"
        report = run_sync(settings, index, "ENG")  # the listing no longer has them
        assert report.deleted == 2
        assert index.page_ids("ENG") == {"800"}


def test_included_labels_and_a_cql_filter(tmp_path):
    with FakeConfluence(tree(), cloud=True) as fake:
        settings = sync_settings(
            tmp_path,
            fake,
            CONFBOT_SYNC_LABELS="ENG=howto,draft",
            CONFBOT_SYNC_CQL='ENG=label = "howto" or id = 802',
        )
        index = EvidenceIndex(settings, HashEmbedder())
        run_sync(settings, index, "ENG")
        assert index.page_ids("ENG") == {"801", "802"}
        searches = [r.params["cql"] for r in fake.searches()]
        assert all('label in ("howto", "draft")' in cql for cql in searches if "type in" in cql)
