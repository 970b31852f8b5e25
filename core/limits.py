"""Bounds on what one page may turn into, so that no page, however large or hostile, takes
unbounded time or memory to extract, contextualize, embed or index.

One set of limits for the whole pipeline (extraction, contextualization, the embedder's
input); each says what it bounds and why its value. Whatever a limit cuts is reported as a
warning of the page's extraction, never dropped silently.
"""

from __future__ import annotations

# --- markup -------------------------------------------------------------------------------
MAX_COLSPAN = 1000
MAX_ROWSPAN = 65534
"""Upper bounds of colspan and rowspan in the HTML standard (tables processing model)."""

MAX_SPAN_COPY = 1_000_000
"""Characters a table's spans may add by repeating a cell in every slot it covers (each
slot counting at least one). A span that would pass it covers one slot: a 45 KB page of
large spans would otherwise expand to tens of GiB."""

MAX_TABLE_CELLS = 1_000_000
"""Slots (rows x columns) of one table after its rows are made rectangular; a wider table
keeps `MAX_TABLE_CELLS // rows` columns and joins the rest of each row into the last."""

MAX_NAME_CHARS = 255
"""Characters of a name repeated on many evidences: the page title, each heading of the
heading path, a column name in linearized tables and verbalized rows (Confluence titles
have at most 255)."""

MAX_NESTING = 100
"""Element depth the extractor walks as structure; deeper markup is read as plain text
(the walker recurses per level, and Python's stack is about 1000 frames)."""

MAX_READ_WORDS = 50_000
"""Words the extractor reads from one page (more than what `MAX_PAGE_EMBED_UNITS` lets
through); the rest of a longer page is left out with a warning. It bounds the extraction of
a 5 MB page to a second or two."""

# --- evidences ------------------------------------------------------------------------------
MAX_EVIDENCE_WORDS = 200
"""Words of one evidence: passages, lists and tables longer than this are split, so each
one, with its context, stays inside the 512-token input of the BGE models confbot can use,
and keeps one topic."""

MAX_WORD_CHARS = 100
"""Characters of one word; longer runs without spaces (base64, garbage) are cut into words
of this length, so a word bound is also a character bound."""

MAX_EVIDENCE_TERMS = 500
"""Distinct lexical terms indexed for one evidence (its most frequent ones): each is a
postings row and a term-statistics update in the evidence store, so text without words
(base64, random characters) could otherwise cost a page hundreds of thousands of rows. The
most varied ConfQuestions evidence has 305 distinct terms (99.9% have at most 188)."""

MAX_LEXICAL_CHARS = 8000
"""Characters of an evidence's contextualized text (the evidence with its title, heading
and neighbouring text) that lexical search tokenizes. The longest ConfQuestions evidence has
6,183; text of 100-character words (base64, garbage) would otherwise tokenize into
thousands of tokens per evidence."""

MAX_EMBED_CHARS = 2000
"""Characters of the text given to the embedder for one evidence (with its title and
heading) or question: an embedder is never given unbounded text. 99% of the ConfQuestions
evidences have fewer than 1,400."""

MAX_PAGE_EVIDENCES = 200
MAX_PAGE_EMBED_UNITS = 50_000
"""Evidences, and units of embedding work for them (`embed_units`), per page; the rest of a
longer page is left out with a warning. Embedding is most of the cost of indexing a page:
with the offline USE embedder on 2 idle cores about 0.1 ms of wall time per unit
(docs/benchmarks.md), so these keep any page to well under 10 s. The longest ConfQuestions
page has 168 evidences and 32,000 units."""


def embed_units(text: str) -> int:
    """The work of embedding `text` as the embedder gets it (cut to `MAX_EMBED_CHARS`):
    twice its words, or a third of its characters when it has few spaces (for prose, with
    about six characters a word, the two agree). Measured with the USE embedder
    (benchmarks/hostile_pages.py), base64 and random characters cost about 1.7 times more
    per character than a fifth of their characters counted; the longest ConfQuestions
    page has 32,000 units this way (30,000 with a fifth)."""
    text = bounded_text(text)
    return max(2 * len(text.split()), len(text) // 3)


def bounded_text(text: str, limit: int = MAX_EMBED_CHARS) -> str:
    """`text` cut to at most `limit` characters, at a space when one is near the end."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ", limit - 100)
    return cut[:space] if space > 0 else cut


def split_long_words(words: list[str]) -> list[str]:
    """Words with every run longer than `MAX_WORD_CHARS` cut into pieces of that length."""
    if all(len(w) <= MAX_WORD_CHARS for w in words):
        return words
    out: list[str] = []
    for word in words:
        if len(word) <= MAX_WORD_CHARS:
            out.append(word)
        else:
            out.extend(word[i : i + MAX_WORD_CHARS] for i in range(0, len(word), MAX_WORD_CHARS))
    return out
