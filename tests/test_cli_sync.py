"""`confbot sync` through its front door, from a folder, with the offline embedder."""

from __future__ import annotations

import io
import json
import logging

import pytest

from bot.cli import main
from bot.sync_command import SyncProgress


def test_sync_a_folder_twice(environ, capsys):
    folder = environ / "docs"
    folder.mkdir()
    for n, space in enumerate(["ENG", "ENG", "OPS"]):
        record = {
            "id": f"doc-{n}",
            "title": f"Doc {n}",
            "url": "",
            "space": space,
            "date": "2024-11-15",
            "content": f"<p>How to restart service {n}.</p>",
        }
        (folder / f"{n}.json").write_text(json.dumps(record), encoding="utf-8")
    (folder / "broken.json").write_text("{", encoding="utf-8")

    assert main(["sync", "--source", "files", "--path", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert "ENG: 2 added, 0 updated, 0 deleted, 0 skipped, 0 failed" in out
    assert "OPS: 1 added" in out
    assert out.splitlines()[-1] == (
        "total of 2 spaces: 3 added, 0 updated, 0 deleted, 0 skipped, 0 failed;"
        " 1 unreadable file skipped: broken.json"
    )

    assert main(["sync", "--source", "files", "--path", str(folder), "--space", "OPS"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("OPS: 0 added, 0 updated, 0 deleted, 0 skipped, 0 failed (0 moved, 1 ")
    assert "ENG" not in out


def test_sync_without_confluence_settings_is_a_configuration_error(environ, capsys):
    assert main(["sync", "--space", "ENG"]) == 2
    assert "CONFBOT_CONFLUENCE_URL is not set" in capsys.readouterr().err


def test_sync_needs_a_space(environ, capsys, monkeypatch):
    monkeypatch.setenv("CONFBOT_CONFLUENCE_URL", "https://wiki.example.com")
    monkeypatch.setenv("CONFBOT_CONFLUENCE_TOKEN", "x")
    assert main(["sync"]) == 2
    assert "no spaces to sync" in capsys.readouterr().err


def write_pages(folder, count: int, space: str = "ENG") -> None:
    folder.mkdir(exist_ok=True)
    for n in range(count):
        record = {
            "id": f"{space}-{n}",
            "title": f"Doc {n}",
            "url": "",
            "space": space,
            "date": "2024-11-15",
            "content": f"<p>How to restart service {n}.</p>",
        }
        (folder / f"{space}-{n}.json").write_text(json.dumps(record), encoding="utf-8")


def test_a_missing_folder_is_one_line(environ, capsys):
    assert main(["sync", "--source", "files", "--path", "/nonexistent/pages"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("confbot: configuration error: --path: ") and "/nonexistent/pages" in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_an_unknown_space_is_an_error_not_zero_pages(environ, capsys):
    write_pages(environ / "docs", 2)
    assert (
        main(["sync", "--source", "files", "--path", str(environ / "docs"), "--space", "NOPE"]) == 2
    )
    captured = capsys.readouterr()
    assert "no page of the files source is in space NOPE (its spaces: ENG)" in captured.err
    assert "NOPE: 0 added" not in captured.out


def test_an_unreadable_file_is_warned_once(environ, capsys, caplog):
    write_pages(environ / "docs", 1, "ENG")
    write_pages(environ / "docs", 1, "OPS")
    (environ / "docs" / "broken.json").write_text("{", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert main(["sync", "--source", "files", "--path", str(environ / "docs")]) == 0
    warned = [r for r in caplog.records if "broken.json" in r.getMessage()]
    assert len(warned) == 1  # the folder is read once per space and once to list them
    assert "1 unreadable file skipped: broken.json" in capsys.readouterr().out


def recorded_progress(monkeypatch) -> list[tuple[str, int, int | None, int | None]]:
    """Every `SyncProgress.update` of a `confbot sync` as (space, pages done, the space's
    total, the overall total) at the time of the call."""
    seen = []
    original = SyncProgress.update

    def recording(self, done, total=None):
        original(self, done, total)
        seen.append((self._space, done, self._space_total, self._known_total()))

    monkeypatch.setattr(SyncProgress, "update", recording)
    return seen


def test_the_files_source_moves_the_bar_page_by_page_with_a_total(environ, monkeypatch):
    """Both totals are known before the first page, and the bar moves a page at a time."""
    seen = recorded_progress(monkeypatch)
    write_pages(environ / "docs", 25, "ENG")
    write_pages(environ / "docs", 3, "OPS")
    assert main(["sync", "--source", "files", "--path", str(environ / "docs")]) == 0
    moves = [(space, done, total, overall) for space, done, total, overall in seen if done]
    assert moves == [("ENG", 1, 25, 28)] * 25 + [("OPS", 1, 3, 28)] * 3


def test_a_confluence_sync_moves_page_by_page_with_the_total_up_front(environ, monkeypatch):
    """Confluence answers 20 pages per search response; the bar still moves a page at a
    time (not 20, 20, 5), with the total counted before the first response (one
    `rest/api/search` request), and a second run counts only the pages changed since."""
    from tests.fakes.confluence_server import FakeConfluence, generated_pages

    with FakeConfluence(generated_pages(45, space="ENG"), token="t0ken") as confluence:
        for name, value in confluence.settings_environ().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("CONFBOT_CONFLUENCE_PAGE_SIZE", "20")
        seen = recorded_progress(monkeypatch)
        assert main(["sync", "--space", "ENG"]) == 0
        assert len(confluence.searches()) >= 3  # 20, 20 and 5 pages
        (count,) = [r for r in confluence.requests if r.path.endswith("/rest/api/search")]
        assert count.params["limit"] == "1"
        assert seen[0][2:] == (45, 45)  # both totals before the first page
        assert [done for _, done, _, _ in seen if done] == [1] * 45

        seen.clear()
        confluence.edit("100044", body="<p>Edited once.</p>")
        assert main(["sync", "--space", "ENG"]) == 0
        (total,) = {total for _, _, total, _ in seen}
        assert 1 <= total < 45  # the changes since the last run, not the whole space
        assert sum(done for _, done, _, _ in seen) == total


def test_progress_off_a_terminal_is_periodic_log_lines(caplog):
    progress = SyncProgress({"ENG": 20, "OPS": None}, io.StringIO(), bars=False, log_every=0.0)
    with caplog.at_level(logging.INFO, logger="bot.sync_command"):
        progress.space("ENG")
        progress.update(5, 20)
        progress.close()
        progress.space("OPS")
        progress.update(4, 40)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("sync ENG: 5/20 pages; all spaces: 5/20 pages, about ")
    assert lines[1].startswith("sync OPS: 4/40 pages; all spaces: 9/60 pages, about ")


@pytest.mark.parametrize("bars", [True])
def test_progress_on_a_terminal_draws_bars_with_totals(bars):
    out = io.StringIO()
    progress = SyncProgress({"ENG": 20}, out, bars=bars)
    progress.space("ENG")
    progress.update(10, 20)
    progress.finish()
    text = out.getvalue()
    assert "ENG:" in text and "10/20" in text and "all spaces:" in text


def test_an_unknown_confluence_space_is_an_error(environ, capsys, monkeypatch):
    from tests.fakes.confluence_server import FakeConfluence, generated_pages

    with FakeConfluence(generated_pages(2, space="ENG"), token="t0ken") as confluence:
        for name, value in confluence.settings_environ().items():
            monkeypatch.setenv(name, value)
        assert main(["sync", "--space", "NOPE"]) == 2
    captured = capsys.readouterr()
    assert "Confluence has no space NOPE, or this account may not read it" in captured.err
    assert "NOPE: 0 added" not in captured.out
