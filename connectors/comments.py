"""Page comments (footer and inline) as part of the page they are on.

A page's comments are appended to its body as a "Comments" section before it is indexed:
each comment a heading naming its kind, author and date (and, for an inline comment, the
text it is anchored to) over the comment's own storage-format body; replies nest under
what they answer. So a comment is evidence of its page, cited with the page's link, and
the heading says who wrote it and when. The page's content digest covers its comments, so
a new or edited comment re-indexes the page and nothing else. Resolved inline comments are
left out unless `sync_resolved_comments` is on (a resolved thread is usually settled or
obsolete). Comments come only with pages the sync indexes, so restrictions apply to them
as to their page.

When: with every page the sync reads, and for pages whose comments changed since the
cursor without a page edit (a CQL search for `type = comment`, whose results name their
page as `container`). A comment deleted alone leaves the index when its page is read
again (an edit, a new comment, `confbot sync --full`).

Requests:
- Confluence Cloud (REST v2): `GET api/v2/pages/{id}/footer-comments?body-format=storage`,
  their replies `GET api/v2/footer-comments/{id}/children?body-format=storage`, and
  `GET api/v2/pages/{id}/inline-comments?body-format=storage` (each paged by
  `_links.next`); blog posts use `api/v2/blogposts/{id}/...`;
- Data Center (REST v1): `GET rest/api/content/{id}/child/comment?depth=all&expand=
  body.storage,version,ancestors,extensions.inlineProperties,extensions.resolution`
  (paged by `start`/`limit`).
"""

from __future__ import annotations

import dataclasses
import html
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from connectors.source import Fetched
from core.settings import Settings

log = logging.getLogger(__name__)

COMMENT_PAGE_SIZE = 100
MAX_REPLY_DEPTH = 5
"""Deepest reply level asked for on Cloud (one request per comment with replies)."""
SELECTION_CHARS = 120
"""Longest quote of an inline comment's anchor text kept in its heading."""
V1_EXPAND = "body.storage,version,ancestors,extensions.inlineProperties,extensions.resolution"


@dataclass(frozen=True)
class Comment:
    """One comment: `parent` is the id of the comment it answers ("" at top level);
    `selection` the page text an inline comment is anchored to."""

    id: str
    body: str
    author: str = ""
    created: str = ""
    inline: bool = False
    selection: str = ""
    resolved: bool = False
    parent: str = ""


def comment_from_v1(item: dict[str, Any]) -> Comment:
    """A `Comment` from a REST v1 comment (`child/comment` with `V1_EXPAND`)."""
    extensions = item.get("extensions") or {}
    version = item.get("version") or {}
    by = version.get("by") or {}
    parents = [a for a in item.get("ancestors") or () if a.get("type", "comment") == "comment"]
    resolution = (extensions.get("resolution") or {}).get("status", "")
    return Comment(
        id=str(item["id"]),
        body=item["body"]["storage"]["value"],
        author=by.get("displayName") or by.get("publicName") or by.get("username") or "",
        created=version.get("when", ""),
        inline=extensions.get("location") == "inline",
        selection=(extensions.get("inlineProperties") or {}).get("originalSelection", ""),
        resolved=resolution == "resolved",
        parent=str(parents[-1]["id"]) if parents else "",
    )


def comment_from_v2(item: dict[str, Any], inline: bool, parent: str = "") -> Comment:
    """A `Comment` from a REST v2 footer or inline comment (`body-format=storage`); v2
    names the author by account id only."""
    version = item.get("version") or {}
    properties = item.get("properties") or {}
    return Comment(
        id=str(item["id"]),
        body=item["body"]["storage"]["value"],
        author=version.get("authorId") or "",
        created=version.get("createdAt", ""),
        inline=inline,
        selection=properties.get("inlineOriginalSelection")
        or properties.get("inline-original-selection")
        or "",
        resolved=item.get("resolutionStatus") == "resolved",
        parent=str(item.get("parentCommentId") or parent or ""),
    )


def comments_html(comments: Sequence[Comment], resolved: bool = False) -> str:
    """The "Comments" section of a page: each comment a heading (kind, author, date, the
    quoted anchor of an inline one) over its body, replies one level deeper (at most h6),
    in the order given; resolved inline comments (and their replies) only when `resolved`."""
    by_id = {c.id: c for c in comments}

    def left_out(comment: Comment | None) -> bool:
        for _ in range(len(by_id) + 1):  # up the reply chain (bounded: ids may loop)
            if comment is None:
                return False
            if comment.resolved and not resolved:
                return True
            comment = by_id.get(comment.parent)
        return False

    children: dict[str, list[Comment]] = {}
    for comment in comments:
        if not left_out(comment):
            parent = comment.parent if comment.parent in by_id else ""
            children.setdefault(parent, []).append(comment)
    if not children.get(""):
        return ""
    out = ["<h1>Comments</h1>"]

    written: set[str] = set()

    def write(parent: str, level: int) -> None:
        for comment in children.get(parent, []):
            if comment.id in written:
                continue
            written.add(comment.id)
            out.append(f"<h{level}>{html.escape(_heading(comment), quote=False)}</h{level}>")
            out.append(comment.body)
            write(comment.id, min(level + 1, 6))

    write("", 2)
    return "".join(out)


