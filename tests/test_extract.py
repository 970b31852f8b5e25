"""Extraction: literal page bodies in, expected blocks out."""

from __future__ import annotations

import random

import pytest

from core.extract import Block, ListItem, extract


def P(text: str, **fields) -> Block:
    return Block("passage", text=text, **fields)


def H(level: int, text: str, **fields) -> Block:
    return Block("heading", text=text, level=level, **fields)


def L(text: str, items: tuple[ListItem, ...], ordered: bool = False, **fields) -> Block:
    return Block("list", text=text, items=items, ordered=ordered, **fields)


def T(text: str, header: tuple[str, ...], rows: tuple[tuple[str, ...], ...]) -> Block:
    return Block("table", text=text, header=header, rows=rows)


def blocks(body: str, body_format: str = "storage") -> list[Block]:
    result = extract(body, body_format)
    assert result.warnings == []
    return result.blocks


CODE = [
    (
        '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">python'
        '</ac:parameter><ac:plain-text-body><![CDATA[print("x < y")]]></ac:plain-text-body>'
        "</ac:structured-macro>",
        [P('print("x < y")', language="python")],
    ),
    (
        '<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[\nif a && b:\n'
        '    print("<tag> &amp;")\n]]></ac:plain-text-body></ac:structured-macro>',
        [P('if a && b:\n    print("<tag> &amp;")')],
    ),
    (
        '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash'
        '</ac:parameter><ac:parameter ac:name="title">setup.sh</ac:parameter>'
        "<ac:plain-text-body><![CDATA[make  all]]></ac:plain-text-body></ac:structured-macro>",
        [P("make  all", language="bash", title="setup.sh")],
    ),
    (
        '<ac:structured-macro ac:name="noformat"><ac:plain-text-body><![CDATA[a\n\n  b]]>'
        "</ac:plain-text-body></ac:structured-macro>",
        [P("a\n\n  b")],
    ),
    ("<pre>a  b\n  c</pre>", [P("a  b\n  c")]),
    ("<pre><code>x<br/>y</code></pre>", [P("x\ny")]),
    (
        "<p>Run:</p><pre>make</pre><p>Then</p><p>wait.</p>",
        [P("Run:"), P("make"), P("Then\nwait.")],
    ),
    (
        '<div class="code panel pdl"><div class="codeHeader panelHeader pdl"><b>t.py</b></div>'
        '<div class="codeContent panelContent pdl"><pre class="syntaxhighlighter-pre" '
        'data-syntaxhighlighter-params="brush: py; gutter: false">a &lt; b</pre></div></div>',
        [P("a < b", language="py", title="t.py")],
    ),
    ('<pre class="brush: java; gutter: false">int x;</pre>', [P("int x;", language="java")]),
    (
        '<div class="syntaxhighlighter nogutter bash"><table><tr><td><div class="container">'
        '<div class="line number1"><code>ls -l</code></div><div class="line number2">'
        "<code>cd /tmp</code></div></div></td></tr></table></div>",
        [P("ls -l\ncd /tmp", language="bash")],
    ),
    ("<pre>\n\n</pre>", []),
]


@pytest.mark.parametrize("body, expected", CODE)
def test_code_blocks_keep_text_and_language(body, expected):
    assert blocks(body) == expected


