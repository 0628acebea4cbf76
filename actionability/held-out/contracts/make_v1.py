#!/usr/bin/env python3
"""Writes held-out/contracts/v1.lock: the contract of the actionability
server as it was before two changes that the main set's lock
(actionability/contracts/v1.lock) does not hold, so that the held-out
contract-change scenarios (`fusion serve --lock held-out/contracts/v1.lock`)
call with old names the error text was never tuned on. From the current
lockfile (`fusion lock`, argument 1) it:

- renames `billing.list_invoices`'s `limit` back to `page_size`;
- renames `reminders.schedule`'s `at` back to `send_at`;

then recomputes every digest as docs/contracts.md defines them (SHA-256 of
the canonical JSON: keys sorted, no whitespace), as contracts/make_v1.py does.

The same changes are made to the rmcp router's lockfile (v1.rmcp.lock, for
the `ours-rmcp` stack), as contracts/make_v1.py says.

Usage: make_v1.py CURRENT.lock > v1.lock
       make_v1.py CURRENT.rmcp.lock > v1.rmcp.lock
  where CURRENT.lock is written by
  fusion lock --cmd 'fusion serve --example actionability --stdio --db DB' -o CURRENT.lock
  and CURRENT.rmcp.lock by
  fusion lock --cmd 'actionability-rmcp --adapter' -o CURRENT.rmcp.lock
"""
import json
import sys
from pathlib import Path

# The digests are computed as the main set's script computes them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "contracts"))
from make_v1 import action_schema, rename_field, write_with_digests  # noqa: E402


def main():
    lock = json.load(open(sys.argv[1]))
    rename_field(action_schema(lock, "billing", "list_invoices"), "limit", "page_size")
    rename_field(action_schema(lock, "reminders", "schedule"), "at", "send_at")
    write_with_digests(lock)


main()
