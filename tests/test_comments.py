"""Comments (footer and inline) as part of their page, and blog posts as pages of their space,
through the fake Confluence in both shapes (Cloud REST v2, Data Center REST v1)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from connectors.comments import Comment, comments_html
from core.extract import extract
from core.index import EvidenceIndex
from tests.fakes.confluence_server import FakeConfluence, FakePage
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import run_sync, sync_settings


def headings(section: str) -> list[tuple[int, str]]:
    return [(b.level, b.text) for b in extract(section).blocks if b.kind == "heading"]


@pytest.mark.parametrize(
    ("comments", "resolved", "expected"),
    [
        ([], False, []),
        (
            [Comment("1", "<p>Yes.</p>", "Ada", "2024-05-01T10:00:00Z")],
            False,
            [(1, "Comments"), (2, "Comment by Ada on 2024-05-01")],
        ),
        (
            [
                Comment("1", "<p>Why?</p>", "Ada", "2024-05-01T10:00:00Z"),
                Comment("2", "<p>Because.</p>", "Bo", "2024-05-02T10:00:00Z", parent="1"),
            ],
            False,
            [
                (1, "Comments"),
                (2, "Comment by Ada on 2024-05-01"),
                (3, "Reply by Bo on 2024-05-02"),
            ],
        ),
        (
            [Comment("1", "<p>Typo</p>", "Ada", "", inline=True, selection="teh  cat")],
            False,
            [(1, "Comments"), (2, "Inline comment by Ada about “teh cat”")],
        ),
        (
            [
                Comment("1", "<p>Old</p>", "Ada", "", inline=True, selection="x", resolved=True),
                Comment("2", "<p>Agreed</p>", "Bo", "", inline=True, parent="1"),
            ],
            False,
            [],
        ),
        (
            [Comment("1", "<p>Old</p>", "Ada", "", inline=True, selection="x", resolved=True)],
            True,
            [(1, "Comments"), (2, "Inline comment by Ada about “x” (resolved)")],
        ),
        (  # a reply loop never hangs and writes each comment once
            [Comment("1", "<p>a</p>", parent="2"), Comment("2", "<p>b</p>", parent="1")],
            False,
            [],
        ),
    ],
)
def test_comments_section(comments, resolved, expected):
    assert headings(comments_html(comments, resolved)) == expected


LATER = datetime(2024, 6, 1, tzinfo=UTC)


def wiki(cloud: bool) -> FakeConfluence:
    """A page with comments and a blog post, both older than the last edit of the space (so
    a run's change search does not return them: only their comment changes do)."""
    fake = FakeConfluence(
        [
            FakePage("601", "OPS", "Deploys", "<p>We deploy on Tuesdays.</p>"),
            FakePage(
                "602", "OPS", "Release notes 2024", "<p>Version 7 shipped.</p>", kind="blogpost"
            ),
            FakePage("603", "OPS", "Later", "<p>Edited last.</p>", modified=LATER, created=LATER),
        ],
        cloud=cloud,
    )
    fake.comment("601", "<p>The staging password rotates every 90 days.</p>", author="Bo Chen")
    fake.comment(
        "601",
        "<p>This should say Wednesdays since March.</p>",
        author="Cy Diaz",
        inline=True,
        selection="We deploy on Tuesdays",
    )
    fake.comment("601", "<p>Obsolete remark about Fridays.</p>", inline=True, resolved=True)
    return fake


def evidence_with(index: EvidenceIndex, words: str):
    ids = [i for i, _ in index.lexical_search(words, 5)]
    return next((e for e in index.get(ids) if words.split()[-1] in e.text), None)


@pytest.mark.parametrize("cloud", [True, False], ids=["cloud-v2", "data-center-v1"])
def test_comments_are_evidence_of_their_page(tmp_path, cloud):
    with wiki(cloud) as fake:
        settings = sync_settings(
            tmp_path, fake, CONFBOT_SYNC_LISTING_INTERVAL="1d", CONFBOT_SYNC_OVERLAP_MINUTES="0"
        )
        index = EvidenceIndex(settings, HashEmbedder())
        report = run_sync(settings, index, "OPS")
        assert report.added == 3  # the pages and the blog post

        footer = evidence_with(index, "staging password rotates")
        assert footer.page_id == "601" and footer.url == index.page("601").url
        author = "bo-chen" if cloud else "Bo Chen"  # v2 names authors by account id
        assert footer.heading.startswith(f"Comments > Comment by {author} on 20")

        inline = evidence_with(index, "should say Wednesdays")
        assert "about “We deploy on Tuesdays”" in inline.heading
        assert evidence_with(index, "Obsolete remark Fridays") is None  # resolved

        fake.comment("601", "<p>Rollbacks need two approvals.</p>", author="Bo Chen")
        assert fake.pages["601"].version == 1
        again = run_sync(settings, index, "OPS")  # found by the comment change search
        assert (again.updated, again.unchanged) == (1, 1)  # 601 read by id; 603 by the search
        assert evidence_with(index, "Rollbacks need two approvals").page_id == "601"

        fake.comment("602", "<p>Version 7 dropped Python 3.8.</p>")
        fake.attach("602", "changes.csv", b"change,owner\nNew installer,Ann Lee\n")
        run_sync(settings, index, "OPS")  # the blog post is read again by id
        post = evidence_with(index, "dropped Python 3.8")
        assert post.page_id == "602" and post.title == "Release notes 2024"
        row = evidence_with(index, "New installer")
        assert row.title == "changes.csv (attached to Release notes 2024)"
        if cloud:
            paths = {r.path for r in fake.requests}
            assert "/wiki/api/v2/blogposts/602" in paths
            assert "/wiki/api/v2/blogposts/602/footer-comments" in paths
            assert "/wiki/api/v2/blogposts/602/attachments" in paths


def test_resolved_comments_when_asked(tmp_path):
    with wiki(cloud=False) as fake:
        settings = sync_settings(tmp_path, fake, CONFBOT_SYNC_RESOLVED_COMMENTS="true")
        index = EvidenceIndex(settings, HashEmbedder())
        run_sync(settings, index, "OPS")
        assert "(resolved)" in evidence_with(index, "Obsolete remark Fridays").heading


def test_comments_and_blog_posts_can_be_switched_off(tmp_path):
    with wiki(cloud=True) as fake:
        settings = sync_settings(
            tmp_path, fake, CONFBOT_SYNC_COMMENTS="false", CONFBOT_SYNC_BLOG_POSTS="false"
        )
        index = EvidenceIndex(settings, HashEmbedder())
        assert run_sync(settings, index, "OPS").added == 2
        assert evidence_with(index, "staging password rotates") is None
        assert not any("comments" in r.path for r in fake.requests)
