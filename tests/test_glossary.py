"""The German-English glossary: inflected forms find their entry, and the offline answerer
reads a German question through it (retrieval does not use it)."""

from __future__ import annotations

import pytest

from core.answer import build_messages
from core.extractive import ExtractiveLLM
from core.glossary import glossary_words, head_words
from tests.fakes.evidence import make_evidence


@pytest.mark.parametrize(
    "word, expected",
    [
        ("Eigentümer", "owner"),
        ("Voraussetzungen", "preconditions"),
        ("Voraussetzung", "preconditions"),
        ("Schritte", "step"),
        ("getestet", "tested"),
        ("Betriebssystem", "operating"),
        ("deklariert", "declared"),
        ("festgelegte", "set"),
        ("fertiggestellt", "finalized"),
        # compounds of two entries: customization layer, switch keys
        ("Anpassungsschicht", "customization"),
        ("Umschalttasten", "keys"),
        ("Ruhezustandsproblem", "sleep"),
        ("Leistungstestslauf", "run"),
        ("übernommen", "adopted"),
        ("bedeutet", "indicates"),
        ("Freigabecheckliste", "checklist"),
        ("Nutzungsseite", "usage"),
        ("Nutzungsseite", "page"),
        # modal and build verbs of questions: "Darf jeder ...?", "Kann X kompiliert werden?"
        ("darf", "may"),
        ("dürfen", "allowed"),
        ("kompiliert", "built"),
        # everyday words of questions: months, numbers, getting things, developers, ports
        ("Dezember", "december"),
        ("drei", "three"),
        ("bekommen", "get"),
        ("Entwickler", "engineers"),
        ("Schnittstelle", "port"),
        ("serielle", "serial"),
        ("Entwurf", "draft"),
        # a port by its German name, alone and in a compound; planning, validation
        ("Anschluss", "port"),
        ("Standardanschluss", "port"),
        ("Planungstreffen", "planning"),
        ("Validierungsteam", "validation"),
        # holidays by their German names, as an office calendar asked about in German
        ("Ostermontag", "easter"),
        ("Karfreitag", "friday"),
        ("Heiligabend", "christmas"),
    ],
)
def test_inflected_forms_find_their_entry(word, expected):
    assert expected in glossary_words(word)


def test_a_word_it_lacks_has_no_entry():
    assert glossary_words("Donaudampfschiff") == []
    assert head_words("Donaudampfschiff") == []


@pytest.mark.parametrize(
    "word, head, front",
    [
        ("Mitarbeiterausweis", "badge", "employees"),
        ("Anpassungsschicht", "layer", "customization"),
        ("Freigabecheckliste", "checklist", "release"),
    ],
)
def test_a_compound_is_named_by_its_head(word, head, front):
    """A compound the glossary lacks stands for its last part, the thing it names; its
    front only narrows it (both stay words of the compound for matching spans)."""
    assert head_words(word)[0] == head
    assert front not in head_words(word)
    assert {head, front} <= set(glossary_words(word))


def test_a_word_it_has_is_named_by_its_own_entry():
    assert head_words("Urlaub") == glossary_words("Urlaub")
    assert head_words("Ausweis")[0] == "badge"


PAGE = make_evidence(
    1,
    "Owned by Rich Persaud Last updated: Oct 02, 2016 by Eric Chanudet\n"
    "The preconditions are a configured TPM and a signed build.\n"
    "The test plan lists three steps.",
    "Forward Seal Test",
)


@pytest.mark.parametrize("glossary, expected", [(True, "a configured TPM"), (False, None)])
def test_the_answerer_reads_german_words_through_the_glossary(glossary, expected):
    llm = ExtractiveLLM({"en": 0.0}, glossary=glossary)
    question = "Was sind die Voraussetzungen des Forward Seal Test?"
    (text,) = llm.complete(build_messages(question, [PAGE]))
    first = text.split("\n")[0]
    if expected:
        assert expected in first
    else:
        assert "preconditions" not in first


def test_a_german_question_about_the_page_owner():
    llm = ExtractiveLLM({"en": 0.0}, glossary=True)
    (text,) = llm.complete(build_messages("Wer ist der Eigentümer der Seite?", [PAGE]))
    assert text.split("\n")[0] == "Der Eigentümer der Seite ist Rich Persaud [1]."


def test_unthresholded_keeps_translations_and_glossary():
    llm = ExtractiveLLM({"en": 0.9}, glossary=True).unthresholded()
    assert llm.glossary and llm.min_support == {"en": 0.0}


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("freitags", "friday"),
        ("Montag", "monday"),
        ("Wochenende", "weekend"),
        ("München", "munich"),
    ],
)
def test_weekdays_and_places_are_the_wikis_words(word, expected):
    # the index's word translation lands "freitags" on "monday"
    assert glossary_words(word)[0] == expected
