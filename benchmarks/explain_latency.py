"""Wall time of one counterfactual explanation when every LLM call takes a fixed time.

A local OpenAI-compatible server (`tests/fakes/openai_server.py`, a ThreadingHTTPServer, so
requests are served concurrently) sleeps `--delay-ms` (default 500) before every reply; the
real `OpenAILLM` client talks to it. Ten distinct evidences make ten clusters, so one
explanation is ten counterfactual LLM calls, all in flight at once. The embedder is the
configured one (the offline USE model by default), without the vector cache, so every run
embeds the evidences and answers afresh.

Prints, per run and as medians: the wall time of the explanation, the clustering overhead
(embedding the evidences and DBSCAN), the time of the parallel LLM step and of the answer
similarities, and the ratio (wall − clustering overhead) / delay, to hold against the target
of at most 1.3. The published system needs about 2 s per explanation.

    .venv/bin/python benchmarks/explain_latency.py [--delay-ms 500] [--runs 5] [--samples 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import peak_rss_mib  # noqa: E402
from core.answer import OUT_OF_SCOPE, build_messages  # noqa: E402
from core.attribution import attribute  # noqa: E402
from core.embeddings import make_embedder  # noqa: E402
from core.llm import OpenAILLM  # noqa: E402
from core.pages import Evidence  # noqa: E402
from core.settings import Settings  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI  # noqa: E402

QUESTION = "Which BIOS version did the Dell Optiplex 7040 have in the OpenXT 9.0 tests?"
TEXTS = [
    "The Dell Optiplex 7040 ran BIOS 1.14.0 with TPM 2.0 in the OpenXT 9.0 measurement tests.",
    "BATS is the Bash Automated Testing System, compliant with the Test Anything Protocol.",
    "VGA passthrough was tested on upstream Xen 4.4.0 with an Ubuntu 3.11 kernel.",
    "The RFC process allows comments and discussion on bigger changes to OpenXT.",
    "Release candidates are tagged after the regression suite passes on three machines.",
    "The build machine needs a 64-bit Debian installation with 200 GB of free disk space.",
    "Security advisories are published on the mailing list before the fixed release.",
    "The HP 8300 was tested with AMD Radeon HD 7750 and AMD Firepro W600 graphics cards.",
    "Governance moved to a board of five elected members in 2016.",
    "Over-the-air upgrades from 8.0.1 to 9.0.0 passed on every legacy-boot machine.",
]


def evidences() -> list[Evidence]:
    """Ten distinct evidences (ten clusters at the published eps)."""
    return [
        Evidence(
            id=f"e{i}",
            page_id=str(1000 + i),
            space="BENCH",
            url=f"https://wiki.example/pages/{1000 + i}/P{i}",
            title=f"Benchmark page {i}",
            kind="passage",
            position=0,
            text=text,
        )
        for i, text in enumerate(TEXTS, start=1)
    ]


def responder(request: dict) -> str:
    """Answers from source 1 when it is in the prompt, else from the first source given."""
    user = request["messages"][-1]["content"]
    if TEXTS[0] in user:
        return "The Dell Optiplex 7040 had BIOS 1.14.0 [1]."
    for number, text in enumerate(TEXTS, start=1):
        if text in user:
            return f"The sources do not name its BIOS; the nearest fact is: {text} [{number}]"
    return OUT_OF_SCOPE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--delay-ms", type=float, default=500.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--samples", type=int, default=1, help="Monte-Carlo samples, m")
    args = parser.parse_args()
    delay = args.delay_ms / 1000

    settings = Settings.load().replace(attribution_samples=args.samples)
    embedder = make_embedder(settings, cache=False)
    items = evidences()
    with FakeOpenAI(responder, delay_s=delay) as server:
        llm = OpenAILLM(server.base_url, "fake-model", "sk-bench", max_retries=0)
        (answer,) = llm.complete(build_messages(QUESTION, items))
        print(
            f"explain: {len(items)} evidences, m={args.samples}, every LLM call "
            f"{args.delay_ms:.0f} ms, embedder {embedder.name}, "
            f"{settings.attribution_workers} workers"
        )

        def explain():
            start = time.perf_counter()
            out = attribute("counterfactual", settings, llm, embedder, QUESTION, items, answer)
            return (time.perf_counter() - start) * 1000, out

        explain()  # warm-up: model loading and HTTP connections are not what is measured
        rows = []
        for run in range(1, args.runs + 1):
            server.max_in_flight = 0
            wall_ms, out = explain()
            overhead = out.timings["cluster_ms"]
            ratio = (wall_ms - overhead) / args.delay_ms
            steps = (out.timings["generate_ms"], out.timings["similarity_ms"])
            rows.append((wall_ms, overhead, *steps))
            print(
                f"run {run}: wall {wall_ms:.1f} ms, clustering overhead {overhead:.1f} ms, "
                f"LLM step {out.timings['generate_ms']:.1f} ms "
                f"({out.timings['llm_calls']} calls, {server.max_in_flight} at once), "
                f"similarity {out.timings['similarity_ms']:.1f} ms, ratio {ratio:.3f}"
            )
        print(out.lines()[0])
    wall, overhead, generate, similarity = (statistics.median(c) for c in zip(*rows, strict=True))
    ratio = (wall - overhead) / args.delay_ms
    verdict = "meets" if ratio <= 1.3 else "misses"
    print(
        f"\nmedian of {args.runs}: wall {wall:.1f} ms, clustering overhead {overhead:.1f} ms, "
        f"LLM step {generate:.1f} ms, similarity {similarity:.1f} ms"
    )
    print(
        f"(wall - clustering overhead) / {args.delay_ms:.0f} ms = {ratio:.3f} "
        f"({verdict} the target of <= 1.3); peak memory {peak_rss_mib():.0f} MiB"
    )


if __name__ == "__main__":
    main()
