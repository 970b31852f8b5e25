"""Offline follow-up suggestions (core.suggest) on small pages, and the out-of-scope filter."""

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


RELEASE_PAGE = [
    _evidence(0, "Release Process", "Build", "Run make release to build the artifacts."),
    _evidence(1, "Release Process", "Signing", "Artifacts are signed with the release key."),
    _evidence(
        2,
        "Release Process",
        "Owners",
        "Row 1 in Table 1: Component is Installer, and Owner is Alice",
        kind="row",
    ),
]

URLAUB_PAGE = [
    _evidence(0, "Urlaubsregeln", "Antrag", "Der Antrag wird im Portal gestellt."),
    _evidence(1, "Urlaubsregeln", "Resturlaub", "Resturlaub verfällt am 31. März."),
]


def _search_over(evidences):
    """A search that returns every evidence (the filter then decides by support alone)."""

    def search(text):
        return [ScoredEvidence(e, 1.0, i + 1) for i, e in enumerate(evidences)]

    return search


def test_candidates_name_untouched_sections_and_columns():
    found = candidates("How do I build a release?", RELEASE_PAGE)
    assert [c.question for c in found] == [
        "What does Release Process say about Signing?",
        "What does Release Process say about Owners?",
        "What does Release Process say about Component?",
        "What does Release Process say about Owner?",
    ]


def test_candidates_follow_the_questions_language():
    found = candidates("Wie stelle ich den Antrag für Urlaub?", URLAUB_PAGE)
    assert found == [Candidate("Was steht in Urlaubsregeln zu Resturlaub?", "Resturlaub")]


def test_in_scope_needs_supporting_evidence():
    search = _search_over(RELEASE_PAGE)
    signing = Candidate("What does Release Process say about Signing?", "Signing")
    assert in_scope(signing, search, 0.1)
    assert not in_scope(Candidate("What is on the canteen menu?", "canteen menu"), search, 0.1)
    assert not in_scope(signing, lambda text: [], 0.0)


def test_suggest_drops_out_of_scope_and_keeps_three():
    # Only the signing section is searchable: the other candidates would be declined.
    search = _search_over(RELEASE_PAGE[1:2])
    assert suggest("How do I build a release?", RELEASE_PAGE, search, 0.3) == [
        "What does Release Process say about Signing?"
    ]
    everything = suggest("How do I build a release?", RELEASE_PAGE, _search_over(RELEASE_PAGE), 0)
    assert len(everything) == 3


def test_a_free_text_question_is_in_scope_when_a_result_supports_it():
    search = _search_over(RELEASE_PAGE)
    assert in_scope(Candidate("Which key signs the release artifacts?"), search, 0.3)
    assert not in_scope(Candidate("What is on the canteen menu?"), search, 0.1)
    assert not in_scope(Candidate("Which key signs the release artifacts?"), lambda t: [], 0.0)


def test_heading_punctuation_does_not_double_up():
    page = [
        _evidence(0, "FAQ", "Install", "Run the installer."),
        _evidence(1, "FAQ", "Why a stub domain?", "It isolates the tests."),
        _evidence(2, "FAQ", "Contacts:", "Contacts for installs: the platform team."),
    ]
    found = [c.question for c in candidates("How do I install it?", page)]
    assert found == [
        "What does FAQ say about Why a stub domain?",
        "What does FAQ say about Contacts?",
    ]
    assert in_scope(Candidate(found[1], "Contacts"), _search_over(page), 0.0)


def test_a_page_of_many_sections_costs_a_bounded_number_of_searches():
    page = [_evidence(n, "Handbook", f"Topic{n}", f"Text {n}.") for n in range(40)]
    searches = []

    def search(text):
        searches.append(text)
        return []  # nothing in scope

    assert suggest("What is the handbook?", page, search, 0.3) == []
    assert len(searches) == MAX_CHECKS
