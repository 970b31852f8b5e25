"""The permission matrix: 6 askers × 12 pages × every surface, against the fake Confluence
(Cloud and Data Center payloads) and the fake Slack, before and after the permissions
change between two syncs. Nothing a reader may not read appears anywhere (answer, sources,
Explain, trace, suggestions, gaps report, admin page), and every page a reader may read
answers its own question.

The expected matrix is written out by hand from Confluence's rules (space view permission,
then every restriction of the page and its ancestors), not computed by the code under test.
"""

from __future__ import annotations

import asyncio
import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from slack_sdk import WebClient

from bot.slack import SlackBot
from bot.slack_state import SlackStore
from bot.terminal import chat
from bot.web import create_app
from connectors.confluence import ConfluenceSource
from connectors.sync import SpaceSync
from core.access import Reader
from core.access_store import AccessStore
from core.assistant import Assistant, ConversationKey
from core.conversation import ConversationStore
from core.extractive import ExtractiveLLM
from core.index import EvidenceIndex
from core.rephrase import OfflineCompleter
from core.retrieve import Retriever
from tests.fakes.confluence_server import FakeConfluence, FakePage
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.slack_api_server import BOT_USER_ID, TEAM_ID, FakeSlack
from tests.sync_helpers import sync_settings

BIRDS = [
    "Kestrel", "Heron", "Osprey", "Falcon", "Merlin", "Harrier",
    "Puffin", "Gannet", "Plover", "Avocet", "Dunlin", "Curlew",
]  # fmt: skip
"""Page n (1..12) is about BIRDS[n-1]; its secret is `<bird>-codeword-<n>`."""

SPACES = {n: "OPEN" if n <= 6 else "TEAM" for n in range(1, 13)}
PARENTS = {3: 2, 5: 4, 9: 8}
RESTRICTIONS = {  # page: (users, groups) of its own read restriction
    2: (["alice"], []),
    4: ([], ["finance"]),
    5: (["bob"], []),
    8: ([], ["hr"]),
    10: (["alice"], []),
    12: (["bob"], ["hr"]),
}
CHANGED = {6: (["carol"], []), 11: ([], ["finance"])}
"""Restrictions added between the two syncs (no new version: only a listing sees them)."""

PEOPLE = {  # name: (e-mail Confluence shows on Cloud, groups)
    "alice": ("alice@example.com", ["staff"]),
    "bob": ("bob@example.com", ["finance", "staff"]),
    "carol": ("carol@example.com", ["hr", "staff"]),
    "dave": (None, []),  # no e-mail shown: an admin maps his Slack id
    "erin": ("erin@example.com", ["finance"]),  # joins staff between the syncs
}
SLACK_USERS = {  # Slack id: e-mail in Slack
    "UALICE": "alice@example.com",
    "UBOB": "bob@example.com",
    "UCAROL": "carol@example.com",
    "UDAVE": "dave@home.example",
    "UERIN": "erin@example.com",
    "UNOBODY": "nobody@elsewhere.example",  # no Confluence account: anonymous
}

BEFORE = {
    "UNOBODY": {1, 6},
    "UALICE": {1, 2, 3, 6, 7, 10, 11},
    "UBOB": {1, 4, 5, 6, 7, 11, 12},
    "UCAROL": {1, 6, 7, 8, 9, 11, 12},
    "UDAVE": {1, 6, 7, 11},
    "UERIN": {1, 4, 6},
}
AFTER = {
    "UNOBODY": {1},
    "UALICE": {1, 2, 3, 7, 10},
    "UBOB": {1, 4, 5, 7, 11, 12},
    "UCAROL": {1, 6, 7, 8, 9, 12},
    "UDAVE": {1, 7},
    "UERIN": {1, 4, 7, 11},
}


def page_id(n: int) -> str:
    return str(500000 + n)


def secret(n: int) -> str:
    return f"{BIRDS[n - 1].lower()}-codeword-{n}"


def question(n: int) -> str:
    return f"What is the {BIRDS[n - 1]} codeword?"


