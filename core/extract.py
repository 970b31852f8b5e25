"""Confluence page bodies → ordered blocks: headings, passages, lists and tables.

Reads storage-format XHTML (`ac:`/`ri:` macros, CDATA code bodies) and rendered view HTML
(`div.code`, information macros, expand containers), and bodies that mix both. The body is
repaired (CDATA sections become escaped text, HTML entities become characters, stray `&`
and control characters are escaped or dropped), parsed as XML inside a root that declares
every namespace prefix it uses, and, when that fails, parsed again with lxml's recovering
HTML parser. Nothing here raises on bad markup: what cannot be read is reported in
`Extraction.warnings`.

Decisions a reader should know:
- Consecutive paragraphs form one passage; a passage ends at a heading, list, table or code
  block, and where the body of a titled macro (expand, panel, info...) starts or ends.
- Code (code/noformat macros, `pre`, view code panels) is a passage of its own, kept
  verbatim (no-break spaces become spaces; leading and trailing line breaks are dropped),
  with its `language` when known.
- A macro's `title` parameter (expand, panel, info, note, warning, tip, code) is kept in
  `Block.title` on every block of its body, not as text: the body stays as written and the
  contextualizer adds the title to the heading context. A macro without a body that has a
  title (for example a status lozenge) contributes the title as inline text.
- Inside a table cell, list item or heading everything is flattened to one line of text:
  paragraphs and code joined by spaces, nested list items and table rows by "; ".
- Links keep their text; a link without text becomes the page title, attachment file
  name, URL or `@user` (username, else user key, else account id). Images become their
  alt text or attachment file name; emoticons `(name)`; `<time>` its datetime.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from html.entities import html5
from typing import Literal

from lxml import etree

from core.limits import (
    MAX_COLSPAN,
    MAX_NESTING,
    MAX_READ_WORDS,
    MAX_ROWSPAN,
    MAX_SPAN_COPY,
    MAX_TABLE_CELLS,
)


@dataclass(frozen=True)
class ListItem:
    """One list item: its nesting depth (0 = top level), its text, and for task-list
    items whether the task is done (ordinary items: None)."""

    depth: int
    text: str
    checked: bool | None = None


@dataclass(frozen=True)
class Block:
    """One unit of page content in page order.

    `text` is the heading or passage text, or a plain rendering of a list (one item a line,
    `"  " * depth + marker + text`, markers `- ` or `1. `, tasks `[x] `/`[ ] `) or of a
    table (header line when there is one, then rows; cells joined by " | ").
    Tables are rectangular: `header` has one name per column ("" when the table has no
    header) and every row has as many cells.
    """

    kind: Literal["heading", "passage", "list", "table"]
    text: str = ""
    level: int = 0
    items: tuple[ListItem, ...] = ()
    ordered: bool = False
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    language: str = ""
    title: str = ""


@dataclass
class Extraction:
    """The blocks of a page body and what could not be read cleanly."""

    blocks: list[Block]
    warnings: list[str]


def extract(body: str, body_format: str = "storage") -> Extraction:
    """Split a page body (`storage` XHTML or `view` HTML) into ordered blocks.

    Never raises on malformed markup; every repair or fallback is described in `warnings`.
    """
    if body_format not in ("storage", "view"):
        raise ValueError(f"unknown body format {body_format!r}; choose one of: storage, view")
    warnings: list[str] = []
    root = _parse(body, body_format, warnings)
    walker = _Walker(warnings)
    if root is not None:
        walker.walk(root)
    return Extraction(walker.finish(), warnings)


def _render_list(items: tuple[ListItem, ...], ordered: bool) -> str:
    """A list as plain text: one item a line, indented two spaces per depth, numbered per
    level when ordered, task items marked `[x] ` or `[ ] `."""
    counters: list[int] = []
    lines = []
    for item in items:
        del counters[item.depth + 1 :]
        counters.extend([0] * (item.depth + 1 - len(counters)))
        counters[item.depth] += 1
        marker = f"{counters[item.depth]}. " if ordered else "- "
        box = "" if item.checked is None else ("[x] " if item.checked else "[ ] ")
        lines.append("  " * item.depth + marker + box + item.text)
    return "\n".join(lines)


def _render_table(header: tuple[str, ...], rows: tuple[tuple[str, ...], ...]) -> str:
    """A table as plain text: the header line (when any column is named), then the rows;
    cells joined by " | "."""
    lines = [header] if any(header) else []
    return "\n".join(" | ".join(row) for row in [*lines, *rows])


# --------------------------------------------------------------------------- parsing

# `huge_tree` lifts libxml2's nesting limit from 256 to 2048 levels and its text-node size
# limit; entities are never resolved, so it opens no entity expansion. Deeper bodies are
# read as plain text (`_plain_text`).
_XML_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, remove_comments=True, remove_pis=True, huge_tree=True
)
_NS = "urn:confbot:"  # namespace URI prefix declared for each `ac:`, `ri:`... prefix
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_XML_DECLARATION = re.compile(r"<\?xml[^>]*>")
_REPAIR = re.compile(
    r"<!\[CDATA\[(?P<cdata>.*?)(?P<end>\]\]>|\Z)"
    r"|&(?P<ref>#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)?",
    re.S,
)
_PREFIXES = re.compile(r"</?([A-Za-z_][\w.-]*):[A-Za-z_]|\s([A-Za-z_][\w.-]*):[\w.-]+\s*=")


def _parse(body: str, body_format: str, warnings: list[str]) -> etree._Element | None:
    if not body.strip():
        warnings.append("empty body")
        return None
    text = _repair(body, warnings)
    if "<" not in text:
        warnings.append("body has no markup; read as plain text")
    prefixes = {a or b for a, b in _PREFIXES.findall(text)} - {"xml", "xmlns"}
    declarations = "".join(f' xmlns:{p}="{_NS}{p}"' for p in sorted(prefixes))
    try:
        return etree.fromstring(f"<confbot-root{declarations}>{text}</confbot-root>", _XML_PARSER)
    except etree.XMLSyntaxError as exc:
        if _too_deep(exc.error_log):
            return _plain_text(text, warnings)
        if body_format == "storage":
            warnings.append(f"not well-formed XML ({exc}); read with the recovering HTML parser")
    # A parser per call: its error log tells whether recovery cut the tree short.
    parser = etree.HTMLParser(
        no_network=True, remove_comments=True, remove_pis=True, huge_tree=True
    )
    root = etree.fromstring(text, parser)
    if _too_deep(parser.error_log):
        return _plain_text(text, warnings)
    return root


def _too_deep(error_log) -> bool:
    """Whether libxml2 stopped at one of its resource limits (nesting deeper than 2048)."""
    return any(error.type_name == "ERR_RESOURCE_LIMIT" for error in error_log)


_TAG = re.compile(r"<[^>]*>")


def _plain_text(text: str, warnings: list[str]) -> etree._Element:
    """The text of a body too deeply nested to parse, tags removed, as one element."""
    warnings.append(
        "markup nested deeper than 2048 elements: the whole page was read as plain text"
    )
    root = etree.Element("confbot-root")
    root.text = _CONTROL.sub("", html.unescape(_TAG.sub(" ", text)))
    return root


def _repair(body: str, warnings: list[str]) -> str:
    """Make a body parseable as XML where only its text is at fault: CDATA sections become
    escaped text (lxml would drop them in recovery), HTML entities their characters,
    unknown entities and stray `&` literal text; control characters and XML declarations
    are removed."""
    body, controls = _CONTROL.subn("", body)
    if controls:
        warnings.append(f"removed {controls} control character(s)")
    body = _XML_DECLARATION.sub("", body)
    stray = 0
    unknown: list[str] = []

    def fix(match: re.Match) -> str:
        nonlocal stray
        cdata, ref = match.group("cdata"), match.group("ref")
        if cdata is not None:
            if not match.group("end"):
                warnings.append("unclosed CDATA section read to the end of the body")
            return html.escape(cdata, quote=False)
        if ref is None:
            stray += 1
            return "&amp;"
        if ref[0] == "#" or ref[:-1] in _XML_ENTITIES:
            return match.group(0)
        if ref in html5:
            return html.escape(html5[ref])
        unknown.append("&" + ref)
        return "&amp;" + ref

    body = _REPAIR.sub(fix, body)
    if stray:
        warnings.append(f"escaped {stray} stray '&'")
    if unknown:
        names = sorted(set(unknown))
        more = f" and {len(names) - 10} more" if len(names) > 10 else ""
        warnings.append(f"unknown entities kept as text: {', '.join(names[:10])}{more}")
    return body


def _tag(el: etree._Element) -> str:
    """The element's name as written (`ac:link`, `p`); "" for comments and the like."""
    return _name(el.tag) if isinstance(el.tag, str) else ""


