"""A question's own scope (core.scope): spaces, labels and page trees narrow retrieval before
fusion, so the top k is filled from in-scope pages even when better matches lie outside."""

from __future__ import annotations

import pytest

from core.access import Scope
from core.index import EvidenceIndex
from core.pages import Page
from core.retrieve import Retriever
from core.scope import MAX_ITEMS, QueryScope
from core.settings import Settings
from tests.fakes.hash_embedder import HashEmbedder


def page(page_id, body, space="ENG", labels=(), ancestors=()) -> Page:
    return Page(
        id=page_id,
        space=space,
        title=f"Page {page_id}",
        url=f"https://wiki.example/spaces/{space}/pages/{page_id}",
        body=f"<p>{body}</p>",
        labels=tuple(labels),
        ancestors=tuple(ancestors),
    )


# Twelve strong matches for "rollback" outside every scope below, then the in-scope pages,
# which mention it once among other words: without the scope they rank below the twelve.
NOISE = [page(f"n{i}", "rollback rollback rollback deploy rollback") for i in range(12)]
TREE = [
    page("50", "Service handbook: rollback is rare, ask the on-call first."),
    page("51", "Payments service notes mention rollback once.", ancestors=("50",)),
    page("52", "Ledger jobs; rollback with the admin tool.", ancestors=("50", "51")),
]
LABELLED = [
    page("60", "Database runbook: rollback with the migration tool.", labels=("Runbook",)),
    page("61", "Cache runbook, rollback not needed.", space="OPS", labels=("runbook", "ops")),
]
ALL = NOISE + TREE + LABELLED


@pytest.fixture
def retriever(tmp_path):
    settings = Settings.load(
        environ={
            "CONFBOT_DATA_DIR": str(tmp_path),
            "CONFBOT_CANDIDATES_K": "6",
            "CONFBOT_TOP_K": "3",
        }
    )
    index = EvidenceIndex(settings, HashEmbedder())
    index.index_pages(ALL)
    yield Retriever(index, index.embedder, settings)
    index.close()


def pages_found(retrieval) -> set[str]:
    return {r.evidence.page_id for r in retrieval.results}


def test_without_a_scope_the_strong_matches_fill_the_top(retriever):
    assert pages_found(retriever.search("rollback")) <= {p.id for p in NOISE}


def test_a_label_scope_searches_only_pages_with_one_of_its_labels(retriever):
    within = QueryScope.of(labels=["RUNBOOK"])  # lower-cased; the record's "Runbook" matches
    found = retriever.search("rollback", within=within)
    assert pages_found(found) == {"60", "61"}
    assert found.withheld == frozenset()  # out of scope is not withheld from the asker


def test_a_root_scope_searches_the_root_and_its_descendants(retriever):
    found = retriever.search("rollback", within=QueryScope.of(roots=["51"]))
    assert pages_found(found) == {"51", "52"}
    found = retriever.search("rollback", within=QueryScope.of(roots=["50"]))
    assert pages_found(found) == {"50", "51", "52"}  # the top 3 filled from the tree


def test_scope_fields_combine_and_spaces_narrow_the_searches(retriever):
    within = QueryScope.of(spaces=["OPS"], labels=["runbook"])
    assert pages_found(retriever.search("rollback", within=within)) == {"61"}
    # asked spaces and the scope's spaces intersect
    assert retriever.search("rollback", spaces={"ENG"}, within=within).results == []
    within = QueryScope.of(labels=["runbook"], roots=["50"])
    assert retriever.search("rollback", within=within).results == []


def test_permissions_still_apply_inside_a_scope(retriever):
    denied = Scope(frozenset(), frozenset({"60"}))
    found = retriever.search("rollback", within=QueryScope.of(labels=["runbook"]), scope=denied)
    assert pages_found(found) == {"61"}


def test_a_scope_is_parsed_from_its_text_form_and_round_trips_as_json():
    scope = QueryScope.parse("space:ENG, label:Runbook,label:howto,root:12345")
    assert scope == QueryScope(
        frozenset({"ENG"}), frozenset({"runbook", "howto"}), frozenset({"12345"})
    )
    assert QueryScope.from_json(scope.to_json()) == scope
    assert not QueryScope() and not QueryScope.from_json(None)


@pytest.mark.parametrize(
    "text, message",
    [
        ("ENG", "is not space:KEY, label:NAME or root:PAGEID"),
        ("tag:x", "is not space:KEY, label:NAME or root:PAGEID"),
        ("label:", "is not space:KEY, label:NAME or root:PAGEID"),
        ("root:12 34", "root '12 34' is not valid"),
        (",".join(f"label:l{i}" for i in range(MAX_ITEMS + 1)), f"at most {MAX_ITEMS} of label"),
    ],
)
def test_a_bad_scope_text_says_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        QueryScope.parse(text)