def wiki_pages() -> list[FakePage]:
    start = datetime(2024, 1, 1, tzinfo=UTC)
    pages = []
    for n in range(1, 13):
        bird = BIRDS[n - 1]
        page = FakePage(
            id=page_id(n),
            space=SPACES[n],
            title=f"{bird} handbook",
            body=f"<p>The {bird} codeword is {secret(n)}.</p><p>{bird} notes for the team.</p>",
            created=start + timedelta(hours=n),
            modified=start + timedelta(hours=n),
        )
        chain, parent = [], PARENTS.get(n)
        while parent:
            chain.insert(0, page_id(parent))
            parent = PARENTS.get(parent)
        page.ancestors = chain
        pages.append(page)
    return pages


@dataclass
class World:
    fake: FakeConfluence
    slack: FakeSlack
    settings: object
    index: EvidenceIndex
    assistant: Assistant
    bot: SlackBot
    client: WebClient

    def sync(self) -> None:
        source = ConfluenceSource(self.settings)
        for space in ("OPEN", "TEAM"):
            report = SpaceSync(self.settings, self.index, source).run(space)
            assert report.error is None, report.error


def build_world(tmp_path, cloud: bool, fake: FakeConfluence, slack: FakeSlack) -> World:
    for name, (email, groups) in PEOPLE.items():
        fake.add_person(name, email, groups)
    fake.set_space_readers("OPEN", anonymous=True)
    fake.set_space_readers("TEAM", users=["dave"], groups=["staff"])
    for n, (users, groups) in RESTRICTIONS.items():
        fake.restrict(page_id(n), users, groups)
    slack.users.update(SLACK_USERS)
    slack.users["UBOT2"] = None  # another bot in channels: not an audience member
    settings = sync_settings(tmp_path, fake)
    embedder = HashEmbedder()
    index = EvidenceIndex(settings, embedder)
    access = AccessStore(settings.sqlalchemy_url)
    assistant = Assistant(
        settings,
        index,
        Retriever.from_settings(index, embedder, settings),
        ExtractiveLLM(),
        OfflineCompleter(),
        ConversationStore(settings.sqlalchemy_url),
        access,
    )
    access.map("UDAVE", "acc-dave" if cloud else "dave")  # by Slack id
    access.map("dave@home.example", "acc-dave" if cloud else "dave")  # his web login
    if not cloud:  # Data Center shows no e-mail: the admin maps them
        for name in ("alice", "bob", "carol", "erin"):
            access.map(f"{name}@example.com", name)
    bot = SlackBot(settings, assistant, SlackStore(settings.sqlalchemy_url))
    client = WebClient(token="xoxb-test", base_url=slack.base_url)
    world = World(fake, slack, settings, index, assistant, bot, client)
    world.sync()
    return world


def change_permissions(world: World) -> None:
    for n, (users, groups) in CHANGED.items():
        world.fake.restrict(page_id(n), users, groups)
    world.fake.set_groups("erin", ["finance", "staff"])
    world.sync()


def forbidden(readable: set[int]) -> list[str]:
    """What must not appear for a reader: each unreadable page's secret, title and id."""
    out = []
    for n in set(range(1, 13)) - readable:
        out += [secret(n), f"{BIRDS[n - 1]} handbook", page_id(n)]
    return out


def assert_clean(text: str, readable: set[int], where: str) -> None:
    leaks = [s for s in forbidden(readable) if s in text]
    assert not leaks, f"{where}: {leaks}"


def slack_answer(world: World, user: str, n: int, channel: str, channel_type: str) -> dict:
    ts = f"1700000{n:03d}.{len(world.slack.calls):06d}"
    event = {
        "type": "message",
        "user": user,
        "text": question(n),
        "ts": ts,
        "channel": channel,
        "channel_type": channel_type,
    }
    before = len(world.slack.calls_to("chat.postMessage"))
    world.bot.answer(world.client, TEAM_ID, event, BOT_USER_ID)
    posted = world.slack.calls_to("chat.postMessage")[before:]
    assert len(posted) == 1
    (turn,) = world.assistant.store.turns(ConversationKey("slack", TEAM_ID, channel, ts))
    return {"posted": json.dumps(posted[0].params), "turn": turn.id}


