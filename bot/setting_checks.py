"""Check the settings that `serve`, `worker` and `bot` read before anything starts, with the
parsers those parts use, so that `confbot doctor` and a starting process give the same
one-line error naming the variable (instead of a traceback minutes into a run).

Each check runs the parser of the part that reads the setting: schedules through
`connectors.schedule.parse_schedule` (what the scheduler builds its triggers with),
durations through `connectors.times.parse_interval`, the context options through
`core.contextualize.ContextOptions`; a setting chosen among names is checked against the
names its selector accepts (the selectors raise the same message:
`core.embeddings.make_embedder`, `core.retrieve.Retriever`, `connectors.sync.make_source`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from core.settings import Settings, SettingsError

EMBEDDERS = ("e5", "use", "bge-m3", "openai")
"""What `core.embeddings.make_embedder` builds."""
FUSIONS = ("rrf", "zscore")
"""What `core.retrieve.Retriever` fuses with."""
SOURCES = ("confluence", "files")
"""What `connectors.sync.make_source` reads."""


def _choice(variable: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise SettingsError(f"{variable}={value!r} is not one of: {', '.join(choices)}")


def _schedule(variable: str, spec: str) -> None:
    from connectors.schedule import parse_schedule

    try:
        parse_schedule(spec)
    except ValueError as exc:
        raise SettingsError(f"{variable}: {exc}") from None


def _interval(variable: str, text: str) -> None:
    from connectors.times import parse_interval

    try:
        parse_interval(text)
    except ValueError as exc:
        raise SettingsError(f"{variable}: {exc}") from None


def _context(settings: Settings) -> None:
    from core.contextualize import ContextOptions

    try:
        ContextOptions.from_settings(settings)
    except ValueError as exc:
        variable = "CONFBOT_LINEARIZER" if "linearizer" in str(exc) else "CONFBOT_INDEXING_MODE"
        raise SettingsError(f"{variable}: {exc}") from None


def _attribution(settings: Settings) -> None:
    from core.attribution import METHODS

    _choice("CONFBOT_ATTRIBUTION_METHOD", settings.attribution_method, METHODS)


def _gaps_schedule(settings: Settings) -> None:
    spec = settings.gaps_schedule
    if len(spec.split()) != 5:  # bot.gaps.weekly_jobs asks for a cron, never an interval
        raise SettingsError(f"CONFBOT_GAPS_SCHEDULE={spec!r} is not a 5-field cron (0 9 * * mon)")
    _schedule("CONFBOT_GAPS_SCHEDULE", spec)


def _channel_scopes(settings: Settings) -> None:
    if not settings.slack_channel_scopes:
        return
    from bot.slack_requests import channel_scope

    for channel in settings.slack_channel_scopes:
        channel_scope(settings, channel)


def _checks(settings: Settings) -> list[Callable[[], None]]:
    s = settings
    return [
        lambda: _choice("CONFBOT_EMBEDDER", s.embedder, EMBEDDERS),
        lambda: _choice("CONFBOT_FUSION", s.fusion, FUSIONS),
        lambda: _choice("CONFBOT_SYNC_SOURCE", s.sync_source, SOURCES),
        lambda: _context(s),
        lambda: _attribution(s),
        lambda: _schedule("CONFBOT_SYNC_SCHEDULE", s.sync_schedule),
        *(
            (lambda space=space, spec=spec: _schedule(f"CONFBOT_SYNC_SCHEDULES ({space})", spec))
            for space, spec in s.sync_schedules.items()
        ),
        lambda: _interval("CONFBOT_SYNC_LISTING_INTERVAL", s.sync_listing_interval),
        lambda: _interval("CONFBOT_SYNC_LEASE", s.sync_lease),
        lambda: _gaps_schedule(s),
        lambda: _channel_scopes(s),
    ]


def setting_errors(settings: Settings) -> Iterator[SettingsError]:
    """Every setting a running confbot would reject, as the error it would raise."""
    for check in _checks(settings):
        try:
            check()
        except SettingsError as exc:
            yield exc


def validate(settings: Settings) -> None:
    """Raise the first `SettingsError` of `setting_errors`, if any."""
    for error in setting_errors(settings):
        raise error
