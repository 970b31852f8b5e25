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
    split_answer,
)
from core.assistant import Turn
from core.attribution import Explanation
from core.pages import Page
from core.redact import web_link

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_QUESTION_CHARS = 300
MAX_TITLE_CHARS = 150
MAX_FALLBACK_CHARS = 3000

ANSWER_LABEL = "*Most likely answer*"
RELATED_LABEL = "*Related*"

EXPLAIN_ACTION = "confbot_explain"
FEEDBACK_UP_ACTION = "confbot_feedback_up"
FEEDBACK_DOWN_ACTION = "confbot_feedback_down"
# One action id per suggestion button (Slack wants them unique in a message); the value is
# "<turn id>:<suggestion index>".
SUGGEST_ACTION = "confbot_suggest"
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
def source_urls(turn: Turn) -> dict[int, str]:
    """Source number → page URL for every numbered source of the answer prompt."""
    numbered = {n: r.evidence.url for n, r in enumerate(turn.evidences, start=1)}
    return numbered | {c.number: c.url for c in turn.citations}


def source_lines(turn: Turn, pages: Mapping[str, Page]) -> list[str]:
    """One line per cited page, in order of first citation: its citation numbers, the
    linked title, the space, the date it was last updated (when known) and the
    near-duplicate pages it stands for ("also in" a copy or draft)."""
    spaces = {r.evidence.page_id: r.evidence.space for r in turn.evidences}
    copies: dict[str, list] = {}
    for r in turn.evidences:
        for other in r.also_in:
            if other not in copies.setdefault(r.evidence.page_id, []):
                copies[r.evidence.page_id].append(other)
    order: list[str] = []
    numbers: dict[str, list[int]] = {}
    first: dict[str, tuple[str, str]] = {}
    for citation in turn.citations:
        if citation.page_id not in numbers:
            order.append(citation.page_id)
            numbers[citation.page_id] = []
            first[citation.page_id] = (citation.url, citation.title)
        numbers[citation.page_id].append(citation.number)
    lines = []
    for page_id in order:
        url, title = first[page_id]
        page = pages.get(page_id)
        parts = [link(url, clip(title, MAX_TITLE_CHARS))]
        space = page.space if page is not None else spaces.get(page_id, "")
        if space:
            parts.append(escape(space))
        if page is not None and page.updated_at:
            parts.append(f"updated {escape(page.updated_at[:10])}")
        if copies.get(page_id):
            others = ", ".join(link(o.url, clip(o.title, MAX_TITLE_CHARS)) for o in copies[page_id])
            parts.append(f"also in {others}")
        cited = "".join(f"[{n}]" for n in numbers[page_id])
        lines.append(f"{cited} " + " · ".join(parts))
    return lines


def answer_blocks(turn: Turn, pages: Mapping[str, Page] | None = None) -> list[dict]:
    """The answer message: the completed question (context line, when it differs from what
    was typed; a clarification asked back is its text alone), the answer with linked
    citations, the Sources list, the suggested follow-up buttons, and the Explain / 👍 / 👎
    buttons carrying the turn id.
    `pages` (page id → indexed page) supplies spaces and last-updated dates."""
    pages = pages or {}
    if turn.clarification:  # a question asked back: the text alone
        return [_section(escape(turn.answer))]
    question = escape(clip(" ".join(turn.completed_question.split()), MAX_QUESTION_CHARS))
    differs = " ".join(turn.completed_question.split()) != " ".join(turn.question.split())
    head = [_context(f"_Answering:_ {question}")] if differs else []

    sources = []
    lines = source_lines(turn, pages)
    if lines:
        sources = [_section(text) for text in _pack(["*Sources*", *lines])]

    buttons = []
    if turn.evidences and not turn.out_of_scope:
        buttons.append(_button("Explain", EXPLAIN_ACTION, str(turn.id)))
    buttons.append(_button("👍", FEEDBACK_UP_ACTION, str(turn.id)))
    buttons.append(_button("👎", FEEDBACK_DOWN_ACTION, str(turn.id)))
    actions = [{"type": "actions", "elements": buttons}]
    if turn.suggestions:  # the follow-ups above the Explain / feedback row
        actions.insert(0, suggestion_actions(turn))

    if turn.out_of_scope:
        answer = [decline_text(turn)]
    else:
        answer = answer_sections(turn)
    room = MAX_BLOCKS - len(head) - len(sources) - len(actions)
    if len(answer) > room:
        answer = answer[:room]
        answer[-1] = clip(answer[-1], MAX_SECTION_TEXT - 2) + " …"
    return head + [_section(text) for text in answer or [escape("(no answer)")]] + sources + actions