def _heading(comment: Comment) -> str:
    kind = "Reply" if comment.parent else "Inline comment" if comment.inline else "Comment"
    parts = [kind]
    if comment.author:
        parts.append(f"by {comment.author}")
    if comment.created:
        parts.append(f"on {comment.created[:10]}")
    text = " ".join(parts)
    if comment.inline and comment.selection:
        quote = " ".join(comment.selection.split())
        if len(quote) > SELECTION_CHARS:
            quote = quote[: SELECTION_CHARS - 1] + "…"
        text += f" about “{quote}”"
    if comment.resolved:
        text += " (resolved)"
    return text


class ConfluenceComments:
    """Comments through a `connectors.confluence.ConfluenceClient`: REST v2 on Cloud, v1 on
    Data Center."""

    def __init__(self, client, overlap: timedelta, resolved: bool):
        self.client = client
        self.overlap = overlap
        self.resolved = resolved

    def comments(self, page_id: str) -> list[Comment]:
        """Every comment of a page or blog post: footer comments with their replies, then
        inline comments. On Cloud a 404 for the page's comments means a blog post."""
        if not self.client.cloud:
            return self._v1(page_id)
        kind = "pages"
        footer = self._pages(f"api/v2/pages/{page_id}/footer-comments")
        if footer is None:
            kind = "blogposts"
            footer = self._pages(f"api/v2/blogposts/{page_id}/footer-comments") or []
        out = [comment_from_v2(i, inline=False) for i in footer]
        for comment in list(out):
            out.extend(self._replies(comment.id, 1))
        inline = self._pages(f"api/v2/{kind}/{page_id}/inline-comments") or []
        out.extend(comment_from_v2(i, inline=True) for i in inline)
        return out

    def _replies(self, comment_id: str, depth: int) -> list[Comment]:
        if depth > MAX_REPLY_DEPTH:
            return []
        out = []
        for item in self._pages(f"api/v2/footer-comments/{comment_id}/children") or []:
            reply = comment_from_v2(item, inline=False, parent=comment_id)
            out.append(reply)
            out.extend(self._replies(reply.id, depth + 1))
        return out

    def _pages(self, path: str) -> list[dict[str, Any]] | None:
        """Every result of a v2 list, following `_links.next`; None when the list is not
        there (404)."""
        params: dict[str, Any] | None = {"body-format": "storage", "limit": COMMENT_PAGE_SIZE}
        out: list[dict[str, Any]] = []
        while True:
            data = self.client.get_json(path, params)
            if data is None:
                return None if not out else out
            results = data.get("results") or []
            out.extend(results)
            following = (data.get("_links") or {}).get("next")
            if not following or not results:
                return out
            path, params = self.client._relative(following, ""), None

    def _v1(self, page_id: str) -> list[Comment]:
        path = f"rest/api/content/{page_id}/child/comment"
        out: list[Comment] = []
        start = 0
        while True:
            params = {
                "expand": V1_EXPAND,
                "depth": "all",
                "start": start,
                "limit": COMMENT_PAGE_SIZE,
            }
            data = self.client.get_json(path, params) or {}
            results = data.get("results") or []
            out.extend(comment_from_v1(i) for i in results)
            if len(results) < int(data.get("limit") or COMMENT_PAGE_SIZE):
                return out
            start += len(results)

    def changed_pages(self, space: str, since: datetime) -> set[str]:
        """Ids of the pages of `space` with comments changed since `since` (minus the sync's
        overlap window)."""
        from connectors.confluence import cql_date, cql_string

        cql = (
            f"space = {cql_string(space)} and type = comment and lastmodified >= "
            f"{cql_string(cql_date(since - self.overlap))} order by lastmodified asc"
        )
        return self.client.container_ids(cql)

    def with_comments(self, fetched: Sequence[Fetched]) -> tuple[list[Fetched], list]:
        """The pages with their comments appended to their bodies, and (page id, error) for
        pages whose comments could not be read (retried next run, like a failed page).
        Restricted pages are left as they are (they are not indexed)."""
        out: list[Fetched] = []
        failures: list[tuple[str, str]] = []
        for item in fetched:
            if item.restricted or item.page.body_format != "storage":
                out.append(item)
                continue
            try:
                section = comments_html(self.comments(item.page.id), self.resolved)
            except Exception as exc:  # one page's comments never stop the sync
                log.warning("comments of page %s not read: %r; retried next run", item.page.id, exc)
                failures.append((item.page.id, f"comments not read: {exc!r}"))
                continue
            if section:
                page = dataclasses.replace(item.page, body=item.page.body + section)
                item = dataclasses.replace(item, page=page)
            out.append(item)
        return out, failures


def comment_reader(settings: Settings, source) -> ConfluenceComments | None:
    """What reads the comments of a source's pages; None when `sync_comments` is off or the
    source has no comments (a folder)."""
    from connectors.confluence import ConfluenceSource

    if not settings.sync_comments or not isinstance(source, ConfluenceSource):
        return None
    return ConfluenceComments(source.client, source.overlap, settings.sync_resolved_comments)
