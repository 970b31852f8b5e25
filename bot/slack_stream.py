"""A Slack answer that shows itself while it is written: post, then edit.

A model on a slow server takes seconds to tens of seconds to write an answer (issue 35);
a thread that shows nothing but 👀 for that long looks broken. `LiveAnswer` posts a first
message as soon as the sources are known ("Reading: page, page, page …"), edits it with
the answer's checked sentences as they arrive (`chat.update`), and finally edits it into
the full answer with its blocks. Edits are throttled to one per `interval` seconds:
`chat.update` is a Tier 3 method (about 50 calls a minute per workspace,
https://api.slack.com/methods/chat.update), and one edit a second keeps a few answers
written at once under it. Text that arrives within the interval waits for the next piece
or for the final edit, which is never skipped.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from slack_sdk import WebClient

from bot.blocks import escape

UPDATE_INTERVAL = 1.0
READING = "Reading: {titles} …"
WRITING_MARK = " …"


class LiveAnswer:
    """One answer message in a thread, posted at the first thing to show and edited after."""

    def __init__(
        self,
        client: WebClient,
        channel: str,
        thread: str,
        interval: float = UPDATE_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.client = client
        self.channel = channel
        self.thread = thread
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._text = ""
        self._last = float("-inf")
        self.ts: str | None = None
        """The message's timestamp once posted."""

    def sources(self, titles: Sequence[str]) -> None:
        """Post the message naming the pages being read (each once, at most three)."""
        distinct = list(dict.fromkeys(titles))[:3]
        if distinct:
            self._show(READING.format(titles=", ".join(escape(t) for t in distinct)))

    def text(self, piece: str) -> None:
        """Add a piece of the answer; the message is edited when the interval has passed."""
        with self._lock:
            self._text += piece
            due = self._clock() - self._last >= self.interval
        if due:
            self._show(escape(self._text) + WRITING_MARK)

    def finish(self, **message) -> str:
        """The final message (`text`, `blocks`...): the posted one edited into it, or posted
        now when nothing was shown yet. Returns the message's timestamp."""
        with self._lock:
            if self.ts is None:
                response = self.client.chat_postMessage(
                    channel=self.channel, thread_ts=self.thread, **message
                )
                self.ts = response["ts"]
            else:
                self.client.chat_update(channel=self.channel, ts=self.ts, **message)
            return self.ts

    def _show(self, text: str) -> None:
        with self._lock:
            self._last = self._clock()
            if self.ts is None:
                response = self.client.chat_postMessage(
                    channel=self.channel,
                    thread_ts=self.thread,
                    text=text,
                    unfurl_links=False,
                    unfurl_media=False,
                )
                self.ts = response["ts"]
            else:
                self.client.chat_update(channel=self.channel, ts=self.ts, text=text)