MACROS = [
    (
        '<p>Intro</p><ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">'
        "Details</ac:parameter><ac:rich-text-body><p>Hidden text</p><p>More</p>"
        "</ac:rich-text-body></ac:structured-macro><p>After</p>",
        [P("Intro"), P("Hidden text\nMore", title="Details"), P("After")],
    ),
    (
        '<ac:structured-macro ac:name="panel"><ac:parameter ac:name="title">Outer</ac:parameter>'
        '<ac:rich-text-body><p>a</p><ac:structured-macro ac:name="note"><ac:parameter '
        'ac:name="title">Inner</ac:parameter><ac:rich-text-body><ul><li>b</li></ul>'
        '</ac:rich-text-body></ac:structured-macro><ac:structured-macro ac:name="info">'
        "<ac:rich-text-body><p>c</p></ac:rich-text-body></ac:structured-macro>"
        "</ac:rich-text-body></ac:structured-macro>",
        [
            P("a", title="Outer"),
            L("- b", (ListItem(0, "b"),), title="Inner"),
            P("c", title="Outer"),
        ],
    ),
    (
        '<p>Status: <ac:structured-macro ac:name="status"><ac:parameter ac:name="colour">Green'
        '</ac:parameter><ac:parameter ac:name="title">Done</ac:parameter></ac:structured-macro>'
        "</p>",
        [P("Status: Done")],
    ),
    (
        '<ac:structured-macro ac:name="include"><ac:parameter ac:name=""><ac:link>'
        '<ri:page ri:content-title="Release notes"/></ac:link></ac:parameter>'
        "</ac:structured-macro>",
        [P("Release notes")],
    ),
    (
        '<ac:structured-macro ac:name="excerpt-include"><ac:parameter ac:name="nopanel">true'
        '</ac:parameter><ac:parameter ac:name=""><ac:link><ri:page ri:space-key="DOC" '
        'ri:content-title="Glossary"/></ac:link></ac:parameter></ac:structured-macro>',
        [P("Glossary")],
    ),
    (
        '<p><ac:image ac:alt="Architecture diagram"><ri:attachment ri:filename="arch.png"/>'
        "</ac:image></p>",
        [P("Architecture diagram")],
    ),
    (
        '<p>See <ac:image ac:width="80"><ri:attachment ri:filename="arch.png"/></ac:image></p>',
        [P("See arch.png")],
    ),
    ('<p><ac:image><ri:url ri:value="https://x.org/a.png"/></ac:image></p>', []),
    ('<p><img src="a.png" alt="Logo"/> text</p>', [P("Logo text")]),
    (
        '<ul><li>Install <ac:emoticon ac:name="tick"/></li></ul>',
        [L("- Install (tick)", (ListItem(0, "Install (tick)"),))],
    ),
    (
        '<ac:adf-extension><ac:adf-node type="decision-list"><ac:adf-attribute key="local-id">'
        "7b4e</ac:adf-attribute><ac:adf-content>Use Zoom</ac:adf-content></ac:adf-node>"
        '<ac:adf-fallback><ul class="decision-list"><li>Use Zoom</li></ul></ac:adf-fallback>'
        "</ac:adf-extension>",
        [L("- Use Zoom", (ListItem(0, "Use Zoom"),))],
    ),
    (
        '<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><p>left</p>'
        "</ac:layout-cell><ac:layout-cell><p>right</p></ac:layout-cell></ac:layout-section>"
        "</ac:layout>",
        [P("left\nright")],
    ),
]


@pytest.mark.parametrize("body, expected", MACROS)
def test_macros(body, expected):
    assert blocks(body) == expected


@pytest.mark.parametrize("name", ["panel", "info", "note", "warning", "tip"])
def test_untitled_macro_bodies_are_ordinary_content(name):
    body = (
        f'<p>A</p><ac:structured-macro ac:name="{name}"><ac:parameter ac:name="icon">false'
        "</ac:parameter><ac:rich-text-body><p>B</p></ac:rich-text-body></ac:structured-macro>"
    )
    assert blocks(body) == [P("A\nB")]


@pytest.mark.parametrize(
    "macro",
    [
        '<ac:structured-macro ac:name="toc"/>',
        '<ac:structured-macro ac:name="children"><ac:parameter ac:name="all">true'
        "</ac:parameter></ac:structured-macro>",
        '<ac:structured-macro ac:name="attachments"></ac:structured-macro>',
        '<ac:macro ac:name="toc"></ac:macro>',
    ],
)
def test_macros_without_body_yield_nothing(macro):
    assert blocks(f"<p>x</p>{macro}") == [P("x")]