@lru_cache(maxsize=1024)
def _name(tag: str) -> str:
    """A parsed tag name in lower case; namespaces we declared map back to their prefix,
    any other (XHTML) is dropped."""
    name = tag.lower()
    if name[0] == "{":
        uri, local = name[1:].split("}", 1)
        name = f"{uri[len(_NS) :]}:{local}" if uri.startswith(_NS) else local
    return name


def _attr(el: etree._Element, name: str) -> str:
    """A (possibly prefixed) attribute, whichever parser produced the element."""
    value = el.get(name)
    if value is None and ":" in name:
        prefix, local = name.split(":", 1)
        value = el.get(f"{{{_NS}{prefix}}}{local}")
    return value or ""


def _classes(el: etree._Element) -> set[str]:
    return set((el.get("class") or "").split())


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _verbatim(el: etree._Element) -> str:
    """Text of a code element as written, `<br>` as a line break (walked without
    recursion, so any depth is read)."""
    parts: list[str] = []
    for event, node in etree.iterwalk(el, events=("start", "end")):
        if event == "start":
            parts.append("\n" if node is not el and _tag(node) == "br" else node.text or "")
        elif node is not el:
            parts.append(node.tail or "")
    return "".join(parts)


def _is_bold(cell: etree._Element) -> bool:
    """Whether all of a cell's text sits inside `<strong>`/`<b>` (and there is some)."""
    everything = "".join("".join(cell.itertext()).split())
    bold = []
    for el in cell.iter():
        if _tag(el) in ("strong", "b") and not any(
            _tag(a) in ("strong", "b") for a in el.iterancestors() if a is not cell
        ):
            bold.append("".join(el.itertext()))
    return bool(everything) and everything == "".join("".join(bold).split())


