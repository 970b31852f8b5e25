"""How a turn is shown, the same on every surface (Slack, the web page, `confbot ask`).

- Sources are numbered 1..k as shown, in order of first citation (`shown_numbers`,
  `renumber`): the answer prompt numbers its sources by retrieval rank, so an answer citing
  the fifth and first sources would otherwise read "[5] … [1]" and list them with gaps.
  The prompt's numbers stay in the trace (they are what the model saw).
- `present` gives the answer, its related lines and its cited sources renumbered, each
  source with its excerpt as the page shows it (`core.excerpt`).
- `labels` are the surfaces' words (Sources, Related, Explain ...) in the question's
  language (English or German).
- `plain_explanation` says in words what an attribution found ("Hotel and meal limits
  (Travel Policy) shaped 81% of this answer."), naming the cited sources the user can see,
  before the surfaces show the per-source shares.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.answer import CITATION, AnswerParts, cited_numbers, split_answer
from core.attribution import Explanation
from core.excerpt import Excerpt, excerpt
from core.pages import Evidence
from core.questions import question_language

LABELS = {
    "en": {
        "answer": "Most likely answer",
        "related": "Related",
        "sources": "Sources",
        "closest": "Closest pages",
        "explain": "Explain",
        "why": "Why this answer",
        "updated": "updated",
        "also_in": "also in",
        "more_rows": "{n} more rows",
        "more_row": "1 more row",
        "helpful": "Helpful",
        "not_helpful": "Not helpful",
        "nothing": "Nothing in the index matched.",
        "not_cited": "not cited",
        "breakdown": "Share of each source",
        "no_effect": "{n} other source groups: no effect on the answer.",
        "no_effect_one": "1 other source group: no effect on the answer.",
        "counterfactual": "counterfactual attribution",
        "naive": "similarity baseline",
        "citation": "citation baseline",
    },
    "de": {
        "answer": "Wahrscheinlichste Antwort",
        "related": "Siehe auch",
        "sources": "Quellen",
        "closest": "Nächstliegende Seiten",
        "explain": "Erklären",
        "why": "Warum diese Antwort",
        "updated": "aktualisiert",
        "also_in": "auch in",
        "more_rows": "{n} weitere Zeilen",
        "more_row": "1 weitere Zeile",
        "helpful": "Hilfreich",
        "not_helpful": "Nicht hilfreich",
        "nothing": "Nichts im Index passte.",
        "not_cited": "nicht zitiert",
        "breakdown": "Anteil jeder Quelle",
        "no_effect": "{n} weitere Quellengruppen: ohne Einfluss auf die Antwort.",
        "no_effect_one": "1 weitere Quellengruppe: ohne Einfluss auf die Antwort.",
        "counterfactual": "kontrafaktische Attribution",
        "naive": "Ähnlichkeits-Baseline",
        "citation": "Zitat-Baseline",
    },
}


def language_of(question: str) -> str:
    """The language a reply to `question` is shown in: `de` or `en`."""
    return "de" if question_language(question) == "de" else "en"


def labels(language: str) -> dict[str, str]:
    """The surfaces' labels in `language` (English for any language but German)."""
    return LABELS.get(language, LABELS["en"])


def no_effect(count: int, language: str) -> str:
    """The line counting the source groups whose removal left the answer unchanged."""
    words = labels(language)
    return words["no_effect_one"] if count == 1 else words["no_effect"].format(n=count)


def rows_left(count: int, language: str) -> str:
    """The note under a table excerpt counting the rows it leaves out: "3 more rows"."""
    words = labels(language)
    return words["more_row"] if count == 1 else words["more_rows"].format(n=count)


# --------------------------------------------------------------------------- numbering
def shown_numbers(cited: Sequence[int]) -> dict[int, int]:
    """Prompt number → number as shown: 1..k in the order of `cited` (the numbers an
    answer cites, in order of first citation), each once."""
    out: dict[int, int] = {}
    for number in cited:
        out.setdefault(number, len(out) + 1)
    return out


def renumber(text: str, numbers: Mapping[int, int]) -> str:
    """`text` with every citation marker rewritten to the shown numbers, one bracket each,
    ascending (`[5, 1]` → `[1][2]`); a number with no shown source is left out, and a
    marker left with none is removed with the space before it."""

    def replace(match: re.Match) -> str:
        shown = [numbers[n] for n in cited_numbers(match.group("marker")) if n in numbers]
        if not shown:
            return ""
        return match.group("space") + "".join(f"[{n}]" for n in sorted(shown))

    return _SPACED_CITATION.sub(replace, text)


