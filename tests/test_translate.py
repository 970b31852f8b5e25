"""Query translation (core.translate through core.index): German words the corpus lacks are
mapped to their nearest corpus words; the vocabulary follows the store, its vectors are
computed once and kept in the store for every process, and each word is translated once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.index import EvidenceIndex
from core.pages import Page
from core.translate import TermTranslator
from tests.fakes.hash_embedder import HashEmbedder

# German words and the English corpus word each means, for the bilingual fake below.
MEANINGS = {"vorstand": "board", "genehmigt": "approves", "gnus": "wildebeest"}


class BilingualEmbedder(HashEmbedder):
    """A word and its translation get the same vector; `texts` records what was embedded."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed([MEANINGS.get(t, t) for t in texts])


PAGE = Page(
    id="1",
    space="HR",
    title="Travel",
    url="https://wiki.example/pages/1",
    body="<p>The board approves hotels above budget.</p>",
)


def test_german_words_are_mapped_to_corpus_words(settings):
    index = EvidenceIndex(settings, BilingualEmbedder())
    index.index_pages([PAGE])
    tokens = index.query_tokens("Welche Hotels genehmigt der Vorstand?", "de")
    assert {"board", "approv"} <= set(tokens)
    assert index.lexical_search("Welche Hotels genehmigt der Vorstand?", 5, language="de")


def test_vocabulary_vectors_are_computed_once_for_every_process(settings):
    first = EvidenceIndex(settings, BilingualEmbedder())
    first.index_pages([PAGE])
    first.query_tokens("Was genehmigt der Vorstand?", "de")
    assert "budget" in first.embedder.texts  # the vocabulary was embedded here...
    second = EvidenceIndex(settings, BilingualEmbedder())  # another process, the same store
    assert "board" in second.query_tokens("Was genehmigt der Vorstand?", "de")
    assert set(second.embedder.texts) <= {"genehmigt", "vorstand"}  # ...and not again


def test_the_vocabulary_follows_writes_and_embeds_only_new_words(settings):
    index = EvidenceIndex(settings, BilingualEmbedder())
    index.index_pages([PAGE])
    index.query_tokens("Was genehmigt der Vorstand?", "de")
    assert "wildebeest" not in index.query_tokens("Wo sind die Gnus?", "de")
    zoo = Page(id="2", space="HR", title="Zoo", url="u2", body="<p>Wildebeest</p>")
    index.index_pages([zoo])
    embedded = len(index.embedder.texts)
    assert "wildebeest" in index.query_tokens("Wo sind die Gnus?", "de")
    new = index.embedder.texts[embedded:]
    assert "wildebeest" in new and "budget" not in new  # known words kept their vectors
    index.delete_page("2")
    assert "wildebeest" not in index.query_tokens("Wo sind die Gnus?", "de")


class Synonyms(HashEmbedder):
    """The hash embedder, with `vorstand` embedded where `board` is."""

    def embed(self, texts):
        return super().embed(["board" if t == "vorstand" else t for t in texts])


def test_translations_are_remembered_per_word():
    embedder = Synonyms()
    translator = TermTranslator(["board", "vote", "change"], embedder, embedder.embed)
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


class BatchShapeEmbedder:
    """Vectors that shift a little with the batch they are computed in (as padded model
    batches do): 'vorstand' sits just at the floor's similarity to 'board' alone."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            if text == "board":
                rows.append([1.0, 0.0])
            elif text == "vorstand":
                angle = np.arccos(0.6) + 1e-7 * (len(texts) - 1)  # drifts with the batch size
                rows.append([np.cos(angle), np.sin(angle)])
            else:
                rows.append([0.0, -1.0])
        return np.array(rows)


def test_a_words_translation_does_not_depend_on_the_words_translated_with_it():
    # German: the same question must get the same translation whatever other (earlier,
    # uncached) words went into the same call.
    embedder = BatchShapeEmbedder()
    alone = TermTranslator(["board", "vote"], embedder, embedder.embed).translate(["vorstand"])
    together = TermTranslator(["board", "vote"], embedder, embedder.embed).translate(
        ["vorstand", "gnus", "abstimmung"]
    )
    assert alone.get("vorstand") == together.get("vorstand") == ["board"]
