"""Slack messages for answers and explanations (Block Kit), and the mrkdwn text helpers.

Everything that comes from the wiki, the LLM or a user is untrusted: `escape` makes it
mrkdwn that Slack shows literally. It replaces `&`, `<` and `>` with the entities Slack
documents ("Formatting text for app surfaces: escaping text"), so page text cannot form a
mention (`<!channel>`, `<@U123>`) or a link, and it puts a zero-width space (U+200B, not
whitespace to Slack's parser) on the outer side of formatting markers (`*`, `_`, `~`, a
backtick, a line-leading `>`) that could open or close bold, italics, strike-through, code or
a quote. Markers inside words (`DISTRO_FEATURE`) cannot format and are left alone, so
identifiers copy cleanly. Text objects are also sent with `verbatim: true`, which turns off
Slack's own auto-linking and mention parsing.

Limits honoured (Slack Block Kit reference): at most 50 blocks per message and 3,000
characters per section text; longer answers are split over several sections at line, then
word boundaries, and cut with an ellipsis only if the 50 blocks would not hold them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from core.answer import (
    CITATION,
    cited_numbers,
    closest_pages,
    decline_intro,
    decline_message,
)
from core.assistant import Turn
from core.attribution import Explanation
from core.excerpt import Excerpt
from core.pages import Page
from core.present import (
    Named,
    Shown,
    Words,
    in_shown_order,
    labels,
    no_effect,
    plain_explanation,
    present,
    rows_left,
)
from core.redact import web_link
from core.spelling import describe

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_QUESTION_CHARS = 300
MAX_TITLE_CHARS = 150
MAX_FALLBACK_CHARS = 3000

EXPLAIN_ACTION = "confbot_explain"
FEEDBACK_UP_ACTION = "confbot_feedback_up"
FEEDBACK_DOWN_ACTION = "confbot_feedback_down"
# One action id per suggestion button (Slack wants them unique in a message); the value is
# "<turn id>:<suggestion index>".
SUGGEST_ACTION = "confbot_suggest"
# The Share button of a private answer; its value is "<turn id>:<thread ts or empty>".
SHARE_ACTION = "confbot_share"
SHARE_LABEL = "Share to channel"
PRIVATE_NOTE = "Only you can see this answer. Share it to post it for the channel."
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,30}$")
MAX_BUTTON_TEXT = 75  # Slack's limit on a button's text

BAR_WIDTH = 10
BAR_FULL = "▇"
BAR_EMPTY = "░"

ZWSP = "\u200b"
# A marker not preceded by a letter or digit may open formatting; one not followed by a
# letter or digit may close it.
_OPENING = re.compile(r"(?<![^\W_])([*_~`])")
_CLOSING = re.compile(r"([*_~`])(?![^\W_])")
_QUOTE = re.compile(r"^(&gt;)", re.MULTILINE)
_ANGLE = re.compile(r"<([^<>]*)>")
# A word of an overlong line: non-space characters, a citation with spaces counting as one.
_WORD = re.compile(rf"(?:{CITATION.pattern}|\S)+", re.IGNORECASE)


# --------------------------------------------------------------------------- mrkdwn text
def escape(text: str) -> str:
    """`text` as mrkdwn that shows literally: no mentions, links or formatting."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _OPENING.sub(ZWSP + r"\1", text)
    text = _CLOSING.sub(r"\1" + ZWSP, text)
    return _QUOTE.sub(ZWSP + r"\1", text)


def link(url: str, label: str) -> str:
    """`<url|label>` with the label escaped; just the label when the URL is not http(s)."""
    label = escape(label) or escape(url)
    if not web_link(url or ""):
        return label
    safe = (
        url.replace("&", "&amp;")
        .replace("<", "%3C")
        .replace(">", "%3E")
        .replace("|", "%7C")
        .replace(" ", "%20")
    )
    return f"<{safe}|{label}>"


def mentions(text: str, user_id: str | None) -> bool:
    """Whether Slack message `text` mentions the user (`<@U123>` or `<@U123|name>`)."""
    return bool(user_id) and re.search(rf"<@{re.escape(user_id)}(?:\|[^>]*)?>", text) is not None


