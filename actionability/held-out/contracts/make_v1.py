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

Usage: make_v1.py CURRENT.lock > v1.lock
  where CURRENT.lock is written by
  fusion lock --cmd 'fusion serve --example actionability --stdio --db DB' -o CURRENT.lock
"""
import json
import sys
from pathlib import Path

# The digests are computed as the main set's script computes them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "contracts"))
from make_v1 import write_with_digests  # noqa: E402


def rename_field(schema, old, new):
    schema["properties"] = {new if k == old else k: v for k, v in schema["properties"].items()}
    if "required" in schema:
        schema["required"] = [new if r == old else r for r in schema["required"]]


def main():
    lock = json.load(open(sys.argv[1]))
    tools = lock["tools"]
    rename_field(tools["billing"]["actions"]["list_invoices"]["inputSchema"], "limit", "page_size")
    rename_field(tools["reminders"]["actions"]["schedule"]["inputSchema"], "at", "send_at")
    write_with_digests(lock)


main()
