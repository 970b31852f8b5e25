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
    least one near-duplicate (estimated Jaccard ≥ `threshold`); single pages are left out.

    Pages with equal signatures are one group before any comparison, and a pair already in
    one group is not compared, so a page copied a hundred times costs about a hundred
    comparisons rather than five thousand (the candidate pairs come from LSH bands)."""
    rows = PERMUTATIONS // BANDS
    parent: dict[str, str] = {}

    def root(page_id: str) -> str:
        while parent.get(page_id, page_id) != page_id:
            parent[page_id] = page_id = parent.get(parent[page_id], parent[page_id])
        return page_id

    def join(a: str, b: str) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    same: dict[tuple, str] = {}  # signature → its first page
    for page_id, sig in signatures.items():
        if len(sig) == PERMUTATIONS:
            first = same.setdefault(tuple(sig), page_id)
            if first != page_id:
                join(first, page_id)
    buckets: dict[tuple, list[str]] = defaultdict(list)
    for sig, page_id in same.items():
        for band in range(BANDS):
            buckets[(band, *sig[band * rows : (band + 1) * rows])].append(page_id)
    checked: set[tuple[str, str]] = set()
    for members in buckets.values():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                pair = (min(a, b), max(a, b))
                if pair in checked or root(a) == root(b):
                    continue
                checked.add(pair)
                if similarity(signatures[a], signatures[b]) >= threshold:
                    join(a, b)
    return {page_id: root(page_id) for page_id in parent.keys() | set(parent.values())}


def is_copy_title(title: str) -> bool:
    """True when the title marks the page as a copy, draft or older state ("Copy of X",
    "X [ DRAFT ]", "X - Historical")."""
    return bool(_COPY_MARKERS.search(title))


def personal_space(space: str) -> bool:
    """Confluence personal spaces have keys starting with `~`."""
    return space.startswith("~")