LINKS = [
    (
        '<ac:link><ri:page ri:content-title="Setup"/><ac:plain-text-link-body>'
        "<![CDATA[the setup page]]></ac:plain-text-link-body></ac:link>",
        "the setup page",
    ),
    (
        '<ac:link><ri:page ri:content-title="Setup"/><ac:link-body><strong>bold</strong> link'
        "</ac:link-body></ac:link>",
        "bold link",
    ),
    ('<ac:link><ri:page ri:space-key="DOC" ri:content-title="Setup"/></ac:link>', "Setup"),
    ('<ac:link><ri:user ri:username="jdoe"/></ac:link>', "@jdoe"),
    ('<ac:link><ri:user ri:userkey="ff8080"/></ac:link>', "@ff8080"),
    ('<ac:link><ri:user ri:account-id="557058:abc"/></ac:link>', "@557058:abc"),
    (
        '<ac:link><ri:user ri:account-id="557058:abc"/><ac:plain-text-link-body><![CDATA[Jane]]>'
        "</ac:plain-text-link-body></ac:link>",
        "Jane",
    ),
    ('<ac:link><ri:attachment ri:filename="spec.pdf"/></ac:link>', "spec.pdf"),
    ('<ac:link ac:anchor="install"/>', "install"),
    ('<a href="https://example.org">the docs</a>', "the docs"),
    ('<time datetime="2016-07-21"/>', "2016-07-21"),
]


@pytest.mark.parametrize("link, text", LINKS)
def test_links(link, text):
    assert blocks(f"<p>See {link}.</p>") == [P(f"See {text}.")]


TASKS = [
    (
        "<ac:task-list>\n<ac:task><ac:task-id>1</ac:task-id><ac:task-status>complete"
        "</ac:task-status><ac:task-body>Write docs</ac:task-body></ac:task>\n<ac:task>"
        "<ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>"
        "<strong>Review</strong> it</ac:task-body></ac:task></ac:task-list>",
        [
            L(
                "- [x] Write docs\n- [ ] Review it",
                (ListItem(0, "Write docs", True), ListItem(0, "Review it", False)),
            )
        ],
    ),
    (
        "<ac:task-list><ac:task><ac:task-status>incomplete</ac:task-status><ac:task-body>Ship"
        "<ac:task-list><ac:task><ac:task-status>complete</ac:task-status><ac:task-body>Build"
        "</ac:task-body></ac:task></ac:task-list></ac:task-body></ac:task></ac:task-list>",
        [
            L(
                "- [ ] Ship\n  - [x] Build",
                (ListItem(0, "Ship", False), ListItem(1, "Build", True)),
            )
        ],
    ),
    (
        '<ul class="inline-task-list"><li class="checked">A</li><li>B</li></ul>',
        [L("- [x] A\n- [ ] B", (ListItem(0, "A", True), ListItem(0, "B", False)))],
    ),
]


@pytest.mark.parametrize("body, expected", TASKS)
def test_task_lists(body, expected):
    assert blocks(body) == expected


LISTS = [
    (
        "<ul><li>a<ul><li>a1<ul><li>a1x</li></ul></li></ul></li><li>b</li></ul>",
        [
            L(
                "- a\n  - a1\n    - a1x\n- b",
                (ListItem(0, "a"), ListItem(1, "a1"), ListItem(2, "a1x"), ListItem(0, "b")),
            )
        ],
    ),
    (
        "<ol><li>a<ol><li>a1</li><li>a2</li></ol></li><li>b</li></ol>",
        [
            L(
                "1. a\n  1. a1\n  2. a2\n2. b",
                (ListItem(0, "a"), ListItem(1, "a1"), ListItem(1, "a2"), ListItem(0, "b")),
                ordered=True,
            )
        ],
    ),
    (
        "<ul><li>a</li><ul><li>under a</li></ul></ul>",
        [L("- a\n  - under a", (ListItem(0, "a"), ListItem(1, "under a")))],
    ),
    (
        "<ul><li><p>one</p><p>two <code>x</code></p></li><li> </li><li><br/></li></ul>",
        [L("- one two x", (ListItem(0, "one two x"),))],
    ),
    (
        "<p>before</p><ul><li>x</li></ul><p>after</p>",
        [P("before"), L("- x", (ListItem(0, "x"),)), P("after")],
    ),
    ("<ul><li></li></ul>", []),
]


