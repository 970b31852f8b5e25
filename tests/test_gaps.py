"""What the wiki is missing: selecting the unanswered questions, grouping them, the closest
pages, the space a question belongs to, the weekly Slack post, and `confbot gaps` /
`confbot status` end to end on the sample wiki."""

from __future__ import annotations

import os
from datetime import timedelta

import numpy as np
import pytest
from alembic.script import ScriptDirectory

from bot.cli import main
from bot.gaps import (
    WeeklyPoster,
    asked_in,
    channel_for,
    gap_reports,
    parse_since,
    report_lines,
    weekly_jobs,
)
from connectors.schedule import Worker
from core.conversation import ConversationKey, ConversationStore, TurnRecord, utcnow
from core.db import alembic_config, session_factory, upgrade
from core.gaps import (
    Unanswered,
    closest_pages,
    cluster_labels,
    group_gaps,
    in_space,
    unanswered_turns,
)
from core.settings import SettingsError
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.slack_api_server import FakeSlack
from tests.fakes.tiny_wiki import build_wiki


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_")) and not name.startswith("CONFBOT_TEST_"):
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("30d", timedelta(days=30)), ("2w", timedelta(days=14)), ("12h", timedelta(hours=12))],
)
def test_parse_since(text, expected):
    assert parse_since(text) == expected


@pytest.mark.parametrize("text", ["0", "soon", "-3d", "w"])
def test_parse_since_rejects(text):
    with pytest.raises(ValueError):
        parse_since(text)


def test_cluster_labels_cut_at_the_distance():
    vectors = np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    labels = cluster_labels(vectors, 0.3)
    assert labels[0] == labels[1] != labels[2]
    assert len(set(cluster_labels(vectors, 1.5))) == 1
    assert cluster_labels(vectors[:1], 0.3) == [0]


def question(turn_id: int, text: str, pages=(), declined=True, key=None) -> Unanswered:
    return Unanswered(
        turn_id=turn_id,
        key=key or ConversationKey("web", "", "", f"c{turn_id}"),
        question=text,
        completed_question=text,
        asked_at=utcnow() - timedelta(hours=turn_id),
        declined=declined,
        rated_down=not declined,
        low_confidence=False,
        evidences=[{"page_id": p, "title": f"Page {p}", "url": f"https://w/{p}"} for p in pages],
    )


def test_closest_pages_sum_reciprocal_best_ranks():
    group = [question(1, "a", ["7", "8", "7"]), question(2, "b", ["8", "9"])]
    pages = closest_pages(group)
    assert [(p.page_id, p.score) for p in pages] == [("8", 1.5), ("7", 1.0), ("9", 0.5)]
    assert pages[0].title == "Page 8" and pages[0].url == "https://w/8"


def test_similar_questions_form_one_group_biggest_first():
    questions = [
        question(1, "how do I book parental leave", ["10"]),
        question(2, "vpn setup on linux laptop", ["20"], declined=False),
        question(3, "book parental leave how", ["10", "11"]),
        question(4, "parental leave how do I book it", ["11"]),
    ]
    gaps = group_gaps(questions, HashEmbedder(), distance=0.45)
    assert [len(g.questions) for g in gaps] == [3, 1]
    assert {q.turn_id for q in gaps[0].questions} == {1, 3, 4}
    assert gaps[0].pages[0].page_id in {"10", "11"}
    assert (gaps[0].declined, gaps[1].rated_down) == (3, 1)
    assert group_gaps([], HashEmbedder(), 0.45) == []


def test_a_question_belongs_to_the_space_it_was_asked_in(settings):
    settings = settings.replace(slack_channel_spaces="C1=HR;C2=HR,ENG")
    scope = asked_in(settings)
    spaces = {"10": "HR", "20": "ENG"}.get

    def q(surface, workspace, channel, pages):
        return question(1, "x", pages, key=ConversationKey(surface, workspace, channel, "t"))

    assert in_space(q("web", "HR", "", ["20"]), "HR", scope, spaces)  # the link's space
    assert not in_space(q("web", "HR", "", ["20"]), "ENG", scope, spaces)
    assert in_space(q("slack", "T", "C1", ["20"]), "HR", scope, spaces)  # channel of one space
    assert in_space(q("slack", "T", "C2", ["20"]), "ENG", scope, spaces)  # else the best page
    assert in_space(q("web", "", "", ["10", "20"]), "HR", scope, spaces)
    assert not in_space(q("terminal", "", "", []), "HR", scope, spaces)