def suggestion_actions(turn: Turn) -> dict:
    """The suggested follow-up questions as buttons; a click asks one in the thread."""
    buttons = [
        _button(clip(text, MAX_BUTTON_TEXT), f"{SUGGEST_ACTION}_{i}", f"{turn.id}:{i}")
        for i, text in enumerate(turn.suggestions)
    ]
    return {"type": "actions", "elements": buttons}


def answer_sections(turn: Turn) -> list[str]:
    """The answer's section texts: *Most likely answer* and the answer, then *Related* and
    its supporting lines (`core.answer.split_answer`), citations linked."""
    urls = source_urls(turn)
    parts = split_answer(turn.answer)
    out = []
    for label, text in ((ANSWER_LABEL, parts.answer), (RELATED_LABEL, "\n".join(parts.related))):
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
    """The message's notification text (shown where blocks are not): the answer, escaped."""
    return clip(escape(turn.answer.strip()), MAX_FALLBACK_CHARS) or "(no answer)"


# --------------------------------------------------------------------------- explanations
METHOD_NOTES = {
    "counterfactual": "Counterfactual attribution: each group of near-identical sources was"
    " left out and the answer regenerated; the more the answer changed, the larger the share.",
    "naive": "Similarity baseline: how much the answer resembles each source (plausible,"
    " not causal).",
    "citation": "Citation baseline: the cited sources share the answer equally.",
}


def cluster_sources(numbers: Sequence[int], evidences: Sequence[Mapping]) -> str:
    """A cluster's evidences as page links, evidences of one page together: `[1][3] Title`."""
    order: list[tuple[str, str]] = []
    cited: dict[tuple[str, str], list[int]] = {}
    for number in numbers:
        ref = evidences[number - 1] if 0 < number <= len(evidences) else {}
        title = clip(str(ref.get("title", "")), MAX_TITLE_CHARS) or f"Source {number}"
        page = (str(ref.get("url", "")), title)
        if page not in cited:
            order.append(page)
            cited[page] = []
        cited[page].append(number)
    return ", ".join("".join(f"[{n}]" for n in cited[page]) + " " + link(*page) for page in order)


def explanation_lines(explanation: Explanation, evidences: Sequence[Mapping]) -> list[str]:
    """One line per cluster with a share: its bar, percentage and page links; then a line
    counting the clusters that did not change the answer."""
    if explanation.top_evidence() is None:
        return [escape(line) for line in explanation.lines()]
    lines, unchanged = [], 0
    for cluster in explanation.clusters:
        if cluster.share <= 0:
            unchanged += 1
            continue
        sources = cluster_sources(cluster.evidences, evidences)
        lines.append(f"`{bar(cluster.share)}` {cluster.share * 100:.1f}%  {sources}")
    if unchanged:
        noun = "source group" if unchanged == 1 else "source groups"
        lines.append(f"_{unchanged} other {noun}: no effect on the answer._")
    return lines


def explanation_blocks(explanation: Explanation, evidences: Sequence[Mapping]) -> list[dict]:
    """The Explain message: a title, the method in a context line, and the breakdown.
    `evidences` are the turn's stored evidences (number n is `evidences[n-1]`)."""
    blocks = [_section("*Why this answer:* how much each source shaped it")]
    note = METHOD_NOTES.get(explanation.method)
    if note:
        blocks.append(_context(escape(note)))
    texts = _pack(explanation_lines(explanation, evidences))
    blocks += [_section(text) for text in texts[: MAX_BLOCKS - len(blocks)]]
    return blocks


def explanation_text(explanation: Explanation) -> str:
    """The Explain message's notification text."""
    if explanation.top_evidence() is None:
        return escape(explanation.lines()[0])
    top = explanation.clusters[0]
    numbers = "".join(f"[{n}]" for n in top.evidences)
    return f"Why this answer: {top.share * 100:.1f}% from source {numbers}"
