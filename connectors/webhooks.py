"""Pages queued by Confluence webhooks for an immediate incremental sync.

The web app's webhook endpoint (`bot.webhooks`) reads which page an event is about and
queues it here (table `sync_requests`, shared by every process through the state
database); the sync worker drains the queue every `webhook_poll` and reads each queued page
again by id (`SpaceSync.run_pages`): an edit, a new comment or attachment is indexed, a
removed page is dropped. Polling on the schedule stays as the safety net for events that
never arrive.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from connectors.state import SyncPage, SyncRequest, utcnow

log = logging.getLogger(__name__)


def _id(value: Any) -> str:
    """A content id from a payload value (a number or a string of digits), else ""."""
    text = str(value).strip() if value is not None else ""
    return text if text.isdigit() else ""


def event_page(payload: Mapping[str, Any]) -> tuple[str, str]:
    """(page id, space key) of the page a Confluence webhook event is about ("" when the
    payload does not say): `page`/`blog`/`blogpost` events name it; a `comment` names its
    page as `parent` or `container`; an `attachment` as `container` (or `attachedTo`);
    the space key is `spaceKey` of the object, or of `space`."""
    for name in ("page", "blog", "blogpost", "content"):
        item = payload.get(name)
        if isinstance(item, Mapping) and _id(item.get("id")):
            return _id(item["id"]), str(item.get("spaceKey") or _space(payload))
    for name, links in (("comment", ("parent", "container")), ("attachment", ("container",))):
        item = payload.get(name)
        if isinstance(item, Mapping):
            for link in (*links, "attachedTo"):
                target = item.get(link)
                if isinstance(target, Mapping) and _id(target.get("id")):
                    space = target.get("spaceKey") or item.get("spaceKey") or _space(payload)
                    return _id(target["id"]), str(space or "")
    attachments = payload.get("attachments")
    if isinstance(attachments, list) and attachments and isinstance(attachments[0], Mapping):
        return event_page({"attachment": attachments[0], "space": payload.get("space")})
    return "", ""


def _space(payload: Mapping[str, Any]) -> str:
    space = payload.get("space")
    if isinstance(space, Mapping):
        return str(space.get("key") or "")
    return str(payload.get("spaceKey") or "")


def queue_page(sessions, page_id: str, space: str) -> None:
    """Queue a page for the worker (a page queued again before it is read is read once).

    An update that bumps the serial, else an insert, else (another process inserted it
    meanwhile) the update again: the worker may take the row off the queue between any two
    statements, and no event is lost."""
    for _ in range(3):
        with sessions() as db:
            values: dict = {"requested_at": utcnow(), "serial": SyncRequest.serial + 1}
            if space:
                values["space"] = space
            bumped = db.execute(
                update(SyncRequest).where(SyncRequest.page_id == page_id).values(**values)
            ).rowcount
            if not bumped:
                db.add(SyncRequest(page_id=page_id, space=space, requested_at=utcnow(), serial=0))
            try:
                db.commit()
                return
            except IntegrityError:
                db.rollback()
    raise RuntimeError(f"page {page_id} could not be queued")


def queued(sessions) -> dict[str, dict[str, int]]:
    """The queued pages by space, each with its `serial` (for `done`); a page queued without
    its space gets the space it was synced in (pages never synced and of no known space are
    dropped with a log line)."""
    with sessions() as db:
        rows = list(db.scalars(select(SyncRequest)))
        known = {
            r.page_id: r.space
            for r in db.scalars(
                select(SyncPage).where(SyncPage.page_id.in_([r.page_id for r in rows]))
            )
        }
    out: dict[str, dict[str, int]] = {}
    for row in rows:
        space = row.space or known.get(row.page_id, "")
        if not space:
            log.warning("webhook for page %s: its space is unknown; ignored", row.page_id)
            done(sessions, {row.page_id: row.serial})
            continue
        out.setdefault(space, {})[row.page_id] = row.serial
    return out


def done(sessions, pages: Mapping[str, int]) -> None:
    """Take pages off the queue: each unless an event came for it since it was read (its
    `serial` moved on; it is read again on the next poll)."""
    with sessions() as db:
        for page_id, serial in pages.items():
            db.execute(
                delete(SyncRequest).where(
                    SyncRequest.page_id == page_id, SyncRequest.serial == serial
                )
            )
        db.commit()