def _span(cell: etree._Element, name: str, most: int) -> int:
    """A rowspan/colspan value, 1 when missing or invalid, at most `most`."""
    value = cell.get(name) or ""
    return min(int(value), most) if value.isdigit() and int(value) > 0 else 1


_BRUSH = re.compile(r"(?:brush:\s*|language-)([\w#+.-]+)")


def _code_language(el: etree._Element) -> str:
    """The language of a rendered code block (`brush: bash` or `language-bash`)."""
    for value in (el.get("data-syntaxhighlighter-params"), el.get("class")):
        match = _BRUSH.search(value or "")
        if match:
            return match.group(1)
    return ""


# --------------------------------------------------------------------------- walking

_SKIP = {
    "head", "script", "style", "noscript", "template", "colgroup", "col",
    "ac:parameter", "ac:default-parameter", "ac:task-id", "ac:adf-attribute", "ac:placeholder",
}  # fmt: skip
_CHROME_IDS = {"breadcrumbs", "breadcrumb-section", "footer"}
_CHROME_CLASSES = {"page-metadata"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_LISTS = {"ul", "ol", "ac:task-list"}
_MACROS = {"ac:structured-macro", "ac:macro"}
_BLOCK_TAGS = {
    "p", "div", "blockquote", "section", "article", "main", "aside", "header", "footer",
    "nav", "dl", "dt", "dd", "figure", "figcaption", "address", "hr", "center", "details",
    "summary", "caption", "li", "tr", "td", "th", "body",
    "ac:layout", "ac:layout-section", "ac:layout-cell", "ac:rich-text-body", "ac:adf-content",
}  # fmt: skip
# Rendered macros (view HTML): container class → the classes of its title child.
_VIEW_MACROS = {"expand-container", "confluence-information-macro", "panel", "code", "preformatted"}
_VIEW_TITLES = {"expand-control", "title", "panelHeader", "codeHeader", "preformattedHeader"}
_HIGHLIGHTER_CLASSES = {"syntaxhighlighter", "sh-confluence", "nogutter"}


class _Walker:
    """Walks elements in page order, collecting blocks; open paragraphs accumulate in
    `lines` until something ends the passage."""

    def __init__(self, warnings: list[str], depth: int = 0, budget: list[int] | None = None):
        self.blocks: list[Block] = []
        self.lines: list[str] = []
        self.line: list[str] = []
        self.title = ""
        self.warnings = warnings
        self.depth = depth  # elements open above the one being walked
        self.budget = [MAX_READ_WORDS] if budget is None else budget  # words left to read

    def sub(self) -> _Walker:
        """A walker for the inside of a cell, list item or heading, at this depth, sharing
        the page's word budget."""
        return _Walker(self.warnings, self.depth, self.budget)

    def spend(self, text: str) -> str:
        """Count `text` against the page's `MAX_READ_WORDS`."""
        self.budget[0] -= len(text.split())
        return text

    def spent(self) -> bool:
        """Whether the page's words are read up (warned once)."""
        if self.budget[0] > 0:
            return False
        warning = f"only the first {MAX_READ_WORDS} words of the page were read"
        if warning not in self.warnings:
            self.warnings.append(warning)
        return True

    def finish(self) -> list[Block]:
        self.flush()
        return self.blocks

    def add(self, text: str | None) -> None:
        if text:
            self.line.append(text)

    def newline(self) -> None:
        if self.line:
            text = _collapse("".join(self.line))
            self.line = []
            if text:
                self.lines.append(self.spend(text))

    def flush(self) -> None:
        self.newline()
        if self.lines:
            self.blocks.append(Block("passage", text="\n".join(self.lines), title=self.title))
            self.lines = []

    def emit(self, block: Block) -> None:
        self.flush()
        self.blocks.append(block)

    def children(self, el: etree._Element, skip: etree._Element | None = None) -> None:
        self.add(el.text)
        for child in el:
            if child is not skip:
                self.walk(child)
            self.add(child.tail)

    def walk(self, el: etree._Element) -> None:
        if self.spent():
            return
        if self.depth >= MAX_NESTING:
            self.add(self.deep_text(el))
            return
        self.depth += 1
        try:
            self.walk_element(el)
        finally:
            self.depth -= 1

    def deep_text(self, el: etree._Element) -> str:
        """The text of markup nested deeper than `MAX_NESTING`, read without its structure."""
        warning = f"markup nested deeper than {MAX_NESTING} elements was read as plain text"
        if warning not in self.warnings:
            self.warnings.append(warning)
        return _collapse(" ".join(el.itertext()))

    def walk_element(self, el: etree._Element) -> None:
        tag = _tag(el)
        classes = _classes(el)
        if not tag or tag in _SKIP or el.get("id") in _CHROME_IDS or classes & _CHROME_CLASSES:
            return
        if tag in _HEADINGS:
            text = self.flat(el)
            if text:
                self.emit(Block("heading", text=text, level=int(tag[1]), title=self.title))
        elif tag in _LISTS:
            items = tuple(self.list_items(el, 0))
            if items:
                ordered = tag == "ol"
                text = _render_list(items, ordered)
                self.emit(Block("list", text, items=items, ordered=ordered, title=self.title))
        elif tag == "table":
            self.table(el)
        elif tag == "pre":
            self.code(_verbatim(el), _code_language(el), self.title)
        elif tag in _MACROS:
            self.macro(el)
        elif tag == "ac:adf-extension":
            fallback = next((c for c in el if _tag(c) == "ac:adf-fallback"), None)
            self.children(el if fallback is None else fallback)
        elif tag == "br":
            self.newline()
        elif tag == "ac:link":
            self.add(self.link_text(el))
        elif tag.startswith("ri:"):
            self.add(_resource_text(el))
        elif tag == "ac:image":
            resource = next((c for c in el if _tag(c).startswith("ri:")), None)
            caption = next((c for c in el if _tag(c) == "ac:caption"), None)
            alt = _attr(el, "ac:alt")
            self.add(alt or (_attr(resource, "ri:filename") if resource is not None else ""))
            if caption is not None:
                self.add(" " + self.flat(caption))
        elif tag == "img":
            self.add(el.get("alt") or el.get("data-linked-resource-default-alias"))
        elif tag in ("ac:emoticon", "ac:hipchat-emoticon"):
            name = _attr(el, "ac:name") or _attr(el, "ac:shortcut")
            self.add(f"({name})" if name else "")
        elif tag == "time" and not (el.text or "").strip():
            self.add(el.get("datetime"))
        elif tag == "div" and "syntaxhighlighter" in classes:
            lines = ["".join(line.itertext()) for line in el.iter() if "line" in _classes(line)]
            brushes = sorted(classes - _HIGHLIGHTER_CLASSES)
            self.code("\n".join(lines), brushes[-1] if brushes else "", self.title)
        elif tag == "div" and classes & _VIEW_MACROS:
            header = next((c for c in el if _classes(c) & _VIEW_TITLES), None)
            title = self.flat(header) if header is not None else ""
            self.body(el, title, skip=header)
        else:
            block = tag in _BLOCK_TAGS
            if block:
                self.newline()
            self.children(el)
            if block:
                self.newline()

    # ------------------------------------------------------------------ pieces
    def flat(self, el: etree._Element) -> str:
        """Everything inside `el` as one line of text."""
        if len(el) == 0:  # text only (most table cells): no walker needed
            return self.spend(_collapse(el.text or ""))
        sub = self.sub()
        sub.children(el)
        parts = []
        title = ""
        for block in sub.finish():
            if block.title and block.title != title:
                title = block.title
                parts.append(title)
            if block.kind == "list":
                parts.append("; ".join(item.text for item in block.items))
            elif block.kind == "table":
                parts.append(block.text.replace("\n", "; "))
            else:
                parts.append(block.text)
        return _collapse(" ".join(parts))

    def code(self, text: str, language: str, title: str) -> None:
        text = self.spend(text.replace("\xa0", " ").strip("\n"))
        if text.strip():
            self.emit(Block("passage", text=text, language=language, title=title))

    def body(self, el: etree._Element, title: str, skip: etree._Element | None = None) -> None:
        """The body of a macro: ordinary content on lines of its own; when the macro has a
        title, a passage of its own whose blocks carry the title."""
        outer = self.title
        self.newline()
        if title and title != outer:
            self.flush()
            self.title = title
        self.children(el, skip)
        self.newline()
        if self.title != outer:
            self.flush()
            self.title = outer

    def macro(self, el: etree._Element) -> None:
        params: dict[str, etree._Element] = {}
        rich: list[etree._Element] = []
        plain = None
        for child in el:
            tag = _tag(child)
            if tag == "ac:parameter":
                params[_attr(child, "ac:name").lower()] = child
            elif tag == "ac:default-parameter":
                params[""] = child
            elif tag == "ac:rich-text-body":
                rich.append(child)
            elif tag == "ac:plain-text-body":
                plain = child

        def param(name: str) -> str:
            return _collapse("".join(params[name].itertext())) if name in params else ""

        title = param("title")
        name = _attr(el, "ac:name").lower()
        if name in ("include", "excerpt-include") and "" in params:
            self.add(self.flat(params[""]))
        elif name == "jira" and not rich:
            self.add(
                _jira_text(param("key"), param("summary"), param("jqlquery"), param("columns"))
            )
        elif name == "detailssummary":
            self.add(_report_text(param("cql") or param("label"), param("headings")))
        elif plain is not None:
            self.code("".join(plain.itertext()), param("language"), title or self.title)
        elif rich:
            for body in rich:
                self.body(body, title)
        else:
            self.add(title)

    def link_text(self, el: etree._Element) -> str:
        resource = None
        for child in el:
            tag = _tag(child)
            if tag in ("ac:plain-text-link-body", "ac:link-body"):
                text = self.flat(child)
                if text:
                    return text
            elif tag.startswith("ri:"):
                resource = child
        return _resource_text(resource) if resource is not None else _attr(el, "ac:anchor")

    def list_items(self, el: etree._Element, depth: int) -> list[ListItem]:
        """The items of a `ul`/`ol`/`ac:task-list`, nested lists one level deeper."""
        tasks = "inline-task-list" in _classes(el)
        items: list[ListItem] = []
        for child in el:
            tag = _tag(child)
            if not tag or tag in _SKIP:
                continue
            if self.spent():
                break
            if tag in _LISTS and depth + 1 < MAX_NESTING:
                items.extend(self.list_items(child, depth + 1))
            elif tag in _LISTS:
                text = self.deep_text(child)
                items.extend([ListItem(depth + 1, text)] if text else [])
            elif tag == "ac:task":
                parts = {_tag(c): c for c in child}
                status = parts.get("ac:task-status")
                done = status is not None and (status.text or "").strip() == "complete"
                if "ac:task-body" in parts:
                    items.extend(self.list_item(parts["ac:task-body"], depth, done))
            else:
                checked = "checked" in _classes(child) if tasks else None
                items.extend(self.list_item(child, depth, checked))
        return items

    def list_item(self, el: etree._Element, depth: int, checked: bool | None) -> list[ListItem]:
        sub = self.sub()
        sub.children(el)
        texts: list[str] = []
        nested: list[ListItem] = []
        for block in sub.finish():
            if block.kind == "list":
                nested.extend(
                    ListItem(depth + 1 + item.depth, item.text, item.checked)
                    for item in block.items
                )
            else:
                texts.append(block.text)
        text = _collapse(" ".join(texts))
        return ([ListItem(depth, text, checked)] if text else []) + nested

    def table(self, el: etree._Element) -> None:
        rows: list[tuple[list[_Cell], bool]] = []
        for tr, in_head in _table_rows(el):
            if self.spent():
                break
            cells = [
                _Cell(
                    self.flat(cell),
                    _tag(cell) == "th",
                    cell,
                    _span(cell, "rowspan", MAX_ROWSPAN),
                    _span(cell, "colspan", MAX_COLSPAN),
                )
                for cell in tr
                if _tag(cell) in ("td", "th")
            ]
            rows.append((cells, in_head))
        grid = _grid([cells for cells, _ in rows], self.warnings)
        width = max((len(row) for row in grid), default=0)
        if width * len(grid) > MAX_TABLE_CELLS:
            width = max(1, MAX_TABLE_CELLS // len(grid))
            self.warnings.append(
                f"a table of {len(grid)} rows kept {width} columns; the cells beyond were"
                " joined into the last one"
            )
        texts = [_row_texts(row, width) for row in grid]
        head = _header_rows(rows)
        header = []
        for column in range(width):
            names: list[str] = []
            for row in texts[:head]:
                if row[column] and (not names or names[-1] != row[column]):
                    names.append(row[column])
            header.append(" / ".join(names))
        body = tuple(tuple(row) for row in texts[head:] if any(row))
        if any(header) or body:
            text = _render_table(tuple(header), body)
            self.emit(Block("table", text, header=tuple(header), rows=body, title=self.title))


@dataclass
class _Cell:
    text: str
    th: bool
    element: etree._Element
    rowspan: int
    colspan: int


def _jira_text(key: str, summary: str, jql: str, columns: str = "") -> str:
    """What a Jira issue macro stands for in text: the issue key (with its summary when the
    macro has one), or the JQL query of an issue list with the columns it shows (storage
    holds no issues: Jira renders them when the page is viewed)."""
    if key:
        return f" {key}: {summary} " if summary else f" {key} "
    if not jql:
        return ""
    shown = ", ".join(c.strip() for c in columns.split(",") if c.strip())
    return f" Jira issues: {jql} (columns: {shown}) " if shown else f" Jira issues: {jql} "


def _report_text(query: str, headings: str) -> str:
    """What a page-properties report (`detailssummary`) stands for in text: the query that
    selects its pages and the property columns it shows (storage holds no rows)."""
    if not query:
        return ""
    shown = ", ".join(h.strip() for h in headings.split(",") if h.strip())
    text = f" Page properties report of pages where {query}"
    return text + (f" (columns: {shown}) " if shown else " ")


def _resource_text(el: etree._Element) -> str:
    """What a resource identifier (`ri:page`, `ri:user`...) stands for in text."""
    tag = _tag(el)
    if tag == "ri:user":
        user = next(
            (_attr(el, a) for a in ("ri:username", "ri:userkey", "ri:account-id") if _attr(el, a)),
            "",
        )
        return f"@{user}" if user else ""
    for name in ("ri:content-title", "ri:filename", "ri:value", "ri:space-key"):
        if _attr(el, name):
            return _attr(el, name)
    return ""


def _table_rows(table: etree._Element):
    """The table's own rows (not those of nested tables), each with whether it is in `thead`."""
    for child in table:
        tag = _tag(child)
        if tag == "tr":
            yield child, False
        elif tag in ("thead", "tbody", "tfoot"):
            for tr in child:
                if _tag(tr) == "tr":
                    yield tr, tag == "thead"


def _grid(rows: list[list[_Cell]], warnings: list[str]) -> list[list[_Cell | None]]:
    """Place cells on a grid, repeating a spanning cell in every slot it covers
    (the HTML table model; overlapping spans overwrite; a rowspan ends with the table).

    Spans are bounded by `MAX_SPAN_COPY`: a spanning cell costs the characters it repeats
    and the slots it adds to the rows below (at least one each); a span that would pass
    the budget covers one slot, and the warning says so."""
    grid: list[list[_Cell | None]] = [[] for _ in rows]
    budget = MAX_SPAN_COPY
    capped = 0
    for r, cells in enumerate(rows):
        column = 0
        for cell in cells:
            while column < len(grid[r]) and grid[r][column] is not None:
                column += 1
            rowspan, colspan = min(cell.rowspan, len(rows) - r), cell.colspan
            if rowspan > 1 or colspan > 1:
                cost = (rowspan - 1) * (column + colspan) + (rowspan * colspan - 1) * (
                    len(cell.text) + 1
                )
                if cost > budget:
                    rowspan = colspan = 1
                    capped += 1
                else:
                    budget -= cost
            for covered in grid[r : r + rowspan]:
                covered.extend([None] * (column + colspan - len(covered)))
                covered[column : column + colspan] = [cell] * colspan
            column += colspan
    if capped:
        warnings.append(
            f"the spans of {capped} table cell(s) were ignored: they would repeat more than"
            f" {MAX_SPAN_COPY} characters"
        )
    return grid


def _row_texts(row: list[_Cell | None], width: int) -> list[str]:
    """A grid row as `width` cell texts: padded with "", or with the texts of the cells
    beyond `width` joined into the last one."""
    texts = [cell.text if cell else "" for cell in row[:width]]
    if len(row) > width:
        rest, previous = [], row[width - 1]
        for cell in row[width:]:
            if cell is not None and cell is not previous and cell.text:
                rest.append(cell.text)
            previous = cell
        texts[-1] = " ".join(text for text in (texts[-1], *rest) if text)
    return texts + [""] * (width - len(texts))


def _header_rows(rows: list[tuple[list[_Cell], bool]]) -> int:
    """How many leading rows are header: rows in `thead` or made only of `th`; failing
    that, a first row whose non-empty cells are all `th` or wholly bold. A table made only
    of header rows keeps just its first row as header."""
    head = 0
    for cells, in_head in rows:
        if not cells or not (in_head or all(cell.th for cell in cells)):
            break
        head += 1
    if head == 0 and len(rows) > 1:
        filled = [cell for cell in rows[0][0] if cell.text]
        if filled and all(cell.th or _is_bold(cell.element) for cell in filled):
            head = 1
    return 1 if head == len(rows) and head > 1 else head
