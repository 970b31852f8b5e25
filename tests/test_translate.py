"""Word translation by nearest corpus words: each word is embedded once."""

from __future__ import annotations

from core.translate import TermTranslator
from tests.fakes.hash_embedder import HashEmbedder


class Synonyms(HashEmbedder):
    """The hash embedder, with `vorstand` embedded where `board` is."""

    def embed(self, texts):
        return super().embed(["board" if t == "vorstand" else t for t in texts])


def test_translations_are_remembered_per_word():
    embedder = Synonyms()
    translator = TermTranslator(["board", "vote", "change"], embedder)
    assert translator.translate(["Vorstand", "board", "xyzzy"], per_word=1) == {
        "vorstand": ["board"]
    }
    calls = embedder.calls
    assert translator.translate(["vorstand", "xyzzy"], per_word=1) == {"vorstand": ["board"]}
    assert embedder.calls == calls  # nothing embedded again
    assert translator.translate(["vorstand"], per_word=2, min_similarity=-1.0)["vorstand"][0] == (
        "board"
    )
    assert embedder.calls == calls + 1  # other parameters: computed anew
