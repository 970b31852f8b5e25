"""A Yes or No comes only with a clause that decides the question (`core.deciding_clause`);
otherwise the reply says what the wiki says, without a Yes or No."""

import pytest

from core.deciding_clause import decides, undecided
from core.extractive import render
from core.spans import Span

# The wiki's words for the German question's words, as the index would give them.
GERMAN = (
    ("fertiggestellt", ("finalized", "completed")),
    ("dokument", ("document",)),
    ("kompiliert", ("built", "compiled")),
    ("erstellen", ("create",)),
    ("neue", ("new",)),
    ("darf", ("may", "allowed")),
)


def _span(answer: str, unit: str) -> Span:
    return Span(answer=answer, unit=unit, score=1.0, support=0.9, kind="sentence")


@pytest.mark.parametrize(
    ("question", "clause"),
    [
        (
            "Is the OpenXT architecture document finalized?",
            "The architecture document is finalized.",
        ),
        ("Can OpenXT be built for Windows and Linux?", "OpenXT can be built for Windows."),
        (
            "Is anyone allowed to create a new ticket, as per the guide?",
            "Anyone may create new tickets.",
        ),
        ("Ist das OpenXT Architektur-Dokument fertiggestellt?", "The document has been completed."),
        (
            "Darf jeder ein neues Ticket erstellen, wie im Dokument „Leitfaden“ angegeben?",
            "Anyone may create new tickets.",
        ),
    ],
)
def test_a_clause_that_states_what_is_asked_decides(question, clause):
    assert decides(question, clause, GERMAN)


@pytest.mark.parametrize(
    ("question", "clause"),
    [
        # the subject's names, nothing about being finalized
        (
            "Is the OpenXT architecture document finalized?",
            "More detail is in the properties document.",
        ),
        (
            "Ist das OpenXT Architektur-Dokument fertiggestellt?",
            "More detail is in the properties document.",
        ),
        # another fact about the subject, nothing about building it
        ("Can OXT be compiled for Windows and Linux?", "OXT-243 affects 64-bit Windows only."),
        (
            "Kann OXT für Windows und Linux kompiliert werden?",
            "OXT-243 affects 64-bit Windows only.",
        ),
        # a question of names only: one of five is no answer
        ("Were there Community Calls in 2016 after 15th December?", "Nobody was on the call."),
    ],
)
def test_a_clause_about_something_else_does_not_decide(question, clause):
    assert not decides(question, clause, GERMAN)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Is the OpenXT architecture document finalized?",
            "The wiki does not say yes or no to this; it says:",
        ),
        (
            "Ist das OpenXT Architektur-Dokument fertiggestellt?",
            "Das Wiki sagt dazu weder ja noch nein; dort steht:",
        ),
    ],
)
def test_an_undeciding_clause_is_said_without_yes_or_no(question, expected):
    clause = "More detail is in the properties document."
    spans = [(1, _span("Yes", clause))]
    assert render(question, spans, 0, translations=GERMAN) == f"{expected} {clause} [1]"


@pytest.mark.parametrize(
    ("question", "yes"),
    [
        ("Is the OpenXT architecture document finalized?", "Yes"),
        ("Ist das OpenXT Architektur-Dokument fertiggestellt?", "Ja"),
    ],
)
def test_a_later_clause_that_decides_supports_the_verdict(question, yes):
    decided = "The architecture document was finalized in May."
    spans = [
        (1, _span("Yes", "More detail is in the properties document.")),
        (2, _span("Yes", decided)),
    ]
    assert render(question, spans, 0, translations=GERMAN) == f"{yes}: {decided} [2]"


def test_undecided_follows_the_question_language():
    assert undecided("X.", "en").startswith("The wiki does not say yes or no")
    assert undecided("X.", "de").startswith("Das Wiki sagt dazu weder ja noch nein")


def test_half_the_terms_decide_only_with_what_is_asked_of_the_subject():
    question = "Are variable names allowed to have hyphens, as per the policy?"
    assert not decides(question, "Each variable is defined on one line with its name.")
    assert decides(question, "Hyphens are allowed in variable names.")
    # the predicate ends before the qualifier ("in the context of ..."): "isolated"
    asked = "Is input to user VMs isolated from other VMs in the context of platform properties?"
    assert decides(asked, "Input to user VMs is isolated from others VMs.")


def test_a_clause_opening_with_a_pronoun_is_about_its_heading():
    question = "Is it mandatory to provide an HID descriptor?"
    clause = "It is mandatory, as there's no pre-defined data format in HID."
    assert not decides(question, clause)
    assert decides(question, clause, before="The HID descriptor")
    spans = [(1, _span("Yes", clause))]
    headers = {1: "HID basics — The HID descriptor"}
    assert render(question, spans, 0, headers) == f"Yes: {clause} [1]"


def _row(answer: str, unit: str, label: str = "") -> Span:
    return Span(answer=answer, unit=unit, score=1.0, support=0.9, kind="row", label=label)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Were all four CPU generations tested with Dell?",
            "The wiki does not say yes or no to this; it says: The Download for Version 7.0.0 is",
        ),
        (
            "Wurden alle vier CPU-Generationen mit Dell getestet?",
            "Das Wiki sagt dazu weder ja noch nein; dort steht: Download für Version 7.0.0 ist",
        ),
    ],
)
def test_one_row_does_not_say_yes_for_every_row(question, expected):
    link = "Download: http://builds.example/7/"
    row = _row("Yes", f"Version: 7.0.0; {link}", link)
    assert render(question, [(1, row)], 0).startswith(expected)


def test_a_row_without_a_deciding_cell_that_holds_little_of_the_question_decides_nothing():
    question = "Are variable names allowed to have hyphens?"
    row = _row("Yes", "RPC: remove_var; Arguments: string name; Description: Deletes a variable")
    assert render(question, [(1, row)], 0).startswith("The wiki does not say yes or no")
    # a pass/fail-like cell decides, also as a word of a short cell
    tested = _row("Yes", "Machine: Dell E7450; INST: Y; ML: Y")
    assert render("Did Dell E7450 work?", [(1, tested)], 0).startswith("Yes:")
    installed = _row("Yes", "OS: Debian jessie x64 from PXE; Tools: installation OK")
    asked = "Was the installation of Debian jessie x64 successful?"
    assert render(asked, [(1, installed)], 0).startswith("Yes:")


def test_a_time_after_the_predicate_is_a_qualifier():
    question = "Are there any dates when we can't release to production this winter?"
    clause = "Release blackout: no production releases from 18 December to 6 January."
    assert decides(question, clause)
