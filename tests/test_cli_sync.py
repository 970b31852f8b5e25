"""`confbot sync` through its front door, from a folder, with the offline embedder."""

from __future__ import annotations

import json

from bot.cli import main


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
    assert "unreadable file skipped: broken.json" in err

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
