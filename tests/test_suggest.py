"""Offline follow-up suggestions (core.suggest) on small literal pages: each kind of
question (neighbouring row, other column, other item, untouched section), their wording by
language and value type, no repeats across turns, and the in-scope filter."""

import pytest

from core.pages import Evidence
from core.retrieve import ScoredEvidence
from core.suggest import MAX_CHECKS, Candidate, candidates, in_scope, suggest


def _evidence(n: int, title: str, heading: str, text: str, kind: str = "passage") -> Evidence:
    return Evidence(
        id=f"p1-{n}",
        page_id="p1",
        space="ENG",
        url="http://127.0.0.1/p1",
        title=title,
        kind=kind,
        position=n,
        text=text,
        heading=heading,
    )


def _rows(title: str, heading: str, table: list[list[str]], first: int = 0) -> list[Evidence]:
    """One row evidence per data row of `table` (its first list is the header), verbalized
    as the contextualizer writes them."""
    header, *body = table
    out = []
    for number, cells in enumerate(body, 1):
        pairs = [f"{name} is {value}" for name, value in zip(header, cells, strict=True)]
        text = f"Row {number} in Table 1: {', '.join(pairs[:-1])}, and {pairs[-1]}"
        out.append(_evidence(first + number, title, heading, text, kind="row"))
    return out


ONCALL = [
    _evidence(0, "On-Call Rotation", "How the rotation works", "Shifts are one week long."),
    *_rows(
        "On-Call Rotation",
        "October rotation",
        [
            ["Week", "Team", "On-call / Primary", "On-call / Secondary"],
            ["Week 1", "Payments", "Chloe Whitfield", "Emre Yilmaz"],
            ["Week 1", "Robot Firmware", "Lena Hoffmann", "Tom Okafor"],
            ["Week 2", "Payments", "Emre Yilmaz", "Sophie Brandt"],
            ["Week 2", "Robot Firmware", "Tom Okafor", "Lena Hoffmann"],
            ["Week 3", "Payments", "Sophie Brandt", "Chloe Whitfield"],
            ["Week 3", "Robot Firmware", "Aisha Mensah", "Daniel Kraus"],
        ],
    ),
    _evidence(
        7, "On-Call Rotation", "Escalation policy", "The escalation policy pages the primary first."
    ),
]

HOTELS = [
    _evidence(0, "Travel Policy", "Approvals", "Every trip needs approval."),
    *_rows(
        "Travel Policy",
        "Hotel and meal limits",
        [
            ["City", "Country", "Hotel per night", "Meals per day"],
            ["Berlin", "Germany", "€150", "€28"],
            ["Amsterdam", "Netherlands", "€190", "€40"],
            ["Bristol", "United Kingdom", "£130", "£35"],
        ],
    ),
]

RELEASES = _rows(
    "Release Process",
    "Release calendar",
    [
        ["Version", "Code freeze", "Production release", "Release manager"],
        ["2.5.0", "2026-10-08", "2026-10-13", "Marco Rossi"],
        ["2.5.1", "2026-10-22", "2026-10-27", "Felix Wagner"],
    ],
)

TESTS = _rows(
    "OpenXT 9.0 Measurement Test",
    "Results",
    [
        ["Machine", "BIOS", "TPM", "Result"],
        ["Dell Optiplex 7040", "1.14.0", "2.0", "Pass"],
        ["Dell Optiplex 7050", "1.9.4", "2.0", "Fail"],
    ],
)

VPN = [
    _evidence(0, "VPN Setup", "When do I need to connect?", "For staging and Grafana."),
    _evidence(
        1,
        "VPN Setup",
        "VPN endpoints",
        "- Berlin: vpn-ber.example, UDP port 51820\n- Bristol: vpn-brs.example, UDP port 51820"
        "\n- Fallback: vpn-fallback.example, TCP port 443",
        kind="list",
    ),
    _evidence(2, "VPN Setup", "Checklist", "1. Pick up your laptop.\n2. Enrol it.", kind="list"),
]


def _questions(question, page, earlier=()):
    return [c.question for c in candidates(question, page, earlier)]


