"""When a thing happened, as the heading of its section dates it.

Meeting notes are dated by their headings, not in their text: "Notes from Virtio Argo
planning meeting, July 2020 > Call on Friday 17th July" heads a list of plans none of whose
items holds a date. A when question about the meeting finds those items (they hold its
words) but no date in them, so the answerer declined it (`core.extractive.wrong_kind`). The
heading that names what is asked about and holds a date answers it instead, with a
sub-heading's date under it when there is one ("Call on Friday 17th July").

`heading_date` is tried only where the answerer would otherwise decline a when question
for want of a date, so no reply with a date changes. Measured on ConfQuestions (dev,
replayed conversations, `confbot eval --questions conversational --answers`): the VirtIO
Argo planning meeting follow-up (turn 17.8, English and German) is answered.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from core.questions import Translations, profile_question, terms
from core.spans import typed_values

# Share of the question's term weight a heading must hold to name what is asked about: the
# half a span needs to be read as about the question (set by design, not tuned).
HEADING_SHARE = 0.5


def heading_date(
    question: str, sources: Sequence[tuple[int, str, str]], translations: Translations = ()
) -> str | None:
    """The cited reply that dates what a when question asks about by a heading of the
    `sources` (number, header "Title — Heading > Sub-heading", text): a heading holding
    `HEADING_SHARE` of the question's weight and a date, with the first dated sub-heading
    below it as the headline ("Call on Friday 17th July — “Notes from Virtio Argo planning
    meeting, July 2020” [9]."), else the heading's date ("July 2020 — “…” [1]."); None
    for other questions or when no heading does. Of several, the one holding most of the
    question, then one with a dated sub-heading, then the first."""
    profile = profile_question(question, translations)
    if profile.qtype != "when" or not profile.weight:
        return None
    found: list[tuple[float, bool, int, str, str, int]] = []
    for order, (number, header, _) in enumerate(sources):
        _, _, path = header.partition(" — ")
        levels = [level.strip() for level in path.split(" > ") if level.strip()]
        for depth, level in enumerate(levels):
            held = profile.asked_in(frozenset(terms(level)))
            share = math.fsum(profile.terms[term] for term in held) / profile.weight
            if share < HEADING_SHARE or not typed_values("when", level, profile):
                continue
            below = [sub for sub in levels[depth + 1 :] if typed_values("when", sub, profile)]
            date = below[0] if below else typed_values("when", level, profile)[0]
            found.append((share, bool(below), -order, level, date, number))
    if not found:
        return None
    _, _, _, level, date, number = max(found)
    opening, closing = ("„", "“") if profile.language == "de" else ("“", "”")
    return f"{date} — {opening}{level}{closing} [{number}]."
