#!/usr/bin/env python3
"""Writes contracts/v1.lock: the contract of the actionability server as it
was before two changes, so that `fusion serve --lock contracts/v1.lock` shows
the model what changed when it calls with the old names (the contract-change
scenarios). From the current lockfile (`fusion lock`, argument 1) it:

- renames `billing.create_invoice`'s `customer_email` back to `email`;
- puts back the `billing.list_invoices` status `sent`, which `open` replaced;

then recomputes every digest as docs/contracts.md defines them (SHA-256 of
the canonical JSON: keys sorted, no whitespace).

Usage: make_v1.py CURRENT.lock > v1.lock
"""
import hashlib
import json
import sys


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value):
    return "sha256:" + hashlib.sha256(canonical(value).encode()).hexdigest()


def rename_key(obj, old, new):
    return {new if k == old else k: v for k, v in obj.items()}


def main():
    lock = json.load(open(sys.argv[1]))
    billing = lock["tools"]["billing"]
    create = billing["actions"]["create_invoice"]["inputSchema"]
    create["properties"] = rename_key(create["properties"], "customer_email", "email")
    create["required"] = ["email" if r == "customer_email" else r for r in create["required"]]
    status = billing["actions"]["list_invoices"]["inputSchema"]["properties"]["status"]
    for branch in status["anyOf"]:
        for option in branch.get("oneOf", []):
            if option.get("const") == "open":
                option["const"] = "sent"
    write_with_digests(lock)


def write_with_digests(lock):
    """`lock` on stdout with every digest computed again, as `fusion lock` writes them."""
    tool_digests = {}
    for name, tool in lock["tools"].items():
        action_digests = {}
        for action_name, action in tool["actions"].items():
            action.pop("digest", None)
            action["digest"] = action_digests[action_name] = digest(action)
        own = {k: v for k, v in tool.items() if k not in ("actions", "digest")}
        tool["digest"] = tool_digests[name] = digest({"actions": action_digests, **own})
    lock["digest"] = digest(tool_digests)
    json.dump(lock, sys.stdout, indent=2, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
