"""Readiness: whether a confbot process can answer now, and if not, what is wrong.

`/healthz` is liveness (the process serves and its stores can be read); readiness means
"can answer", for an orchestrator that routes questions by it:
- the state database can be written (each answer is stored);
- the evidence store and the vector database (Chroma) can be read (a dependency that is
  down);
- something is indexed (until the first sync indexed a page there is nothing to answer from).

A sync that is writing, pages marked pending and a difference between the number of
evidences and of vectors do not make a process unready: a write in progress shows as a
difference until it commits, searches skip vectors the store does not know, and the sync
repairs what a crashed writer left (`EvidenceIndex.repair_pending`). Those figures are
reported under `index` for operators.
"""

from __future__ import annotations

import logging

from sqlalchemy import select

from connectors.state import SyncSpace
from core.assistant import Assistant
from core.db import session_factory

log = logging.getLogger(__name__)

OK = "ok"


def readiness(assistant: Assistant) -> dict:
    """`{"status": "ready" | "not ready", "checks": {name: "ok" or what is wrong},
    "index": {evidences, vectors, pending} when they can be read}`."""
    checks = {
        "state_database": _check(_state_database, assistant),
        "index": _check(_index, assistant),
        "first_sync": _check(_first_sync, assistant),
    }
    ready = all(value == OK for value in checks.values())
    report: dict = {"status": "ready" if ready else "not ready", "checks": checks}
    if checks["index"] == OK:
        try:
            report["index"] = assistant.index.consistency()
        except Exception as exc:  # figures for people; a failure here is in the checks
            log.warning("the index figures cannot be read: %r", exc)
    return report


def _check(check, assistant: Assistant) -> str:
    try:
        return check(assistant)
    except Exception as exc:  # a check that cannot run says so; details go to the log
        log.warning("readiness check %s failed: %r", check.__name__.strip("_"), exc)
        return f"cannot be checked: {type(exc).__name__}"


def _state_database(assistant: Assistant) -> str:
    try:
        assistant.store.check_writable()
    except Exception as exc:
        log.warning("the state database cannot be written: %r", exc)
        return "the state database cannot be written (see the log; check CONFBOT_DATABASE_URL)"
    return OK


def _index(assistant: Assistant) -> str:
    index = assistant.index
    try:
        index.count()
    except Exception as exc:
        log.warning("the evidence store cannot be read: %r", exc)
        return "the evidence store cannot be read (see the log; check CONFBOT_DATABASE_URL)"
    try:
        index.dense_count()
    except Exception as exc:
        log.warning("the vector database cannot be read: %r", exc)
        setting = "CONFBOT_CHROMA_URL" if index.settings.chroma_url else "CONFBOT_DATA_DIR"
        return f"the vector database (Chroma) cannot be read (see the log; check {setting})"
    return OK


def _first_sync(assistant: Assistant) -> str:
    if assistant.index.count() > 0:
        return OK
    with session_factory(assistant.store.url)() as db:  # the state database answers use
        running = list(db.scalars(select(SyncSpace.space).where(SyncSpace.last_run_at.is_(None))))
    if running:  # counted, not named: /readyz answers anyone, space keys are the wiki's
        log.info("first sync not finished: %s", ", ".join(sorted(running)))
        return f"nothing is indexed yet; the first sync of {len(running)} space(s) runs"
    return "nothing is indexed yet"
