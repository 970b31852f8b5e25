"""How a turn is shown (core/present.py): sources renumbered as cited, labels in the
question's language, and explanations in plain words, on literal inputs."""

from __future__ import annotations

import pytest

from core.attribution import ClusterShare, Explanation
from core.pages import Evidence
from core.present import (
    Named,
    Words,
    labels,
    language_of,
    named_sources,
    plain_explanation,
    plain_text,
    present,
    renumber,
    shown_numbers,
    source_name,
)


@pytest.mark.parametrize(
    ("cited", "expected"),
    [([5, 1, 3], {5: 1, 1: 2, 3: 3}), ([2, 2, 1], {2: 1, 1: 2}), ([], {})],
)
def test_shown_numbers_follow_the_order_of_first_citation(cited, expected):
    assert shown_numbers(cited) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A [5] and B [1].", "A [1] and B [2]."),
        ("Both [1, 5].", "Both [1][2]."),
        ("Range [1-3]", "Range [2][3]"),  # 2 is cited nowhere else: no shown number
        ("Gone [7].", "Gone."),  # a source that does not exist is not shown
        ("x [5]\nRelated: y [3] [7]", "x [1]\nRelated: y [3]"),
        ("No citation.", "No citation."),
    ],
)
def test_renumber(text, expected):
    assert renumber(text, {5: 1, 1: 2, 3: 3}) == expected


def evidence(number: int, text: str, kind: str = "passage", heading: str = "") -> Evidence:
    return Evidence(
        f"e{number}",
        f"p{number}",
        "HR",
        f"https://w.example/{number}",
        f"Page {number}",
        kind,
        number,
        text,
        heading=heading,
    )


def test_present_renumbers_the_answer_and_excerpts_each_cited_source():
    evidences = [
        evidence(1, "Nothing here."),
        evidence(2, "Row 1 in Table 1: City is Munich, and Hotel is €180", "row"),
        evidence(3, "Meals are paid at €28 a day, with receipts. Receipts go to Concur."),
    ]
    shown = present(
        "What are the limits in Munich?",
        "The hotel limit in Munich is €180 [2].\nRelated: Meal allowance: €28 [3].",
        evidences,
    )
    assert shown.answer == "The hotel limit in Munich is €180 [1]."
    assert shown.related == ["Meal allowance: €28 [2]."]
    assert [(s.number, s.prompt_number) for s in shown.sources] == [(1, 2), (2, 3)]
    assert shown.sources[0].excerpt.rows == (("Munich", "€180"),)
    assert shown.sources[0].excerpt.marked == {(0, 1)}  # what the headline says, not Munich
    meals = shown.sources[1].excerpt.pieces
    assert [p.text for p in meals if p.marked] == ["Meals", "€28"]  # from the related line
    assert shown.language == "en" and shown.numbers == {2: 1, 3: 2}


@pytest.mark.parametrize(
    ("question", "language", "sources"),
    [
        ("What is the hotel limit in Munich?", "en", "Sources"),
        ("Wie hoch ist das Hotellimit in München?", "de", "Quellen"),
        ("Und in Berlin? (context: hotel, limit, Munich, what, the)", "de", "Quellen"),
    ],
)
def test_labels_follow_the_question_language(question, language, sources):
    assert language_of(question) == language
    assert labels(language)["sources"] == sources


def test_every_language_has_every_label():
    assert set(labels("de")) == set(labels("en"))
    assert labels("fr") == labels("en")


@pytest.mark.parametrize(
    ("title", "heading", "expected"),
    [
        (
            "Travel Policy",
            "Expenses > Hotel and meal limits",
            "Hotel and meal limits (Travel Policy)",
        ),
        ("Travel Policy", "", "Travel Policy"),
        ("Measurement Test", "Test table > Legacy:", "Legacy (Measurement Test)"),
        ("Travel Policy", "Travel Policy", "Travel Policy"),
    ],
)
def test_source_name(title, heading, expected):
    assert source_name(title, heading) == expected


