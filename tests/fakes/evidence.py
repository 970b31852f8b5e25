"""A one-line evidence builder for tests: evidence `n` on page `100 + n`."""

from __future__ import annotations

from core.pages import Evidence


def make_evidence(
    number: int, text: str = "text", title: str = "Title", heading: str = ""
) -> Evidence:
    """A passage evidence numbered `number`, alone on its page."""
    return Evidence(
        id=f"e{number}",
        page_id=f"{100 + number}",
        space="S",
        url=f"https://wiki/pages/{100 + number}/T",
        title=title,
        kind="passage",
        position=number,
        text=text,
        heading=heading,
    )
