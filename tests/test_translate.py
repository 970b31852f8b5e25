"""Query translation (core.translate through core.index): German words the corpus lacks are
mapped to their nearest corpus words; the vocabulary follows the store, and its vectors are
computed once and kept in the store for every process."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.index import EvidenceIndex
from core.pages import Page
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
