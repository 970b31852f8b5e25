"""Who commented on a page and how many people did (`core.commenters`), English and German,
from comments as the connector heads them and as an export flattens them."""

from __future__ import annotations

import pytest

from core.commenters import commenters
from tests.test_extractive import ask, ev

EXPORTED = (
    "Install notes for the lab machines.\n"
    "Author: Dana Weber Date: 2024-03-01T10:00:00.000Z Comment: Could we add the BIOS"
    " settings?\n"
    "Author: Tom Okafor Date: 2024-03-02T09:12:00.000Z Comment: Added them below.\n"
    "Author: Dana Weber Date: 2024-03-02T11:40:00.000Z Comment: Thanks, looks good."
)


def exported(number: int = 1):
    return (number, "Lab install guide — Comments", EXPORTED)


def headed(number: int, author: str, day: str):
    return (number, f"Lab install guide — Comments > Comment by {author} on {day}", "Looks good.")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How many people commented on the lab install guide? Who?",
            "2 people commented on Lab install guide: Dana Weber and Tom Okafor [1].",
        ),
        (
            "Wie viele Personen haben die Lab install guide kommentiert? Wer?",
            "2 Personen haben Lab install guide kommentiert: Dana Weber und Tom Okafor [1].",
        ),
        (
            "Who commented on the lab install guide?",
            "2 people commented on Lab install guide: Dana Weber and Tom Okafor [1].",
        ),
    ],
)
def test_the_authors_of_a_pages_comments_are_counted_and_named(question, expected):
    assert commenters(question, [exported()]) == expected


def test_comments_headed_by_the_connector_are_read_across_sources():
    sources = [headed(2, "Ana Lima", "2025-01-04"), headed(5, "Ben Roy", "2025-01-06")]
    said = commenters("Who commented on the lab install guide?", sources)
    assert said == "2 people commented on Lab install guide: Ana Lima and Ben Roy [2][5]."


def test_other_questions_and_pages_without_comments_are_left_alone():
    assert commenters("How many machines are in the lab?", [exported()]) is None
    plain = (1, "Lab install guide — Steps", "Boot the installer. Who to ask: Dana.")
    assert commenters("Who commented on the lab install guide?", [plain]) is None


def test_the_offline_answer_counts_commenters_instead_of_showing_one_comment():
    page = ev(1, EXPORTED, "Lab install guide", "Comments")
    text = ask("How many people commented on the lab install guide? Who?", evidences=[page])
    assert text == "2 people commented on Lab install guide: Dana Weber and Tom Okafor [1]."
