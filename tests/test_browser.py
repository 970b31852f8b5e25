"""The /ask page in headless Chromium against a real uvicorn server on 127.0.0.1: ask, see
the answer and its sources, press Explain, see the breakdown, open the trace.

Playwright drives the system's Chromium (Debian's `chromium`, `executable_path`); it never
downloads a browser. Without Playwright (the `browser` extra) or Chromium the test skips
with the reason; CI sets `CONFBOT_TEST_BROWSER=required`, which turns that skip into a
failure so the test cannot silently stop running there.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from bot.blocks import EXPLAIN_ACTION
from bot.serve import BackgroundServer
from bot.web import create_app
from core.combine import CheckedLLM
from core.extractive import ExtractiveLLM
from core.llm import OpenAILLM
from tests.blockkit_html import Message, thread_page
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.slack_api_server import BOT_USER_ID, FakeSlack
from tests.fakes.tiny_wiki import build_wiki, make_assistant
from tests.test_slack import USER, make_bot, mention, section_texts, turn_ids

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 20_000


def chromium_or_skip() -> str:
    """The path of the system Chromium, after checking Playwright is importable."""
    reason = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        reason = "playwright is not installed: pip install -e '.[browser]'"
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if reason is None and path is None:
        reason = "no chromium on PATH: apt-get install chromium"
    if reason is not None:
        if os.environ.get("CONFBOT_TEST_BROWSER") == "required":
            pytest.fail(f"CONFBOT_TEST_BROWSER=required but {reason}")
        pytest.skip(reason)
    return path


def test_ask_explain_and_trace_in_headless_chromium(tmp_path):
    executable = chromium_or_skip()
    from playwright.sync_api import expect, sync_playwright

    assistant = make_assistant(build_wiki(tmp_path / "wiki"), tmp_path)
    problems: list[str] = []
    try:
        with BackgroundServer(create_app(assistant)) as server, sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(tmp_path / "profile"),  # a fresh user-data-dir
                executable_path=executable,
                headless=True,
                args=CHROMIUM_FLAGS,
            )
            try:
                page = context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
                page.on(
                    "console",
                    lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None,
                )
                page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
                # A link prepares a question: it fills the box, focused, and asks nothing.
                page.goto(f"{server.url}/ask?space=TEST&q=What+does+BATS+stand+for%3F")
                expect(page.locator("#question")).to_have_value("What does BATS stand for?")
                expect(page.locator("#question")).to_be_focused()
                assert page.locator(".turn").count() == 0

                page.goto(f"{server.url}/ask?space=TEST&page=101")
                expect(page.locator("#scope")).to_contain_text("TEST")
                expect(page.locator("#scope a")).to_have_text("Bats: Bash Automated Testing System")

                # Ask: the answer, its [n] links and the numbered sources.
                page.fill("#question", "What does BATS stand for?")
                page.click("#ask-button")
                turn = page.locator(".turn").first
                expect(turn.locator(".answer")).to_contain_text("Bash Automated Testing System")
                cite = turn.locator(".answer a.cite").first
                expect(cite).to_have_attribute("href", re.compile(r"^https://wiki\.example/"))
                sources = turn.locator(".sources li")
                assert sources.count() >= 1
                expect(sources.first.locator("a")).to_have_attribute(
                    "href", re.compile(r"^https://wiki\.example/spaces/TEST/")
                )
                # Under each source, the sentence the page says it in (never "Row 1 in Table").
                expect(sources.first.locator(".excerpt")).to_contain_text("Bash Automated")

                # Suggested follow-ups come after the answer, from a second request.
                expect(turn.locator(".follow-ups a.suggestion").first).to_be_visible()
                assert turn.locator(".follow-ups + details.trace").count() == 1

                # Explain: why in plain words, then bars with percentages and evidence links.
                turn.locator("button.explain").click()
                # (the BATS answer is the name the page's title spells out: one source)
                expect(turn.locator(".explanation .plain").first).to_contain_text(
                    "This answer came from one source: Bats: Bash Automated Testing System",
                    timeout=TIMEOUT_MS,  # about 4 s of counterfactuals on 2 busy cores
                )
                cluster = turn.locator(".explanation .cluster").first
                expect(cluster.locator(".pct")).to_have_text(re.compile(r"^\d+\.\d%$"))
                width = cluster.locator(".fill").evaluate("e => e.getBoundingClientRect().width")
                assert width > 0
                expect(cluster.locator("a.evidence-link").first).to_have_attribute(
                    "href", re.compile(r"^https://wiki\.example/")
                )

                # Trace: ranks per retriever, the prompt sent, timings.
                turn.locator("details.trace summary").click()
                trace = turn.locator(".trace-body")
                expect(trace.locator("table").first).to_contain_text("lexical")
                expect(trace).to_contain_text(
                    "Prompt read by the offline answerer (answer; nothing was sent)"
                )
                expect(trace).to_contain_text("total")

                # Text from the user is shown as text, never run as markup.
                page.fill("#question", '<img src=x onerror="alert(1)"> BATS?')
                page.click("#ask-button")
                second = page.locator(".turn").nth(1)
                expect(second.locator(".question")).to_have_text(
                    '<img src=x onerror="alert(1)"> BATS?'
                )
                assert second.locator("img").count() == 0
                page.screenshot(path=str(tmp_path / "ask.png"), full_page=True)
            finally:
                context.close()
    finally:
        assistant.close()
    assert problems == []


def test_the_answer_streams_in_headless_chromium(tmp_path):
    """With a model that writes slowly (a word every 0.25 s), the pages searched and the
    first checked sentence show while the answer is still being written; the final turn
    then replaces them, with the made-up sentence never shown."""
    executable = chromium_or_skip()
    from playwright.sync_api import expect, sync_playwright

    reply = (
        "BATS stands for Bash Automated Testing System [1]. It was written by Ada Lovelace."
        " BATS is compliant with the Test Anything Protocol."
    )
    problems: list[str] = []
    with FakeOpenAI(lambda request: reply, chunk_delay_s=0.25) as chat:
        model = OpenAILLM(chat.base_url, "slow-model", "k", max_retries=0, first_token_timeout=5)
        llm = CheckedLLM(model, ExtractiveLLM(), "grounded")
        assistant = make_assistant(build_wiki(tmp_path / "wiki"), tmp_path, llm)
        try:
            with BackgroundServer(create_app(assistant)) as server, sync_playwright() as p:
                context = p.chromium.launch_persistent_context(
                    str(tmp_path / "profile"),
                    executable_path=executable,
                    headless=True,
                    args=CHROMIUM_FLAGS,
                )
                try:
                    page = context.new_page()
                    page.set_default_timeout(TIMEOUT_MS)
                    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
                    page.goto(f"{server.url}/ask?space=TEST")
                    page.fill("#question", "What does BATS stand for?")
                    page.click("#ask-button")
                    live = page.locator(".turn.streaming")
                    expect(live.locator(".sources.searched li").first).to_contain_text("Bats")
                    expect(live.locator(".streamed")).to_contain_text(
                        "BATS stands for Bash Automated Testing System [1].", timeout=TIMEOUT_MS
                    )
                    assert "Lovelace" not in live.locator(".streamed").inner_text()
                    final = page.locator(".turn:not(.streaming)").first
                    expect(final.locator(".answer")).to_contain_text(
                        "Test Anything Protocol", timeout=TIMEOUT_MS
                    )
                    assert page.locator(".turn.streaming").count() == 0
                    assert "Lovelace" not in final.locator(".answer").inner_text()
                finally:
                    context.close()
        finally:
            assistant.close()
    assert problems == []


README_IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
"""Where `CONFBOT_TEST_SCREENSHOTS=write` (`make screenshots`) puts the README's pictures."""


