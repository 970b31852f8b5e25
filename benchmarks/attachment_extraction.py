"""Attachment extraction: throughput per format, peak memory for a 50 MB PDF, and a sync of
1,000 attachments through the fake Confluence.

    .venv/bin/python benchmarks/attachment_extraction.py [--pdf-mb 50] [--attachments 1000]

1. Throughput: files written by their libraries (tests/fakes/documents.py) are read by
   `core.documents.read_document` and cut into evidences by `core.contextualize` (what the
   sync does before embedding), each format timed alone: source pages (PDF pages, sheets,
   slides, files) per second, MB per second, evidences per second.
2. Memory: a PDF of `--pdf-mb` MB (text pages with a grey image on each, as scans and
   figures make files large) is read in a fresh process; its peak resident memory is
   printed beside that of the same process before reading (target: at most 500 MB).
3. Sync: `--attachments` small files (PDF, DOCX, XLSX, PPTX, CSV in turn; ten a page) on
   generated pages of the fake Confluence (Cloud REST v2 on 127.0.0.1), one full sync with
   the configured embedder (default: the offline USE model; its cache starts empty), then
   a run with nothing changed (no file downloaded again).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.contextualize import page_evidences  # noqa: E402
from core.documents import read_document  # noqa: E402
from core.pages import Page  # noqa: E402
from tests.fakes.documents import (  # noqa: E402
    docx_bytes,
    pdf_bytes,
    pptx_bytes,
    xlsx_bytes,
)

WORDS = (
    "the retention period for invoices is ten years unless the contract says otherwise and"
    " every team keeps a copy in the archive before the audit starts in March"
).split()


def sentence(n: int, words: int = 14) -> str:
    return " ".join(WORDS[(n + i) % len(WORDS)] for i in range(words)).capitalize() + "."


def sample_files() -> dict[str, tuple[bytes, int]]:
    """(bytes, source pages) per format, each a few MB of text-bearing content."""
    pdf_pages = [[sentence(p * 40 + n) for n in range(40)] for p in range(300)]
    docx = docx_bytes(
        "Handbook",
        [(f"Chapter {c}", [sentence(c * 30 + n, 30) for n in range(30)]) for c in range(60)],
        table=[["Item", "Owner", "Due"]]
        + [[f"Item {n}", f"Team {n % 7}", "Q3"] for n in range(300)],
    )
    xlsx = xlsx_bytes(
        {
            f"Sheet{s}": [["Id", "Name", "Amount", "Note"]]
            + [[n, f"Cost {n}", n * 1.5, sentence(n, 6)] for n in range(4000)]
            for s in range(5)
        }
    )
    pptx = pptx_bytes(
        [(f"Slide {n}", [sentence(n * 5 + b, 10) for b in range(5)]) for n in range(150)]
    )
    csv = "\n".join(
        ["id,name,amount,note"] + [f"{n},Cost {n},{n * 1.5},{sentence(n, 6)}" for n in range(20000)]
    ).encode()
    text = "\n\n".join(sentence(n, 60) for n in range(4000)).encode()
    return {
        "pdf": (pdf_bytes(pdf_pages), len(pdf_pages)),
        "docx": (docx, 1),
        "xlsx": (xlsx, 5),
        "pptx": (pptx, 150),
        "csv": (csv, 1),
        "text": (text, 1),
    }


def throughput() -> None:
    print(
        f"{'format':<6} {'MB':>6} {'pages':>6} {'s':>7} {'pages/s':>9} {'MB/s':>7}"
        f" {'evidences':>10} {'ev/s':>8}"
    )
    for kind, (data, pages) in sample_files().items():
        name = f"sample.{'txt' if kind == 'text' else kind}"
        started = time.perf_counter()
        document = read_document(name, data)
        count = 0
        for n, body in enumerate(document.parts):
            page = Page(id=f"p{n}", space="B", title=name, url="", body=body, body_format="view")
            count += len(page_evidences(page)[0])
        seconds = time.perf_counter() - started
        mb = len(data) / 1e6
        print(
            f"{kind:<6} {mb:6.2f} {pages:6d} {seconds:7.2f} {pages / seconds:9.1f}"
            f" {mb / seconds:7.2f} {count:10d} {count / seconds:8.0f}"
        )


def memory_child(megabytes: float) -> None:
    """In a fresh process: build the PDF on disk first, then measure reading it."""
    pages = 400
    image = int(megabytes * 1e6 / pages)
    with tempfile.NamedTemporaryFile(suffix=".pdf") as handle:
        handle.write(
            pdf_bytes(
                [[sentence(p * 30 + n) for n in range(30)] for p in range(pages)], image=image
            )
        )
        handle.flush()
        file_size = Path(handle.name).stat().st_size
        probe = subprocess.run(
            [sys.executable, __file__, "--read", handle.name],
            capture_output=True,
            text=True,
            check=True,
        )
    print(f"PDF of {file_size / 1e6:.1f} MB, {pages} pages: {probe.stdout.strip()}")


def peak_mib() -> float:
    """This process's peak resident memory in MiB: VmHWM on Linux (ru_maxrss keeps the
    parent's peak across exec there), else ru_maxrss."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def read_and_report(path: str) -> None:
    before = peak_mib()
    started = time.perf_counter()
    data = Path(path).read_bytes()
    document = read_document("big.pdf", data)
    del data
    count = 0
    for n, body in enumerate(document.parts):
        page = Page(id=f"p{n}", space="B", title="big.pdf", url="", body=body, body_format="view")
        count += len(page_evidences(page)[0])
    seconds = time.perf_counter() - started
    peak = peak_mib()
    verdict = "met" if peak <= 500 else "MISSED"
    print(
        f"read in {seconds:.1f} s, {count} evidences; peak memory {peak:.0f} MiB"
        f" (before reading {before:.0f} MiB; target <= 500 MB: {verdict})"
    )


