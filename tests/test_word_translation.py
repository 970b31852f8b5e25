"""Whether the index's word translation of a German word can stand for it."""

from core.word_translation import cognate_of_known, english_translation


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