@pytest.mark.parametrize(
    ("question", "page", "expected"),
    [
        # The next row that differs in one named key cell, by changing the words that differ.
        (
            "Who is the secondary on-call for the Payments team in week 2?",
            ONCALL,
            "Who is the secondary on-call for the Payments team in week 3?",
        ),
        # The other column of the same row: its name's differing word, in the question's case.
        (
            "Who is the secondary on-call for the Payments team in week 2?",
            ONCALL,
            "Who is the primary on-call for the Payments team in week 2?",
        ),
        # Another row's value of the asked column: the other key cell changed.
        (
            "Who is the secondary on-call for the Payments team in week 2?",
            ONCALL,
            "Who is the secondary on-call for the Robot Firmware team in week 2?",
        ),
        # The last row: the neighbour is the previous one.
        (
            "Who is the primary on-call for the Payments team in week 3?",
            ONCALL,
            "Who is the primary on-call for the Payments team in week 2?",
        ),
        ("What's the hotel limit in Amsterdam?", HOTELS, "What's the hotel limit in Bristol?"),
        # A column the question cannot be changed into: the generic question, worded by the
        # value's type (an amount asks "how much").
        (
            "What's the hotel limit in Amsterdam?",
            HOTELS,
            "How much is the Meals per day for Amsterdam?",
        ),
        ("When is the code freeze for 2.5.0?", RELEASES, "When is the code freeze for 2.5.1?"),
        (
            "When is the code freeze for 2.5.0?",
            RELEASES,
            "When is the production release for 2.5.0?",
        ),
        ("When is the code freeze for 2.5.0?", RELEASES, "Who is the Release manager for 2.5.0?"),
        # Test results: the machine named in part, the page title kept when the question named it.
        (
            "Which BIOS did the Dell 7040 use in the OpenXT 9.0 measurement test?",
            TESTS,
            "Which BIOS did the Dell 7050 use in the OpenXT 9.0 measurement test?",
        ),
        (
            "Which BIOS did the Dell 7040 use in the OpenXT 9.0 measurement test?",
            TESTS,
            "What is the TPM for Dell Optiplex 7040 in OpenXT 9.0 Measurement Test?",
        ),
        # A verdict the question names ("pass") does not name the row: the machine does.
        (
            "Did the Dell 7040 pass in the OpenXT 9.0 measurement test?",
            TESTS,
            "Did the Dell 7050 pass in the OpenXT 9.0 measurement test?",
        ),
        # A list of `label: text` items: the next item's label.
        (
            "Which VPN endpoint should I use in Berlin?",
            VPN,
            "Which VPN endpoint should I use in Bristol?",
        ),
        # Sections the question did not touch: a heading that is a question is asked as is.
        ("Which VPN endpoint should I use in Berlin?", VPN, "When do I need to connect?"),
        ("Which VPN endpoint should I use in Berlin?", VPN, "What is the Checklist in VPN Setup?"),
        (
            "Who is the secondary on-call for the Payments team in week 2?",
            ONCALL,
            "What is the Escalation policy in On-Call Rotation?",
        ),
        (
            "What's the hotel limit in Amsterdam?",
            HOTELS,
            "What are the Approvals in Travel Policy?",
        ),
    ],
)
def test_each_kind_of_follow_up(question, page, expected):
    assert expected in _questions(question, page)


def test_a_verdict_is_no_key_and_a_word_like_may_no_date():
    found = _questions("Did the Dell 7040 pass in the OpenXT 9.0 measurement test?", TESTS)
    assert not any("and Pass" in q for q in found)
    page = _rows(
        "Spec", "Events", [["Code", "Description"], ["DEV_SET", "You may send it 2 times"]]
    )
    assert "What is the Description for DEV_SET?" in _questions("What is the Code DEV_SET?", page)


def test_suggestions_take_each_kind_in_turn_and_skip_the_asked_fact():
    found = _questions("Who is the secondary on-call for the Payments team in week 2?", ONCALL)
    assert found[:3] == [
        "Who is the secondary on-call for the Payments team in week 3?",  # next row
        "Who is the primary on-call for the Payments team in week 2?",  # other column
        "Who is the secondary on-call for the Robot Firmware team in week 2?",  # other key
    ]
    assert "Who is the secondary on-call for the Payments team in week 2?" not in found
    assert not any("How the rotation works" in q for q in found)  # no question of a heading