@pytest.mark.parametrize("body, expected", LISTS)
def test_lists(body, expected):
    assert blocks(body) == expected


TABLES = [
    (
        "<table><tbody><tr><th>Name</th><th>Role</th></tr><tr><td>Alice</td><td>Dev</td></tr>"
        "</tbody></table>",
        T("Name | Role\nAlice | Dev", ("Name", "Role"), (("Alice", "Dev"),)),
    ),
    (
        "<table><tr><td><p><strong>Name</strong></p></td><td><b>Role</b> </td><td></td></tr>"
        "<tr><td>Alice</td><td>Dev</td><td>x</td></tr></table>",
        T("Name | Role | \nAlice | Dev | x", ("Name", "Role", ""), (("Alice", "Dev", "x"),)),
    ),
    (
        "<table><tr><td><strong>Name</strong> (full)</td><td><b>Role</b></td></tr>"
        "<tr><td>Alice</td><td>Dev</td></tr></table>",
        T(
            "Name (full) | Role\nAlice | Dev",
            ("", ""),
            (("Name (full)", "Role"), ("Alice", "Dev")),
        ),
    ),
    (
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>",
        T("a | b\nc | d", ("", ""), (("a", "b"), ("c", "d"))),
    ),
    (
        "<table><tr><th>A</th><th>B</th><th>C</th></tr><tr><td rowspan='2'>x</td>"
        "<td colspan='2'>y</td></tr><tr><td>z</td><td>w</td></tr></table>",
        T("A | B | C\nx | y | y\nx | z | w", ("A", "B", "C"), (("x", "y", "y"), ("x", "z", "w"))),
    ),
    (
        "<table><tr><th rowspan='2'>Build</th><th colspan='2'>Legacy</th></tr><tr><th>Install"
        "</th><th>Upgrade</th></tr><tr><td>1</td><td>Pass</td><td>Fail</td></tr></table>",
        T(
            "Build | Legacy / Install | Legacy / Upgrade\n1 | Pass | Fail",
            ("Build", "Legacy / Install", "Legacy / Upgrade"),
            (("1", "Pass", "Fail"),),
        ),
    ),
    (
        "<table><thead><tr><td>K</td><td>V</td></tr></thead><tbody><tr><td>a</td><td>1</td>"
        "</tr></tbody></table>",
        T("K | V\na | 1", ("K", "V"), (("a", "1"),)),
    ),
    (
        "<table><tr><th>Fish</th><th>2004</th></tr><tr><th>Herring</th><td>9,500</td></tr></table>",
        T("Fish | 2004\nHerring | 9,500", ("Fish", "2004"), (("Herring", "9,500"),)),
    ),
    (
        "<table><tr><th>Item</th><th>Details</th></tr><tr><td>Disk</td><td><table><tr><td>a"
        "</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table></td></tr></table>",
        T("Item | Details\nDisk | a | b; c | d", ("Item", "Details"), (("Disk", "a | b; c | d"),)),
    ),
    (
        "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td></tr><tr><td></td><td> </td></tr>"
        "</table>",
        T("A | B\n1 | ", ("A", "B"), (("1", ""),)),
    ),
    (
        "<table><tr><th>A</th></tr><tr><td><p>a</p><p>b<br/>c</p><ul><li>x</li><li>y</li></ul>"
        "</td></tr></table>",
        T("A\na b c x; y", ("A",), (("a b c x; y",),)),
    ),
    (
        "<table><tr><th>A</th><th>B</th></tr><tr><th>1</th><th>2</th></tr></table>",
        T("A | B\n1 | 2", ("A", "B"), (("1", "2"),)),
    ),
    (
        "<table><tr><th>A</th><th>B</th></tr><tr><td colspan='x'>1</td><td rowspan='0'>2</td>"
        "</tr></table>",
        T("A | B\n1 | 2", ("A", "B"), (("1", "2"),)),
    ),
]


