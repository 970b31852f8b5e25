"""Hostile page bodies of a chosen size: what an attacker, a broken exporter or an unlucky
wiki can put in a Confluence page. The robustness tests index them small; the benchmark
(`benchmarks/hostile_pages.py`) indexes them at up to 5 MB.

Each generator returns a storage-format body of about `size` characters (never more), built
deterministically from `seed`.
"""

from __future__ import annotations

import random
from collections.abc import Callable

_WORDS = (
    "deploy kernel driver network storage cluster backup restore policy review release"
    " sprint ticket budget invoice vendor contract meeting agenda summary incident"
).split()


def _repeat(piece: Callable[[int], str], size: int, head: str = "", tail: str = "") -> str:
    """`head`, then `piece(i)` for i = 0, 1, ... while it fits, then `tail`."""
    parts, used, i = [head], len(head) + len(tail), 0
    while True:
        item = piece(i)
        if used + len(item) > size:
            break
        parts.append(item)
        used += len(item)
        i += 1
    return "".join(parts) + tail


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(count))


def big_spans(size: int, seed: int = 0) -> str:
    """Rows whose cells span the HTML maximum: 65534 rows and 1000 columns each."""
    return _repeat(
        lambda i: f'<tr><td rowspan="65534" colspan="1000">cell {i} spans everything</td></tr>',
        size,
        "<table><tbody>",
        "</tbody></table>",
    )


def long_table(size: int, seed: int = 0) -> str:
    """A table of many short rows (a 10k-row table is about 400 KB)."""
    rng = random.Random(seed)
    return _repeat(
        lambda i: f"<tr><td>R-{i}</td><td>{_words(rng, 3)}</td><td>{i * 7}</td></tr>",
        size,
        "<table><tbody><tr><th>Key</th><th>Description</th><th>Amount</th></tr>",
        "</tbody></table>",
    )


def wide_then_long_table(size: int, seed: int = 0) -> str:
    """One row of 5000 cells, then as many one-cell rows as fit: padding every row to the
    widest would multiply the table."""
    wide = "<tr>" + "".join(f"<td>w{i}</td>" for i in range(5000)) + "</tr>"
    return _repeat(lambda i: f"<tr><td>n{i}</td></tr>", size, "<table>" + wide, "</table>")


def garbage(size: int, seed: int = 0) -> str:
    """Random markup characters, entities and text without structure."""
    rng = random.Random(seed)
    alphabet = "abcdefghij<>&;/ \"'=#x\n"
    return "".join(rng.choice(alphabet) for _ in range(size))


def no_spaces(size: int, seed: int = 0) -> str:
    """One paragraph that is a single word (base64 pasted into a page)."""
    rng = random.Random(seed)
    return "<p>" + "".join(rng.choice("ABCDEFabcdef0123456789+/") for _ in range(size - 7)) + "</p>"


def deep_nesting(size: int, seed: int = 0) -> str:
    """Elements nested as deep as the size allows (libxml2 stops at 2048 levels)."""
    depth = max(1, (size - 40) // 11)
    return "<p>before</p>" + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p>"


def deep_lists(size: int, seed: int = 0) -> str:
    """Lists nested in lists as deep as the size allows."""
    depth = max(1, (size - 20) // 20)
    return "<ul><li>" * depth + "innermost item" + "</li></ul>" * depth


def deep_tables(size: int, seed: int = 0) -> str:
    """Tables nested in table cells."""
    depth = max(1, (size - 20) // 40)
    return "<table><tr><td>" * depth + "innermost cell" + "</td></tr></table>" * depth


def many_list_items(size: int, seed: int = 0) -> str:
    """A list of very many items."""
    rng = random.Random(seed)
    return _repeat(lambda i: f"<li>{_words(rng, 4)} {i}</li>", size, "<ul>", "</ul>")


def huge_heading(size: int, seed: int = 0) -> str:
    """A heading holding most of the page, then content under it."""
    rng = random.Random(seed)
    text = _words(rng, max(1, (size - 60) // 8))[: size - 60]
    return f"<h1>{text}</h1><p>Content under the heading.</p>"


def long_prose(size: int, seed: int = 0) -> str:
    """Ordinary paragraphs, as many as fit."""
    rng = random.Random(seed)
    return _repeat(lambda i: f"<p>{_words(rng, 40)}. Paragraph {i}.</p>", size)


def entities_and_controls(size: int, seed: int = 0) -> str:
    """Unknown entities, out-of-range references, control characters and lone surrogates."""
    pieces = ["&bogus;", "&#0;", "&#xD800;", "&#x110000;", "\x00", "\x1b", "\ud800", "&", "text "]
    rng = random.Random(seed)
    return "<p>" + "".join(rng.choice(pieces) for _ in range(size // 6)) + "</p>"


def unclosed_cdata(size: int, seed: int = 0) -> str:
    """A code macro whose CDATA section never ends."""
    head = '<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA['
    return head + "x = 1 < 2 && 3\n" * max(1, (size - len(head)) // 15)


def nested_macros(size: int, seed: int = 0) -> str:
    """Expand macros nested in expand macros, each with a title and several bodies."""
    depth = max(1, (size - 40) // 200)
    open_ = (
        '<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">T</ac:parameter>'
        "<ac:rich-text-body><p>a</p></ac:rich-text-body><ac:rich-text-body>"
    )
    return open_ * depth + "<p>core</p>" + "</ac:rich-text-body></ac:structured-macro>" * depth


def only_jira_macros(size: int, seed: int = 0) -> str:
    """Nothing but Jira issue macros (no body, no title)."""
    return _repeat(
        lambda i: (
            '<ac:structured-macro ac:name="jira"><ac:parameter ac:name="key">ABC-'
            f"{i + 1}</ac:parameter></ac:structured-macro>"
        ),
        size,
    )


HOSTILE = {
    "big_spans": big_spans,
    "long_table": long_table,
    "wide_then_long_table": wide_then_long_table,
    "garbage": garbage,
    "no_spaces": no_spaces,
    "deep_nesting": deep_nesting,
    "deep_lists": deep_lists,
    "deep_tables": deep_tables,
    "many_list_items": many_list_items,
    "huge_heading": huge_heading,
    "long_prose": long_prose,
    "entities_and_controls": entities_and_controls,
    "unclosed_cdata": unclosed_cdata,
    "nested_macros": nested_macros,
    "only_jira_macros": only_jira_macros,
}
"""Every generator, by name."""
