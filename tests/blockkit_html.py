"""Block Kit messages as a Slack-like thread in HTML, for the README's picture of an answer
in Slack (tests/test_browser.py screenshots it in Chromium).

No real Slack workspace is reachable from the tests, so the picture is of the exact
`blocks` the bot posted to the fake Slack Web API (tests/fakes/slack_api_server.py),
rendered the way Slack's client shows them: mrkdwn (`*bold*`, `_italic_`, `~strike~`,
`` `code` ``, `>` quotes, `<url|links>`, `<@user>` mentions, `&amp;`-escaped text) in
section and context blocks, buttons in actions blocks, dividers and headers. A block or
element type this renderer does not know raises `ValueError`, so a payload it cannot show
faithfully fails the test instead of being left out of the picture.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_TOKEN = re.compile(r"<([^<>\n]+)>")
_CODE = re.compile(r"`([^`\n]+)`")
_HOLE = re.compile("\ue000(\\d+)\ue001")


def _spans(mark: str, tag: str) -> tuple[re.Pattern, str]:
    """Slack's rule for `*bold*`-like markers: the opening one after a line start, a space
    or punctuation and before a non-space, the closing one after a non-space and not
    followed by a word character."""
    m = re.escape(mark)
    pattern = re.compile(rf"(?<![\w{m}]){m}(?=\S)([^{m}\n]*?\S){m}(?![\w{m}])")
    return pattern, rf"<{tag}>\1</{tag}>"


_STYLES = [_spans("*", "b"), _spans("_", "i"), _spans("~", "s")]


@dataclass
class Message:
    """One message of the thread: who posted it, when (a Slack `ts`), and its `blocks`, or
    its `text` alone when it has none."""

    author: str
    ts: str
    text: str = ""
    blocks: Sequence[Mapping] = field(default_factory=list)
    bot: bool = False


def mrkdwn(text: str, users: Mapping[str, str] | None = None) -> str:
    """Slack mrkdwn as HTML. `users` maps user ids to the names `<@U…>` mentions show."""
    runs: list[tuple[bool, list[str]]] = []  # (quoted, lines) of consecutive lines
    for line in text.split("\n"):
        quoted = line.startswith(("&gt;", ">"))
        if quoted:
            line = line.removeprefix("&gt;").removeprefix(">")
        if not runs or runs[-1][0] != quoted:
            runs.append((quoted, []))
        runs[-1][1].append(_inline(line, users or {}))
    return "".join(
        f"<blockquote>{'<br>'.join(lines)}</blockquote>" if quoted else "<br>".join(lines)
        for quoted, lines in runs
    )


def _inline(line: str, users: Mapping[str, str]) -> str:
    """One line: links and mentions and code spans set aside, the text escaped for HTML
    (Slack's own `&amp;`, `&lt;`, `&gt;` undone first), then bold, italic and strike."""
    holes: list[str] = []

    def hole(rendered: str) -> str:
        holes.append(rendered)
        return f"\ue000{len(holes) - 1}\ue001"

    def token(match: re.Match) -> str:
        return hole(_token(match.group(1), users))

    line = _TOKEN.sub(token, line)
    line = _CODE.sub(lambda m: hole(f"<code>{_text(m.group(1))}</code>"), line)
    line = _text(line)
    for pattern, replacement in _STYLES:
        line = pattern.sub(replacement, line)
    while _HOLE.search(line):  # a link label may hold a code span's hole
        line = _HOLE.sub(lambda m: holes[int(m.group(1))], line)
    return line


def _text(raw: str) -> str:
    """Slack-escaped text as HTML-escaped text."""
    return html.escape(html.unescape(raw), quote=False)


def _token(inner: str, users: Mapping[str, str]) -> str:
    """`<url|label>`, `<url>`, `<@U123>`, `<#C123|name>` or `<!here>` as HTML."""
    target, _, label = inner.partition("|")
    if target.startswith("@"):
        name = users.get(target[1:], target[1:])
        return f'<span class="mention">@{_text(name)}</span>'
    if target.startswith("#"):
        return f'<span class="mention">#{_text(label or target[1:])}</span>'
    if target.startswith("!"):
        return f'<span class="mention">@{_text(target[1:])}</span>'
    shown = _inline(label, users) if label else _text(target)
    return f'<a href="{html.escape(html.unescape(target))}">{shown}</a>'


def text_object(obj: Mapping, users: Mapping[str, str]) -> str:
    """A Block Kit text object (`mrkdwn` or `plain_text`) as HTML."""
    if obj["type"] == "mrkdwn":
        return mrkdwn(obj["text"], users)
    if obj["type"] == "plain_text":
        return html.escape(obj["text"], quote=False)
    raise ValueError(f"not a text object: {obj['type']!r}")


def _button(element: Mapping) -> str:
    style = element.get("style", "")
    if style not in ("", "primary", "danger"):
        raise ValueError(f"unknown button style {style!r}")
    label = html.escape(element["text"]["text"], quote=False)
    return f'<button class="button {style}" data-action="{element["action_id"]}">{label}</button>'


def block(item: Mapping, users: Mapping[str, str]) -> str:
    """One block as HTML; a type this renderer does not know raises ValueError."""
    kind = item["type"]
    if kind == "section":
        parts = []
        if "text" in item:
            parts.append(f'<div class="text">{text_object(item["text"], users)}</div>')
        if item.get("fields"):
            cells = "".join(f"<div>{text_object(f, users)}</div>" for f in item["fields"])
            parts.append(f'<div class="fields">{cells}</div>')
        if "accessory" in item:
            if item["accessory"]["type"] != "button":
                raise ValueError(f"unknown accessory {item['accessory']['type']!r}")
            parts.append(_button(item["accessory"]))
        return f'<div class="block section">{"".join(parts)}</div>'
    if kind == "context":
        elements = []
        for element in item["elements"]:
            if element["type"] == "image":
                alt = html.escape(element.get("alt_text", ""))
                elements.append(f'<img src="{html.escape(element["image_url"])}" alt="{alt}">')
            else:
                elements.append(f"<span>{text_object(element, users)}</span>")
        return f'<div class="block context">{"".join(elements)}</div>'
    if kind == "actions":
        buttons = []
        for element in item["elements"]:
            if element["type"] != "button":
                raise ValueError(f"unknown actions element {element['type']!r}")
            buttons.append(_button(element))
        return f'<div class="block actions">{"".join(buttons)}</div>'
    if kind == "divider":
        return '<hr class="block divider">'
    if kind == "header":
        return f'<div class="block header">{text_object(item["text"], users)}</div>'
    raise ValueError(f"unknown block type {kind!r}")


def message(item: Message, users: Mapping[str, str]) -> str:
    """A message with its avatar, author (an APP badge for a bot), time and content."""
    initial = html.escape(item.author[:1].upper())
    badge = ' <span class="badge">APP</span>' if item.bot else ""
    when = time.strftime("%H:%M", time.gmtime(float(item.ts)))
    if item.blocks:
        body = "".join(block(b, users) for b in item.blocks)
    else:
        body = (
            f'<div class="block section"><div class="text">{mrkdwn(item.text, users)}</div></div>'
        )
    kind = "bot" if item.bot else "person"
    return (
        f'<div class="message"><div class="avatar {kind}">{initial}</div><div class="content">'
        f'<div class="meta"><span class="author">{html.escape(item.author)}</span>{badge}'
        f' <span class="time">{when}</span></div>{body}</div></div>'
    )


def thread_page(channel: str, messages: Sequence[Message], users: Mapping[str, str]) -> str:
    """A whole HTML page: Slack's thread pane for `channel`, the first message, the count
    of replies, then the replies."""
    first, replies = messages[0], messages[1:]
    count = f"{len(replies)} {'reply' if len(replies) == 1 else 'replies'}"
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><style>{CSS}</style></head><body>'
        f'<div class="pane"><div class="title">Thread <span>#{html.escape(channel)}</span></div>'
        f"{message(first, users)}"
        f'<div class="replies"><span>{count}</span></div>'
        + "".join(message(m, users) for m in replies)
        + "</div></body></html>"
    )


