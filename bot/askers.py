"""Who asks in Slack, as `core.access.Reader`s: the audience an answer is for.

A Slack user becomes a Confluence account through, in order: an admin's mapping of the
Slack user id (`confbot access map U0123 ACCOUNT`), an admin's mapping of the user's
e-mail, or the one Confluence account the sync saw with that e-mail. The e-mail comes from
`users.info` (scopes `users:read` and `users:read.email`). Anyone else, and anyone when
Slack cannot be asked, is anonymous: they read what anonymous access reads (fail closed).

Where an answer is posted decides its audience. A direct message is read by the asker
alone, so it uses what the asker may read. An answer in a channel (or a group DM) is read by
every member, so it uses only what every member may read (`conversations.members`; bots
are left out): one member nobody could resolve limits the channel to public pages. We chose
this over private (ephemeral) answers with a "share" button because an ephemeral message
cannot start the thread that follow-ups, Explain and feedback hang on, and it disappears
when Slack reloads. Resolved users and channel members are kept for `CACHE_SECONDS`.
"""

from __future__ import annotations

import logging
import threading
import time

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from core.access import Reader
from core.access_store import AccessStore

log = logging.getLogger(__name__)

CACHE_SECONDS = 300.0
"""How long a resolved user or a channel's member list is reused: a mapping an admin
edits, or a member who joins, counts from the next question after it (at most 5 min)."""

MEMBERS_PAGE = 200
"""Members asked for per `conversations.members` request (Slack's recommended maximum)."""


class SlackAskers:
    """Resolves Slack users and channel audiences to readers, with a small time-bound cache."""

    def __init__(self, access: AccessStore, bot_user_id: str | None = None):
        self.access = access
        self.bot_user_id = bot_user_id
        self._lock = threading.Lock()
        self._users: dict[str, tuple[float, Reader | None]] = {}
        """user id → (when, reader or None for a bot)."""
        self._members: dict[str, tuple[float, list[str]]] = {}

    def audience(
        self, client: WebClient, channel: str, user: str, channel_type: str | None = None
    ) -> list[Reader]:
        """The readers of an answer posted in `channel` to a question of `user`: the user in
        a direct message, every member (bots left out) elsewhere."""
        if channel_type == "im" or channel.startswith("D"):
            return [self.reader(client, user)]
        try:
            members = self._channel_members(client, channel)
        except SlackApiError as exc:
            log.warning("members of %s unknown (%s): answering from public pages", channel, exc)
            return [Reader.anonymous(f"slack:{channel}")]
        readers = [self._resolved(client, m) for m in members if m != self.bot_user_id]
        found = [r for r in readers if r is not None]
        return found or [Reader.anonymous(f"slack:{channel}")]

    def reader(self, client: WebClient, user: str) -> Reader:
        """One Slack user as a reader (anonymous when unresolved, or a bot)."""
        return self._resolved(client, user) or Reader.anonymous(f"slack:{user}")

    def _resolved(self, client: WebClient, user: str) -> Reader | None:
        now = time.monotonic()
        with self._lock:
            cached = self._users.get(user)
        if cached is not None and now - cached[0] < CACHE_SECONDS:
            return cached[1]
        reader: Reader | None
        try:
            info = client.users_info(user=user)["user"]
        except SlackApiError as exc:
            log.warning("Slack user %s unknown (%s): anonymous", user, exc)
            info = {}
        if info.get("is_bot") or info.get("id") == "USLACKBOT":
            reader = None
        else:
            email = (info.get("profile") or {}).get("email") or ""
            account = self.access.account_for(user, email)
            label = email or f"slack:{user}"
            reader = Reader(account, label) if account else Reader.anonymous(label)
        with self._lock:
            self._users[user] = (now, reader)
        return reader

    def _channel_members(self, client: WebClient, channel: str) -> list[str]:
        now = time.monotonic()
        with self._lock:
            cached = self._members.get(channel)
        if cached is not None and now - cached[0] < CACHE_SECONDS:
            return cached[1]
        members: list[str] = []
        cursor = ""
        while True:
            params = {"channel": channel, "limit": MEMBERS_PAGE}
            if cursor:
                params["cursor"] = cursor
            page = client.conversations_members(**params)
            members += page.get("members") or []
            cursor = (page.get("response_metadata") or {}).get("next_cursor") or ""
            if not cursor:
                break
        with self._lock:
            self._members[channel] = (now, members)
        return members