def sync(attachments: int, embedder_name: str) -> None:
    from connectors.confluence import ConfluenceSource
    from connectors.sync import SpaceSync
    from core.db import upgrade
    from core.embeddings import make_embedder
    from core.index import EvidenceIndex
    from core.settings import Settings
    from tests.fakes.confluence_server import FakeConfluence, generated_pages

    per_page = 10
    makers = [
        ("pdf", lambda n: pdf_bytes([[sentence(n + i) for i in range(20)] for _ in range(3)])),
        ("docx", lambda n: docx_bytes(f"Doc {n}", [(f"Part {n}", [sentence(n, 40)] * 3)])),
        (
            "xlsx",
            lambda n: xlsx_bytes(
                {"Data": [["Id", "Note"]] + [[i, sentence(n + i, 5)] for i in range(30)]}
            ),
        ),
        ("pptx", lambda n: pptx_bytes([(f"Deck {n}", [sentence(n + i, 8) for i in range(4)])] * 3)),
        (
            "csv",
            lambda n: "\n".join(
                ["id,note"] + [f"{i},{sentence(n + i, 5)}" for i in range(30)]
            ).encode(),
        ),
    ]
    pages = generated_pages(max(1, attachments // per_page))
    with tempfile.TemporaryDirectory() as data, FakeConfluence(pages) as fake:
        for n in range(attachments):
            kind, make = makers[n % len(makers)]
            fake.attach(pages[n // per_page].id, f"file-{n}.{kind}", make(n))
        settings = Settings.load(
            environ={
                "CONFBOT_DATA_DIR": data,
                "CONFBOT_EMBEDDER": embedder_name,
                **fake.settings_environ(),
            }
        )
        upgrade(settings.sqlalchemy_url)
        index = EvidenceIndex(settings, make_embedder(settings))
        source = ConfluenceSource(settings)
        size = sum(len(a.data) for p in fake.pages.values() for a in p.attachments) / 1e6
        for name in ("full", "no change"):
            started = time.perf_counter()
            report = SpaceSync(settings, index, source).run("GEN")
            seconds = time.perf_counter() - started
            files = report.attachments
            print(
                f"sync ({name}): {len(pages)} pages, {attachments} attachments ({size:.1f} MB),"
                f" embedder {index.embedder.name}: {seconds:.1f} s, {files.indexed} indexed"
                f" ({files.indexed / seconds:.1f}/s), {files.unchanged} unchanged,"
                f" {files.failed + files.skipped} not indexed"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdf-mb", type=float, default=50.0, help="size of the large PDF (50)")
    parser.add_argument(
        "--attachments", type=int, default=1000, help="files synced (1000; 0 skips)"
    )
    parser.add_argument("--embedder", default="use", help="embedder setting for the sync (use)")
    parser.add_argument("--read", help=argparse.SUPPRESS)  # the memory probe's child process
    args = parser.parse_args()
    if args.read:
        read_and_report(args.read)
        return 0
    throughput()
    memory_child(args.pdf_mb)
    if args.attachments:
        sync(args.attachments, args.embedder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