@pytest.mark.parametrize("body, expected", TABLES)
def test_tables(body, expected):
    assert blocks(body) == [expected]


def test_tables_split_passages_and_empty_tables_vanish():
    body = "<p>a</p><table><tr><td> </td></tr></table><p>b</p><table><tr><td>c</td></tr></table>"
    assert blocks(body) == [P("a\nb"), T("c", ("",), (("c",),))]


PASSAGES = [
    (
        "<h1>Title</h1><p>a</p><p>b</p><h2>Sub</h2><p>c</p>",
        [H(1, "Title"), P("a\nb"), H(2, "Sub"), P("c")],
    ),
    ("<p>  a \n  b&nbsp;c  </p>", [P("a b c")]),
    ("<p>line1<br/>line2</p>", [P("line1\nline2")]),
    ("<p>foo <strong>bar</strong>baz <em>qux</em></p>", [P("foo barbaz qux")]),
    ("<p> </p><p><br/></p><h3> </h3>", []),
    (
        "<blockquote><p>quoted</p></blockquote><div>in a div</div><hr/><p>x</p>",
        [P("quoted\nin a div\nx")],
    ),
    ("<h4>Intro <em>here</em></h4>", [H(4, "Intro here")]),
    ("<p>a &lt;b&gt; &amp; c&mdash;d</p>", [P("a <b> & c—d")]),
]


@pytest.mark.parametrize("body, expected", PASSAGES)
def test_headings_and_passages(body, expected):
    assert blocks(body) == expected


VIEW = [
    (
        '<div class="confluence-information-macro confluence-information-macro-note">'
        '<p class="title">Careful</p><span class="aui-icon"></span>'
        '<div class="confluence-information-macro-body"><p>Back up first.</p></div></div>',
        [P("Back up first.", title="Careful")],
    ),
    (
        '<div class="expand-container"><div class="expand-control"><span class="expand-icon">'
        '</span><span class="expand-control-text">More</span></div><div class="expand-content">'
        "<p>Hidden</p></div></div>",
        [P("Hidden", title="More")],
    ),
    (
        '<div class="panel"><div class="panelHeader"><b>Facts</b></div><div class="panelContent">'
        "<p>x</p></div></div>",
        [P("x", title="Facts")],
    ),
    (
        "<!DOCTYPE html><html><head><title>X</title><script>var a = 1;</script><style>p {}"
        '</style></head><body><div id="breadcrumb-section"><ol id="breadcrumbs"><li>Home</li>'
        '</ol></div><div class="page-metadata">Created by Bob</div><div id="main-content">'
        '<p>Body<br>text &nbsp;here</p><img src="x.png" alt="Chart"></div><div id="footer">'
        "<p>Powered by</p></div></body></html>",
        [P("Body\ntext here\nChart")],
    ),
    (
        "<h2>Steps</h2><ul><li>one<li>two</ul><p>AT&T",
        [H(2, "Steps"), L("- one\n- two", (ListItem(0, "one"), ListItem(0, "two"))), P("AT&T")],
    ),
]


@pytest.mark.parametrize("body, expected", VIEW)
def test_view_html(body, expected):
    result = extract(body, "view")
    assert result.blocks == expected
    assert not [w for w in result.warnings if "well-formed" in w]


MALFORMED = [
    ("<p>one<p>two", [P("one\ntwo")], "not well-formed"),
    ("<p>AT&T rocks</p>", [P("AT&T rocks")], "stray '&'"),
    ("<p>&bogus; x</p>", [P("&bogus; x")], "&bogus;"),
    ("", [], "empty body"),
    ("   \n ", [], "empty body"),
    ("just some words", [P("just some words")], "no markup"),
    ("<p>a\x00b\x1f</p>", [P("ab")], "control character"),
    ("<p>x</p><![CDATA[unclosed <b>", [P("x\nunclosed <b>")], "unclosed CDATA"),
    ("<p>a</b></i>b</p></div>", [P("ab")], "not well-formed"),
    (
        "<table><tr><td>a<td>b<tr><td>c",
        [T("a | b\nc | ", ("", ""), (("a", "b"), ("c", "")))],
        "not well-formed",
    ),
]


