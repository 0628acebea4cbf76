#!/usr/bin/env python3
"""A deterministic stand-in for the model process of runner.py (same JSON lines).

Its answers come from a script file, a JSON list of rules tried in order:
  {"when": TEXT, "answer": ANSWER}
The first rule whose `when` occurs in the prompt's last tool turn (the failure
text the model reads) gives the answer, a JSON value sent back as its text
(a string is sent as it is, so a test can answer with invalid JSON). No rule:
{"stop": "no rule"}. Tokens are counted as whitespace-separated words.
Every prompt is appended to --log (one JSON line each), when given, so a
test can read what the model was shown.

Usage: stub.py --script FILE [--log FILE]
"""

import argparse
import json
import sys

TOOL_TURN = "<tool_response>\n"


def answer_for(rules: list, prompt: str) -> str:
    failure = prompt[prompt.rfind(TOOL_TURN) + len(TOOL_TURN):] if TOOL_TURN in prompt else prompt
    for rule in rules:
        if rule["when"] in failure:
            value = rule["answer"]
            return value if isinstance(value, str) else json.dumps(value)
    return json.dumps({"stop": "no rule"})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", required=True)
    parser.add_argument("--log")
    args = parser.parse_args()
    with open(args.script, encoding="utf-8") as f:
        rules = json.load(f)
    print(json.dumps({"ready": True, "model": "stub"}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        if "count" in req:
            reply = {"tokens": len(req["count"].split())}
        else:
            if args.log:
                with open(args.log, "a", encoding="utf-8") as log:
                    log.write(json.dumps({"prompt": req["prompt"], "schema": req["schema"]}) + "\n")
            text = answer_for(rules, req["prompt"])
            words = len(req["prompt"].split())
            reply = {"text": text, "tokens_in": words, "tokens_evaluated": words,
                     "tokens_out": len(text.split()), "seconds": 0.0}
        print(json.dumps({"id": req["id"], **reply}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
