"""The parts of a page a question needs, read once (`core.page_parts`)."""

from __future__ import annotations

from core.page_parts import page_parts
from tests.fakes.page_store import PageStore, page_evidence

TITLE = "OpenXT 8.0 Measurement test"
ROW = "Row 5 in Table 1: Build is 1607, Platform is Dell Latitude E7490, and Upgrade is Pass"
COMMENTS = (
    "Author: Rich Persaud Date: 2018-07-31T00:54:53.585Z Comment: Could this page be moved?\n"
    "Author: Eric Chanudet Date: 2018-07-31T15:44:03.579Z Comment: OK, amends can be made."
)
RESULTS = page_evidence(1, ROW, title=TITLE, heading="Test table")
COMMENTED = page_evidence(2, COMMENTS, title=TITLE, heading="Comments")


def test_a_question_needing_two_parts_of_a_page_reads_the_page_once():
    store = PageStore(RESULTS, COMMENTED)
    question = "How many people commented on these results? Who?"
    assert page_parts(question, [RESULTS], store) == [COMMENTED]
    assert store.reads == 1  # the count's list and the comments: one read of the page


def test_no_read_for_a_question_that_needs_no_part():
    store = PageStore(RESULTS, COMMENTED)
    assert page_parts("Which platform had build 1607?", [RESULTS], store) == []
    assert store.reads == 0
