"""Whether the index's word translation of a German word can stand for it."""

import pytest

from core.word_translation import cognate_of_known, english_translation, spelled_like


def test_a_translation_stands_only_when_it_is_an_english_word():
    assert english_translation(["plan"])
    assert english_translation(["cee", "behaviour"])  # British spelling counts
    assert not english_translation(["cee"])
    assert not english_translation(["noxs", "apertus"])
    assert not english_translation([])


def test_a_word_with_k_or_z_for_a_wiki_words_c_is_its_cognate():
    known = {"context", "configuration", "better"}
    assert cognate_of_known("kontext", known)
    assert cognate_of_known("konfiguration", known)
    assert not cognate_of_known("wetter", known)  # one letter off, but no k or z for c
    assert not cognate_of_known("context", known)  # the word itself is not its cognate


@pytest.mark.parametrize(
    ("german", "english", "alike"),
    [
        ("kandidaten", "candidates", True),
        ("zertifikat", "certificate", True),
        ("vertrag", "delay", False),
        ("zuschuss", "committee", False),
    ],
)
def test_a_translation_spelled_like_the_word_is_its_cognate(german, english, alike):
    assert spelled_like(german, english) is alike
