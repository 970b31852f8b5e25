"""Logging for the `confbot` command: quiet by default, everything with `-v`.

By default confbot's own modules log at INFO (one line per sync, Slack connected, what
failed) and the libraries under it only their warnings: Alembic's plugin and migration lines,
APScheduler's job lines and uvicorn's start and per-request lines are noise to an operator
who did not ask for them. `-v` logs everything at DEBUG, uvicorn's access log included.
"""

from __future__ import annotations

import logging

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
QUIET_LIBRARIES = (
    "alembic",
    "apscheduler",
    "uvicorn",
    "uvicorn.error",
    "uvicorn.access",
    "httpx",
    "httpcore",
    "chromadb",
    "slack_bolt",
    "slack_sdk",
)
"""Loggers held at WARNING unless `-v` is given."""


def configure(verbose: bool = False) -> None:
    """Set up the root handler and the levels: DEBUG for everything with `verbose`, else
    INFO with the libraries of `QUIET_LIBRARIES` at WARNING."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, format=FORMAT)
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(logging.NOTSET if verbose else logging.WARNING)


def access_log_wanted() -> bool:
    """Whether uvicorn should log every request (only when its logger would show them)."""
    return logging.getLogger("uvicorn.access").isEnabledFor(logging.INFO)
