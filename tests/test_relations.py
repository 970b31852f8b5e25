"""The relation a what or how question asks (its verb with its subject, or the action lines
of minutes), on small evidences, English and German: the headline is the unit that states
it, not one that shares the question's words about something else."""

from __future__ import annotations

import pytest

from core.questions import profile_question
from core.relations import asked_relation, states_relation
from core.spans import best_spans

BOARD = (
    "Part of the process involves voting. Voting can commence when a majority of the "
    "Advisory Board believes it is appropriate.\n"
    "- The Advisory Board votes to accept or reject a proposed feature.\n"
    "- The Advisory Board decides to request more information on a proposal."
)
ACTIONS = (
    "Action is initiated by creating a ticket that describes the issue.\n"
    "Action by the Advisory Board will only be invoked when no resolution is reached."
)
MINUTES = (
    "Rich Persaud: proceeding with the agenda sent earlier.\n"
    "Ross: several fixes will leave embargo next week.\n"
    "* action: Daniel to open a pull request for the current version.\n"
    "* action: Rich to file a ticket listing the features to disable."
)


def headline(question: str, text: str, header: str = "Governance > Advisory Board") -> str:
    (_, span), *_ = best_spans(question, [(1, header, text)])
    return span.answer


@pytest.mark.parametrize(
    ("question", "verb"),
    [
        ("What does the Advisory Board primarily vote on?", "vote"),
        ("How are actions by the Advisory Board initiated?", "initi"),
        ("What is the hotel limit used for?", "use"),
        ("Wie werden Aktionen vom Advisory Board initiiert?", "initiiert"),
        # German puts the verb second: "Was definiert X?" is "What does X define?"
        ("Was definiert der HID descriptor im Field Guide?", "definiert"),
        ("Was beschreiben Ereignisse wie DEV_SET?", "beschreiben"),
        # no predicate verb found by its form: a light verb, a noun after a determiner,
        # another question type, a verb in a relative clause
        ("What does closed indicate for a ticket?", None),
        ("What does the head of sales approve?", None),
        ("Who approves the budget?", None),
        ("How are tickets that are not closed handled?", None),
        ("What are the two main topics in the summary of the replacement?", None),
        # an auxiliary, a light verb, a verb whose particle ends the clause ("darstellen")
        ("Was ist der HID descriptor?", None),
        ("Was beinhaltet ein QA-Bericht?", None),
        ("Was stellen die unteren fünf Bits im Feld dar?", None),
    ],
)
def test_the_predicate_verb_of_a_question(question, verb):
    relation = asked_relation(profile_question(question))
    assert (min(relation.verb) if relation.verb else None) == verb


def test_what_the_subject_does_is_stated_by_the_unit_that_attaches_the_verb_to_it():
    relation = asked_relation(profile_question("What does the Advisory Board vote on?"))
    assert states_relation(relation, "The Advisory Board votes to accept a proposed feature.")
    assert not states_relation(
        relation, "Voting can commence when a majority of the Advisory Board agrees."
    )
    assert states_relation(asked_relation(profile_question("Who votes?")), "anything")


def test_the_object_of_the_asked_verb_is_the_headline_not_a_sentence_about_when():
    question = "What does the Advisory Board primarily vote on?"
    assert headline(question, BOARD).startswith("The Advisory Board votes to accept or reject")


def test_how_an_action_is_initiated_not_when_it_is_invoked():
    question = "How are actions by the Advisory Board initiated?"
    assert headline(question, ACTIONS).startswith("Action is initiated by creating a ticket")


def test_german_question_with_the_verb_at_its_end():
    question = "Wie werden Aktionen vom Advisory Board initiiert?"
    translations = (("initiiert", ("initiated",)), ("aktionen", ("action",)))
    (_, span), *_ = best_spans(
        question, [(1, "Governance > Advisory Board", ACTIONS)], translations
    )
    assert span.answer.startswith("Action is initiated by creating a ticket")


@pytest.mark.parametrize(
    "question",
    [
        "What was the main action item for Rich Persaud in the call?",
        "Was war der Hauptaktionspunkt für Rich Persaud im Call?",
    ],
)
def test_an_action_item_is_the_action_line_of_the_person_asked_about(question):
    answer = headline(question, MINUTES, "Community Call > Meeting Minutes")
    assert "Rich to file a ticket" in answer


def test_without_an_action_line_for_the_person_no_other_persons_action_is_preferred():
    minutes = MINUTES.rsplit("\n", 1)[0]  # Rich's action left out
    relation = asked_relation(profile_question("What are the action items for Rich Persaud?"))
    assert not states_relation(relation, "* action: Daniel to open a pull request.")
    assert not states_relation(relation, "Rich Persaud: proceeding with the agenda sent earlier.")
    answer = headline(
        "What are the action items for Rich Persaud?", minutes, "Community Call > Minutes"
    )
    assert "Daniel" not in answer


HID = (
    "Every device sends reports. The HID descriptor defines the format of the data the "
    "device will send. It is mandatory, as there's no pre-defined data format in HID."
)


@pytest.mark.parametrize(
    ("question", "translations"),
    [
        ("What does the HID descriptor define?", ()),
        ("Was definiert der HID descriptor?", (("definiert", ("defined", "define")),)),
    ],
)
def test_what_the_subject_defines_not_a_sentence_holding_the_verb_elsewhere(question, translations):
    (_, span), *_ = best_spans(question, [(1, "HID Field Guide", HID)], translations)
    assert span.answer.startswith("The HID descriptor defines the format")


CODES = (
    "Table 1: Name, Description\n"
    "Row 1 in Table 1: Name is DEV_SET, and Description is Events after this event belong to"
    " the device indicated by value."
)
DEV_EVENTS = "These events describe actions relating to the device emitting the remaining events."


@pytest.mark.parametrize(
    ("question", "translations"),
    [
        ("What do events like DEV_SET describe?", ()),
        (
            "Was beschreiben Ereignisse wie DEV_SET?",
            (("beschreiben", ("description", "described")), ("ereignisse", ("events",))),
        ),
    ],
)
def test_a_column_label_states_no_relation(question, translations):
    """The column "Description" beside "Events after ..." does not say that events describe
    anything; the sentence that does answers."""
    sources = [(1, "Mouse protocol — Codes", CODES), (2, "Mouse protocol — DEV_SET", DEV_EVENTS)]
    (_, span), *_ = best_spans(question, sources, translations)
    assert span.answer.startswith("These events describe actions")
