"""A first name alone in a table, named in full where the same page says who it is
(`core.full_names`)."""

from __future__ import annotations

from core.answer import generate
from core.extractive import ExtractiveLLM
from core.full_names import full_name
from core.pages import Evidence

BYLINE = "Owned by Ross Philipson Last updated: Nov 01, 2016 by MagOXT"


def test_the_one_surname_the_page_writes():
    assert full_name("Ross", [BYLINE, "Ross to post to the list."]) == "Ross Philipson"
    assert full_name("Ross", ["Owned by Ross Last updated: May 2016"]) == ""  # none
    assert full_name("Ross", [BYLINE, "Ross Geller joined."]) == ""  # two people: unsure
    assert full_name("Eric", [BYLINE]) == ""


def _evidence(position: int, text: str, title: str = "QEMU Uprev Testing") -> Evidence:
    return Evidence(
        id=f"{title}#{position:04d}",
        page_id=title,
        space="S",
        url="https://wiki.example/p",
        title=title,
        heading="Reporting" if position else "",
        kind="row" if position else "passage",
        position=position,
        text=text,
    )


ROW = "Row 2 in Table 2: Reporter is Ross, and Description is PCI pass-through will not work"


def test_a_who_answer_names_the_person_in_full_from_the_same_page():
    evidences = [_evidence(1, ROW), _evidence(0, BYLINE)]
    (answer,) = generate(ExtractiveLLM(), "Who was the assigned reporter?", evidences)
    assert "Ross Philipson [1]" in answer.text.split("\n")[0]
    # another page's byline names someone else: the first name stays as the table wrote it
    other = [_evidence(1, ROW), _evidence(0, BYLINE, "Another page")]
    (answer,) = generate(ExtractiveLLM(), "Who was the assigned reporter?", other)
    first = answer.text.split("\n")[0]
    assert "Ross [1]" in first and "Philipson" not in first
