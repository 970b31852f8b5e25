"""A question's own subject against the current topic's texts (`core.new_subject`)."""

from __future__ import annotations

import pytest

from core.new_subject import aside, codes, says_all, unseen_subject

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
    ("question", "language", "expected"),
    [
        # "zu Hause" is home (glossary), as the English twin says it
        ("Darf ich freitags von zu Hause arbeiten?", "de", ["Hause"]),
        ("Can I work from home on Fridays?", "en", ["home"]),
    ],
)
def test_home_is_a_subject_the_upgrade_topic_never_says(question, language, expected):
    upgrades = ["OTA upgrades in OpenXT", "How do OTA upgrades work in OpenXT?"]
    assert unseen_subject(question, language, upgrades, "Christopher Clark's Home") == expected


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


def test_a_german_compound_is_new_when_the_topic_says_only_one_of_its_parts():
    # Urlaubstage: leave days; the travel thread says "day", only the found page says leave
    travel = [
        "Travel and Expense Policy",
        "Row 3 in Table 1: City is Amsterdam, Hotel per night is €190, and Meals per day is €40",
        "What's the hotel limit in Amsterdam? The Hotel per night for Amsterdam is €190",
    ]
    question = "Wie viele Urlaubstage gibt es in Deutschland?"
    assert unseen_subject(question, "de", travel, LEAVE_PAGE) == ["Urlaubstage"]
    # the English twin names "annual leave" the same way
    english = "How many days of annual leave do we get in Germany?"
    assert unseen_subject(english, "en", travel, LEAVE_PAGE) == ["annual", "leave"]


CALL = [
    "Community Call - July 23 2015",
    "Attendees: Eric Chanudet - AIS, Earl Wong - BAH, Rich Persaud - Personal",
    "What was the dial-in number for the meeting on 23.7.15? Dial-in number: 857-216-2410",
]
TEAM_PAGE = "Proc1: OpenXT Project Process and Workflow Review team"


@pytest.mark.parametrize(
    ("question", "language"),
    [
        # a code the topic says: the question is about the topic's thing
        ("How many were from the AIS team?", "en"),
        ("Wie viele Personen aus dem AIS-Team?", "de"),
        # a code neither the topic nor the found page's title says: the title's "team"
        # does not say what is asked
        ("How many were from the XYZ team?", "en"),
        ("Wie viele Personen aus dem XYZ-Team?", "de"),
    ],
)
def test_no_own_subject_when_a_code_it_names_is_not_the_found_pages(question, language):
    assert unseen_subject(question, language, CALL, TEAM_PAGE) == []


@pytest.mark.parametrize(
    ("question", "language", "expected"),
    [
        ("How many people are in the review team?", "en", ["review", "team"]),
        # a code the found page's title names too: its own subject still
        ("Who is in the Review team of Proc1?", "en", ["Review", "team", "Proc1"]),
    ],
)
def test_own_subject_without_codes_or_with_the_found_pages(question, language, expected):
    assert unseen_subject(question, language, CALL, TEAM_PAGE) == expected


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["AIS-Team", "USB", "rc1", "OXT-1583"], ["AIS", "USB", "rc1", "OXT"]),
        (["team", "Urlaubstage", "Germany", "7060", "A"], []),
    ],
)
def test_codes(words, expected):
    assert codes(words) == expected


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


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("By the way, what is TBOOT?", "What is TBOOT?"),
        ("btw: who owns the wiki?", "Who owns the wiki?"),
        ("Another question: what is the meal limit?", "What is the meal limit?"),
        ("Übrigens, was ist TBOOT eigentlich?", "Was ist TBOOT eigentlich?"),
        ("Apropos, wer leitet das Payments-Team?", "Wer leitet das Payments-Team?"),
        # no aside: it points back, it is elliptical, or the words are no opening
        ("By the way, who approved it?", ""),
        ("btw, and in week 3?", ""),
        ("What is the way to go?", ""),
        ("Also, what is the meal limit?", ""),
    ],
)
def test_an_aside_is_the_question_without_its_opening(question, expected):
    assert aside(question) == expected


@pytest.mark.parametrize(
    ("question", "language", "expected"),
    [
        ("and how many days can I carry over?", "en", True),
        ("And how is the bonus calculated?", "en", False),  # "bonus" is not said
        ("und wie viele Tage kann ich übertragen?", "de", True),  # by the glossary's words
    ],
)
def test_a_text_that_says_all_a_question_asks(question, language, expected):
    text = "Up to 5 unused days can be carried over into the next year. Costs are calculated."
    assert says_all(question, language, text) is expected
