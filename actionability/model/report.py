#!/usr/bin/env python3
"""The page of the model actionability measurement: docs/actionability.md and
its chart, docs/actionability.svg, written from the runner's runs.jsonl.

The runner (actionability/model/) gives each scenario's failing call to each
stack, a language model reads the failure text and makes the next call, and
the runner judges it; it writes one JSON line per (stack, scenario). This
script reads those lines and writes:

- the page (--out): the headline per stack (the share of failures fixed with
  one call, counted as actionability/agent.py counts it: a stop is a fix where
  the scenario expects one; then the calls fixed among the scenarios that
  expect a call, the stops right among those that expect a stop, the bad
  calls a stack accepted as they were, the runs the harness failed), a table
  per category and stack, the scripted agent's figures beside the model's
  (--agent), the failure texts' length in the model's tokens and the run
  time, the held-out scenarios apart (set "held-out": kept aside from the
  tuning of the error texts), the misses of `ours`, and a link to
  actionability/JUDGING.md;
- the chart (--svg): the share fixed per category, one bar per stack,
  hand-written SVG.

Several --runs files are merged in order: a later line for the same model,
stack, set and scenario replaces an earlier one, so a re-run of a few
scenarios can be laid over a full run. The output depends only on the input
(and on the commit and date it names, which --commit and --date can fix).

Usage:
  report.py --runs FILE [--runs FILE …] [--agent FILE …] [--scenarios DIR …]
            [--model NAME] [--out docs/actionability.md]
            [--svg docs/actionability.svg] [--commit REV] [--date YYYY-MM-DD]

Exit status: 0 once both files are written; 2 on bad usage, a missing or
unreadable file, a bad JSON line (named file:line), or no lines at all.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

ROOT = Path(__file__).resolve().parents[2]
JUDGING = ROOT / "actionability" / "JUDGING.md"
FINDINGS = ROOT / "actionability" / "model" / "FINDINGS.md"
DEFAULT_SCENARIOS = [ROOT / "actionability" / "scenarios", ROOT / "actionability" / "held-out"]

STACK_ORDER = ["ours", "ours-rmcp", "rmcp", "ts-sdk", "fastmcp"]
STACK_NAMES = {
    "ours": "mcp-fusion",
    "ours-rmcp": "mcp-fusion through its rmcp adapter",
    "rmcp": "plain rmcp",
    "ts-sdk": "the official TypeScript SDK + zod",
    "fastmcp": "FastMCP + pydantic",
}
# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies).
STACK_COLOURS = {
    "ours": "#0072B2",
    "ours-rmcp": "#56B4E9",
    "rmcp": "#009E73",
    "ts-sdk": "#E69F00",
    "fastmcp": "#CC79A7",
}
OTHER_COLOURS = ["#D55E00", "#999999", "#F0E442", "#000000"]

OUTCOMES = ("fixed", "not fixed", "accepted", "error")
SETS = ("scenarios", "held-out")
MODEL_KEYS = {"stack": str, "scenario": str, "category": str, "set": str, "model": str,
              "expect_stop": bool, "outcome": str}
AGENT_KEYS = {"stack": str, "scenario": str, "category": str, "outcome": str}
ANSWER_CHARS = 160  # the misses' answers are cut to this many characters
PLOT_WIDTH = 520  # the chart's bar for 100 %, in pixels


class UsageError(Exception):
    """A missing or bad input: exit 2 with this message."""


# ------------------------------------------------------------------ reading


@dataclass
class Scenarios:
    """What the scenario folders say: the categories in file order, each
    scenario's category and expectation."""

    categories: list[str] = field(default_factory=list)
    expect: dict[str, dict] = field(default_factory=dict)


