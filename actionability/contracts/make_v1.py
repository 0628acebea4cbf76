#!/usr/bin/env python3
"""Writes contracts/v1.lock: the contract of the actionability server as it
was before two changes, so that `fusion serve --lock contracts/v1.lock` shows
the model what changed when it calls with the old names (the contract-change
scenarios). From the current lockfile (`fusion lock`, argument 1) it:

- renames `billing.create_invoice`'s `customer_email` back to `email`;
- puts back the `billing.list_invoices` status `sent`, which `open` replaced;

then recomputes every digest as docs/contracts.md defines them (SHA-256 of
the canonical JSON: keys sorted, no whitespace).

The same changes are made to the lockfile of the rmcp router
(`actionability-rmcp --adapter`), whose `billing` is one flat tool: that is
contracts/v1.rmcp.lock, which the `ours-rmcp` stack is started with
(`--lock`; mcp-fusion's `RouterContract::lockfile`).

Usage: make_v1.py CURRENT.lock > v1.lock
       make_v1.py CURRENT.rmcp.lock > v1.rmcp.lock
  where CURRENT.lock is written by
  fusion lock --cmd 'fusion serve --example actionability --stdio --db DB' -o CURRENT.lock
  and CURRENT.rmcp.lock by
  fusion lock --cmd 'actionability-rmcp --adapter' -o CURRENT.rmcp.lock
"""
import hashlib
import json
import sys


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value):
    return "sha256:" + hashlib.sha256(canonical(value).encode()).hexdigest()


def action_schema(lock, tool, action):
    """The input schema of `tool.action`: the grouped action's, else the
    flat tool's (an rmcp tool is one action named after it)."""
    actions = lock["tools"][tool]["actions"]
    return actions.get(action, actions.get(tool))["inputSchema"]


def rename_field(schema, old, new):
    schema["properties"] = {new if k == old else k: v for k, v in schema["properties"].items()}
    if "required" in schema:
        schema["required"] = [new if r == old else r for r in schema["required"]]


def replace_value(schema, old, new):
    """`old` in place of `new` in an enum written as `oneOf` consts or as `enum`."""
    for branch in schema.get("anyOf", [schema]):
        for option in branch.get("oneOf", []):
            if option.get("const") == new:
                option["const"] = old
        if new in branch.get("enum", []):
            branch["enum"] = [old if v == new else v for v in branch["enum"]]


def main():
    lock = json.load(open(sys.argv[1]))
    rename_field(action_schema(lock, "billing", "create_invoice"), "customer_email", "email")
    status = action_schema(lock, "billing", "list_invoices")["properties"]["status"]
    replace_value(status, "sent", "open")
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