def test_the_readme_picture_of_an_answer(tmp_path):
    """The README's picture: a question about the sample wiki answered on the /ask page,
    with its cited source and the table row it comes from. The screenshot is made on every
    run (so the picture is always one the page can show) and copied into docs/images only
    when CONFBOT_TEST_SCREENSHOTS=write."""
    executable = chromium_or_skip()
    from playwright.sync_api import expect, sync_playwright

    from bot.serve import SAMPLE_PAGES
    from connectors.files import FilesSource

    pages = list(FilesSource(SAMPLE_PAGES).pages.values())
    assistant = make_assistant(build_wiki(tmp_path / "wiki", pages), tmp_path)
    question = "Who is the secondary on-call for the Payments team in week 2?"
    shot = tmp_path / "answer-web.png"
    try:
        with BackgroundServer(create_app(assistant)) as server, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
            try:
                page = browser.new_page(viewport={"width": 900, "height": 700})
                page.set_default_timeout(TIMEOUT_MS)
                page.goto(f"{server.url}/ask")
                page.fill("#question", question)
                page.click("#ask-button")
                turn = page.locator(".turn").first
                expect(turn.locator(".answer")).to_contain_text("Sophie Brandt")
                expect(turn.locator(".sources li").first).to_contain_text("On-Call Rotation")
                expect(turn.locator(".follow-ups a.suggestion").first).to_be_visible()
                page.locator("main").screenshot(path=str(shot))
            finally:
                browser.close()
    finally:
        assistant.close()
    assert shot.stat().st_size > 10_000
    if os.environ.get("CONFBOT_TEST_SCREENSHOTS") == "write":
        README_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, README_IMAGES / "answer-web.png")