CSS = """
body { margin: 0; background: #fff; color: #1d1c1d; font: 15px/1.46668 Lato, "Helvetica Neue",
  "Liberation Sans", Arial, sans-serif, "Noto Color Emoji"; }
.pane { width: 680px; padding-bottom: 12px; }
.title { font-weight: 900; font-size: 18px; padding: 14px 20px; border-bottom: 1px solid #ddd; }
.title span { font-weight: 400; font-size: 13px; color: #616061; margin-left: 6px; }
.message { display: flex; gap: 8px; padding: 8px 20px; }
.avatar { flex: 0 0 36px; height: 36px; border-radius: 6px; color: #fff; font-weight: 700;
  display: flex; align-items: center; justify-content: center; }
.avatar.person { background: #e8912d; }
.avatar.bot { background: #4a154b; }
.content { flex: 1; min-width: 0; }
.meta { line-height: 1.2; margin-bottom: 2px; }
.author { font-weight: 900; }
.badge { font-size: 10px; font-weight: 700; color: #616061; background: #e8e8e8;
  border-radius: 2px; padding: 1px 3px; vertical-align: 1px; }
.time { font-size: 12px; color: #616061; margin-left: 4px; }
.replies { display: flex; align-items: center; gap: 12px; padding: 4px 20px;
  color: #616061; font-size: 13px; }
.replies::after { content: ""; flex: 1; border-top: 1px solid #ddd; }
.block { margin: 4px 0; }
.section .text { overflow-wrap: anywhere; }
.fields { display: grid; grid-template-columns: 1fr 1fr; gap: 4px 16px; }
.context { font-size: 13px; color: #616061; display: flex; gap: 8px; align-items: center; }
.context img { width: 20px; height: 20px; border-radius: 4px; }
.header { font-size: 18px; font-weight: 900; }
.divider { border: 0; border-top: 1px solid #ddd; }
a { color: #1264a3; text-decoration: none; }
b { font-weight: 700; }
code { font: 12px Monaco, Menlo, "DejaVu Sans Mono", monospace; color: #e01e5a;
  background: #f6f6f6; border: 1px solid #ddd; border-radius: 3px; padding: 1px 3px; }
blockquote { margin: 2px 0; padding-left: 12px; border-left: 4px solid #ddd; }
.mention { color: #1264a3; background: rgba(29, 155, 209, .1); border-radius: 3px;
  padding: 0 2px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }
.button { font: 700 13px Lato, "Helvetica Neue", "Liberation Sans", Arial, sans-serif,
  "Noto Color Emoji"; height: 28px; padding: 0 12px; border-radius: 4px;
  border: 1px solid rgba(29, 28, 29, .3); background: #fff; color: #1d1c1d; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.button.danger { background: #e01e5a; border-color: #e01e5a; color: #fff; }
"""