def plain_text(text: str, bot_user_id: str | None = None) -> str:
    """A Slack message's text as a plain question: mentions of the bot removed, other
    mentions, channels and links as their labels, entities decoded."""

    def replace(match: re.Match) -> str:
        target, _, label = match.group(1).partition("|")
        if target.startswith("@"):
            if bot_user_id and target[1:] == bot_user_id:
                return ""
            return label if label.startswith("@") else "@" + (label or target[1:])
        if target.startswith("#"):
            return "#" + (label or target[1:])
        if target.startswith("!"):
            return label
        return label or target

    out = _ANGLE.sub(replace, text)
    out = out.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return "\n".join(" ".join(line.split()) for line in out.strip().splitlines()).strip()


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def bar(share: float, width: int = BAR_WIDTH) -> str:
    """A share in [0, 1] as a bar of `width` cells: `▇▇▇▇▇░░░░░` for 0.521."""
    filled = round(min(1.0, max(0.0, share)) * width)
    return BAR_FULL * filled + BAR_EMPTY * (width - filled)


def render_answer(text: str, urls: Mapping[int, str]) -> str:
    """The answer as mrkdwn: escaped, each citation `[n]` a link to source n's page (a
    citation of a number without a URL stays literal text)."""
    out: list[str] = []
    position = 0
    for match in CITATION.finditer(text):
        out.append(escape(text[position : match.start()]))
        numbers = cited_numbers(match.group(0))
        if numbers and all(urls.get(n) for n in numbers):
            out.append("".join(link(urls[n], f"[{n}]") for n in numbers))
        else:
            out.append(escape(match.group(0)))
        position = match.end()
    out.append(escape(text[position:]))
    return "".join(out)


def split_rendered(text: str, render: Callable[[str], str], limit: int) -> list[str]:
    """`text` rendered in pieces of at most `limit` characters each, packed greedily: by
    lines; a line too long for one piece by words (a citation like `[1, 2]` is one word);
    a word too long by characters. Each unit is rendered whole, so no entity or link is cut
    in half, and each is rendered once, so the cost is linear in the text."""
    pieces: list[str] = []
    current = ""

    def add(rendered: str, joiner: str) -> None:
        nonlocal current
        if current and len(current) + len(joiner) + len(rendered) <= limit:
            current += joiner + rendered
        else:
            if current:
                pieces.append(current)
            current = rendered

    for line in text.split("\n"):
        rendered = render(line)
        if len(rendered) <= limit:
            add(rendered, "\n")
            continue
        joiner = "\n"
        for word in (match.group(0) for match in _WORD.finditer(line)):
            rendered = render(word)
            if len(rendered) <= limit:
                add(rendered, joiner)
            else:
                size = max(1, limit // 8)
                for start in range(0, len(word), size):
                    add(clip(render(word[start : start + size]), limit), joiner)
                    joiner = ""
            joiner = " "
    if current:
        pieces.append(current)
    return [p for p in pieces if p.strip()]


def _section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text, "verbatim": True}}


def _context(text: str) -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text, "verbatim": True}]}


def _button(text: str, action_id: str, value: str) -> dict:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": text, "emoji": True},
        "action_id": action_id,
        "value": value,
    }


def _pack(lines: Sequence[str], limit: int = MAX_SECTION_TEXT) -> list[str]:
    """Lines joined into as few texts of at most `limit` characters as they fit in."""
    texts: list[str] = []
    for line in lines:
        line = clip(line, limit)
        if texts and len(texts[-1]) + 1 + len(line) <= limit:
            texts[-1] += "\n" + line
        else:
            texts.append(line)
    return texts


# --------------------------------------------------------------------------- answers
def shown_turn(turn: Turn) -> Shown:
    """The turn as every surface shows it (`core.present.present`)."""
    evidences = [r.evidence for r in turn.evidences]
    return present(turn.question, turn.answer, evidences, turn.completed_question)


def source_urls(shown: Shown) -> dict[int, str]:
    """Shown source number → page URL."""
    return {source.number: source.evidence.url for source in shown.sources}