def load_scenarios(folders: list[Path], required: bool) -> Scenarios:
    out = Scenarios()
    for folder in folders:
        if not folder.is_dir():
            if required:
                raise UsageError(f"--scenarios {folder}: no such folder")
            continue
        for path in sorted(folder.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise UsageError(f"{path}: cannot be read: {e}") from None
            if not isinstance(data, dict) or not isinstance(data.get("category"), str):
                raise UsageError(f"{path}: not a scenario file (no 'category')")
            if data["category"] not in out.categories:
                out.categories.append(data["category"])
            for s in data.get("scenarios") or []:
                if isinstance(s, dict) and isinstance(s.get("id"), str):
                    out.expect[s["id"]] = s.get("expect") or {}
    return out


def read_lines(path: Path, keys: dict[str, type], what: str) -> list[dict]:
    """The JSON lines of a file, each checked for the keys named (file:line
    in every problem); blank lines are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{what} {path}: no such file") from None
    except (OSError, ValueError) as e:
        raise UsageError(f"{what} {path}: cannot be read: {e}") from None
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise UsageError(f"{where}: bad JSON line: {e}") from None
        if not isinstance(obj, dict):
            raise UsageError(f"{where}: bad line: a JSON object was expected")
        for key, kind in keys.items():
            if key not in obj:
                raise UsageError(f"{where}: bad line: no key {key!r}")
            if not isinstance(obj[key], kind):
                raise UsageError(f"{where}: bad line: key {key!r} must be a {kind.__name__}, got {obj[key]!r}")
        if obj["outcome"] not in OUTCOMES:
            raise UsageError(f"{where}: bad line: outcome {obj['outcome']!r} is none of {', '.join(OUTCOMES)}")
        if "set" in keys and obj["set"] not in SETS:
            raise UsageError(f"{where}: bad line: set {obj['set']!r} is none of {', '.join(SETS)}")
        lines.append(obj)
    return lines


def merge(files: list[list[dict]], key) -> list[dict]:
    """The lines of every file in order, a later line with the same key in
    place of an earlier one (where the earlier one stood)."""
    merged: dict[tuple, dict] = {}
    for lines in files:
        for line in lines:
            merged[key(line)] = line  # a dict keeps the first insertion's place
    return list(merged.values())


def model_key(line: dict) -> tuple:
    return (line["model"], line["stack"], line["set"], line["scenario"])


def agent_key(line: dict) -> tuple:
    return (line["stack"], line["scenario"])


def stack_order(stacks) -> list[str]:
    known = [s for s in STACK_ORDER if s in stacks]
    return known + sorted(s for s in set(stacks) if s not in STACK_ORDER)


def category_order(scenarios: Scenarios, lines: list[dict]) -> list[str]:
    seen = [c for c in scenarios.categories if any(line["category"] == c for line in lines)]
    for line in lines:
        if line["category"] not in seen:
            seen.append(line["category"])
    return seen


# ------------------------------------------------------------------ counting


@dataclass
class Tally:
    fixed: int = 0
    failed: int = 0  # fixed + not fixed: the failures the shares count
    accepted: int = 0
    errors: int = 0

    @staticmethod
    def of(lines) -> "Tally":
        t = Tally()
        for line in lines:
            outcome = line["outcome"]
            if outcome in ("fixed", "not fixed"):
                t.failed += 1
                t.fixed += outcome == "fixed"
            elif outcome == "accepted":
                t.accepted += 1
            else:
                t.errors += 1
        return t

    def share(self) -> str:
        """The share as n/m (p %), or – with no failure counted."""
        if not self.failed:
            return "–"
        return f"{self.fixed}/{self.failed} ({percent(self.fixed, self.failed)})"

    def cell(self) -> str:
        """The share, with the accepted calls and the errors beside it."""
        extras = ([f"+{self.accepted} accepted"] if self.accepted else []) + (
            [f"{self.errors} error{'s' if self.errors > 1 else ''}"] if self.errors else [])
        return self.share() + (f" ({', '.join(extras)})" if extras else "")

    def ratio(self) -> float | None:
        return self.fixed / self.failed if self.failed else None


def percent(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} %"


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def number(x: float) -> str:
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"


# ------------------------------------------------------------------ markdown


def cell_text(text: str) -> str:
    """Text for a table cell: in a code span (so that tags and stars show as
    they are), pipes escaped (GitHub's tables)."""
    text = text.replace("|", "\\|")
    run = longest = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def one_line(text: str, limit: int = ANSWER_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def table(head: list[str], rows: list[list[str]], right: int = 1) -> list[str]:
    """A markdown table; the columns from `right` on are right-aligned."""
    align = ["---" if i < right else "--:" for i in range(len(head))]
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def headline(lines: list[dict], stacks: list[str]) -> list[str]:
    rows = []
    for st in stacks:
        mine = [line for line in lines if line["stack"] == st]
        if not mine:
            continue
        calls = Tally.of(line for line in mine if not line["expect_stop"])
        stops = Tally.of(line for line in mine if line["expect_stop"])
        whole = Tally.of(mine)
        invalid = sum(line.get("decision") == "invalid" for line in mine)
        rows.append([f"`{st}`", whole.share(), calls.share(), stops.share(),
                     str(whole.accepted), str(invalid), str(whole.errors)])
    return table(["stack", "fixed (all failures)", "calls fixed", "stops right",
                  "bad calls accepted", "answers not read", "errors"], rows)


def per_category(lines: list[dict], stacks: list[str], categories: list[str]) -> list[str]:
    present = [st for st in stacks if any(line["stack"] == st for line in lines)]
    rows = []
    for c in categories:
        mine = [line for line in lines if line["category"] == c]
        if mine:
            rows.append([c] + [Tally.of(x for x in mine if x["stack"] == st).cell() for st in present])
    rows.append(["**all**"] + [f"**{Tally.of(x for x in lines if x['stack'] == st).cell()}**" for st in present])
    return table(["category"] + [f"`{st}`" for st in present], rows)


def beside_agent(lines: list[dict], agent: list[dict], stacks: list[str]) -> list[str]:
    """The model's and the scripted agent's shares per stack, over the
    scenarios both ran (neither an error), and where they differ."""
    by_agent = {agent_key(a): a for a in agent if a["outcome"] != "error"}
    rows = []
    for st in stacks:
        pairs = [(m, by_agent[(st, m["scenario"])]) for m in lines
                 if m["stack"] == st and m["outcome"] != "error" and (st, m["scenario"]) in by_agent]
        if not pairs:
            continue
        model_t = Tally.of(m for m, _ in pairs)
        agent_t = Tally.of(a for _, a in pairs)
        both = sum(m["outcome"] == "fixed" and a["outcome"] == "fixed" for m, a in pairs)
        model_only = sum(m["outcome"] == "fixed" and a["outcome"] != "fixed" for m, a in pairs)
        agent_only = sum(m["outcome"] != "fixed" and a["outcome"] == "fixed" for m, a in pairs)
        rows.append([f"`{st}`", str(len(pairs)), model_t.cell(), agent_t.cell(),
                     str(both), str(model_only), str(agent_only)])
    if not rows:
        return ["The scripted agent ran none of these scenarios on these stacks."]
    return table(["stack", "scenarios both ran", "model: fixed", "scripted agent: fixed",
                  "both fixed", "only the model", "only the agent"], rows)


def sizes_and_times(lines: list[dict], stacks: list[str]) -> list[str]:
    rows = []
    for st in stacks:
        mine = [line for line in lines if line["stack"] == st]
        if not mine:
            continue
        tokens = [line["failure_tokens"] for line in mine
                  if line["outcome"] in ("fixed", "not fixed") and isinstance(line.get("failure_tokens"), int)
                  and not isinstance(line.get("failure_tokens"), bool)]
        seconds = [float(line["seconds"]) for line in mine if isinstance(line.get("seconds"), (int, float))]
        waited = sum(float(line["waited"]) for line in mine if isinstance(line.get("waited"), (int, float)))
        t_in = sum(line.get("tokens_in") or 0 for line in mine if isinstance(line.get("tokens_in"), int))
        t_out = sum(line.get("tokens_out") or 0 for line in mine if isinstance(line.get("tokens_out"), int))
        rows.append([
            f"`{st}`",
            str(len(tokens)),
            number(statistics.median(tokens)) if tokens else "–",
            f"{statistics.fmean(tokens):.1f}" if tokens else "–",
            f"{min(tokens)}–{max(tokens)}" if tokens else "–",
            f"{t_in} / {t_out}",
            f"{sum(seconds):.1f} s" if seconds else "–",
            f"{statistics.fmean(seconds):.1f} s" if seconds else "–",
            f"{waited:.1f} s",
        ])
    return table(["stack", "failure texts", "median tokens", "mean tokens", "range",
                  "model tokens in / out", "run time", "per scenario", "of it waited"], rows)


def answer_of(line: dict) -> str:
    raw = line.get("raw")
    if isinstance(raw, str) and raw.strip():
        return one_line(raw)
    if line.get("next_call") is not None:
        return one_line(json.dumps(line["next_call"], sort_keys=True))
    return f"({line.get('decision', 'no answer')})"


def expected_of(sid: str, line: dict, scenarios: Scenarios) -> str:
    if line["expect_stop"]:
        return "stop"
    expect = scenarios.expect.get(sid)
    if not expect:
        return "a call"
    arguments = json.dumps(expect.get("arguments", {}), ensure_ascii=False)
    return one_line(f"{expect.get('tool', 'the same tool')} {arguments}", 100)


def misses(lines: list[dict], scenarios: Scenarios, categories: list[str]) -> list[str]:
    ours = [line for line in lines if line["stack"] == "ours" and line["outcome"] in ("not fixed", "accepted", "error")]
    if not ours:
        return ["`ours` missed none."]
    sets = {s: i for i, s in enumerate(SETS)}
    files = {sid: i for i, sid in enumerate(scenarios.expect)}  # the scenario files' order
    ours.sort(key=lambda line: (sets[line["set"]], categories.index(line["category"]),
                                files.get(line["scenario"], len(files)), line["scenario"]))
    rows = [[f"`{line['scenario']}`", line["set"], line["category"], line["outcome"],
             line.get("decision") or "–", cell_text(expected_of(line["scenario"], line, scenarios)),
             cell_text(answer_of(line))] for line in ours]
    return table(["scenario", "set", "category", "outcome", "decision", "expected", "the model answered"], rows, right=99)


def render_page(*, lines: list[dict], agent: list[dict] | None, scenarios: Scenarios, model: str,
                stacks: list[str], categories: list[str], command: str, commit: str, date: str,
                out: Path, svg: Path) -> str:
    main = [line for line in lines if line["set"] == "scenarios"]
    held = [line for line in lines if line["set"] == "held-out"]
    n_main = len({line["scenario"] for line in main})
    n_held = len({line["scenario"] for line in held})
    svg_link = os.path.relpath(svg, out.parent).replace(os.sep, "/")

    p: list[str] = ["# Actionability with a language model", ""]
    p += [
        "<!-- Generated: do not edit by hand. -->",
        f"Generated by `{command}` at commit `{commit}` on {date}; do not edit it by hand, run that command again.",
        "",
        f"Model: **{model}**. {count(n_main, 'scenario')}"
        + (f" and {count(n_held, 'held-out scenario')}" if n_held else "")
        + f", {count(len(stacks), 'stack')}: "
        + ", ".join(f"`{st}` ({STACK_NAMES[st]})" if st in STACK_NAMES else f"`{st}`" for st in stacks)
        + ".",
        "",
        "Each scenario's bad call goes to each stack; the model reads only the text of the failure "
        "(what a client shows it) and makes its next call, or stops and tells the user. The runner "
        "judges that one call against the scenario's expectation. A failure is *fixed* when the next "
        "call succeeds and is the call expected, or when the model stops where the scenario expects a "
        "stop (as `actionability/agent.py` counts it). A stack that *accepted* the bad call as it was "
        "had no failure to fix; an *error* is a run the harness failed: both are left out of the shares.",
        "",
    ]
    if main:
        p += ["## Headline", "",
              "The share of the failures fixed with one call, then the same share among the scenarios that "
              "expect a call and among those that expect a stop; *answers not read* counts the model's "
              "answers that were neither a call nor a stop.", ""]
        p += headline(main, stacks) + [""]
        p += ["## Per category", "", f"![Failures fixed with one call, per category and stack]({svg_link})", ""]
        p += per_category(main, stacks, categories) + [""]
        if agent is not None:
            p += ["## The model and the scripted agent", "",
                  "The scripted agent (`actionability/agent.py`, no model, the same repair rules for every "
                  "stack) on the same scenarios: its share beside the model's, and the scenarios only one "
                  "of them fixed.", ""]
            p += beside_agent(main, agent, stacks) + [""]
        p += ["## Failure texts and run time", "",
              "The length of the failure text the model read, in the model's tokens (the failures only, "
              "not the calls a stack accepted), the tokens the model read and wrote in all, and the time "
              "the runs took, with the time spent waiting where a text asked for a wait.", ""]
        p += sizes_and_times(main, stacks) + [""]
    if held:
        p += ["## Held-out scenarios", "",
              f"{count(n_held, 'scenario')} kept aside from the tuning of the error texts, counted apart.", ""]
        p += headline(held, stacks) + [""]
        p += ["### Held-out: per category", ""]
        if not main:
            p += [f"![Failures fixed with one call, per category and stack]({svg_link})", ""]
        p += per_category(held, stacks, categories) + [""]
        if agent is not None:
            p += ["### Held-out: the model and the scripted agent", ""]
            p += beside_agent(held, agent, stacks) + [""]
        p += ["### Held-out: failure texts and run time", ""]
        p += sizes_and_times(held, stacks) + [""]
    p += ["## Misses of `ours`", "",
          "The scenarios mcp-fusion's failure did not get fixed (or that it accepted, or that failed in "
          f"the harness), with what the model answered (on one line, cut at {ANSWER_CHARS} characters).", ""]
    p += misses(lines, scenarios, categories) + [""]
    p += ["## What the model did with our text, and what changed", "",
          f"The experiments behind the wording, and what no text helped: `{FINDINGS.relative_to(ROOT).as_posix()}` in the repository.",
          ""]
    p += ["## How the expectations were judged", "",
          f"How each scenario's expected next call was chosen and reviewed: `{JUDGING.relative_to(ROOT).as_posix()}` in the repository.",
          ""]
    return "\n".join(p)


# ------------------------------------------------------------------ the chart


def text_width(text: str, size: float) -> float:
    """An estimate of a sans-serif text's width (no font metrics at hand)."""
    return len(text) * size * 0.56


def render_svg(lines: list[dict], stacks: list[str], categories: list[str], model: str, set_name: str) -> str:
    stacks = [st for st in stacks if any(line["stack"] == st for line in lines)]
    categories = [c for c in categories if any(line["category"] == c for line in lines)]
    colours = {}
    others = iter(OTHER_COLOURS * (1 + len(stacks)))
    for st in stacks:
        colours[st] = STACK_COLOURS.get(st) or next(others)

    font, small = 13, 11
    bar, gap, group_gap = 14, 2, 12
    plot_w = PLOT_WIDTH
    label_w = max([text_width(c, font) for c in categories] + [80]) + 16
    left = 16 + label_w
    value_w = text_width("100.0 % (10/10)", small) + 12
    width = int(left + plot_w + value_w + 16)
    title_y = 26
    legend_y = 50
    # The legend: one swatch and name per stack, wrapped to the width.
    legend, x, y = [], left, legend_y
    for st in stacks:
        w = 14 + 6 + text_width(st, font) + 18
        if x + w > width - 16 and x > left:
            x, y = left, y + 20
        legend.append((st, x, y))
        x += w
    top = y + 34  # the top axis' labels
    group_h = len(stacks) * (bar + gap) - gap
    plot_top = top + 8
    plot_h = len(categories) * (group_h + group_gap) + group_gap
    bottom_axis = plot_top + plot_h
    height = int(bottom_axis + 72)

    def xpos(share: float) -> float:
        return left + plot_w * share

    o: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, Arial, sans-serif" '
        f'font-size="{font}" role="img" aria-labelledby="chart-title">',
        f'<title id="chart-title">{escape(f"Failures fixed with one call, per category and stack ({set_name}, {model})")}</title>',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="16" y="{title_y}" font-size="16" font-weight="bold" fill="#222222">'
        f'{escape(f"Failures fixed with one call, per category — {model}")}</text>',
    ]
    for st, lx, ly in legend:
        o.append(f'<rect class="swatch" x="{lx:.1f}" y="{ly - 11}" width="14" height="14" fill="{colours[st]}"/>')
        o.append(f'<text x="{lx + 20:.1f}" y="{ly}" fill="#222222">{escape(st)}</text>')
    # Bands, grid lines and the axes' labels.
    for i, _ in enumerate(categories):
        if i % 2 == 0:
            y0 = plot_top + i * (group_h + group_gap) + group_gap / 2
            o.append(f'<rect x="16" y="{y0:.1f}" width="{width - 32}" height="{group_h + group_gap}" fill="#f3f3f3"/>')
    for tick in range(0, 101, 25):
        tx = xpos(tick / 100)
        o.append(f'<line x1="{tx:.1f}" y1="{plot_top}" x2="{tx:.1f}" y2="{bottom_axis}" '
                 f'stroke="{"#555555" if tick == 0 else "#cccccc"}" stroke-width="1"/>')
        for ty in (plot_top - 6, bottom_axis + 16):
            o.append(f'<text x="{tx:.1f}" y="{ty}" font-size="{small}" text-anchor="middle" fill="#444444">{tick} %</text>')
    o.append(f'<text x="{xpos(0.5):.1f}" y="{bottom_axis + 38}" text-anchor="middle" fill="#222222">'
             f'failures fixed with one call (%)</text>')
    o.append(f'<text x="16" y="{bottom_axis + 60}" font-size="{small}" fill="#444444">'
             f'{escape(f"{set_name}: n/m = failures fixed / failures; the bad calls a stack accepted and the runs the harness failed are left out")}</text>')
    # The bars.
    for i, c in enumerate(categories):
        gy = plot_top + group_gap + i * (group_h + group_gap)
        o.append(f'<text x="{left - 8}" y="{gy + group_h / 2 + font * 0.35:.1f}" text-anchor="end" fill="#222222">{escape(c)}</text>')
        for j, st in enumerate(stacks):
            t = Tally.of(line for line in lines if line["category"] == c and line["stack"] == st)
            share = t.ratio()
            w = plot_w * share if share is not None else 0.0
            by = gy + j * (bar + gap)
            label = f"{100 * share:.0f} % ({t.fixed}/{t.failed})" if share is not None else "no failure"
            o.append(
                f'<rect class="bar" data-stack={quoteattr(st)} data-category={quoteattr(c)} '
                f'data-fixed="{t.fixed}" data-failed="{t.failed}" x="{left}" y="{by}" '
                f'width="{w:.2f}" height="{bar}" fill="{colours[st]}">'
                f'<title>{escape(f"{st}, {c}: {t.cell()}")}</title></rect>')
            o.append(f'<text x="{left + w + 4:.1f}" y="{by + bar - 3}" font-size="{small}" fill="#333333">{escape(label)}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


# ------------------------------------------------------------------ main


def git_commit() -> str:
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else "unknown"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="report.py",
        description="Write the page (docs/actionability.md) and chart of the model actionability runs.",
        epilog="Exit status: 0 when both files are written; 2 on bad usage, a missing file, a bad JSON line "
               "or no lines.",
    )
    parser.add_argument("--runs", action="append", required=True, type=Path, metavar="FILE",
                        help="a runs.jsonl of the model runner (repeatable: a later line for the same model, "
                             "stack, set and scenario replaces an earlier one)")
    parser.add_argument("--agent", action="append", type=Path, metavar="FILE",
                        help="a runs.jsonl of the scripted agent (actionability/run.sh), shown beside the model "
                             "(repeatable, merged the same way)")
    parser.add_argument("--scenarios", action="append", type=Path, metavar="DIR",
                        help="a scenario folder, for the order of the categories and the expectations of the "
                             "misses (repeatable; default: actionability/scenarios and actionability/held-out)")
    parser.add_argument("--model", help="the model to report when the runs hold several")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "actionability.md", metavar="FILE",
                        help="the page to write (default: docs/actionability.md)")
    parser.add_argument("--svg", type=Path, default=ROOT / "docs" / "actionability.svg", metavar="FILE",
                        help="the chart to write (default: docs/actionability.svg)")
    parser.add_argument("--commit", help="the commit the page names (default: git rev-parse --short HEAD)")
    parser.add_argument("--date", help="the date the page names, YYYY-MM-DD (default: today, UTC)")
    return parser.parse_args(argv)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.date is not None:
        try:
            datetime.date.fromisoformat(args.date)
        except ValueError:
            raise UsageError(f"--date {args.date!r}: not a date (YYYY-MM-DD)") from None
    runs = merge([read_lines(path, MODEL_KEYS, "--runs") for path in args.runs], model_key)
    agent = (merge([read_lines(path, AGENT_KEYS, "--agent") for path in args.agent], agent_key)
             if args.agent else None)
    if not runs:
        raise UsageError("no lines in " + ", ".join(str(p) for p in args.runs) + ": nothing to report")
    models = sorted({line["model"] for line in runs})
    if args.model is not None:
        if args.model not in models:
            raise UsageError(f"--model {args.model!r}: no line of that model (the runs hold {', '.join(models)})")
        model = args.model
    elif len(models) > 1:
        raise UsageError(f"the runs hold several models ({', '.join(models)}): choose one with --model")
    else:
        model = models[0]
    lines = [line for line in runs if line["model"] == model]
    scenarios = load_scenarios(args.scenarios or DEFAULT_SCENARIOS, required=bool(args.scenarios))
    stacks = stack_order({line["stack"] for line in lines})
    categories = category_order(scenarios, lines)
    chart_set = "scenarios" if any(line["set"] == "scenarios" for line in lines) else "held-out"
    command = " ".join(["python3 actionability/model/report.py"] + [shlex.quote(a) for a in argv])
    page = render_page(
        lines=lines, agent=agent, scenarios=scenarios, model=model, stacks=stacks, categories=categories,
        command=command, commit=args.commit or git_commit(),
        date=args.date or datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        out=args.out.resolve(), svg=args.svg.resolve())
    chart = render_svg([line for line in lines if line["set"] == chart_set], stacks, categories, model, chart_set)
    for path, text in ((args.out, page), (args.svg, chart)):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"{path}: cannot be written: {e}") from None
    print(f"report.py: wrote {args.out} and {args.svg} ({model}, {len(lines)} runs, {len(stacks)} stacks)")
    return 0


def main() -> int:
    try:
        return run(sys.argv[1:])
    except UsageError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
