"""A three-page wiki (storage XHTML) indexed with the hash embedder, and an Assistant over it,
for tests of the conversation layer and the surfaces."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.assistant import Assistant
from core.contextualize import ContextOptions
from core.conversation import ConversationStore
from core.db import upgrade
from core.extractive import ExtractiveLLM
from core.index import EvidenceIndex
from core.llm import LLM
from core.pages import Page
from core.rephrase import OfflineCompleter
from core.retrieve import Retriever
from core.settings import Settings
from tests.fakes.hash_embedder import HashEmbedder

PAGES = [
    Page(
        id="101",
        space="TEST",
        title="Bats: Bash Automated Testing System",
        url="https://wiki.example/spaces/TEST/pages/101/Bats",
        body=(
            "<p>BATS stands for Bash Automated Testing System. It was used for OpenXT because"
            " it gives a simple way to write tests in Bash.</p>"
            "<h2>Compliance</h2><p>BATS is compliant with the Test Anything Protocol (TAP).</p>"
            "<h2>Build</h2><p>BATS is enabled in the OpenEmbedded build system with the"
            " DISTRO_FEATURE variable, declared in local.conf.</p>"
        ),
    ),
    Page(
        id="102",
        space="TEST",
        title="OpenXT 9.0 Measurement Test",
        url="https://wiki.example/spaces/TEST/pages/102/Measurement",
        body=(
            "<p>Results of the measurement tests of OpenXT 9.0.</p>"
            "<table><tbody><tr><th>Machine</th><th>BIOS</th><th>Build</th><th>TPM</th></tr>"
            "<tr><td>Dell Optiplex 7040</td><td>1.14.0</td><td>6662</td><td>2.0</td></tr>"
            "<tr><td>Dell Optiplex 9010</td><td>A25</td><td>6768</td><td>1.2</td></tr>"
            "</tbody></table><p>The XT shield turns green after a successful upgrade.</p>"
        ),
    ),
    Page(
        id="103",
        space="DEV",
        title="Upstream Xen GPU Testing",
        url="https://wiki.example/spaces/DEV/pages/103/Xen",
        body=(
            "<p>VGA passthrough was tested on upstream Xen to isolate graphics passthrough"
            " issues.</p><table><tbody><tr><th>Distribution</th><th>Xen</th></tr>"
            "<tr><td>Ubuntu 3.11 Kernel</td><td>4.4.0</td></tr>"
            "<tr><td>Ubuntu 3.13 Kernel</td><td>4.3.3</td></tr></tbody></table>"
        ),
    ),
]


Wiki = tuple[Settings, EvidenceIndex, Retriever]


def build_wiki(folder: Path, pages: Sequence[Page] = PAGES, **overrides: str) -> Wiki:
    """Settings (data folder `folder`, then `overrides`), index and retriever over `pages`."""
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(folder)}, overrides=overrides)
    embedder = HashEmbedder()
    index = EvidenceIndex(settings, embedder)
    report = index.index_pages(pages, ContextOptions.from_settings(settings))
    assert report.failed == []
    return settings, index, Retriever.from_settings(index, embedder, settings)


def make_assistant(wiki: Wiki, folder: Path, llm: LLM | None = None) -> Assistant:
    """An Assistant over the wiki with its state in a fresh SQLite file under `folder`."""
    settings, index, retriever = wiki
    url = f"sqlite:///{folder / 'state.sqlite'}"
    upgrade(url)
    return Assistant(
        settings,
        index,
        retriever,
        llm or ExtractiveLLM(),
        OfflineCompleter(),
        ConversationStore(url),
    )
