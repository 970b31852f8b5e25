"""Readiness: whether a confbot process can answer now, and if not, what is wrong.

`/healthz` is liveness (the process serves and its stores can be read); readiness checks
what answering needs:
- the state database can be written (each answer is stored);
- the index can be read, and the evidence store and Chroma hold the same number of
  evidences (a difference means answers would miss sources or carry orphans);
- no page is left half written (pending marks: a sync was interrupted; the next sync
  repairs them);
- the first sync has finished: no space is still in its first run, and something is
  indexed.
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
    """`{"status": "ready" | "not ready", "checks": {name: "ok" or what is wrong}}`."""
    checks = {
        "state_database": _check(_state_database, assistant),
        "index": _check(_index, assistant),
        "first_sync": _check(_first_sync, assistant),
    }
    ready = all(value == OK for value in checks.values())
    return {"status": "ready" if ready else "not ready", "checks": checks}


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
    try:
        counts = assistant.index.consistency()
    except Exception as exc:
        log.warning("the index cannot be read: %r", exc)
        return "the index cannot be read (see the log)"
    problems = []
    if counts["evidences"] != counts["vectors"]:
        problems.append(
            f"the evidence store holds {counts['evidences']} evidences but Chroma"
            f" {counts['vectors']} vectors"
        )
    if counts["pending"]:
        problems.append(
            f"{counts['pending']} page(s) were left half written; the next sync repairs them"
        )
    return "; ".join(problems) or OK


def _first_sync(assistant: Assistant) -> str:
    with session_factory(assistant.store.url)() as db:  # the state database answers use
        running = list(db.scalars(select(SyncSpace.space).where(SyncSpace.last_run_at.is_(None))))
    if running:  # counted, not named: /readyz answers anyone, space keys are the wiki's
        log.info("first sync not finished: %s", ", ".join(sorted(running)))
        return f"the first sync of {len(running)} space(s) has not finished"
    if assistant.index.count() == 0:
        return "nothing is indexed yet"
    return OK
