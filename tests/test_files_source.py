"""Pages from a folder: ConfQuestions JSON and Confluence HTML export files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connectors.files import FilesSource, html_export_page, json_page

EXPORT = """<!DOCTYPE html>
<html><head><title>Engineering : Build : How to</title></head>
<body><div id="page"><div id="main">
<div id="main-header">
  <div id="breadcrumb-section"><ol id="breadcrumbs">
    <li class="first"><span><a href="index.html">Engineering</a></span></li>
    <li><span><a href="Home_1001.html">Home</a></span></li>
    <li><span><a href="Guides_1002.html">Guides</a></span></li>
  </ol></div>
  <h1 id="title-heading" class="pagetitle">
    <span id="title-text"> Engineering : Build : How to </span>
  </h1>
</div>
<div id="content" class="view">
  <div class="page-metadata">Created by Ada</div>
  <div id="main-content" class="wiki-content group"><p>Run <code>make</code>.</p></div>
</div></div></div></body></html>
"""


def write_json(folder: Path, name: str, **record) -> Path:
    path = folder / name
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def doc(**changes) -> dict:
    record = {
        "id": "confluence-001",
        "title": "Draft v3 : Governance",
        "url": "https://openxt.atlassian.net/wiki/spaces/GOV/pages/36503555/Draft+v3",
        "space": "GOV",
        "date": "2024-11-15",
        "content": "<p>Please see these documents.</p>",
    }
    return {**record, **changes}


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://x.atlassian.net/wiki/spaces/GOV/pages/36503555/Draft+v3", "36503555"),
        ("https://x.atlassian.net/wiki/spaces/GOV/pages/36503555", "36503555"),
        ("https://x.atlassian.net/wiki/spaces/GOV/overview", "confluence-001"),
        ("", "confluence-001"),
    ],
)
def test_json_page_id(tmp_path, url, expected):
    page = json_page(write_json(tmp_path, "a.json", **doc(url=url)))
    assert page.id == expected


def test_json_page_fields(tmp_path):
    page = json_page(write_json(tmp_path, "a.json", **doc()))
    assert (page.space, page.title, page.body_format) == ("GOV", "Draft v3 : Governance", "storage")
    assert page.body == "<p>Please see these documents.</p>"
    assert page.updated_at == "2024-11-15"


def test_html_export_page(tmp_path):
    folder = tmp_path / "ENG"
    folder.mkdir()
    path = folder / "How-to_1003.html"
    path.write_text(EXPORT, encoding="utf-8")
    page = html_export_page(path)
    assert page.id == "1003"
    assert page.space == "ENG"
    assert page.title == "Build : How to"
    assert page.body_format == "view"
    assert "Run <code>make</code>." in page.body
    assert "Created by Ada" not in page.body
    assert page.ancestors == ("1001", "1002")
    assert page.url == path.resolve().as_uri()


def test_folder_skips_malformed_files_and_export_index(tmp_path, caplog):
    write_json(tmp_path, "good.json", **doc())
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    write_json(tmp_path, "missing.json", **{k: v for k, v in doc().items() if k != "content"})
    (tmp_path / "nobody.html").write_text("<html><body><p>x</p></body></html>", encoding="utf-8")
    (tmp_path / "index.html").write_text(EXPORT, encoding="utf-8")
    source = FilesSource(tmp_path)

    assert list(source.pages) == ["36503555"]
    assert sorted(name for name, _ in source.failures) == [
        "broken.json",
        "missing.json",
        "nobody.html",
    ]
    assert "broken.json skipped" in caplog.text


def test_duplicate_page_ids_keep_the_first(tmp_path):
    write_json(tmp_path, "a.json", **doc())
    write_json(tmp_path, "b.json", **doc(title="Copy"))
    source = FilesSource(tmp_path)
    assert source.pages["36503555"].title == "Draft v3 : Governance"
    assert source.failures == [("b.json", "duplicate page id 36503555")]


def test_changes_fetch_and_listing_by_space(tmp_path):
    write_json(tmp_path, "a.json", **doc())
    write_json(tmp_path, "b.json", **doc(url="", id="other", space="OPS"))
    source = FilesSource(tmp_path)
    assert source.spaces() == ["GOV", "OPS"]
    (batch,) = source.changes("OPS", None)
    assert [f.page.id for f in batch.pages] == ["other"]
    assert set(source.listing("GOV")) == {"36503555"}
    assert source.fetch("other").page.space == "OPS"
    assert source.fetch("gone") is None


def test_missing_folder_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        FilesSource(tmp_path / "absent")


def test_reads_the_benchmark_documents(benchmark_dir):
    source = FilesSource(benchmark_dir / "documents")
    assert len(source.pages) == 215
    assert source.failures == []
    assert len(source.spaces()) == 10
