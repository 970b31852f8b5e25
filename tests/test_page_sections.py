"""A count of a page's sections ("How many major headings did the draft have?") gets the
first passage of each section from the store (`core.page_sections`) and is answered with
the sections counted and named, a page wrapped in one heading counted one level down."""

from __future__ import annotations

from core.answer import generate
from core.extractive import ExtractiveLLM
from core.page_sections import counts_sections, section_parts, sections_noun, top_sections
from core.pages import Evidence
from tests.fakes.page_store import PageStore, page_evidence

TITLE = "Release Governance [DRAFT]"
SECTIONS = [
    ("DRAFT > Charter", "To ship a stable release every quarter."),
    ("DRAFT > Roles", "Release managers are appointed for one year."),
    ("DRAFT > Roles > Duties", "A release manager signs off every release ticket."),
    ("DRAFT > Review, Approval", "Every change is reviewed by two maintainers."),
    ("DRAFT > Changes", "<< Process to be determined. >>"),
]
PAGE = [page_evidence(n, text, title=TITLE, heading=h) for n, (h, text) in enumerate(SECTIONS)]


def _store() -> PageStore:
    return PageStore(*PAGE, page_evidence(0, "Other page text.", "p2", "Other", "Intro"))


def test_sections_are_the_headings_of_the_top_level_that_has_several():
    headings = [h for h, _ in SECTIONS]
    assert top_sections(headings) == [
        "DRAFT > Charter",
        "DRAFT > Roles",
        "DRAFT > Review, Approval",
        "DRAFT > Changes",
    ]
    assert top_sections(["Intro", "Usage > Install", "Usage > Run"]) == ["Intro", "Usage"]
    assert top_sections(["Only", "Only > Part"]) == []  # one section is no count
    assert top_sections(["Only"]) == []


def test_only_a_count_of_sections_counts_sections():
    assert counts_sections("So how many major topical headings did the draft have?")
    assert counts_sections("Wie viele Abschnitte hat die Seite?")
    assert counts_sections("Wie viele Hauptüberschriften hat der Entwurf?")
    assert not counts_sections("How many release managers are appointed?")
    assert not counts_sections("What are the sections of the draft?")
    # a German compound by its last part, the verb after the noun left out
    assert sections_noun("Wie viele Hauptüberschriften gab es im Entwurf?") == "Hauptüberschriften"


def test_the_first_passage_of_each_section_missing_is_added():
    question = "How many major headings did the release governance draft have?"
    retrieved: list[Evidence] = [PAGE[2]]  # "Roles > Duties": Roles is there
    added = section_parts(question, retrieved, _store())
    assert added == [PAGE[0], PAGE[3], PAGE[4]]
    assert section_parts("How many release managers are there?", retrieved, _store()) == []


def test_the_sections_are_counted_and_named_by_the_offline_answerer():
    question = "How many major headings did the release governance draft have?"
    retrieved = [PAGE[2]]
    evidences = [*retrieved, *section_parts(question, retrieved, _store())]
    (answer,) = generate(ExtractiveLLM(), question, evidences)
    assert answer.text.split("\n")[0] == (
        "4 major headings: Roles; Charter; Review, Approval and Changes [1][2][3][4]"
    )