_SPACED_CITATION = re.compile(rf"(?P<space>[ \t]*)(?P<marker>{CITATION.pattern})", re.IGNORECASE)


@dataclass(frozen=True)
class ShownSource:
    """A cited source as shown: its number (1..k), its number in the answer prompt, the
    evidence and its excerpt."""

    number: int
    prompt_number: int
    evidence: Evidence
    excerpt: Excerpt


@dataclass(frozen=True)
class Shown:
    """A turn's answer as every surface shows it: the most likely answer and the related
    lines (`core.answer.split_answer`), renumbered; the cited sources in shown order; the
    reply's language; `numbers`, prompt number → shown number."""

    answer: str
    related: list[str]
    sources: list[ShownSource]
    language: str
    numbers: dict[int, int]


def present(
    question: str, answer: str, evidences: Sequence[Evidence], completed: str = ""
) -> Shown:
    """The shown form of `answer` to `question`, from the numbered `evidences` of its
    prompt (`evidences[n-1]` is source n); `completed` is the completed question (it
    names the subject, so the excerpt marks only what the answer adds)."""
    cited = [n for n in cited_numbers(answer) if 1 <= n <= len(evidences)]
    numbers = shown_numbers(cited)
    parts = split_answer(answer)
    asked = completed or question
    sources = []
    for prompt, shown in numbers.items():
        evidence = evidences[prompt - 1]
        says = _citing(parts, prompt)
        sources.append(
            ShownSource(shown, prompt, evidence, excerpt(evidence.text, evidence.kind, says, asked))
        )
    return Shown(
        answer=renumber(parts.answer, numbers),
        related=[renumber(line, numbers) for line in parts.related],
        sources=sources,
        language=language_of(question),
        numbers=numbers,
    )


def _citing(parts: AnswerParts, number: int) -> str:
    """What the answer says from source `number`: the most likely answer when it cites
    the source, else the related lines that do (their words are marked in its excerpt)."""
    if number in cited_numbers(parts.answer):
        return parts.answer
    return "\n".join(line for line in parts.related if number in cited_numbers(line))


# --------------------------------------------------------------------------- explanations
@dataclass(frozen=True)
class Named:
    """A prompt source as an explanation names it: its shown number (None when the answer
    does not cite it, so the user cannot see it), its name and its page's URL."""

    shown: int | None
    name: str
    url: str


@dataclass(frozen=True)
class Words:
    """A run of a plain-words explanation: text, or the name of shown sources (`sources`,
    their shown numbers), which a surface links."""

    text: str
    sources: tuple[int, ...] = ()


def source_name(title: str, heading: str) -> str:
    """A source as a reader names it: the section it is in and its page, "Hotel and meal
    limits (Travel Policy)"; just the page title when it has no section."""
    section = heading.split(" > ")[-1].strip().rstrip(":").strip() if heading else ""
    title = " ".join(title.split())
    return f"{section} ({title})" if section and section != title else title


def named_sources(
    answer: str, evidences: Sequence[Mapping], headings: Mapping[str, str]
) -> list[Named]:
    """The prompt's sources (stored trace entries with `id`, `title`, `url`; number n is
    `evidences[n-1]`) as explanations name them, numbered as the answer shows them."""
    cited = [n for n in cited_numbers(answer) if 1 <= n <= len(evidences)]
    numbers = shown_numbers(cited)
    return [
        Named(
            numbers.get(position),
            source_name(str(item.get("title", "")), headings.get(str(item.get("id", "")), "")),
            str(item.get("url", "")),
        )
        for position, item in enumerate(evidences, start=1)
    ]


def in_shown_order(numbers: Sequence[int], sources: Sequence[Named]) -> list[Named]:
    """The prompt sources `numbers` names (`sources[n-1]` is prompt source n): the shown
    ones by their shown number, then those the answer does not cite, in prompt order."""
    named = [sources[n - 1] for n in numbers if 1 <= n <= len(sources)]
    return sorted(named, key=lambda s: (s.shown is None, s.shown or 0))