def add_turn(
    store, url, thread, text, declined, surface="web", days_ago=0, rating=None, confidence=None
):
    record = store.add_turn(
        ConversationKey(surface, "TEST", "", thread),
        question=text,
        completed_question=text,
        evidences=[{"page_id": "101", "title": "Bats", "url": "https://w/101"}],
        messages={"confidence": confidence},
        answer="...",
        citations=[],
        out_of_scope=declined,
        model="m",
        timings={"total_ms": 5.0},
    )
    if days_ago:
        with session_factory(url)() as db:
            db.get(TurnRecord, record.id).created_at = utcnow() - timedelta(days=days_ago)
            db.commit()
    if rating:
        store.add_feedback(record.id, rating)
    return record.id


def test_unanswered_turns_are_declined_or_rated_down(tmp_path):
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = ConversationStore(url)
    declined = add_turn(store, url, "a", "parental leave?", True)
    down = add_turn(store, url, "b", "vpn?", False, rating="down")
    add_turn(store, url, "c", "bats?", False, rating="up")
    add_turn(store, url, "d", "eval question", True, surface="eval")
    add_turn(store, url, "e", "old question", True, days_ago=40)
    both = add_turn(store, url, "f", "sick leave?", True, rating="down")

    found = unanswered_turns(url, utcnow() - timedelta(days=30))
    assert [(q.turn_id, q.declined, q.rated_down) for q in found] == [
        (declined, True, False),
        (down, False, True),
        (both, True, True),
    ]
    assert found[0].key == ConversationKey("web", "TEST", "", "a")


def test_answers_that_barely_passed_their_threshold_count_as_unanswered(tmp_path):
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = ConversationStore(url)
    doubtful = add_turn(
        store,
        url,
        "a",
        "hotel limit in Tokyo?",
        False,
        confidence={"support": 0.45, "threshold": 0.4},
    )
    add_turn(
        store,
        url,
        "b",
        "hotel limit in London?",
        False,
        confidence={"support": 0.9, "threshold": 0.4},
    )
    add_turn(store, url, "c", "bats?", False)  # no confidence stored: another answerer
    declined = add_turn(
        store, url, "d", "parental leave?", True, confidence={"support": 0.1, "threshold": 0.4}
    )

    found = unanswered_turns(url, utcnow() - timedelta(days=30))
    assert [(q.turn_id, q.declined, q.low_confidence) for q in found] == [
        (doubtful, False, True),
        (declined, True, False),
    ]
    (gap,) = group_gaps(found[:1], HashEmbedder(), distance=0.45)
    assert (gap.declined, gap.rated_down, gap.low_confidence) == (0, 0, 1)
    settings, index, _ = build_wiki(tmp_path / "wiki")
    settings = settings.replace(database_url=url)
    (report,) = gap_reports(settings, index, HashEmbedder(), "TEST", timedelta(days=30))
    lines = report_lines(report)
    assert lines[0].startswith("TEST: 2 unanswered question(s)")
    assert any("1 answered with low confidence" in line for line in lines)


def test_weekly_post_and_its_job(tmp_path):
    settings, index, _ = build_wiki(tmp_path / "wiki")
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = ConversationStore(url)
    for thread in ("a", "b"):
        add_turn(store, url, thread, "How do I book parental leave?", True)
    with FakeSlack() as slack:
        settings = settings.replace(
            database_url=url,
            slack_bot_token="xoxb-test",
            slack_api_url=slack.base_url,
            gaps_channel="TEST=CGAPS;*=CALL",
            sync_source="files",
            sync_files_path=str(tmp_path),
            sync_spaces="TEST,DEV",
        )
        assert channel_for(settings, "DEV") == "CALL"
        poster = WeeklyPoster(settings, index)
        assert poster.post("TEST")
        assert not poster.post("DEV")  # nothing unanswered there: nothing posted
        (post,) = slack.calls_to("chat.postMessage")
    assert post.params["channel"] == "CGAPS"
    assert "2 unanswered question(s)" in post.params["text"]
    assert "parental leave" in str(post.params["blocks"])

    jobs = weekly_jobs(settings, index)
    assert {(j.id, j.spec, j.run_now) for j in jobs} == {
        ("gaps:TEST", "0 9 * * mon", False),
        ("gaps:DEV", "0 9 * * mon", False),
    }
    worker = Worker(settings, index, jobs)
    worker.start()
    try:
        stored = {job.id: job for job in worker.scheduler.get_jobs()}
        assert {"gaps:TEST", "gaps:DEV"} <= set(stored)
        assert stored["gaps:TEST"].next_run_time.weekday() == 0  # the next Monday
    finally:
        worker.shutdown()
    assert weekly_jobs(settings.replace(gaps_channel=""), index) == []
    with pytest.raises(SettingsError, match="CONFBOT_GAPS_SCHEDULE"):
        weekly_jobs(settings.replace(gaps_schedule="weekly"), index)


