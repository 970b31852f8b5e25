"""Source excerpts over every evidence of a folder of pages: what each kind is shown as,
how often the index's linearized text would leak, and the time per excerpt.

Each page is read as the files source reads it (Confluence HTML exports or ConfQuestions
JSON), cut into evidences with the default context options, and each evidence is given to
`core.excerpt.excerpt` with an answer of three of its own words (drawn with a fixed seed)
and a question naming its heading, as a cited source would be. Printed: evidences by kind
and the excerpt kind they became (a row or table shown as text is one whose text is not
verbalized rows, such as a part of a split row), failures, excerpts that still hold a
`Row N in Table T:` or `Table T:` line, and the median and 99th-percentile time.

    .venv/bin/python benchmarks/excerpt_coverage.py --data ../shared/confquestions/documents
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_LINEARIZED = re.compile(r"\bRow \d+ in Table \d+:|^Table \d+:", re.MULTILINE)


def main(argv: list[str] | None = None) -> int:
    from connectors.files import read_page
    from core.contextualize import page_evidences
    from core.excerpt import excerpt

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="a folder of page files")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    kinds: Counter = Counter()
    failures, leaks, times = [], 0, []
    for path in sorted(Path(args.data).iterdir()):
        if not path.is_file():
            continue
        evidences, _ = page_evidences(read_page(path))
        for e in evidences:
            words = e.text.split()
            answer = " ".join(rng.sample(words, min(3, len(words)))) + " [1]"
            started = time.perf_counter()
            try:
                found = excerpt(e.text, e.kind, answer, f"What is {e.heading}?")
            except Exception as exc:  # a failure is a finding, not the end of the run
                failures.append(f"{e.id}: {exc!r}")
                continue
            times.append((time.perf_counter() - started) * 1e6)
            kinds[(e.kind, found.kind)] += 1
            shown = "".join(p.text for p in found.pieces) + " ".join(found.header)
            shown += " ".join(cell for row in found.rows for cell in row)
            leaks += bool(_LINEARIZED.search(shown))
    total = sum(kinds.values())
    print(f"{total:,} evidences excerpted, {len(failures)} failures")
    for (kind, shown), count in sorted(kinds.items()):
        print(f"  {kind:8} shown as {shown:6} {count:6,}")
    print(f"linearized text left in {leaks} excerpts ({leaks / max(total, 1):.2%})")
    if times:
        p99 = sorted(times)[int(0.99 * (len(times) - 1))]
        print(f"time per excerpt: median {statistics.median(times):.0f} µs, p99 {p99:.0f} µs")
    for failure in failures[:10]:
        print("failed:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