def check_turn(world: World, turn_id: int, readable: set[int], n: int, where: str) -> None:
    """The turn's answer, trace, suggestions and Explain hold nothing unreadable, and a
    readable page answers its own question."""
    assistant = world.assistant
    record = assistant.turn_record(turn_id)
    trace = json.dumps([record.answer, record.citations, record.evidences, record.messages])
    assert_clean(trace, readable, f"{where} trace")
    assert_clean(json.dumps(assistant.suggest(turn_id)), readable, f"{where} suggestions")
    if record.evidences:
        explained = assistant.explain(turn_id).to_dict()
        assert_clean(json.dumps(explained), readable, f"{where} explain")
    cited = {c["page_id"] for c in record.citations}
    if n in readable:
        assert page_id(n) in cited and secret(n) in record.answer, (where, record.answer)
    else:
        assert page_id(n) not in cited


def run_matrix(world: World, expected: dict[str, set[int]], surfaces: tuple[str, ...]) -> int:
    checked = 0
    for user, readable in expected.items():
        world.slack.members[f"C{user}"] = [user, BOT_USER_ID, "UBOT2"]
        for n in range(1, 13):
            if "dm" in surfaces:
                got = slack_answer(world, user, n, f"D{user}", "im")
                assert_clean(got["posted"], readable, f"DM {user} page {n}")
                check_turn(world, got["turn"], readable, n, f"DM {user} page {n}")
            if "channel" in surfaces:
                got = slack_answer(world, user, n, f"C{user}", "channel")
                assert_clean(got["posted"], readable, f"channel {user} page {n}")
                check_turn(world, got["turn"], readable, n, f"channel {user} page {n}")
            checked += 1
    return checked


async def web_matrix(world: World, expected: dict[str, set[int]]) -> int:
    """Each asker signs in to the web page through a trusted proxy's header and asks about
    each page; the answer and its trace hold only what they may read."""
    world.assistant.settings = world.settings.replace(web_auth="proxy")
    app = create_app(world.assistant)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
    checked = 0
    for user, readable in expected.items():
        headers = {"X-Forwarded-Email": SLACK_USERS[user]}
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            await client.get("/ask", headers=headers)
            headers["X-CSRF-Token"] = client.cookies["confbot_csrf"]
            for n in range(1, 13):
                conversation = f"web{user.lower()}{n:04d}"
                body = {"question": question(n), "conversation": conversation}
                answer = await client.post("/api/ask", json=body, headers=headers)
                assert answer.status_code == 200
                assert_clean(answer.text, readable, f"web {user} page {n}")
                turn = answer.json()["turn"]
                trace = await client.get(
                    f"/api/turns/{turn}", params={"conversation": conversation}, headers=headers
                )
                assert_clean(trace.text, readable, f"web trace {user} page {n}")
                await asyncio.to_thread(check_turn, world, turn, readable, n, f"web {user} {n}")
                checked += 1
    world.assistant.settings = world.settings
    return checked


def public_surfaces_clean(world: World, readable: set[int]) -> None:
    """The gaps report and the admin page show no page anonymous access may not read."""
    from bot.gaps import gaps_for, parse_since, report_lines

    reports = gaps_for(world.assistant, None, parse_since("30d"))
    text = json.dumps([report_lines(r) for r in reports])
    assert_clean(text, readable, "gaps report")
    settings = world.settings.replace(admin_token="admin-secret-token")
    world.assistant.settings = settings
    app = create_app(world.assistant)
    transport = httpx.ASGITransport(app=app)

    async def fetch() -> str:
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            page = await client.get(
                "/admin", headers={"Authorization": "Bearer admin-secret-token"}
            )
            assert page.status_code == 200
            return page.text

    assert_clean(asyncio.run(fetch()), readable, "admin page")


@pytest.mark.parametrize("cloud", [True, False], ids=["cloud", "data-center"])
def test_permission_matrix(tmp_path, cloud):
    with FakeConfluence(wiki_pages(), cloud=cloud) as fake, FakeSlack() as slack:
        world = build_world(tmp_path, cloud, fake, slack)
        surfaces = ("dm", "channel") if cloud else ("dm",)
        assert run_matrix(world, BEFORE, surfaces) == 72
        if cloud:
            assert asyncio.run(web_matrix(world, BEFORE)) == 72
        # answers rated down feed the gaps report with their closest pages (each asker's
        # own): the report, posted to a channel and shown on /admin, names public pages only
        for user in ("UALICE", "UBOB", "UCAROL"):
            for n in (8, 10, 12):
                world.assistant.feedback(
                    slack_answer(world, user, n, f"D{user}", "im")["turn"], "down"
                )
        public_surfaces_clean(world, BEFORE["UNOBODY"])

        change_permissions(world)
        assert run_matrix(world, AFTER, surfaces) == 72
        assert asyncio.run(web_matrix(world, AFTER)) == 72
        public_surfaces_clean(world, AFTER["UNOBODY"])


