"""A question's own subject against the current topic's texts (`core.new_subject`)."""

from __future__ import annotations

import pytest

from core.new_subject import unseen_subject

ROTATION = [
    "On-Call Rotation and Escalation",
    "Row 4 in Table 1: Week is Week 2, Team is Payments, On-call / Primary is Lena Hoffmann,"
    " and On-call / Secondary is Sophie Brandt",
    "Row 1 in Table 2: Role is Secondary, Germany (per week) is €120, and United Kingdom"
    " (per week) is £100",
    "Who is the secondary on-call for the Payments team in week 2? Sophie Brandt",
]
LEAVE_PAGE = "Offices and Public Holidays Annual leave"


@pytest.mark.parametrize(
    ("question", "language", "expected"),
    [
        # German through the glossary (Urlaubstage: leave days); Germany the topic says
        ("Wie viele Urlaubstage gibt es in Deutschland?", "de", ["Urlaubstage"]),
        ("How many days of annual leave do we get in Germany?", "en", ["annual", "leave"]),
    ],
)
def test_a_subject_the_topic_never_says_and_the_found_page_names(question, language, expected):
    assert unseen_subject(question, language, ROTATION, LEAVE_PAGE) == expected


@pytest.mark.parametrize(
    ("question", "language"),
    [
        # words the topic says, "secondaries" by its stem
        ("How much do secondaries get per week in Germany?", "en"),
        ("Wie viel bekommt der Secondary pro Woche in Deutschland?", "de"),
        # a word the found page does not name either (a typo, a near-topic word)
        ("How many weeks of parental leeve are there?", "en"),
    ],
)
def test_no_own_subject_when_the_topic_says_it_or_the_found_page_does_not(question, language):
    assert unseen_subject(question, language, ROTATION, LEAVE_PAGE) == []


def test_a_word_is_said_by_a_longer_stem_it_starts():
    meeting = ["Community Call — Attendees: Phil White, Kyle Temkin"]
    assert unseen_subject("Who attended?", "en", meeting, "Attendance policy") == []


@pytest.mark.parametrize(
    ("question", "language"),
    [("How many were from the AIS team?", "en"), ("Wie viele waren aus dem AIS team?", "de")],
)
def test_the_kind_word_after_a_name_the_topic_says_is_no_new_subject(question, language):
    """ "team" names a heading elsewhere ("GitHub Teams and Roles"), but it only says what AIS,
    which the topic's attendee list says, is."""
    meeting = ["Community Call — Attendees: Phil White - AIS, Kyle Temkin - AIS"]
    assert unseen_subject(question, language, meeting, "Process — GitHub Teams and Roles") == []
    other = "How many were from the Xen team?"
    assert unseen_subject(other, "en", meeting, "Process — GitHub Teams and Roles") == ["team"]