_WORDING = {
    "en": {
        "shaped": " shaped {p} of this answer.",
        "also": " shaped {p}.",
        "hidden": "Passages the answer does not cite shaped {p}.",
        "one": "This answer came from one source: ",
        "one_share": " It shaped {p} of the answer; passages it does not cite shaped the rest.",
        "none": "Leaving out any one source did not change this answer, so no source stands out.",
        "uncited": "The answer cites no source.",
        "and": " and ",
        "percent": "{v}%",
    },
    "de": {
        "shaped": " hat {p} dieser Antwort bestimmt.",
        "also": " hat {p} bestimmt.",
        "hidden": "Nicht zitierte Abschnitte haben {p} bestimmt.",
        "one": "Diese Antwort stammt aus einer Quelle: ",
        "one_share": " Sie hat {p} der Antwort bestimmt; nicht zitierte Abschnitte den Rest.",
        "none": "Ohne eine einzelne Quelle blieb die Antwort gleich; keine Quelle sticht heraus.",
        "uncited": "Die Antwort zitiert keine Quelle.",
        "and": " und ",
        "percent": "{v} %",
    },
}
SHOWN_SHARE = 0.01
"""The least share a plain-words explanation names: 1%, the least a whole percentage
shows (a smaller share would read "shaped 0%")."""


def percent(share: float, language: str) -> str:
    """A share as a whole percentage in the language's style ("81%", "81 %")."""
    return _WORDING.get(language, _WORDING["en"])["percent"].format(v=round(share * 100))


def plain_explanation(
    explanation: Explanation, sources: Sequence[Named], language: str
) -> list[list[Words]]:
    """What the attribution found, as sentences (each a list of `Words`) in `language`:
    "X (Page) shaped 81% of this answer.", one sentence per group of shown sources with a
    share, the top one first, then the share of the sources the answer does not cite;
    a single-source answer says it came from one source. `sources[n-1]` names prompt
    source n."""
    say = _WORDING.get(language, _WORDING["en"])
    cited = sorted({s.shown for s in sources if s.shown is not None})

    def names(numbers: Sequence[int]) -> list[Words]:
        """The shown sources among prompt `numbers` as linked names, one per name."""
        grouped: dict[str, list[int]] = {}
        for number in numbers:
            if 1 <= number <= len(sources) and sources[number - 1].shown is not None:
                named = sources[number - 1]
                grouped.setdefault(named.name, []).append(named.shown)
        out: list[Words] = []
        for i, (name, shown) in enumerate(grouped.items()):
            if i:
                out.append(Words(say["and"] if i == len(grouped) - 1 else ", "))
            out.append(Words(name, tuple(sorted(shown))))
        return out

    if explanation.top_evidence() is None:
        first = say["uncited"] if explanation.method == "citation" else say["none"]
        if len(cited) == 1:
            one = [n for n, s in enumerate(sources, start=1) if s.shown is not None]
            return [[Words(say["one"]), *names(one), Words(".")], [Words(first)]]
        return [[Words(first)]]
    groups = [c for c in explanation.clusters if c.share >= SHOWN_SHARE]
    visible = [(c, names(c.evidences)) for c in groups]
    hidden = sum(c.share for c, words in visible if not words)
    if len(cited) == 1:
        one = [n for n, s in enumerate(sources, start=1) if s.shown is not None]
        share = sum(c.share for c, words in visible if words)
        sentence = [Words(say["one"]), *names(one), Words(".")]
        if share < 1 - SHOWN_SHARE:
            sentence.append(Words(say["one_share"].format(p=percent(share, language))))
        return [sentence]
    sentences: list[list[Words]] = []
    for cluster, words in visible:
        if not words:
            continue
        frame = say["shaped"] if not sentences else say["also"]
        sentences.append([*words, Words(frame.format(p=percent(cluster.share, language)))])
    if hidden >= SHOWN_SHARE:
        sentences.append([Words(say["hidden"].format(p=percent(hidden, language)))])
    return sentences


def plain_text(sentences: Sequence[Sequence[Words]]) -> str:
    """Plain-words sentences as text, each shown source named with its numbers:
    "Hotel limits (Travel Policy) [1] shaped 81% of this answer." (the terminal's form)."""
    out = []
    for sentence in sentences:
        text = ""
        for words in sentence:
            marks = "".join(f"[{n}]" for n in words.sources)
            text += f"{words.text} {marks}" if marks else words.text
        out.append(text)
    return " ".join(out)