def test_a_channel_answers_from_what_every_member_may_read(tmp_path):
    with FakeConfluence(wiki_pages(), cloud=True) as fake, FakeSlack() as slack:
        world = build_world(tmp_path, True, fake, slack)
        slack.members["CFIN"] = ["UBOB", "UERIN", BOT_USER_ID]  # both in finance
        slack.members["CMIX"] = ["UBOB", "UALICE", "UNOBODY", BOT_USER_ID]
        got = slack_answer(world, "UBOB", 4, "CFIN", "channel")
        check_turn(world, got["turn"], BEFORE["UBOB"] & BEFORE["UERIN"], 4, "finance channel")
        for n in (1, 4, 7):  # one unresolved member: public pages only
            got = slack_answer(world, "UBOB", n, "CMIX", "channel")
            assert_clean(got["posted"], BEFORE["UNOBODY"], "mixed channel")
            check_turn(world, got["turn"], BEFORE["UNOBODY"], n, "mixed channel")
        # the member lists were paged (two members a page in the fake)
        pages = [c for c in slack.calls_to("conversations.members") if c.params.get("cursor")]
        assert pages


def test_slack_unreachable_means_public_pages_only(tmp_path):
    with FakeConfluence(wiki_pages(), cloud=True) as fake, FakeSlack() as slack:
        world = build_world(tmp_path, True, fake, slack)
        slack.fail("users.info", "ratelimited")
        got = slack_answer(world, "UALICE", 2, "DUALICE", "im")
        check_turn(world, got["turn"], BEFORE["UNOBODY"], 2, "users.info failing")


def test_assistant_without_readers_is_anonymous(tmp_path):
    with FakeConfluence(wiki_pages(), cloud=True) as fake, FakeSlack() as slack:
        world = build_world(tmp_path, True, fake, slack)
        key = ConversationKey("cli", "", "", "1")
        for n in (1, 2, 7):
            turn = world.assistant.ask(key, question(n))
            check_turn(world, turn.id, BEFORE["UNOBODY"], n, "no readers")
        alice = Reader("acc-alice", "alice@example.com")
        turn = world.assistant.ask(
            ConversationKey("cli", "", "", "2"), question(2), readers=[alice]
        )
        check_turn(world, turn.id, BEFORE["UALICE"], 2, "alice")
        # the terminal (`confbot ask --as`) passes its reader the same way
        out = io.StringIO()
        chat(world.assistant, ConversationKey("terminal", "", "", "3"), [question(2)], out)
        assert secret(2) not in out.getvalue()
        key = ConversationKey("terminal", "", "", "4")
        chat(world.assistant, key, [question(2)], out, None, [alice])
        assert secret(2) in out.getvalue()


def test_admin_page_hides_titles_of_restricted_pages_that_failed(tmp_path):
    with FakeConfluence(wiki_pages(), cloud=True) as fake, FakeSlack() as slack:
        world = build_world(tmp_path, True, fake, slack)
        for n in (1, 8):  # a public page and a restricted one fail their next sync
            fake.edit(page_id(n), body="<p>changed</p>")
            fake.pages[page_id(n)].body = None
        world.sync()
        settings = world.settings.replace(admin_token="admin-secret-token")
        world.assistant.settings = settings
        transport = httpx.ASGITransport(app=create_app(world.assistant))

        async def fetch() -> str:
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                headers = {"Authorization": "Bearer admin-secret-token"}
                return (await client.get("/admin", headers=headers)).text

        page = asyncio.run(fetch())
        assert "Kestrel handbook" in page  # public: shown
        assert "Gannet handbook" not in page and "title hidden" in page