@pytest.mark.parametrize("body, expected, warning", MALFORMED)
def test_malformed_bodies_give_what_can_be_read_and_a_warning(body, expected, warning):
    result = extract(body)
    assert result.blocks == expected
    assert any(warning in w for w in result.warnings), result.warnings


def test_html_entities_are_mapped_without_warning():
    assert blocks("<p>a&nbsp;b&mdash;c &eacute; &#233; &#xE9;</p>") == [P("a b—c é é é")]


def test_xml_declaration_is_ignored():
    assert blocks('<?xml version="1.0" encoding="UTF-8"?><p>x</p>') == [P("x")]


@pytest.mark.parametrize(
    "body",
    [
        "<div>" * 300 + "deep" + "</div>" * 300,
        "<ul><li>" * 300 + "deep" + "</li></ul>" * 300,
        "<table><tr><td>" * 100 + "deep" + "</td></tr></table>" * 100,
        "<<<>>>&&&<//p></ac:link><ri:page/>]]>",
        "\ud800<p>\ufffe</p>",
    ],
)
def test_pathological_bodies_never_raise(body):
    result = extract(body)
    assert all(isinstance(block, Block) for block in result.blocks)


# --------------------------------------------------------------------------- hostile markup
JIRA = '<ac:structured-macro ac:name="jira" ac:schema-version="1">{}</ac:structured-macro>'


def jira(**params: str) -> str:
    return JIRA.format(
        "".join(f'<ac:parameter ac:name="{k}">{v}</ac:parameter>' for k, v in params.items())
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "<p>Fixed in " + jira(server="System JIRA", serverId="87e6", key="OXT-1654") + ".</p>",
            [P("Fixed in OXT-1654 .")],
        ),
        (jira(key="ABC-12", summary="Crash on boot"), [P("ABC-12: Crash on boot")]),
        (
            jira(jqlQuery="project = ABC AND status = Open", columns="key,summary"),
            [P("Jira issues: project = ABC AND status = Open (columns: key, summary)")],
        ),
        (jira(key="OXT-1") + jira(key="OXT-2"), [P("OXT-1 OXT-2")]),
        (jira(server="System JIRA"), []),
    ],
)
def test_jira_macros_keep_their_key_summary_and_query(body, expected):
    assert blocks(body) == expected


REPORT = (
    '<ac:structured-macro ac:name="detailssummary" ac:schema-version="2">{}</ac:structured-macro>'
)


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            {"cql": 'label = "decision" and space = currentSpace()', "headings": "Owner,Status"},
            [
                P(
                    'Page properties report of pages where label = "decision" and space ='
                    " currentSpace() (columns: Owner, Status)"
                )
            ],
        ),
        ({"label": "runbook"}, [P("Page properties report of pages where runbook")]),
        ({"headings": "Owner"}, []),
    ],
)
def test_page_properties_reports_keep_their_query_and_columns(params, expected):
    body = "".join(f'<ac:parameter ac:name="{k}">{v}</ac:parameter>' for k, v in params.items())
    assert blocks(REPORT.format(body)) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            '<ac:image ac:alt="Topology"><ri:attachment ri:filename="net.png"/>'
            "<ac:caption><p>The <strong>lab</strong> network</p></ac:caption></ac:image>",
            [P("Topology The lab network")],
        ),
        (
            '<p><ac:image><ri:attachment ri:filename="net.png"/><ac:caption><p>Lab</p>'
            "</ac:caption></ac:image></p>",
            [P("net.png Lab")],
        ),
    ],
)
def test_image_captions_are_read(body, expected):
    assert blocks(body) == expected