def excerpt_lines(excerpt: Excerpt, language: str = "en") -> list[str]:
    """An excerpt as mrkdwn lines: each table row as `Column: value` pairs (the answer's
    cells bold), a sentence with the answer bold, all page text escaped."""
    if excerpt.kind == "text":
        return ["".join(_bold(p.text) if p.marked else escape(p.text) for p in excerpt.pieces)]
    lines = []
    for r, row in enumerate(excerpt.rows):
        cells = [
            (f"{escape(name)}: " if name else "")
            + (_bold(cell) if (r, c) in excerpt.marked else escape(cell))
            for c, (name, cell) in enumerate(zip(excerpt.header, row, strict=True))
            if cell
        ]
        lines.append(" · ".join(cells))
    if excerpt.more_rows:
        lines.append(f"_… {escape(rows_left(excerpt.more_rows, language))}_")
    return lines


def _bold(text: str) -> str:
    """`text` escaped and bold, the spaces around it kept outside the markers."""
    core = text.strip()
    if not core:
        return escape(text)
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
    return f"{lead}*{escape(core)}*{trail}"


def source_lines(shown: Shown, turn: Turn, pages: Mapping[str, Page]) -> list[str]:
    """One line per cited page, in shown order: its numbers, the linked title, the space,
    the date it was last updated (when known) and the near-duplicate pages it stands for
    ("also in" a copy or draft); under it, quoted, the excerpt of each of its cited
    evidences (numbered when the page has several)."""
    words = labels(shown.language)
    spaces = {r.evidence.page_id: r.evidence.space for r in turn.evidences}
    copies: dict[str, list] = {}
    for r in turn.evidences:
        for other in r.also_in:
            if other not in copies.setdefault(r.evidence.page_id, []):
                copies[r.evidence.page_id].append(other)
    by_page: dict[str, list] = {}
    for source in shown.sources:
        by_page.setdefault(source.evidence.page_id, []).append(source)
    lines = []
    for page_id, sources in by_page.items():
        first = sources[0].evidence
        page = pages.get(page_id)
        parts = [link(first.url, clip(first.title, MAX_TITLE_CHARS))]
        space = page.space if page is not None else spaces.get(page_id, "")
        if space:
            parts.append(escape(space))
        if page is not None and page.updated_at:
            parts.append(f"{escape(words['updated'])} {escape(page.updated_at[:10])}")
        if copies.get(page_id):
            others = ", ".join(link(o.url, clip(o.title, MAX_TITLE_CHARS)) for o in copies[page_id])
            parts.append(f"{escape(words['also_in'])} {others}")
        cited = "".join(f"[{s.number}]" for s in sources)
        lines.append(f"{cited} " + " · ".join(parts))
        for source in sources:
            number = f"[{source.number}] " if len(sources) > 1 else ""
            lines += [f">{number}{line}" for line in excerpt_lines(source.excerpt, shown.language)]
    return lines


def answer_blocks(turn: Turn, pages: Mapping[str, Page] | None = None) -> list[dict]:
    """The answer message: the completed question (context line, when it differs from what
    was typed), the answer with linked citations, the Sources list (numbered 1..k as cited,
    each with its excerpt), the suggested follow-up buttons, and the Explain / 👍 / 👎
    buttons carrying the turn id; labels in the question's language. `pages` (page id →
    indexed page) supplies spaces and last-updated dates. Chit-chat gets the help text
    alone, and a clarification asked back its text alone; a corrected question says what
    was searched for instead."""
    if turn.small_talk or turn.clarification:
        return [_section(escape(turn.answer))]
    pages = pages or {}
    shown = shown_turn(turn)
    words = labels(shown.language)
    question = escape(clip(" ".join(turn.completed_question.split()), MAX_QUESTION_CHARS))
    differs = " ".join(turn.completed_question.split()) != " ".join(turn.question.split())
    head = [_context(f"_Answering:_ {question}")] if differs else []
    if turn.corrections:
        head = [_context(f"_Searching for:_ {question} ({escape(describe(turn.corrections))})")]

    sources = []
    lines = source_lines(shown, turn, pages) if not turn.out_of_scope else []
    if lines:
        sources = [_section(text) for text in _pack([f"*{words['sources']}*", *lines])]

    buttons = []
    if turn.evidences and not turn.out_of_scope:
        buttons.append(_button(words["explain"], EXPLAIN_ACTION, str(turn.id)))
    buttons.append(_button("👍", FEEDBACK_UP_ACTION, str(turn.id)))
    buttons.append(_button("👎", FEEDBACK_DOWN_ACTION, str(turn.id)))
    actions = [{"type": "actions", "elements": buttons}]
    if turn.suggestions:  # the follow-ups above the Explain / feedback row
        actions.insert(0, suggestion_actions(turn))

    if turn.out_of_scope:
        answer = [decline_text(turn)]
    else:
        answer = answer_sections(shown)
    room = MAX_BLOCKS - len(head) - len(sources) - len(actions)
    if len(answer) > room:
        answer = answer[:room]
        answer[-1] = clip(answer[-1], MAX_SECTION_TEXT - 2) + " …"
    return head + [_section(text) for text in answer or [escape("(no answer)")]] + sources + actions


