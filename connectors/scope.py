"""Which pages of a space are synced: labels to include or exclude, page-tree roots and a
CQL filter, per space, as one CQL clause that the Confluence source adds to its change
search and its listing (so pages out of scope are never read, and a page that leaves the
scope vanishes from the listing and is removed). Archived pages are never synced.

Settings (each `KEY=VALUE;KEY2=VALUE`, per space key):
- `sync_labels`: only pages with one of these labels (`ENG=runbook,howto`);
- `sync_exclude_labels`: not pages with any of these labels (`ENG=draft,obsolete`);
- `sync_roots`: only these pages and their descendants, by page id (`ENG=12345,67890`);
- `sync_cql`: any CQL a page must also match (`ENG=creator = "ada" or contributor = "bo"`).
"""

from __future__ import annotations

from core.settings import Settings, SettingsError


def _cql_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def scope_cql(settings: Settings, space: str) -> str:
    """The CQL clause that limits `space` to its scope ("" when the whole space is synced)."""
    parts = []
    labels = _items(settings.sync_labels.get(space, ""))
    if labels:
        parts.append(f"label in ({', '.join(_cql_string(label) for label in labels)})")
    excluded = _items(settings.sync_exclude_labels.get(space, ""))
    if excluded:
        parts.append(f"label not in ({', '.join(_cql_string(label) for label in excluded)})")
    roots = _items(settings.sync_roots.get(space, ""))
    if roots:
        bad = [root for root in roots if not root.isdigit()]
        if bad:
            raise SettingsError(
                f"CONFBOT_SYNC_ROOTS: {space}={','.join(bad)} is not a page id (a number;"
                " it is in the page's URL, /pages/<id>/)"
            )
        ids = ", ".join(roots)
        parts.append(f"(id in ({ids}) or ancestor in ({ids}))")
    cql = settings.sync_cql.get(space, "").strip()
    if cql:
        parts.append(f"({cql})")
    return " and ".join(parts)


def scoped(settings: Settings) -> list[str]:
    """The spaces that have a scope setting (for sources that cannot apply them)."""
    return sorted(
        {
            *settings.sync_labels,
            *settings.sync_exclude_labels,
            *settings.sync_roots,
            *settings.sync_cql,
        }
    )
