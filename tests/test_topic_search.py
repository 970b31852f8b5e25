"""A follow-up searched within its topic's pages (core.topic_search), English and German."""

from core.lexical import tokenize
from core.pages import Evidence
from core.retrieve import ScoredEvidence
from core.topic_search import Focus, within_topic


def _result(page: str, position: int, text: str) -> ScoredEvidence:
    evidence = Evidence(
        id=f"{page}#{position:04d}",
        page_id=page,
        space="S",
        url=f"https://wiki/{page}",
        title=page,
        kind="passage",
        position=position,
        text=text,
        contextualized=text,
    )
    return ScoredEvidence(evidence=evidence, score=1.0, rank=position + 1)


def _search(found: list[ScoredEvidence], language: str = "en"):
    asked: list[str] = []

    def search(query: str, k: int):
        asked.append(query)
        return found[:k], tokenize(query, language), language

    return search, asked


MINUTES = [
    _result("minutes", 0, "Attendees: Rich, Eric, Kevin. Dial-in number 1-800-555 PIN 86838."),
    _result("minutes", 1, "Action items: Rich to write the RFC for code contributions."),
]
SCHEDULE = _result("charter", 0, "Monthly calls on the third Thursday, dial-in number below.")


def test_topic_evidence_holding_the_follow_ups_words_goes_first():
    search, asked = _search([SCHEDULE, MINUTES[1], MINUTES[0]])
    focus = Focus("Action item for Rich?", ("minutes",))
    merged, note = within_topic(focus, [SCHEDULE, MINUTES[0]], search)
    assert asked == ["Action item for Rich?"]
    assert [r.evidence.id for r in merged] == ["minutes#0001", "minutes#0000"]
    assert note["focus"] == "topic"
    assert [r.rank for r in merged] == [1, 2]


def test_open_search_kept_when_the_topic_pages_lack_the_follow_ups_words():
    other = _result("holidays", 0, "Public holidays in Germany: German Unity Day.")
    search, _ = _search([other, MINUTES[0]])
    results = [other, MINUTES[0]]
    merged, note = within_topic(Focus("Which public holidays?", ("minutes",)), results, search)
    assert merged == results
    assert note["focus"] == "open"


def test_on_a_tie_the_open_search_ranking_stands():
    search, _ = _search([MINUTES[1], MINUTES[0]])
    results = [MINUTES[0], SCHEDULE]
    merged, note = within_topic(Focus("And Rich?", ("minutes",)), results, search)
    assert merged == results
    assert note == {"focus": "open", "held": [1, 1]}


def test_another_page_the_open_search_prefers_is_kept_on_a_tie():
    copy = _result("minutes-copy", 1, MINUTES[1].evidence.text)
    search, _ = _search([MINUTES[1], copy])
    results = [copy, SCHEDULE]
    merged, note = within_topic(Focus("Action items?", ("minutes",)), results, search)
    assert merged == results
    assert note == {"focus": "open", "held": [2, 2]}


def test_only_the_topic_page_the_open_search_chose_is_searched():
    other = _result("agenda", 0, "Action items of the last call: none.")
    search, _ = _search([other, MINUTES[1], MINUTES[0]])
    results = [MINUTES[0], other]
    merged, _ = within_topic(Focus("Action items?", ("agenda", "minutes")), results, search)
    assert [r.evidence.id for r in merged] == ["minutes#0001", "minutes#0000"]


def test_german_follow_up_finds_the_topic_row_by_its_own_words():
    rows = [
        _result("leave", 0, "Urlaub: 30 Tage pro Jahr, Übertrag bis März."),
        _result("leave", 1, "Elternzeit: bis zu drei Jahre, Antrag sieben Wochen vorher."),
    ]
    search, _ = _search([rows[1], rows[0]], "de")
    merged, note = within_topic(Focus("Und die Elternzeit?", ("leave",)), rows, search)
    assert merged[0].evidence.id == "leave#0001"
    assert note["focus"] == "topic"


def test_nothing_searched_without_topic_pages():
    search, asked = _search([MINUTES[0]])
    results = [MINUTES[0]]
    assert within_topic(Focus("and the PIN?", ()), results, search) == (results, {})
    assert asked == []