def private_answer_blocks(
    turn: Turn, pages: Mapping[str, Page] | None = None, thread: str = ""
) -> list[dict]:
    """A private (ephemeral) answer: a note that only the asker sees it and the question
    asked, the answer, and Share to channel / 👍 / 👎. No Explain: it posts in the thread
    for everyone, so it comes with the shared answer. `thread` is where Share posts (a
    thread's ts, or empty for the channel itself)."""
    question = escape(clip(" ".join(turn.question.split()), MAX_QUESTION_CHARS))
    head = [_context(f"{escape(PRIVATE_NOTE)}\n_Asked:_ {question}")]
    blocks = answer_blocks(turn, pages)
    if turn.small_talk or turn.clarification:  # the help text or a question back: no share
        return _within_limit(head + blocks)
    share = _button(SHARE_LABEL, SHARE_ACTION, f"{turn.id}:{thread}")
    share["style"] = "primary"
    last = blocks[-1]
    if last.get("type") == "actions":
        kept = [b for b in last["elements"] if b.get("action_id") != EXPLAIN_ACTION]
        blocks[-1] = {**last, "elements": [share, *kept]}
    return _within_limit(head + blocks)


def shared_answer_blocks(turn: Turn, user: str, pages: Mapping[str, Page] | None = None) -> list:
    """A private answer shared to its channel: who shared it and the question, then the
    answer message with its Explain / 👍 / 👎 buttons."""
    who = f"<@{user}>" if _USER_ID.match(user or "") else "Someone"
    question = escape(clip(" ".join(turn.question.split()), MAX_QUESTION_CHARS))
    return _within_limit([_context(f"{who} asked: {question}")] + answer_blocks(turn, pages))


def _within_limit(blocks: list[dict]) -> list[dict]:
    """At most `MAX_BLOCKS` blocks, the last one (the buttons) kept."""
    return blocks if len(blocks) <= MAX_BLOCKS else blocks[: MAX_BLOCKS - 1] + blocks[-1:]


def suggestion_actions(turn: Turn) -> dict:
    """The suggested follow-up questions as buttons; a click asks one in the thread."""
    buttons = [
        _button(clip(text, MAX_BUTTON_TEXT), f"{SUGGEST_ACTION}_{i}", f"{turn.id}:{i}")
        for i, text in enumerate(turn.suggestions)
    ]
    return {"type": "actions", "elements": buttons}


def answer_sections(shown: Shown) -> list[str]:
    """The answer's section texts: *Most likely answer* and the answer, then *Related* and
    its supporting lines, citations renumbered and linked, labels in the reply's language."""
    urls = source_urls(shown)
    words = labels(shown.language)
    out = []
    for label, text in (
        (f"*{words['answer']}*", shown.answer),
        (f"*{words['related']}*", "\n".join(shown.related)),
    ):
        if not text:
            continue
        pieces = split_rendered(
            text, lambda raw: render_answer(raw, urls), MAX_SECTION_TEXT - len(label) - 1
        )
        if pieces:
            pieces[0] = f"{label}\n{pieces[0]}"
        out += pieces
    return out


def decline_text(turn: Turn) -> str:
    """A declined answer: "I couldn't find this in the wiki; closest pages:" in the
    question's language, and the closest pages linked."""
    pages = closest_pages([r.evidence for r in turn.evidences])
    if not pages:
        return escape(decline_message(turn.completed_question, []))
    links = ", ".join(link(e.url, clip(e.title, MAX_TITLE_CHARS)) for e in pages)
    return f"{escape(decline_intro(turn.completed_question))} {links}"


