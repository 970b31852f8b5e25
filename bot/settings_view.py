"""`confbot settings`: every setting grouped by area, with the value in effect and where it
comes from (default, the TOML file, the environment or a `--config` flag), secrets masked."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from core.settings import Settings, areas, env_name, origins


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or "(empty)"
    if isinstance(value, dict):
        return ";".join(f"{k}={v}" for k, v in value.items()) or "(empty)"
    if value in ("", None):
        return "(empty)"
    return str(value)


def settings_lines(
    settings: Settings,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    help_text: bool = True,
) -> list[str]:
    """The lines of `confbot settings`: a heading per area, then per setting its name, the
    value in effect (secrets as ***, URL passwords masked) and its origin, and its help."""
    values = settings.redacted()
    where = origins(environ, overrides)
    area_of = areas()
    lines: list[str] = []
    area = None
    for f in dataclasses.fields(Settings):
        if area_of.get(f.name, "other") != area:
            area = area_of.get(f.name, "other")
            lines += [""] if lines else []
            lines.append(f"[{area}]")
        origin = where[f.name]
        origin = origin if origin != "default" else f"default; {env_name(f)}"
        lines.append(f"  {f.name} = {_shown(values[f.name])}  ({origin})")
        if help_text:
            lines.append(f"      {f.metadata['help']}")
    return lines
