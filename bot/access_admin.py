"""`confbot access`: the admin's side of permissions.

- `confbot access map IDENTITY ACCOUNT`: an e-mail address or a Slack user id → a
  Confluence account (Cloud `accountId`, Data Center username), for people whose e-mail
  Confluence does not show (Data Center never does) or differs from Slack's;
- `confbot access unmap IDENTITY`;
- `confbot access list`: the mappings, then each synced space's view permission and how
  many pages carry restrictions;
- `confbot access who IDENTITY`: the account an identity resolves to and its groups.
"""

from __future__ import annotations

import argparse

from core.access import Reader
from core.access_store import AccessStore
from core.db import upgrade
from core.settings import Settings


def run(args: argparse.Namespace, settings: Settings) -> int:
    upgrade(settings.sqlalchemy_url)
    store = AccessStore(settings.sqlalchemy_url)
    if args.action == "map":
        store.map(args.identity, args.account)
        print(f"{args.identity} → {args.account}")
    elif args.action == "unmap":
        if not store.unmap(args.identity):
            print(f"no mapping for {args.identity}")
            return 1
        print(f"{args.identity}: mapping removed")
    elif args.action == "who":
        account = store.account_for(args.identity)
        if account is None:
            print(f"{args.identity}: no Confluence account (answers use public pages only)")
            return 1
        principals = store.table().principals(Reader(account))
        groups = sorted(p.removeprefix("group:") for p in principals if p.startswith("group:"))
        print(f"{args.identity} → {account}; groups: {', '.join(groups) or '(none)'}")
    else:
        for identity, account in sorted(store.mappings().items()):
            print(f"map  {identity} → {account}")
        table = store.table()
        for space, readers in sorted(table.spaces.items()):
            shown = ", ".join(sorted(readers)) or "nobody"
            print(f"space {space}: readable by {shown}")
        print(f"pages with restrictions: {len(table.pages)} of {len(table.recorded)} recorded")
    return 0


def add_parser(sub) -> argparse.ArgumentParser:
    """The `access` subcommand's parser (its actions as positional words)."""
    p = sub.add_parser("access", help="map people to Confluence accounts; show permissions")
    actions = p.add_subparsers(dest="action", required=True)
    m = actions.add_parser("map", help="map an e-mail or Slack user id to a Confluence account")
    m.add_argument("identity")
    m.add_argument("account")
    u = actions.add_parser("unmap", help="remove a mapping")
    u.add_argument("identity")
    w = actions.add_parser("who", help="the account and groups an e-mail or Slack id resolves to")
    w.add_argument("identity")
    actions.add_parser("list", help="the mappings and each space's view permission")
    return p
