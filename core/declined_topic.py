"""Follow-ups of a declined topic: "Who signs it off?" after "When are the annual
performance reviews?" was declined.

A follow-up that cannot be read without its earlier turn (`core.followup.needs_topic`: it
is elliptical or points back, "Who signs it off?", "Wer gibt ihn frei?") asks about that
turn's subject. When every turn of the topic it follows was declined, the wiki lacks that
subject, and so the answer to the follow-up: it is declined too, where its own words
("signs", "off") would otherwise find some span on an unrelated page. A follow-up that says
what it asks ("Which TPM versions are supported?") is judged on its own words as before,
and so is any follow-up once a turn of its topic was answered, or one the completer asked
on its own (`core.rephrase.OfflineCompleter.stands_after_declines`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from core.answer import OUT_OF_SCOPE, Answer, build_messages, is_out_of_scope
from core.followup import needs_topic
from core.pages import Evidence
from core.rephrase import Exchange, current_topic


def follows_declined_topic(question: str, history: Sequence[Exchange], notes: Mapping) -> bool:
    """Whether `question`, completed as a follow-up (`notes["topic_start"]` is False), needs
    its topic and every turn of that topic was declined."""
    if notes.get("topic_start") is not False or not needs_topic(question):
        return False
    if notes.get("after_declined"):
        return False  # it says all it asks, on a page of its own (`stands_after_declines`)
    topic = current_topic(history)
    return bool(topic) and all(is_out_of_scope(e.answer) for e in topic)


def declined_answer(
    model: str,
    question: str,
    evidences: Sequence[Evidence],
    on_text: Callable[[str], None] | None = None,
) -> Answer:
    """The decline as `core.answer.generate` would return it, with the answer prompt it
    would have sent (kept in the turn's trace); nothing is generated."""
    if on_text is not None:
        on_text(OUT_OF_SCOPE)
    return Answer(OUT_OF_SCOPE, [], build_messages(question, evidences), model, True)