def test_the_readme_picture_of_an_answer_in_slack(tmp_path):
    """The README's picture of the same answer in Slack. No Slack workspace is reachable,
    so the real slack-bolt App answers a mention against the fake Slack Web API, the Explain
    button is pressed, and the exact Block Kit messages it posted (the answer as last edited
    by `chat.update`, then the explanation) are rendered as Slack's thread pane shows them
    (tests/blockkit_html.py) and screenshotted. Copied into docs/images only when
    CONFBOT_TEST_SCREENSHOTS=write."""
    executable = chromium_or_skip()
    from playwright.sync_api import expect, sync_playwright

    from bot.serve import SAMPLE_PAGES
    from connectors.files import FilesSource

    pages = list(FilesSource(SAMPLE_PAGES).pages.values())
    wiki = build_wiki(tmp_path / "wiki", pages)
    question = "Who is the secondary on-call for the Payments team in week 2?"
    thread = "1799999970.000100"  # half a minute before the fake's first reply
    with FakeSlack() as slack:
        bot = make_bot(wiki, tmp_path, slack)
        try:
            bot.deliver(mention(thread, question), "Ev1")
            (answer,) = bot.answers(1)
            slack.wait_for("chat.update")  # the suggested follow-ups, added once computed
            (turn_id,) = turn_ids(bot, "C1", thread)
            bot.click(EXPLAIN_ACTION, turn_id, answer)
            explanation = bot.answers(2)[1]
        finally:
            bot.finish()
            bot.assistant.close()
        edits = [c.params for c in slack.calls_to("chat.update") if c.params["ts"] == answer["ts"]]
    answer_shown = edits[-1]["blocks"] if edits else answer["blocks"]
    assert "Sophie Brandt" in section_texts(answer_shown)
    buttons = [e for b in answer_shown if b["type"] == "actions" for e in b["elements"]]
    assert EXPLAIN_ACTION in [b["action_id"] for b in buttons]
    assert "%" in section_texts(explanation["blocks"])

    users = {USER: "alice", BOT_USER_ID: "confbot"}
    thread_html = thread_page(
        "on-call",
        [
            Message("alice", thread, text=f"<@{BOT_USER_ID}> {question}"),
            Message("confbot", answer["ts"], blocks=answer_shown, bot=True),
            Message("confbot", explanation["ts"], blocks=explanation["blocks"], bot=True),
        ],
        users,
    )
    shot = tmp_path / "answer-slack.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 680, "height": 600})
            page.set_default_timeout(TIMEOUT_MS)
            page.set_content(thread_html)
            replies = page.locator(".message")
            expect(replies).to_have_count(3)
            expect(replies.nth(0)).to_contain_text(f"@confbot {question}")
            expect(replies.nth(1).locator(".section").first).to_contain_text("Sophie Brandt")
            expect(
                replies.nth(1).locator(f'button[data-action="{EXPLAIN_ACTION}"]')
            ).to_be_visible()
            expect(replies.nth(1).locator("a").first).to_have_attribute("href", re.compile("^http"))
            expect(replies.nth(2)).to_contain_text("Why this answer")
            page.locator(".pane").screenshot(path=str(shot))
        finally:
            browser.close()
    assert shot.stat().st_size > 10_000
    if os.environ.get("CONFBOT_TEST_SCREENSHOTS") == "write":
        README_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, README_IMAGES / "answer-slack.png")