def test_every_rich_text_body_of_a_macro_is_kept():
    body = (
        '<ac:structured-macro ac:name="details"><ac:rich-text-body><p>First</p>'
        "</ac:rich-text-body><ac:rich-text-body><p>Second</p></ac:rich-text-body>"
        "</ac:structured-macro>"
    )
    assert blocks(body) == [P("First\nSecond")]


@pytest.mark.parametrize("depth", [300, 2047, 3000, 20000])
def test_deep_nesting_keeps_the_text_with_a_warning(depth):
    body = "<p>start</p>" + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p>"
    result = extract(body)
    text = " ".join(block.text for block in result.blocks)
    assert ["start", "deep", "text", "after"] == text.split()
    assert any("nested deeper" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize(
    "body",
    [
        "<ul><li>" * 500 + "deep" + "</li></ul>" * 500,
        "<ul>" * 500 + "<li>deep</li>" + "</ul>" * 500,
        "<table><tr><td>" * 300 + "deep" + "</td></tr></table>" * 300,
        "<pre>" + "<span>" * 3000 + "code" + "</span>" * 3000 + "</pre>",
    ],
)
def test_deeply_nested_lists_tables_and_code_keep_their_text(body):
    result = extract(body)
    assert "deep" in " ".join(block.text for block in result.blocks) or "code" in (
        result.blocks[0].text
    )


def test_spans_are_expanded_within_the_budget_and_capped_beyond_it():
    rows = "".join(
        f'<tr><td rowspan="65534" colspan="1000">{"x" * 50}{i}</td></tr>' for i in range(300)
    )
    result = extract(f"<table>{rows}</table>")
    (table,) = result.blocks
    assert sum(len(cell) for row in table.rows for cell in row) < 5_000_000
    assert any("spans of" in w for w in result.warnings), result.warnings
    assert {f"{'x' * 50}{i}" for i in range(300)} <= {c for row in table.rows for c in row}


def test_small_spans_are_expanded_as_before():
    body = '<table><tr><td rowspan="2">a</td><td colspan="2">b</td></tr><tr><td>c</td></tr></table>'
    (table,) = blocks(body)
    assert table.rows == (("a", "b", "b"), ("a", "c", ""))


def test_a_table_too_wide_for_its_rows_joins_the_overflow_into_its_last_column():
    wide = "<tr>" + "".join(f"<td>w{i}</td>" for i in range(200)) + "</tr>"
    narrow = "".join(f"<tr><td>n{i}</td></tr>" for i in range(9_999))  # 10,000 rows
    result = extract(f"<table>{wide}{narrow}</table>")
    (table,) = result.blocks
    assert len(table.rows[0]) == 100
    assert table.rows[0][-1] == " ".join(f"w{i}" for i in range(99, 200))
    assert table.rows[-1][0] == "n9998"
    assert any("kept 100 columns" in w for w in result.warnings), result.warnings


def test_random_markup_soup_never_raises():
    pieces = [
        "<p>", "</p>", "<table>", "<tr>", "<td rowspan='3'>", "<th colspan='2'>", "</td>",
        "<ul>", "<li>", "</ul>", "<h2>", "&", "&nbsp;", "&bad;", "<![CDATA[", "]]>",
        '<ac:structured-macro ac:name="code">', "<ac:plain-text-body>", "</ac:structured-macro>",
        "<ac:task-list>", "<ac:task>", "<ac:task-status>complete", "<ac:link>",
        "<ri:page ri:content-title='x'/>", "text", " ", "\n", "<br>", "<", ">", "\x01",
    ]  # fmt: skip
    rng = random.Random(7)
    for _ in range(300):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        for body_format in ("storage", "view"):
            result = extract(body, body_format)
            for block in result.blocks:
                assert all(len(row) == len(block.header) for row in block.rows)


def test_unknown_body_format_is_an_error():
    with pytest.raises(ValueError, match="storage, view"):
        extract("<p>x</p>", "wiki")
