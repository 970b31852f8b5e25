"""The audit of permission-filtered answers (`core.audit.record_withheld`): an answer whose
search held back a page the asker may not read is audited once, with the count but
neither the page's id or title nor the question; an asker who may read everything is not
audited; `confbot audit` lists the entry."""

from __future__ import annotations

import pytest

from bot.cli import main
from core import audit
from core.access import PageAccess, Reader
from core.access_store import AccessStore
from core.assistant import ConversationKey
from core.retrieve import _readable
from tests.fakes.tiny_wiki import PAGES, Wiki, build_wiki, make_assistant

QUESTION = "What does BATS stand for?"
RESTRICTED = PAGES[0]  # the BATS page, readable by alice alone
ALICE = Reader("acc-alice", "alice@example.com")


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    return build_wiki(tmp_path_factory.mktemp("wiki"))


@pytest.fixture
def assistant(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    AccessStore(assistant.store.url).save_pages(
        RESTRICTED.space, {RESTRICTED.id: PageAccess.of([{"user:acc-alice"}])}
    )
    return assistant


def withheld_entries(url: str) -> list[audit.Entry]:
    return [e for e in audit.recent(url, 100) if e.action == "answer.withheld"]


def test_a_restricted_asker_is_audited_once_without_the_title(assistant):
    key = ConversationKey("web", "", "", "1")
    turn = assistant.ask(key, QUESTION, readers=[Reader.anonymous("bob@example.com")])
    assert RESTRICTED.id not in {r.evidence.page_id for r in turn.evidences}

    (entry,) = withheld_entries(assistant.store.url)
    assert entry.actor == "anonymous"
    assert entry.detail == {
        "surface": "web",
        "turn": turn.id,
        "withheld": 1,
        "as": "bob@example.com",
    }


def test_an_asker_who_may_read_the_page_is_not_audited(assistant):
    turn = assistant.ask(ConversationKey("slack", "T", "D1", "1"), QUESTION, readers=[ALICE])
    assert turn.evidences[0].evidence.page_id == RESTRICTED.id
    assert withheld_entries(assistant.store.url) == []


def test_a_channel_audience_is_named_by_its_size(assistant):
    readers = [ALICE, Reader("acc-bob", "bob@example.com")]
    assistant.ask(ConversationKey("slack", "T", "C1", "1"), QUESTION, readers=readers)
    (entry,) = withheld_entries(assistant.store.url)
    assert entry.actor == "audience:2" and "as" not in entry.detail
    assert entry.detail["surface"] == "slack" and entry.detail["withheld"] == 1


def test_confbot_audit_lists_the_entry(assistant, environ, capsys):
    turn = assistant.ask(ConversationKey("terminal", "", "cli", "1"), QUESTION, readers=[])
    assert main(["audit", "--config", f"database_url={assistant.store.url}"]) == 0
    out = capsys.readouterr().out
    assert f"anonymous answer.withheld surface=terminal, turn={turn.id}, withheld=1" in out
    assert RESTRICTED.title not in out and RESTRICTED.id not in out


def test_withheld_pages_are_those_near_the_top_of_the_first_list():
    hits = ["1#0", "2#0", "1#1", "3#0", "4#0", "5#0", "6#0"]
    withheld: set[str] = set()
    kept = _readable(lambda n: [(h, 1.0) for h in hits[:n]], 6, {"1", "5"}, withheld, 4)
    assert [i for i, _ in kept] == ["2#0", "3#0", "4#0"]
    assert withheld == {"1"}  # page 5 is held back too, but below the first 4
