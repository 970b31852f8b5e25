"""The generated part of the README: the table of every setting, from
`core.settings.describe()`, between two marker comments. `tests/test_docs.py` fails when the
README's table differs from what this module generates; `make docs` rewrites it:

    python -m bot.docs README.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from core.settings import describe

START = "<!-- settings:start (generated from core/settings.py by `make docs`; do not edit) -->"
END = "<!-- settings:end -->"

# Defaults computed from the machine, shown as the rule rather than this machine's value.
COMPUTED_DEFAULTS = {"data_dir": "`$XDG_DATA_HOME/confbot` or `~/.local/share/confbot`"}


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return (
        " ".join(str(text).split())
        .replace("|", "\\|")
        .replace("*", "\\*")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
    )


def _default(name: str, value) -> str:
    if name in COMPUTED_DEFAULTS:
        return COMPUTED_DEFAULTS[name]
    if value in ("", None, [], {}, ()):
        return "(empty)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, (list, tuple)):
        return f"`{','.join(map(str, value))}`"
    if isinstance(value, dict):
        return f"`{';'.join(f'{k}={v}' for k, v in value.items())}`"
    return f"`{value}`"


def settings_table() -> str:
    """The Markdown table of every setting: environment variable, setting name (for the
    TOML file), default and help."""
    lines = [
        "| Environment variable | Setting (TOML) | Default | What it does |",
        "| --- | --- | --- | --- |",
    ]
    for name, env, default, help_text in describe():
        lines.append(f"| `{env}` | `{name}` | {_default(name, default)} | {_cell(help_text)} |")
    return "\n".join(lines)


def with_table(readme: str) -> str:
    """`readme` with the text between the markers replaced by the current table."""
    before, start, rest = readme.partition(START)
    _, end, after = rest.partition(END)
    if not start or not end:
        raise ValueError(f"the README lacks the markers {START!r} and {END!r}")
    return f"{before}{START}\n{settings_table()}\n{END}{after}"


def main(argv: list[str]) -> int:
    """Rewrite the settings table of the README named on the command line."""
    path = Path(argv[0] if argv else "README.md")
    text = path.read_text(encoding="utf-8")
    updated = with_table(text)
    if updated != text:
        path.write_text(updated, encoding="utf-8")
        print(f"{path}: settings table updated")
    else:
        print(f"{path}: settings table up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
