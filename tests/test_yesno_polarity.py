"""Clauses that answer a yes/no question No in the affirmative (`core.yesno_polarity`):
another agent for the asked verb, a closed list that leaves the asked thing out."""

import pytest

from core.questions import profile_question
from core.yesno_polarity import excluded, other_agent

PROPOSED = "Daniel Smith proposed this idea, which has been supported by Christopher Clark."


@pytest.mark.parametrize(
    ("question", "clause", "expected"),
    [
        ("Did Christopher Clark also propose these ideas?", PROPOSED, "Daniel Smith"),
        ("Did Anna Meyer approve the budget?", "Jonas Becker approved the budget.", "Jonas Becker"),
        # the asked agent did it, or the clause names no agent of the verb
        ("Did Daniel Smith propose these ideas?", PROPOSED, ""),
        ("Did Christopher Clark support these ideas?", PROPOSED, ""),
        ("Did Anna Meyer approve the budget?", "The budget was approved in May.", ""),
        # no agent asked about
        ("Was the idea proposed for OpenXT?", PROPOSED, ""),
    ],
)
def test_another_agent_of_the_asked_verb(question, clause, expected):
    assert other_agent(profile_question(question), clause) == expected


def test_a_german_question_reads_its_verb_at_the_end_through_a_translation():
    question = "Hat Christopher Clark diese Ideen auch vorgeschlagen?"
    profile = profile_question(question, (("vorgeschlagen", ("proposed",)),))
    assert other_agent(profile, PROPOSED) == "Daniel Smith"


@pytest.mark.parametrize(
    ("question", "clause", "expected"),
    [
        (
            "Can employees work remotely on Mondays?",
            "Employees may work remotely only on Fridays.",
            True,
        ),
        ("Can employees work remotely?", "Employees may work remotely only on Fridays.", False),
        # the asked thing is in the closed list
        ("May names contain digits?", "Names may contain only letters and digits.", False),
        # no "only": an open statement
        ("May names contain hyphens?", "Names may contain letters and digits.", False),
    ],
)
def test_a_closed_list_that_leaves_out_what_is_asked(question, clause, expected):
    assert excluded(profile_question(question), clause) is expected


def test_read_only_is_no_closed_list():
    clause = "The wiki pages are public and read-only accessible to the general public."
    assert not excluded(profile_question("Can anyone read the wiki pages?"), clause)
