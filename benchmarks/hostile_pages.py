"""Indexing the worst pages of the robustness suite: time and extra memory per page.

Each hostile page (`tests/fakes/hostile_pages.py`: huge spans, long and wide tables, garbage,
deep nesting, a single 5 MB word...) is indexed on its own, in a fresh process, with the
embedder the settings name (the offline USE model by default, without the embedding cache,
so every vector is computed), into a throwaway embedded Chroma and evidence store. The
figures are the wall time of `EvidenceIndex.index_pages([page])` (extraction,
contextualization, embedding, Chroma and store writes), the CPU time it used (all threads:
on a loaded machine, CPU time over the cores the embedder uses, 2, estimates the wall time
on an idle one), and the peak resident memory during it above the resident memory before
it (the model and libraries already loaded).

    .venv/bin/python benchmarks/hostile_pages.py              # every page at 5 MB
    .venv/bin/python benchmarks/hostile_pages.py --size 1000000 --only garbage long_table

Target (issue 14): at most 10 s and 500 MB extra per page of up to 5 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.hostile_pages import HOSTILE  # noqa: E402


def _status_kib(field: str) -> int:
    """A `VmRSS`/`VmHWM` figure of this process from /proc, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def measure_one(name: str, size: int) -> dict:
    """Index one hostile page in this process; its figures."""
    from core.embeddings import make_embedder
    from core.index import EvidenceIndex
    from core.pages import Page
    from core.settings import Settings

    with tempfile.TemporaryDirectory(prefix="confbot-hostile-") as folder:
        settings = Settings.load(environ={"CONFBOT_DATA_DIR": folder})
        index = EvidenceIndex(settings, make_embedder(settings, cache=False))
        warm = Page(id="0", space="B", title="Warm up", url="u", body="<p>Warm up the model.</p>")
        index.index_pages([warm])  # model, Chroma and store loaded before measuring
        body = HOSTILE[name](size)
        page = Page(id="1", space="B", title=f"Hostile {name}", url="u", body=body)
        before = _status_kib("VmRSS")
        Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to now
        started, cpu = time.perf_counter(), time.process_time()
        report = index.index_pages([page])
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        peak = _status_kib("VmHWM")
        evidences = len(index.page_evidence_ids("1"))
        index.close()
    return {
        "page": name,
        "bytes": len(body.encode("utf-8", "surrogatepass")),
        "evidences": evidences,
        "failed": [reason for _, reason in report.failed],
        "warnings": report.warnings,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "extra_mib": round(max(0, peak - before) / 1024, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=5_000_000, help="bytes per page")
    parser.add_argument("--only", nargs="*", choices=sorted(HOSTILE), help="pages to index")
    parser.add_argument("--one", choices=sorted(HOSTILE), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.size)))
        return 0
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min)")
    header = f"{'page':24} {'MB':>5} {'evidences':>9} {'seconds':>8} {'CPU s':>6}"
    print(f"{header} {'extra MiB':>9}  notes")
    worst_seconds = worst_mib = 0.0
    for name in args.only or list(HOSTILE):
        out = subprocess.run(
            [sys.executable, __file__, "--one", name, "--size", str(args.size)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        if out.returncode != 0:
            print(f"{name:24} crashed (exit {out.returncode}): {out.stderr.strip()[-300:]}")
            continue
        row = json.loads(out.stdout.strip().splitlines()[-1])
        notes = "; ".join(row["failed"]) or f"{row['warnings']} warning(s)"
        print(
            f"{name:24} {row['bytes'] / 1e6:5.2f} {row['evidences']:9d} {row['seconds']:8.2f}"
            f" {row['cpu_seconds']:6.2f} {row['extra_mib']:9.1f}  {notes}"
        )
        worst_seconds = max(worst_seconds, row["seconds"])
        worst_mib = max(worst_mib, row["extra_mib"])
    print(f"worst: {worst_seconds:.2f} s, {worst_mib:.1f} MiB extra (target: 10 s, 500 MB)")
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
