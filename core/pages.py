"""The two records the pipeline passes around: a wiki `Page` and an `Evidence` cut from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

BodyFormat = Literal["storage", "view"]
EvidenceKind = Literal["passage", "list", "table", "row"]


@dataclass(frozen=True)
class Page:
    """A wiki page as a connector delivers it.

    `body` is Confluence storage-format XHTML (`storage`) or rendered HTML (`view`).
    `updated_at` is an ISO 8601 string; `version` the Confluence version number.
    """

    id: str
    space: str
    title: str
    url: str
    body: str
    body_format: BodyFormat = "storage"
    version: int = 1
    updated_at: str = ""
    author: str = ""
    ancestors: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """One retrievable unit of a page: a passage, a list, a whole table or one table row.

    `text` is the evidence alone (a table linearized); `title`, `heading`, `before` and
    `after` are its context, kept apart so each can be switched on or off.
    `contextualized` is the text that gets indexed, built from the enabled context.
    """

    id: str
    page_id: str
    space: str
    url: str
    title: str
    kind: EvidenceKind
    position: int
    text: str
    heading: str = ""
    before: str = ""
    after: str = ""
    contextualized: str = ""
    metadata: dict = field(default_factory=dict)
