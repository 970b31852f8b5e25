"""Spelling correction against the wiki's vocabulary: what is corrected, what is left alone,
and the edit distance it relies on."""

from __future__ import annotations

import pytest

from core.contextualize import ContextOptions
from core.pages import Page
from core.spelling import (
    Speller,
    describe,
    dictionary_word,
    edits1,
    is_swap,
    max_distance,
    osa_distance,
)
from tests.fakes.tiny_wiki import build_wiki

VOCABULARY = {
    "annual": 4,
    "leave": 6,
    "germany": 5,
    "secondary": 3,
    "primary": 3,
    "payments": 7,
    "team": 20,
    "accommodation": 2,
    "allowance": 3,
    "release": 9,
    "relax": 1,
    "berlin": 8,
    "reimbursement": 2,
    "oxt": 3,
    "hotel": 4,
    "hostel": 1,
    "limit": 5,
    "regex": 1,
    "board": 2,
}


@pytest.fixture(scope="module")
def speller() -> Speller:
    return Speller(VOCABULARY)


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("anual", "annual", 1),
        ("paymnets", "payments", 1),
        ("secundary", "secondary", 1),
        ("acomodation", "accommodation", 2),
        ("ca", "abc", 3),  # optimal string alignment: no edit of a swapped pair
        ("", "abc", 3),
        ("same", "same", 0),
    ],
)
def test_osa_distance(a, b, distance):
    assert osa_distance(a, b) == distance == osa_distance(b, a)


def test_edits_and_swaps():
    assert {"anual", "annua", "nanual", "annaul", "annuel"} <= edits1("annual")
    assert "annual" not in edits1("annual") - edits1("annual")  # a set, no surprises
    assert is_swap("paymnets", "payments") and not is_swap("anual", "annual")
    assert [max_distance(w) for w in ("abc", "abcd", "abcdefg", "abcdefgh")] == [0, 1, 1, 2]


@pytest.mark.parametrize(
    ("question", "corrected", "changes"),
    [
        (
            "What is the anual leave in Germany?",
            "What is the annual leave in Germany?",
            {"anual": "annual"},
        ),
        (
            "Who is the secundary on-call?",
            "Who is the secondary on-call?",
            {"secundary": "secondary"},
        ),
        ("Who leads Paymnets?", "Who leads Payments?", {"Paymnets": "Payments"}),
        (
            "Which acomodation limit?",
            "Which accommodation limit?",
            {"acomodation": "accommodation"},
        ),
        ("Hotl limit in Berlni", "Hotel limit in Berlin", {"Hotl": "Hotel", "Berlni": "Berlin"}),
    ],
)
def test_misspelt_words_are_corrected(speller, question, corrected, changes):
    result = speller.correct(question, "en")
    assert (result.text, result.changes) == (corrected, changes)


@pytest.mark.parametrize(
    "question",
    [
        "What is the annual leave in Germany?",  # every word known
        "What did OXT-1654 fix?",  # an issue key
        "Is 2026 in the release plan?",  # a number
        "Is xen-4.9 released?",  # a version with joiners
        "Does the VPN use UDP?",  # acronyms
        "Who is the SRE lead?",  # too short to correct
        "What about the releases?",  # an inflection of a known word
        "How many weeks of parental leave?",  # nothing close enough
        "Teams of the hotels",  # inflections again
    ],
)
def test_words_left_alone(speller, question):
    assert speller.correct(question, "en").text == question


@pytest.mark.parametrize(
    "question",
    [
        "Welche Regel gilt für das Hotel?",  # Regel is German, not a misspelt "regex"
        "Wie hoch ist das Hotellimit in Berlin?",
        "Wer ist im Vorstand?",
        "Ist der Urlaub in Berlin anders?",
    ],
)
def test_german_words_are_not_turned_into_english_lookalikes(speller, question):
    assert speller.correct(question, "de").changes == {}


def test_in_german_questions_only_swapped_letters_are_corrected(speller):
    result = speller.correct("Wer leitet das Paymnets-Team in Berlni?", "de")
    assert result.changes == {"Berlni": "Berlin"}
    assert result.text == "Wer leitet das Paymnets-Team in Berlin?"  # a compound stays whole
    assert speller.correct("Wer leitet Paymnets?", "de").changes == {"Paymnets": "Payments"}
    assert speller.correct("Wie lang ist der anual leave?", "de").changes == {}


def test_the_most_frequent_of_equally_near_candidates_wins():
    assert Speller({"planned": 9, "planted": 1}).best("planed") == "planned"
    assert Speller({"planned": 1, "planted": 9}).best("planed") == "planted"
    assert Speller({"planned": 1, "planted": 9}).best("plxxxd") is None


@pytest.mark.parametrize(
    ("vocabulary", "word"),
    [
        ({"extended": 5}, "attended"),  # another first letter
        ({"reading": 5}, "headings"),
        ({"last": 5}, "laut"),  # a short word: no substitution
        ({"deal": 5}, "dealt"),  # nor a letter too many
    ],
)
def test_real_words_the_wiki_lacks_are_not_taken_for_typos(vocabulary, word):
    assert Speller(vocabulary).best(word) is None
    assert Speller(vocabulary).correct(f"Who {word} it?").changes == {}


@pytest.mark.parametrize(
    ("vocabulary", "question", "language"),
    [
        ({"contact": 9}, "How much does a support contract cost?", "en"),
        ({"denial": 4}, "Does it cover dental care?", "en"),
        # A German word of the German list, a swap away from an English wiki word.
        ({"lasts": 5}, "Wie lasst ihr das laufen?", "de"),
    ],
)
def test_dictionary_words_are_not_turned_into_wiki_words(vocabulary, question, language):
    """A word of the general dictionary is a real word, whatever wiki word is near it."""
    assert Speller(vocabulary).correct(question, language).changes == {}
    # Without the dictionary the same word would be taken for a typo.
    unchecked = Speller(vocabulary, known=lambda word, language: False)
    assert unchecked.correct(question, language).changes


def test_dictionary_word_in_english_and_the_question_language():
    assert dictionary_word("contract") and dictionary_word("dental")
    assert not dictionary_word("anual") and not dictionary_word("paymnets")
    assert dictionary_word("urlaub", "de") and not dictionary_word("urlaub", "en")
    assert dictionary_word("contract", "xx")  # a language without a list: English still counts


def test_first_two_letters_swapped_and_short_words_missing_a_letter():
    assert Speller({"annual": 3}).best("naunal") is None  # two edits on a short word
    assert Speller({"payments": 3}).best("apyments") == "payments"
    assert Speller({"hotel": 3}).best("hotl") == "hotel"


def test_describe():
    assert describe({"anual": "annual", "Paymnets": "Payments"}) == (
        "anual → annual, Paymnets → Payments"
    )


def test_a_word_with_the_stem_of_a_wiki_word_is_a_real_word():
    speller = Speller({"heading": 2, "headwinds": 1, "attendance": 1, "attendees": 3})
    assert speller.correct("Which headings were attended?").changes == {}


def test_the_index_speller_follows_writes(tmp_path):
    settings, index, _ = build_wiki(tmp_path)
    assert index.speller().correct("Dell Optiplx?").text == "Dell Optiplex?"
    assert index.speller() is index.speller()  # kept while the store is unchanged
    page = Page(
        id="201",
        space="TEST",
        title="Quagga",
        url="https://wiki.example/spaces/TEST/pages/201/Quagga",
        body="<p>The quaggas live in the Karoo.</p>",
    )
    index.index_pages([page], ContextOptions.from_settings(settings))
    assert index.speller().correct("Where do quagas live?").changes == {"quagas": "quaggas"}
