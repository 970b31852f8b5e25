"""Near-duplicate pages: found at index time by MinHash, and which copy to show.

Wikis are full of copies: "Copy of X", "X [DRAFT]" beside X, a page copied into a
personal space. Each page gets a MinHash signature of its word 3-shingles when it is
indexed (Broder, "On the resemblance and containment of documents", 1997; 64 hash
functions, so the estimated Jaccard similarity has a standard error of at most
1/(2*sqrt(64)) = 0.0625). Pages are grouped when their estimated similarity reaches
`threshold`; candidate pairs come from locality-sensitive hashing of the signatures in 16
bands of 4 rows (Leskovec, Rajaraman and Ullman, "Mining of Massive Datasets", ch. 3), so
grouping is near-linear in the number of pages. Within a group the retriever shows the
canonical page and lists the others as "also in" (core.retrieve).
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

PERMUTATIONS = 64
BANDS = 16
_rng = np.random.default_rng(20240611)
# Multiply-add-shift hashing of 32-bit shingle hashes (Dietzfelbinger, "Universal hashing
# and k-wise independent random variables via integer arithmetic without primes", 1996):
# h(x) = ((a x + b) mod 2^64) >> 32 with random 64-bit a (odd) and b; uint64 arithmetic
# wraps mod 2^64 by itself.
_A = _rng.integers(0, 1 << 64, PERMUTATIONS, dtype=np.uint64, endpoint=False) | np.uint64(1)
_B = _rng.integers(0, 1 << 64, PERMUTATIONS, dtype=np.uint64, endpoint=False)
_SHIFT = np.uint64(32)
_WORD = re.compile(r"\w+", re.UNICODE)

# Title words that mark a page as a copy or an older state of another one.
_COPY_MARKERS = re.compile(
    r"\b(copy|copies|draft|drafts|old|older|historical|history|archive|archived|deprecated|"
    r"obsolete|backup|restored|outdated|kopie|entwurf|veraltet|archiviert)\b",
    re.IGNORECASE,
)


def signature(texts: Iterable[str], shingle: int = 3) -> list[int]:
    """MinHash signature (64 values) of the word `shingle`-grams of the texts, lower-cased;
    empty text gives an empty signature (never a duplicate of anything)."""
    words = [w.lower() for text in texts for w in _WORD.findall(text)]
    grams = {" ".join(words[i : i + shingle]) for i in range(max(len(words) - shingle + 1, 0))}
    if not grams and words:
        grams = {" ".join(words)}
    if not grams:
        return []
    hashes = np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(g.encode(), digest_size=4).digest(), "little")
            for g in grams
        ),
        dtype=np.uint64,
        count=len(grams),
    )
    # One hash per permutation and shingle. (Until index format 5 this was (a x + b) mod
    # 2^61-1 with a, b < 2^32: a x + b never wrapped, so every "permutation" ordered the
    # shingles alike and a shingle with a small x was the minimum in most of them at once.)
    values = (np.multiply.outer(_A, hashes) + _B[:, None]) >> _SHIFT
    return [int(v) for v in values.min(axis=1)]


def similarity(a: Sequence[int], b: Sequence[int]) -> float:
    """Estimated Jaccard similarity of two signatures (share of equal positions)."""
    if not a or not b:
        return 0.0
    return float(np.mean(np.asarray(a) == np.asarray(b)))


def near_duplicate_groups(
    signatures: Mapping[str, Sequence[int]], threshold: float = 0.8
) -> dict[str, str]:
    """Page id → group id (the smallest page id of its group) for every page that has at
    least one near-duplicate (estimated Jaccard ≥ `threshold`); single pages are left out."""
    return DuplicateGroups(threshold).update(signatures)


class DuplicateGroups:
    """The near-duplicate groups of a changing set of pages. `update` takes the pages that
    were added, changed or removed and groups again only them and the pages of the groups
    they were in; the other groups stand as they were. A sync changes a few pages with each
    write, and grouping 100,000 pages whole took 0.3 s in every process after every write.

    Pages with equal signatures are one group before any comparison, candidate pairs come
    from LSH bands, and a pair already in one group is not compared: a page copied a
    hundred times costs about a hundred comparisons rather than five thousand. The groups
    are the connected components of the pairs at or above the threshold, so grouping
    again only what changed gives what grouping everything would."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self._signature: dict[str, tuple[int, ...]] = {}  # page → signature (full ones)
        self._pages: dict[tuple[int, ...], set[str]] = {}  # signature → its pages
        self._buckets: dict[tuple, set[tuple[int, ...]]] = defaultdict(set)  # band → sigs
        self._group: dict[str, str] = {}  # page → group id, for pages in a group
        self._members: dict[str, set[str]] = {}  # group id → its pages

    def update(
        self, signatures: Mapping[str, Sequence[int]], removed: Iterable[str] = ()
    ) -> dict[str, str]:
        """Take the signatures of new and changed pages, forget the `removed` pages, and
        return page id → group id (a new dict) for every page in a group."""
        touched = set(signatures) | set(removed)
        regroup: set[str] = set()
        for page in touched:
            group = self._group.get(page)
            if group is None:
                regroup.add(page)
                continue
            for member in self._members.pop(group, ()):
                del self._group[member]
                regroup.add(member)
        for page in touched:
            self._forget(page)
        for page, sig in signatures.items():
            if len(sig) == PERMUTATIONS:
                self._remember(page, tuple(sig))
        self._join_around(regroup & self._signature.keys())
        return dict(self._group)

    def _forget(self, page: str) -> None:
        sig = self._signature.pop(page, None)
        if sig is None:
            return
        pages = self._pages[sig]
        pages.discard(page)
        if not pages:
            del self._pages[sig]
            for band in _bands(sig):
                self._buckets[band].discard(sig)
                if not self._buckets[band]:
                    del self._buckets[band]

    def _remember(self, page: str, sig: tuple[int, ...]) -> None:
        self._signature[page] = sig
        if sig not in self._pages:
            self._pages[sig] = set()
            for band in _bands(sig):
                self._buckets[band].add(sig)
        self._pages[sig].add(page)

    def _join_around(self, pages: set[str]) -> None:
        """Group `pages` (in no group now) with each other and with the standing groups."""
        parent: dict[str, str] = {}

        def root(node: str) -> str:
            while parent.get(node, node) != node:
                parent[node] = node = parent.get(parent[node], parent[node])
            return node

        def join(a: str, b: str) -> None:
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)

        def node(page: str) -> str:  # a grouped page stands for its group, by the group id
            return self._group.get(page, page)

        checked: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
        for sig in {self._signature[p] for p in pages}:
            anchor = min(self._pages[sig])
            for page in self._pages[sig]:
                join(anchor, node(page))
            for band in _bands(sig):
                for other in self._buckets[band]:
                    pair = (sig, other) if sig < other else (other, sig)
                    if other == sig or pair in checked:
                        continue
                    some = node(next(iter(self._pages[other])))
                    if root(anchor) == root(some):
                        continue
                    checked.add(pair)
                    if similarity(sig, other) >= self.threshold:
                        join(anchor, some)
        components: dict[str, set[str]] = defaultdict(set)
        for start in pages | parent.keys() | set(parent.values()):
            components[root(start)] |= self._members.pop(start, {start})
        for members in components.values():
            if len(members) > 1:
                group = min(members)
                self._members[group] = members
                for member in members:
                    self._group[member] = group


def _bands(sig: tuple[int, ...]) -> list[tuple]:
    """The LSH band keys of a signature."""
    rows = PERMUTATIONS // BANDS
    return [(band, *sig[band * rows : (band + 1) * rows]) for band in range(BANDS)]


def is_copy_title(title: str) -> bool:
    """True when the title marks the page as a copy, draft or older state ("Copy of X",
    "X [ DRAFT ]", "X - Historical")."""
    return bool(_COPY_MARKERS.search(title))


def personal_space(space: str) -> bool:
    """Confluence personal spaces have keys starting with `~`."""
    return space.startswith("~")
