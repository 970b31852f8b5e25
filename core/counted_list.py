"""The list a "how many" question counts, on the page the question is about.

"How many people attended?" after two questions about a call's dial-in number is answered
by counting the call page's "Attendees" list (`core.list_counts.counts_list`: a list of
persons' names counts people). Retrieval finds the page by the words the follow-up carries
("Community Call July 23 2015") and returns its dial-in passage and agenda; the list shares
no word with the question ("attended" is not "Attendees" to the stemmer) and is not among
them. So when a question counts things (`core.list_counts.counted_noun`) and no retrieved
evidence is a list of those things, the page ranked first is read from the store and its
first such list is added after the retrieved evidences (as `core.page_byline` adds the
byline), for the answerer to count.

A list here is an evidence of at least `MIN_ITEMS` lines (list markers dropped) that counts
the noun: every line opens with a person's name for a count of people, or its heading
names the counted noun.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.list_counts import counted_noun, counts_list
from core.pages import Evidence
from core.questions import QuestionProfile, profile_question, terms
from core.spans import counts_items
from core.whole_tables import PageEvidences

# Lines a list has at least (set by design: one line is a sentence, not a list to count).
MIN_ITEMS = 2
# A list marker opening a line: "- ", "* ", "• ", "1. ", "2) ".
_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def list_items(text: str) -> list[str]:
    """The lines of an evidence's text, list markers dropped, blank lines left out."""
    return [_MARKER.sub("", line).strip() for line in text.splitlines() if line.strip()]


def counts_asked(profile: QuestionProfile, evidence: Evidence) -> bool:
    """Whether an evidence is a list of the things `profile`'s question counts."""
    items = list_items(evidence.text)
    if len(items) < MIN_ITEMS:
        return False
    return counts_list(profile, frozenset(terms(evidence.heading)), items)


def counted_list(
    question: str, evidences: Sequence[Evidence], store: PageEvidences
) -> list[Evidence]:
    """The list evidence to add to `evidences` for `question` (at most one): the first of
    the page ranked first that counts what the question counts, when the question counts
    things and no evidence given is such a list; none otherwise."""
    if not evidences or not counts_items(question, ""):
        return []
    profile = profile_question(question)
    if not counted_noun(question, profile.language):
        return []
    if any(counts_asked(profile, e) for e in evidences):
        return []
    page = store.get(store.page_evidence_ids(evidences[0].page_id))
    return [e for e in page if counts_asked(profile, e)][:1]