def test_gaps_and_status_commands_on_the_sample_wiki(tmp_path, monkeypatch, capsys):
    from bot.serve import SAMPLE_PAGES

    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path / "data"))
    assert main(["sync", "--source", "files", "--path", str(SAMPLE_PAGES)]) == 0
    declined = ["Zqxv flurbo wibble?", "Wibble zqxv flurbo, please?"]  # no word of the wiki
    answered = "Who is the secondary on-call for the Payments team in week 2?"
    for text in declined:
        assert main(["ask", "--space", "HR", text]) == 0  # each its own conversation
    assert main(["ask", answered]) == 0
    capsys.readouterr()

    assert main(["status"]) == 0
    status = capsys.readouterr().out
    assert "HR:" in status and "ACME:" in status and "evidences indexed" in status
    assert "questions, last 14 days: 3 (2 declined)" in status

    assert main(["gaps", "--space", "HR", "--since", "30d"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("HR: 2 unanswered question(s)")
    assert all(text in out for text in declined) and answered not in out
    assert "closest pages:" in out
    assert main(["gaps", "--space", "ACME"]) == 0
    assert capsys.readouterr().out.startswith("ACME: 0 unanswered")
    assert main(["gaps", "--since", "soon"]) == 2
    capsys.readouterr()
    assert main(["gaps", "--space", "NOPE"]) == 2  # not "NOPE: 0 unanswered"
    captured = capsys.readouterr()
    assert "no indexed page is in NOPE (spaces: ACME, HR)" in captured.err and not captured.out


def test_report_lines_for_no_gap(settings):
    settings, index, _ = build_wiki(settings.data_path / "w")
    upgrade(settings.sqlalchemy_url)
    (report,) = gap_reports(settings, index, HashEmbedder(), "TEST", timedelta(days=30))
    assert report_lines(report)[0].startswith("TEST: 0 unanswered question(s)")


@pytest.mark.postgres
def test_status_gaps_and_doctor_on_postgres(postgres_url, tmp_path):
    """The queries of the status, the gaps report and the doctor's database check on
    PostgreSQL (day bucketing, partial indexes, the migration head)."""
    from bot.doctor import check_database
    from bot.status import collect_status

    upgrade(postgres_url)
    store = ConversationStore(postgres_url)
    add_turn(store, postgres_url, "a", "parental leave?", True)
    add_turn(store, postgres_url, "b", "bats?", False, rating="down")
    settings, index, _ = build_wiki(tmp_path / "wiki")
    settings = settings.replace(database_url=postgres_url)

    status = collect_status(settings, index)
    assert status.usage.questions == 2 and status.usage.declined == 1
    assert status.usage.questions_per_day[-1] == (utcnow().date(), 2)
    assert status.usage.feedback == {"down": 1}
    assert len(unanswered_turns(postgres_url, utcnow() - timedelta(days=1))) == 2
    doubtful = {"support": 0.45, "threshold": 0.4}
    low = add_turn(store, postgres_url, "c", "tokyo?", False, confidence=doubtful)
    add_turn(
        store, postgres_url, "d", "london?", False, confidence={"support": 0.9, "threshold": 0.4}
    )
    found = unanswered_turns(postgres_url, utcnow() - timedelta(days=1))
    assert [q.turn_id for q in found if q.low_confidence] == [low] and len(found) == 3
    check = check_database(settings)
    head = ScriptDirectory.from_config(alembic_config(postgres_url)).get_current_head()
    assert check.status == "OK" and f"schema at {head}" in check.detail