@pytest.mark.parametrize(
    ("question", "page", "expected"),
    [
        # A German question keeps its own words; only the differing value changes.
        (
            "Wer hat in Woche 2 die Zweitbereitschaft für das Payments-Team?",
            ONCALL,
            "Wer hat in Woche 3 die Zweitbereitschaft für das Payments-Team?",
        ),
        (
            "Wie hoch ist das Hotellimit in Amsterdam?",
            HOTELS,
            "Wie hoch ist das Hotellimit in Bristol?",
        ),
        (
            "Wie hoch ist das Hotellimit in Amsterdam?",
            HOTELS,
            "Wie hoch ist Meals per day für Amsterdam?",
        ),
        ("Wann ist der Code freeze für 2.5.0?", RELEASES, "Wer ist Release manager für 2.5.0?"),
        (
            "Wann ist der Code freeze für 2.5.0?",
            RELEASES,
            "Wann ist der Production release für 2.5.0?",
        ),
        (
            "Welchen VPN-Endpunkt nutze ich in Berlin?",
            VPN,
            "Welchen VPN-Endpunkt nutze ich in Bristol?",
        ),
        (
            "Wie hoch ist das Hotellimit in Amsterdam?",
            HOTELS,
            "Was gilt für Approvals in Travel Policy?",
        ),
    ],
)
def test_german_questions_get_german_follow_ups(question, page, expected):
    found = _questions(question, page)
    assert expected in found
    assert not any(q.startswith(("What", "Who", "When", "How")) for q in found)


@pytest.mark.parametrize("question", ["Was bedeutet TBOOT?", "Gibt es eine Checkliste?"])
def test_a_short_german_question_gets_german_follow_ups(question):
    """Its function words do not say German ("was" is English as well): its opening does."""
    assert _questions(question, VPN)[:1] == ["Was gilt für VPN endpoints?"]


def test_an_elliptical_question_gets_self_contained_follow_ups():
    """ "and in week 2?" (with or without carried context) is no question to change a value
    in: the follow-ups name the row by its key cells instead."""
    for question in (
        "and for Payments in week 2?",
        "and for Payments in week 2? (context: secondary)",
    ):
        found = _questions(question, ONCALL)
        assert "What is the On-call / Secondary for Week 3 and Payments?" not in found  # who
        assert "Who is the On-call / Primary for Week 2 and Payments?" in found
        assert not any(q.lower().startswith("and") for q in found)
    german = _questions("und für Payments in Woche 2?", ONCALL)
    assert "Wer ist On-call / Primary für Week 2 und Payments?" in german


def test_a_question_on_no_row_of_the_page_gets_its_untouched_sections():
    assert _questions("What does the rotation look like?", ONCALL) == [
        "What is the Escalation policy in On-Call Rotation?"
    ]
    assert _questions("How are incidents escalated?", ONCALL) == ["What is the October rotation?"]


@pytest.mark.parametrize(
    ("heading", "english", "german"),
    [
        (
            "Hotel and meal limits",
            "What are the Hotel and meal limits?",
            "Was gilt für Hotel and meal limits?",
        ),
        ("Our offices", "What are our offices in Policy?", "Was gilt für Our offices in Policy?"),
        (
            "Compensation",
            "What is the Compensation in Policy?",
            "Was gilt für Compensation in Policy?",
        ),
        (
            "Submitting expenses",
            "How does submitting expenses work?",
            "Wie funktioniert Submitting expenses?",
        ),
        ("What is not reimbursed", "What is not reimbursed?", None),
        ("Wann muss ich zahlen?", None, "Wann muss ich zahlen?"),
        ("Before you travel", None, None),
        ("nw-ber.conf", None, None),
    ],
)
def test_section_wording(heading, english, german):
    page = [
        _evidence(0, "Policy", "Scope", "It applies to all."),
        _evidence(1, "Policy", heading, "x"),
    ]
    assert [q for q in _questions("Who does it apply to?", page) if "Scope" not in q] == (
        [english] if english else []
    )
    assert [q for q in _questions("Für wen gilt es?", page) if "Scope" not in q] == (
        [german] if german else []
    )