def answer_text(turn: Turn) -> str:
    """The message's notification text (shown where blocks are not): the answer as shown
    (citations renumbered), escaped."""
    shown = shown_turn(turn)
    text = "\n".join([shown.answer, *shown.related]).strip() if not turn.out_of_scope else ""
    return clip(escape(text or turn.answer.strip()), MAX_FALLBACK_CHARS) or "(no answer)"


# --------------------------------------------------------------------------- explanations
METHOD_NOTES = {
    "en": {
        "counterfactual": "Counterfactual attribution: each group of near-identical sources"
        " was left out and the answer regenerated; the more the answer changed, the larger"
        " the share.",
        "naive": "Similarity baseline: how much the answer resembles each source (plausible,"
        " not causal).",
        "citation": "Citation baseline: the cited sources share the answer equally.",
    },
    "de": {
        "counterfactual": "Kontrafaktische Attribution: Jede Gruppe fast gleicher Quellen"
        " wurde weggelassen und die Antwort neu erzeugt; je stärker sich die Antwort"
        " änderte, desto größer der Anteil.",
        "naive": "Ähnlichkeits-Baseline: wie sehr die Antwort jeder Quelle ähnelt"
        " (plausibel, nicht kausal).",
        "citation": "Zitat-Baseline: Die zitierten Quellen teilen sich die Antwort zu"
        " gleichen Teilen.",
    },
}


def plain_words(sentences: Sequence[Sequence[Words]], sources: Sequence[Named]) -> str:
    """Plain-words sentences as mrkdwn: each shown source's name linked to its page and
    followed by its numbers, `<url|Hotel limits (Travel Policy)> [1]`."""
    urls = {s.shown: s.url for s in sources if s.shown is not None}
    out = []
    for sentence in sentences:
        text = ""
        for words in sentence:
            if words.sources:
                marks = "".join(f"[{n}]" for n in words.sources)
                text += f"{link(urls.get(words.sources[0], ''), words.text)} {marks}"
            else:
                text += escape(words.text)
        out.append(text)
    return " ".join(out)


def explanation_lines(
    explanation: Explanation, sources: Sequence[Named], language: str = "en"
) -> list[str]:
    """One line per cluster with a share: its bar, percentage and sources (the shown ones
    numbered and linked, the others named as not cited); then a line counting the
    clusters that did not change the answer. `sources[n-1]` names prompt source n."""
    words = labels(language)
    if explanation.top_evidence() is None:
        return []
    lines, unchanged = [], 0
    for cluster in explanation.clusters:
        if cluster.share <= 0:
            unchanged += 1
            continue
        parts = []
        for source in in_shown_order(cluster.evidences, sources):
            name = clip(source.name, MAX_TITLE_CHARS)
            if source.shown is None:
                parts.append(f"{escape(name)} _({escape(words['not_cited'])})_")
            else:
                parts.append(f"[{source.shown}] {link(source.url, name)}")
        lines.append(f"`{bar(cluster.share)}` {cluster.share * 100:.1f}%  " + ", ".join(parts))
    if unchanged:
        lines.append(f"_{escape(no_effect(unchanged, language))}_")
    return lines


def explanation_blocks(
    explanation: Explanation, sources: Sequence[Named], language: str = "en"
) -> list[dict]:
    """The Explain message: the title, why in plain words (`core.present`), the method in
    a context line, and the per-source breakdown, in the question's `language`.
    `sources[n-1]` names prompt source n (`core.present.named_sources`)."""
    words = labels(language)
    sentences = plain_explanation(explanation, sources, language)
    blocks = [_section(f"*{escape(words['why'])}*\n" + plain_words(sentences, sources))]
    note = METHOD_NOTES.get(language, METHOD_NOTES["en"]).get(explanation.method)
    if note:
        blocks.append(_context(escape(note)))
    texts = _pack(explanation_lines(explanation, sources, language))
    blocks += [_section(text) for text in texts[: MAX_BLOCKS - len(blocks)]]
    return blocks


def explanation_text(
    explanation: Explanation, sources: Sequence[Named], language: str = "en"
) -> str:
    """The Explain message's notification text: why, in plain words."""
    sentences = plain_explanation(explanation, sources, language)
    text = " ".join("".join(w.text for w in sentence) for sentence in sentences)
    return clip(escape(f"{labels(language)['why']}: {text}"), MAX_FALLBACK_CHARS)
