"""A follow-up asking the same count of another kind of things (`core.count_followup`), and
the offline completer showing it as a whole question (`core.rephrase`)."""

import pytest

from core.count_followup import recounted
from core.rephrase import Exchange, OfflineCompleter


@pytest.mark.parametrize(
    ("question", "anchor", "language", "expected"),
    [
        (
            "and how many optional ones?",
            "How many compulsory fields should an RFC have?",
            "en",
            "How many optional fields should an RFC have?",
        ),
        (
            "And how many senior ones?",
            "How many junior engineers are in the SRE team?",
            "en",
            "How many senior engineers are in the SRE team?",
        ),
        (
            "und wie viele optionale?",
            "Wie viele Pflichtfelder sollte ein RFC haben?",
            "de",
            "Wie viele optionale Felder sollte ein RFC haben?",
        ),
        (
            "Und wie viele optionale?",
            "Wie viele verpflichtende Felder sollte ein RFC haben?",
            "de",
            "Wie viele optionale Felder sollte ein RFC haben?",
        ),
    ],
)
def test_the_new_kind_replaces_the_counted_nouns_modifier(question, anchor, language, expected):
    assert recounted(question, anchor, language) == expected


@pytest.mark.parametrize(
    ("question", "anchor", "language"),
    [
        ("and how many failed?", "How many tests passed in rc1?", "en"),  # a verb, no "ones"
        ("and how many optional ones?", "How many tests passed in rc1?", "en"),  # no kind
        ("und wie viele fehlgeschlagene?", "Wie viele Tests bestanden in rc1?", "de"),
        ("and who leads it?", "How many compulsory fields should an RFC have?", "en"),
        ("and how many optional ones?", "Who leads the SRE team?", "en"),  # counts nothing
    ],
)
def test_other_follow_ups_are_no_recount(question, anchor, language):
    assert recounted(question, anchor, language) is None


def test_the_completer_shows_the_recounted_question_and_asks_it_alone():
    history = [
        Exchange(
            "How many compulsory fields should an RFC have?",
            "How many compulsory fields should an RFC have?",
            "4 compulsory fields: Title, Date, Abstract and Body [1]",
            topic_start=True,
        )
    ]
    completion = OfflineCompleter().complete("and how many optional ones?", history)
    assert completion.question == "How many optional fields should an RFC have?"
    assert completion.notes["recounted"] is True
    # the replaced kind is not carried into the answer prompt or the query
    assert "compulsory" not in completion.prompt and "compulsory" not in completion.query
    assert "optional" in completion.query and "RFC" in completion.query
