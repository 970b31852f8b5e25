"""Near-duplicate pages (MinHash at index time) and the page-level ranking that folds them."""

from __future__ import annotations

import pytest

from core.duplicates import (
    PERMUTATIONS,
    DuplicateGroups,
    is_copy_title,
    near_duplicate_groups,
    signature,
    similarity,
)
from core.index import PageEntry
from core.page_ranking import PageWeights, TitleField, rank_pages

BODY = (
    "The release checklist lists every step before a release is tagged: freeze the "
    "branches, run the full test matrix on the reference hardware, sign the images and "
    "publish them on the mirror with their checksums and the release notes."
)


def test_copies_are_grouped_and_different_pages_are_not():
    signatures = {
        "1": signature([BODY]),
        "2": signature([BODY + " Edited by Ross."]),
        "3": signature(["The board meets every second Tuesday; minutes go to the wiki."]),
        "4": signature([]),
    }
    assert similarity(signatures["1"], signatures["2"]) >= 0.8
    assert similarity(signatures["1"], signatures["3"]) < 0.2
    assert near_duplicate_groups(signatures, 0.8) == {"1": "1", "2": "1"}
    assert signatures["4"] == []


def test_estimated_similarity_follows_the_true_jaccard_similarity():
    """On 200 random pairs of texts (one with words inserted), the MinHash estimate is
    within the error 64 hashes allow of the true Jaccard similarity of word 3-shingles.
    (The hash family before index format 5 was off by 0.13 on average, 0.54 at worst.)"""
    import random

    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(400)]

    def shingles(words):
        return {" ".join(words[i : i + 3]) for i in range(len(words) - 2)}

    errors = []
    for _ in range(200):
        base = [rng.choice(vocabulary) for _ in range(rng.randint(30, 120))]
        other = list(base)
        for _ in range(rng.randint(1, 25)):
            other.insert(rng.randrange(len(other)), rng.choice(vocabulary))
        a, b = shingles(base), shingles(other)
        estimate = similarity(signature([" ".join(base)]), signature([" ".join(other)]))
        errors.append(abs(estimate - len(a & b) / len(a | b)))
    assert sum(errors) / len(errors) < 0.07 and max(errors) < 0.25


def test_grouping_is_transitive_and_keyed_by_the_smallest_id():
    sig = signature([BODY])
    groups = near_duplicate_groups({"9": sig, "5": sig, "7": sig}, 0.8)
    assert groups == {"5": "5", "7": "5", "9": "5"}


def test_many_copies_cost_about_one_comparison_each(monkeypatch):
    """A page copied 300 times (and copies edited each their own way) is one group, and the
    grouping compares about one pair per copy, not every pair of a 500-page bucket."""
    import core.duplicates as duplicates

    calls = []
    compare = duplicates.similarity
    monkeypatch.setattr(duplicates, "similarity", lambda a, b: calls.append(1) or compare(a, b))
    signatures = {f"a{i:03d}": signature([BODY]) for i in range(300)}
    edited = {f"b{i:03d}": signature([BODY + f" Edited by user {i}."]) for i in range(300)}
    signatures |= {p: s for p, s in edited.items() if similarity(s, signatures["a000"]) >= 0.9}
    assert len(signatures) > 500
    signatures["c"] = signature(["The board meets every second Tuesday; minutes go to the wiki."])
    groups = near_duplicate_groups(signatures, 0.8)
    assert set(groups) == set(signatures) - {"c"}
    assert set(groups.values()) == {"a000"}
    assert len(calls) < 2 * len(signatures)  # every pair of the bucket: about 180,000


@pytest.mark.parametrize("seed", range(5))
def test_groups_kept_up_to_date_are_the_groups_of_the_pages_now(seed):
    """After every step of 150 random additions, edits and removals, the groups that
    `DuplicateGroups.update` keeps are those grouping the current pages from scratch gives:
    pages join and leave groups, groups split and merge, copies share signatures."""
    import random

    rng = random.Random(seed)
    bases = [[rng.randrange(1 << 32) for _ in range(PERMUTATIONS)] for _ in range(6)]

    def variant() -> list[int]:
        if rng.random() < 0.1:
            return []  # an empty page: never a duplicate
        sig = list(rng.choice(bases))
        for position in rng.sample(range(PERMUTATIONS), rng.choice([0, 0, 2, 6, 12, 20, 40])):
            sig[position] = rng.randrange(1 << 32)
        return sig

    kept = DuplicateGroups(0.8)
    pages: dict[str, list[int]] = {}
    for _ in range(150):
        changed: dict[str, list[int]] = {}
        removed: set[str] = set()
        for _ in range(rng.randint(1, 6)):
            page = f"p{rng.randrange(40):02d}"
            if page in pages and rng.random() < 0.3:
                removed.add(page)
                changed.pop(page, None)
            else:
                changed[page] = variant()
                removed.discard(page)
        for page in removed:
            pages.pop(page, None)
        pages.update(changed)
        assert kept.update(changed, removed) == near_duplicate_groups(pages, 0.8)
    assert len(set(near_duplicate_groups(pages, 0.8).values())) > 1


