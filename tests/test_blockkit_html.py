"""The Block Kit renderer of the README's Slack picture (tests/blockkit_html.py): mrkdwn as
Slack shows it, and a block it does not know refused rather than left out."""

from __future__ import annotations

import pytest

from tests.blockkit_html import Message, block, mrkdwn, thread_page


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*Sources*", "<b>Sources</b>"),
        ("_Answering:_ who?", "<i>Answering:</i> who?"),
        ("~gone~ kept", "<s>gone</s> kept"),
        ("DISTRO_FEATURE and 2*3*4", "DISTRO_FEATURE and 2*3*4"),  # markers inside words
        ("* not bold *", "* not bold *"),  # a marker must touch its text
        ("`▇░` 50.0%", "<code>▇░</code> 50.0%"),
        ("`*code*` stays", "<code>*code*</code> stays"),
        (
            "<https://w.example/p?a=1&amp;b=2|A &amp; B> [1]",
            '<a href="https://w.example/p?a=1&amp;b=2">A &amp; B</a> [1]',
        ),
        ("<https://w.example/>", '<a href="https://w.example/">https://w.example/</a>'),
        ("*<https://w.example|bold link>*", '<b><a href="https://w.example">bold link</a></b>'),
        ("&lt;script&gt; &amp;", "&lt;script&gt; &amp;"),
        ("<@U0ALICE> hi", '<span class="mention">@alice</span> hi'),
        ("<!here>", '<span class="mention">@here</span>'),
        ("a\nb", "a<br>b"),
        (
            "*Sources*\n&gt;quoted *row*\n>second\nafter",
            "<b>Sources</b><blockquote>quoted <b>row</b><br>second</blockquote>after",
        ),
    ],
)
def test_mrkdwn(text, expected):
    assert mrkdwn(text, {"U0ALICE": "alice"}) == expected


def test_blocks():
    section = {"type": "section", "text": {"type": "mrkdwn", "text": "*Hi*"}}
    assert (
        block(section, {}) == '<div class="block section"><div class="text"><b>Hi</b></div></div>'
    )
    context = {"type": "context", "elements": [{"type": "plain_text", "text": "<b>"}]}
    assert "<span>&lt;b&gt;</span>" in block(context, {})
    button = {
        "type": "button",
        "text": {"type": "plain_text", "text": "Share"},
        "action_id": "share",
        "style": "primary",
    }
    actions = block({"type": "actions", "elements": [button]}, {})
    assert '<button class="button primary" data-action="share">Share</button>' in actions
    assert block({"type": "divider"}, {}) == '<hr class="block divider">'


@pytest.mark.parametrize(
    "item",
    [
        {"type": "rich_text", "elements": []},
        {"type": "actions", "elements": [{"type": "static_select", "action_id": "x"}]},
        {"type": "section", "text": {"type": "markdown", "text": "x"}},
    ],
)
def test_what_it_cannot_show_is_an_error(item):
    with pytest.raises(ValueError):
        block(item, {})


def test_thread_page_counts_replies_and_marks_the_bot():
    page = thread_page(
        "general",
        [
            Message("alice", "1800000000.000001", text="<@U0BOT> question"),
            Message("confbot", "1800000060.000002", text="answer", bot=True),
        ],
        {"U0BOT": "confbot"},
    )
    assert "1 reply" in page and page.count('class="message"') == 2
    assert page.count('class="badge"') == 1 and "08:01" in page
