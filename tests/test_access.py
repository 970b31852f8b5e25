"""The permission model (`core.access`), its tables (`core.access_store`), the Confluence
payload parsing (`connectors.permissions`) and the retriever's permission filter."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from connectors.permissions import (
    cloud_space_readers,
    dc_space_readers,
    restriction_principals,
)
from core.access import ANYONE, AccessTable, PageAccess, Reader, Scope
from core.access_store import AccessStore
from core.db import Base, engine_for, upgrade
from core.retrieve import _readable
from core.settings import Settings

TABLES = (
    "access_spaces",
    "access_pages",
    "access_members",
    "access_accounts",
    "access_mappings",
    "access_state",
)


@pytest.mark.parametrize(
    ("restrictions", "principals", "readable"),
    [
        ([], {ANYONE}, True),
        ([{"user:a"}], {ANYONE}, False),
        ([{"user:a"}], {ANYONE, "user:a"}, True),
        ([{"group:hr"}, {"user:a"}], {ANYONE, "user:a"}, False),  # inherited: both apply
        ([{"group:hr"}, {"user:a"}], {ANYONE, "user:a", "group:hr"}, True),
        ([{"group:hr", "user:b"}], {ANYONE, "user:b"}, True),  # one restriction: either
        ([set(), {"user:a"}], {ANYONE, "user:a"}, True),  # an empty one restricts nothing
    ],
)
def test_page_access(restrictions, principals, readable):
    assert PageAccess.of(restrictions).readable_by(principals) is readable


def test_scopes_of_readers_and_audiences():
    table = AccessTable(
        spaces={"OPEN": frozenset({ANYONE}), "TEAM": frozenset({"group:staff", "user:d"})},
        pages={
            "1": PageAccess.of([{"user:a"}]),
            "2": PageAccess.of([{"group:fin"}]),
            "3": PageAccess(),
        },
        members={
            "group:staff": frozenset({"user:a", "user:b"}),
            "group:fin": frozenset({"user:b"}),
        },
    )
    anonymous = table.scope([])
    assert anonymous == Scope(frozenset({"TEAM"}), frozenset({"1", "2"}))
    assert table.scope([Reader("a")]) == Scope(frozenset(), frozenset({"2"}))
    assert table.scope([Reader("b")]) == Scope(frozenset(), frozenset({"1"}))
    assert table.scope([Reader("d")]) == Scope(frozenset(), frozenset({"1", "2"}))
    audience = table.scope([Reader("a"), Reader("b")])  # a channel: what both may read
    assert audience == Scope(frozenset(), frozenset({"1", "2"}))
    assert table.scope([Reader("a"), Reader.anonymous()]).spaces == {"TEAM"}
    assert anonymous.searchable(None, {"OPEN", "TEAM"}) == {"OPEN"}
    assert anonymous.searchable(["TEAM"], {"OPEN", "TEAM"}) == set()
    assert Scope().searchable(None, {"OPEN"}) is None


def test_tables_match_the_models_and_go_down(tmp_path):
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from core.db import alembic_config

    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    with engine_for(url).connect() as connection:
        assert set(TABLES) <= set(inspect(connection).get_table_names())
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    assert [d for d in diff if any(t in repr(d) for t in TABLES)] == []
    command.downgrade(alembic_config(url), "0006_index_fingerprint")
    with engine_for(url).connect() as connection:
        assert not set(TABLES) & set(inspect(connection).get_table_names())


def test_store_records_and_resolves(tmp_path):
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = AccessStore(url)
    assert store.table().scope([]) == Scope()  # nothing recorded: nothing denied
    assert store.save_space("S", ["group:staff"])
    assert not store.save_space("S", ["group:staff"])  # unchanged
    assert store.save_pages("S", {"1": PageAccess.of([{"user:a"}]), "2": PageAccess()}) == 2
    assert store.save_pages("S", {"1": PageAccess.of([{"user:a"}])}) == 0
    assert store.save_members("group:staff", ["user:a"])
    table = store.table()
    assert table.scope([Reader("a")]) == Scope()
    assert table.scope([Reader("b")]) == Scope(frozenset({"S"}), frozenset({"1"}))
    store.save_members("group:staff", ["user:a", "user:b"])  # membership changed
    assert store.table() is not table
    assert store.table().scope([Reader("b")]) == Scope(frozenset(), frozenset({"1"}))
    store.forget_pages(["1"])
    assert store.table().scope([Reader("b")]) == Scope()

    store.save_accounts({"a": ("A@Example.com", "A"), "x": ("shared@example.com", "X")})
    store.save_accounts({"y": ("shared@example.com", "Y"), "a": (None, "A")})  # e-mail kept
    assert store.account_for("U1", "a@example.com") == "a"
    assert store.account_for("shared@example.com") is None  # two accounts: neither
    store.map("U1", "z")
    store.map("Shared@Example.com", "x")
    assert store.account_for("U1", "a@example.com") == "z"  # the Slack id mapping first
    assert store.account_for("shared@example.com") == "x"
    assert store.mappings() == {"U1": "z", "shared@example.com": "x"}
    assert store.unmap("U1") and not store.unmap("U1")
    with pytest.raises(ValueError, match="identity"):
        store.map("", "z")


def test_cloud_and_data_center_payloads():
    cloud_user = {"type": "known", "accountId": "557058:f0", "email": "a@x.com"}
    dc_user = {"type": "known", "username": "alice", "userKey": "8a7f80"}
    restrictions = {
        "user": {"results": [cloud_user, dc_user, {"type": "anonymous"}], "size": 3},
        "group": {"results": [{"type": "group", "name": "HR", "id": "g1"}], "size": 1},
    }
    assert restriction_principals(restrictions) == {
        "user:557058:f0",
        "user:alice",
        "unreadable",
        "group:hr",
    }
    assert restriction_principals({"user": {"results": []}, "group": {}}) == frozenset()
    cloud = {
        "permissions": [
            {
                "operation": {"operation": "read", "targetType": "space"},
                "subjects": {"group": {"results": [{"name": "staff"}]}},
                "anonymousAccess": False,
            },
            {"operation": {"operation": "read", "targetType": "space"}, "anonymousAccess": True},
            {
                "operation": {"operation": "administer", "targetType": "space"},
                "subjects": {"user": {"results": [cloud_user]}},
            },
        ]
    }
    assert cloud_space_readers(cloud) == {"group:staff", ANYONE}
    read = {"targetType": "space", "operationKey": "read"}
    dc = [
        {"operation": read, "subject": {"type": "user", "userKey": "8a7f80"}},
        {"operation": read, "subject": {"type": "group", "name": "staff"}},
        {"operation": {**read, "operationKey": "delete"}, "subject": {"type": "anonymous"}},
    ]
    assert dc_space_readers(dc, {"8a7f80": "alice"}.get) == {"user:alice", "group:staff"}


@pytest.mark.parametrize(
    ("hits", "denied", "k", "expected", "asked"),
    [
        (["1#0", "2#0", "3#0"], set(), 2, ["1#0", "2#0"], [2]),
        (["1#0", "2#0", "3#0", "4#0"], {"1"}, 2, ["2#0"], [2]),  # half left: kept as is
        (["1#0", "1#1", "2#0", "3#0"], {"1"}, 2, ["2#0", "3#0"], [2, 8]),  # none left
        (["1#0", "1#1"], {"1"}, 2, [], [2, 8]),  # the retriever had no more to give
        ([f"1#{i}" for i in range(200)] + ["2#0"], {"1"}, 2, [], [2, 8, 32, 128]),
    ],
)
def test_readable_asks_again_for_what_permissions_removed(hits, denied, k, expected, asked):
    calls = []

    def search(n):
        calls.append(n)
        return [(h, 1.0) for h in hits[:n]]

    assert [i for i, _ in _readable(search, k, denied)] == expected
    assert calls == asked


def test_access_command_maps_and_shows(tmp_path, monkeypatch, capsys):
    from bot.cli import main

    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path))
    assert main(["access", "who", "alice@example.com"]) == 1
    assert main(["access", "map", "Alice@Example.com", "acc-alice"]) == 0
    url = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path)}).sqlalchemy_url
    AccessStore(url).save_members("group:staff", ["user:acc-alice"])
    AccessStore(url).save_space("TEAM", ["group:staff"])
    assert main(["access", "who", "alice@example.com"]) == 0
    assert main(["access", "list"]) == 0
    assert main(["access", "unmap", "alice@example.com"]) == 0
    assert main(["access", "unmap", "alice@example.com"]) == 1
    out = capsys.readouterr().out
    assert "alice@example.com → acc-alice; groups: staff" in out
    assert "space TEAM: readable by group:staff" in out
    assert "no Confluence account" in out