@pytest.mark.parametrize(
    "title, marked",
    [
        ("Copy of Gov1: OpenXT Project Governance Charter", True),
        ("Gov2: OpenXT Platform Properties [ DRAFT ] [ xtopher-v2 ]", True),
        ("SELinux - Historical", True),
        ("Release Checklist", False),
        ("Drafting guidelines", False),
    ],
)
def test_copy_titles(title, marked):
    assert is_copy_title(title) is marked


def _entry(page_id, title, space="ENG"):
    return PageEntry(page_id, title, space, f"https://wiki/pages/{page_id}", ())


PAGES = {
    "1": _entry("1", "Release Checklist"),
    "2": _entry("2", "Copy of Release Checklist", "~ross"),
    "3": _entry("3", "Stable-9 rc1 Test Matrix"),
    "4": _entry("4", "Stable-9 rc2 Test Matrix"),
    "5": _entry("5", "Build notes"),
}
GROUPS = {"1": "1", "2": "1", "3": "3", "4": "3"}
CANONICAL = PageWeights(prefer_canonical=True)


def test_the_canonical_copy_takes_the_groups_best_score_and_lists_the_others():
    fused = {"2#0000": 3.0, "1#0000": 2.9, "1#0001": 1.0, "5#0000": 2.0}
    ranking = rank_pages("release checklist steps", fused, PAGES, GROUPS, CANONICAL)
    assert set(ranking.scores) == {"1#0000", "1#0001", "5#0000"}
    assert ranking.scores["1#0000"] == 3.0
    assert ranking.also_in == {"1#0000": ["2"]}


def test_the_copy_the_question_names_is_canonical():
    fused = {"4#0000": 3.0, "3#0000": 2.5}
    ranking = rank_pages("Stable-9 rc1 failures", fused, PAGES, GROUPS, CANONICAL)
    assert list(ranking.scores) == ["3#0000"] and ranking.scores["3#0000"] == 3.0
    assert ranking.also_in == {"3#0000": ["4"]}
    draft = rank_pages(
        "copy of the release checklist",
        {"1#0000": 3.0, "2#0000": 2.0},
        PAGES,
        GROUPS,
        CANONICAL,
    )
    assert list(draft.scores) == ["2#0000"]


def test_title_entities_and_page_support_move_scores():
    fused = {"4#0000": 3.0, "3#0000": 2.5, "5#0000": 1.0, "5#0001": 0.8, "5#0002": 0.5}
    weights = PageWeights(page_weight=0.5, title_entity_weight=1.0, prefer_canonical=False)
    scores = rank_pages("rc1 matrix", fused, PAGES, {}, weights).scores
    assert scores["3#0000"] == pytest.approx(3.5) and scores["4#0000"] == pytest.approx(2.0)
    assert scores["5#0000"] == pytest.approx(1.0 + 0.5 * (0.8 + 0.5))
    off = rank_pages("rc1 matrix", fused, PAGES, GROUPS, PageWeights()).scores
    assert off == fused


def test_the_title_field_weighs_rare_title_words_more():
    titles = TitleField.of(PAGES)
    assert titles.match(["rc1", "matrix"], "3") == pytest.approx(1.0)
    assert 0 < titles.match(["rc2", "matrix"], "3") < 0.5  # rc2 is rarer than matrix
    assert titles.match(["build"], "3") == 0.0
    fused = {"3#0000": 1.0, "5#0000": 1.0}
    weights = PageWeights(title_weight=2.0)
    scores = rank_pages("q", fused, PAGES, {}, weights, titles, ["build", "note"]).scores
    assert scores["5#0000"] == pytest.approx(3.0) and scores["3#0000"] == 1.0