TRACE = [
    {"id": "e1", "title": "Travel Policy", "url": "https://w.example/1"},
    {"id": "e2", "title": "Travel Policy", "url": "https://w.example/1"},
    {"id": "e3", "title": "Offices", "url": "https://w.example/3"},
]
HEADINGS = {"e1": "Hotel and meal limits", "e2": "Per diem"}


def test_named_sources_number_the_cited_ones_as_shown():
    named = named_sources("Per diem [2] and hotel [1].", TRACE, HEADINGS)
    assert named == [
        Named(2, "Hotel and meal limits (Travel Policy)", "https://w.example/1"),
        Named(1, "Per diem (Travel Policy)", "https://w.example/1"),
        Named(None, "Offices", "https://w.example/3"),
    ]


def explained(*clusters: tuple[list[int], float], method: str = "counterfactual") -> Explanation:
    shares = [
        ClusterShare(i, numbers, [f"e{n}" for n in numbers], share, share)
        for i, (numbers, share) in enumerate(clusters, start=1)
    ]
    return Explanation(method, "q", "a", sorted(shares, key=lambda c: -c.share))


@pytest.mark.parametrize(
    ("answer", "explanation", "language", "expected"),
    [
        (
            "Hotel [1] and per diem [2].",
            explained(([1], 0.81), ([2], 0.19), ([3], 0.0)),
            "en",
            "Hotel and meal limits (Travel Policy) [1] shaped 81% of this answer."
            " Per diem (Travel Policy) [2] shaped 19%.",
        ),
        (
            "Hotel [1] und Tagegeld [2].",
            explained(([1], 0.81), ([2], 0.19), ([3], 0.0)),
            "de",
            "Hotel and meal limits (Travel Policy) [1] hat 81 % dieser Antwort bestimmt."
            " Per diem (Travel Policy) [2] hat 19 % bestimmt.",
        ),
        (
            "Hotel [1] and per diem [2].",
            explained(([1, 2], 0.7), ([3], 0.3)),
            "en",
            "Hotel and meal limits (Travel Policy) [1] and Per diem (Travel Policy) [2] shaped"
            " 70% of this answer. Passages the answer does not cite shaped 30%.",
        ),
        (
            "Hotel [1].",
            explained(([1], 1.0), ([2], 0.0), ([3], 0.0)),
            "en",
            "This answer came from one source: Hotel and meal limits (Travel Policy) [1].",
        ),
        (
            "Hotel [1].",
            explained(([1], 1.0), ([2], 0.0), ([3], 0.0)),
            "de",
            "Diese Antwort stammt aus einer Quelle: Hotel and meal limits (Travel Policy) [1].",
        ),
        (
            "Hotel [1].",
            explained(([1], 0.6), ([3], 0.4)),
            "en",
            "This answer came from one source: Hotel and meal limits (Travel Policy) [1]."
            " It shaped 60% of the answer; passages it does not cite shaped the rest.",
        ),
        (
            "Hotel [1] and per diem [2].",
            explained(([1], 0.0), ([2], 0.0)),
            "en",
            "Leaving out any one source did not change this answer, so no source stands out.",
        ),
        (
            "Nothing cited.",
            explained(([1], 0.0), method="citation"),
            "de",
            "Die Antwort zitiert keine Quelle.",
        ),
    ],
)
def test_plain_explanation(answer, explanation, language, expected):
    named = named_sources(answer, TRACE, HEADINGS)
    assert plain_text(plain_explanation(explanation, named, language)) == expected


def test_plain_explanation_links_only_shown_sources():
    named = named_sources("Hotel [1] and per diem [2].", TRACE, HEADINGS)
    sentences = plain_explanation(explained(([3], 0.6), ([1], 0.4)), named, "en")
    linked = {n for sentence in sentences for words in sentence for n in words.sources}
    assert linked == {1}
    assert sentences[0] == [
        Words("Hotel and meal limits (Travel Policy)", (1,)),
        Words(" shaped 40% of this answer."),
    ]
    assert "Offices" not in plain_text(sentences)