def test_no_repeats_across_turns():
    """What the conversation asked or was offered before is not suggested again."""
    first = "Who is the secondary on-call for the Payments team in week 2?"
    offered = _questions(first, ONCALL)[:3]
    clicked = offered[1]  # "Who is the primary on-call for the Payments team in week 2?"
    found = _questions(clicked, ONCALL, [first, *offered])
    assert found and not set(found) & {first, *offered}
    # The first question's fact, asked in other words, is not offered back either.
    assert "Who is the secondary on-call for the Payments team in week 2?" not in found
    assert found[0] == "Who is the primary on-call for the Payments team in week 3?"
    # Facts asked earlier in other words count as asked.
    earlier = ["who's on secondary for payments, week 3?"]
    assert "Who is the secondary on-call for the Payments team in week 3?" not in _questions(
        first, ONCALL, earlier
    )


def _search_over(evidences):
    """A search that returns every evidence, those sharing most words with the query first
    (the filter then decides by rank and support)."""

    def search(text):
        words = set(text.lower().strip("?").split())
        ranked = sorted(evidences, key=lambda e: -len(words & set(e.text.lower().split())))
        return [ScoredEvidence(e, 1.0, i + 1) for i, e in enumerate(ranked)]

    return search


def test_in_scope_needs_the_asked_row_and_supporting_evidence():
    row = ONCALL[5]  # week 3, Payments
    week3 = Candidate(
        "Who is the secondary on-call for the Payments team in week 3?",
        "October rotation",
        row.text,
        page_id="p1",
    )
    assert in_scope(week3, _search_over([row]), 0.3)
    assert not in_scope(week3, _search_over(ONCALL[1:3]), 0.0)  # the row is not found
    assert not in_scope(week3, lambda text: [], 0.0)
    assert not in_scope(Candidate("What is on the canteen menu?"), _search_over(ONCALL), 0.1)


def test_in_scope_needs_the_answer_from_the_suggestions_page():
    """A section found, but another page answers the question better: not in scope (the
    answer would cite that page)."""
    other = Evidence(
        id="p2-0",
        page_id="p2",
        space="ENG",
        url="http://127.0.0.1/p2",
        title="Incident Template",
        kind="passage",
        position=0,
        text="The escalation policy is a set of rules: page the primary, then the manager.",
        heading="Escalation policy",
    )
    section = Candidate("What is the Escalation policy?", "Escalation policy", page_id="p1")
    assert in_scope(section, _search_over([ONCALL[7]]), 0.1)
    assert not in_scope(section, _search_over([other, ONCALL[7]]), 0.1)


def test_a_free_text_question_is_in_scope_when_a_result_supports_it():
    search = _search_over(RELEASES)
    assert in_scope(Candidate("When is the code freeze of 2.5.1?"), search, 0.3)
    assert not in_scope(Candidate("What is on the canteen menu?"), search, 0.1)
    assert not in_scope(Candidate("When is the code freeze of 2.5.1?"), lambda t: [], 0.0)


def test_suggest_keeps_three_in_scope_ones():
    question = "Who is the secondary on-call for the Payments team in week 2?"
    kept = suggest(question, ONCALL, _search_over(ONCALL[5:6]), 0.3)
    assert kept == ["Who is the secondary on-call for the Payments team in week 3?"]
    assert len(suggest(question, ONCALL, _search_over(ONCALL), 0)) == 3


def test_a_page_of_many_sections_costs_a_bounded_number_of_searches():
    page = [_evidence(n, "Handbook", f"Topic{n}", f"Text {n}.") for n in range(40)]
    searches = []

    def search(text):
        searches.append(text)
        return []  # nothing in scope

    assert suggest("What is the handbook?", page, search, 0.3) == []
    assert len(searches) == MAX_CHECKS
