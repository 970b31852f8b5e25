"""Prometheus metrics of the question-answering pipeline, counted in this process.

Counters and histograms live in memory (prometheus-client's default registry) and are
counted where things happen, so a scrape reads memory and never the turns table: its cost
does not grow with the questions recorded. They start at zero when a process starts, as
Prometheus counters do (`rate()` handles the reset); each process that answers (web, Slack)
is scraped on its own. Which metrics exist and their labels are listed here, once:

- `confbot_questions_total{surface}`: questions answered (surface: web, slack, terminal...);
- `confbot_declined_total{surface}`: answers that declined (the out-of-scope answer);
- `confbot_answer_step_seconds{step}`: the time of each step of an answer (`history`,
  `complete`, `retrieve` and its parts `retrieve.lexical`..., `answer`, `store`, `total`),
  from `Turn.timings`;
- `confbot_feedback_total{value}`: ratings (up, down).
"""

from __future__ import annotations

from collections.abc import Mapping

from prometheus_client import Counter, Histogram

STEP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Seconds: a retrieval step takes milliseconds, an LLM answer up to tens of seconds."""

QUESTIONS = Counter("confbot_questions", "Questions answered.", ["surface"])
DECLINED = Counter("confbot_declined", "Answers that declined (out of scope).", ["surface"])
ANSWER_STEPS = Histogram(
    "confbot_answer_step_seconds", "Time of each step of an answer.", ["step"], buckets=STEP_BUCKETS
)
FEEDBACK = Counter("confbot_feedback", "Ratings of answers.", ["value"])


def observe_turn(surface: str, timings: Mapping[str, float], out_of_scope: bool) -> None:
    """Count one answered question: its surface, whether it declined, and the time of each
    step (`timings` in milliseconds, keys ending in `_ms`)."""
    QUESTIONS.labels(surface).inc()
    if out_of_scope:
        DECLINED.labels(surface).inc()
    for key, milliseconds in timings.items():
        if key.endswith("_ms"):
            ANSWER_STEPS.labels(key[: -len("_ms")]).observe(milliseconds / 1000)


def observe_feedback(value: str) -> None:
    """Count one rating of an answer."""
    FEEDBACK.labels(value).inc()
