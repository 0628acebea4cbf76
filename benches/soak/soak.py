#!/usr/bin/env python3
"""Soak test: a Streamable HTTP server under a mixed load for N minutes.

Starts `fusion serve --example conformance` on a free port (or takes --url),
then runs, until the time is up:

  * --workers session workers, each in a loop: initialize a 2025-11-25
    session on a new connection, make 5 to 20 requests drawn from MIX (valid
    calls, bad arguments, a tool that fails, an unknown tool, tools/list,
    an oversized body with and without Content-Length, malformed JSON),
    then DELETE the session, or abandon it (ABANDON of them) for the
    server's --session-idle to close;
  * one list-change task: holds a session with a GET SSE stream open,
    reopened every minute; every few seconds another session calls
    test_trigger_tool_change / test_trigger_prompt_change in a burst; the
    stream must carry a notifications/tools/list_changed after each burst,
    and tools/list must then agree with the last toggle;
  * a sampler: the server's VmRSS and open file descriptors (/proc/PID),
    and its session gauges (/metrics), at start, every minute and at the
    end; one progress line per minute.

Every request gets exactly one outcome: an answer (classified: ok, isError
with its envelope code, a JSON-RPC error code, an HTTP status), a transport
error, or lost (no answer within --timeout, or an SSE answer stream that
ended without the response). An answer other than the one the request
expects is counted as unexpected.

Exit status: 0 all good; 1 something lost, a transport error, a 5xx, an
unexpected answer, a missed list-change notification or RSS that grew after
the warm-up by more than the tolerance; 2 usage or the server did not start.
See benches/soak/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx2 as httpx

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
ENVELOPE_CODE = re.compile(r'<tool_error code="([A-Z_]+)"|<(validation)_error')
SIMPLE_TEXT = "This is a simple text response for testing."

# The request mix of a session worker: (operation, weight).
MIX = [
    ("greet", 40),  # valid: greet {name}, answer checked
    ("simple_text", 10),  # valid, fixed answer
    ("bad_args", 15),  # greet {} or {name: 5}: VALIDATION_ERROR envelope
    ("tool_error", 5),  # test_error_handling: INTENTIONAL_ERROR envelope
    ("unknown_tool", 5),  # JSON-RPC -32602
    ("tools_list", 5),
    ("oversized", 5),  # over --max-body, Content-Length: 413
    ("oversized_chunked", 3),  # over --max-body, chunked: 413
    ("malformed", 7),  # not JSON: 400 with -32700
]
# What each operation must get back.
EXPECTED = {
    "initialize": "ok",
    "initialized": "http:202",
    "greet": "ok",
    "simple_text": "ok",
    "bad_args": "isError:VALIDATION_ERROR",
    "tool_error": "isError:INTENTIONAL_ERROR",
    "unknown_tool": "rpc:-32602",
    "tools_list": "ok",
    "oversized": "http:413",
    "oversized_chunked": "http:413",
    "malformed": "http:400 rpc:-32700",
    "delete": "http:204",
    "toggle": "ok",
    "listen": "http:200",
}


@dataclass
class Stats:
    """Every request's outcome, by operation and kind."""

    outcomes: Counter = field(default_factory=Counter)  # (op, kind) -> n
    sent: int = 0
    notifications: Counter = field(default_factory=Counter)
    bursts: int = 0
    missed_bursts: int = 0
    list_mismatches: int = 0
    sessions_deleted: int = 0
    sessions_abandoned: int = 0

    def record(self, op: str, kind: str) -> None:
        self.outcomes[(op, kind)] += 1

    def answered(self) -> int:
        return sum(n for (_, k), n in self.outcomes.items() if is_answer(k))

    def count(self, pred) -> int:
        return sum(n for (op, k), n in self.outcomes.items() if pred(op, k))

    def unexpected(self) -> int:
        return self.count(lambda op, k: is_answer(k) and k != EXPECTED[op])

    def server_errors(self) -> int:
        return self.count(lambda op, k: k.startswith("http:5"))

    def lost(self) -> int:
        return self.count(lambda op, k: k.startswith("lost:"))

    def transport_errors(self) -> int:
        return self.count(lambda op, k: k.startswith("transport:"))


def is_answer(kind: str) -> bool:
    return not kind.startswith(("lost:", "transport:"))


@dataclass
class Answer:
    kind: str
    result: dict | None = None
    session: str | None = None


def envelope_code(result: dict) -> str:
    """The error code of an isError result: its _meta, else its text."""
    meta = (result.get("_meta") or {}).get("mcp-fusion/error") or {}
    if meta.get("code"):
        return meta["code"]
    text = " ".join(c.get("text", "") for c in result.get("content", []))
    match = ENVELOPE_CODE.search(text)
    if not match:
        return "?"
    return match.group(1) or "VALIDATION_ERROR"


def classify_message(msg: dict) -> tuple[str, dict | None]:
    """The kind of a JSON-RPC response: ok, isError:CODE or rpc:CODE."""
    if "error" in msg:
        return f"rpc:{msg['error'].get('code')}", None
    result = msg.get("result") or {}
    if result.get("isError"):
        return f"isError:{envelope_code(result)}", result
    return "ok", result


async def read_answer(response: httpx.Response, rid) -> tuple[str, dict | None]:
    """The response to request `rid` in a POST's answer, JSON or SSE."""
    ctype = response.headers.get("content-type", "")
    if ctype.startswith("text/event-stream"):
        found = []
        async for event in httpx.EventSource(response):
            if not event.data:
                continue
            try:
                msg = json.loads(event.data)
            except ValueError:
                return "not-json", None
            if msg.get("id") == rid and ("result" in msg or "error" in msg):
                found.append(msg)
        if not found:
            return "lost:stream-ended", None
        if len(found) > 1:
            return "duplicate", None
        return classify_message(found[0])
    body = await response.aread()
    if not body:
        return "empty", None
    try:
        msg = json.loads(body)
    except ValueError:
        return "not-json", None
    if response.status_code != 200:
        return f"rpc:{msg.get('error', {}).get('code')}", None
    return classify_message(msg)


class Session:
    """One MCP session over its own connection pool."""

    def __init__(self, url: str, stats: Stats, timeout: float, max_body: int):
        self.url = url
        self.stats = stats
        self.max_body = max_body
        self.client = httpx.AsyncClient(timeout=timeout)
        self.session_id: str | None = None
        self.next_id = 0

    def headers(self) -> dict:
        h = {"accept": ACCEPT, "content-type": "application/json"}
        if self.session_id:
            h["mcp-session-id"] = self.session_id
            h["mcp-protocol-version"] = PROTOCOL
        return h

    async def send(self, op: str, method: str | None, params=None, content=None) -> Answer:
        """Sends one request and records its single outcome."""
        rid = None
        if content is None:
            self.next_id += 1
            rid = self.next_id
            msg = {"jsonrpc": "2.0", "id": rid, "method": method}
            if params is not None:
                msg["params"] = params
            content = json.dumps(msg).encode()
        self.stats.sent += 1
        answer = await self.exchange(content, rid)
        self.stats.record(op, answer.kind)
        return answer

    async def exchange(self, content, rid) -> Answer:
        try:
            req = self.client.build_request("POST", self.url, headers=self.headers(), content=content)
            response = await self.client.send(req, stream=True)
            try:
                return await self.answer_of(response, rid)
            finally:
                await response.aclose()
        except httpx.TimeoutException:
            return Answer("lost:timeout")
        except httpx.TransportError as err:
            return Answer(f"transport:{type(err).__name__}")

    async def answer_of(self, response: httpx.Response, rid) -> Answer:
        status = response.status_code
        session = response.headers.get("mcp-session-id")
        # A 202, a 5xx, and a refusal of a body sent as is (413), by status;
        # a 400's body is read for its JSON-RPC error code.
        if status == 202 or status >= 500 or (rid is None and status != 400):
            return Answer(f"http:{status}", session=session)
        if status != 200:
            kind, _ = await read_answer(response, rid)
            return Answer(f"http:{status} {kind}", session=session)
        kind, result = await read_answer(response, rid)
        return Answer(kind, result, session)

    async def initialize(self) -> bool:
        params = {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "soak", "version": "1"},
        }
        answer = await self.send("initialize", "initialize", params)
        if answer.kind != "ok" or not answer.session:
            return False
        self.session_id = answer.session
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await self.send("initialized", None, content=note.encode())
        return True

    async def call(self, op: str, name: str, args: dict) -> Answer:
        return await self.send(op, "tools/call", {"name": name, "arguments": args})

    async def delete(self) -> None:
        self.stats.sent += 1
        try:
            response = await self.client.delete(self.url, headers=self.headers())
            kind = f"http:{response.status_code}"
        except httpx.TimeoutException:
            kind = "lost:timeout"
        except httpx.TransportError as err:
            kind = f"transport:{type(err).__name__}"
        self.stats.record("delete", kind)

    async def close(self) -> None:
        await self.client.aclose()


async def oversized_chunks(size: int):
    chunk = b" " * 16384
    sent = 0
    yield b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"'
    while sent < size:
        yield chunk
        sent += len(chunk)
    yield b'"}}}'


async def one_request(s: Session, op: str, rng: random.Random) -> None:
    """Sends one request of operation `op` and checks a valid call's answer."""
    if op == "greet":
        name = f"soak-{rng.randrange(1_000_000)}"
        answer = await s.call(op, "greet", {"name": name})
        check_text(s.stats, op, answer, f"Hello, {name}!")
    elif op == "simple_text":
        check_text(s.stats, op, await s.call(op, "test_simple_text", {}), SIMPLE_TEXT)
    elif op == "bad_args":
        await s.call(op, "greet", rng.choice([{}, {"name": 5}, {"name": "x", "extra": 1}]))
    elif op == "tool_error":
        await s.call(op, "test_error_handling", {})
    elif op == "unknown_tool":
        await s.call(op, "no_such_tool", {})
    elif op == "tools_list":
        await s.send(op, "tools/list", {})
    elif op == "oversized":
        big = "x" * (s.max_body + 1024)
        body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "tools/call",
                           "params": {"name": "greet", "arguments": {"name": big}}})
        await s.send(op, None, content=body.encode())
    elif op == "oversized_chunked":
        await s.send(op, None, content=oversized_chunks(s.max_body + 1024))
    elif op == "malformed":
        await s.send(op, None, content=b'{"jsonrpc":"2.0","id":1,"method":"tools/call",')


def check_text(stats: Stats, op: str, answer: Answer, want: str) -> None:
    """A valid call whose text is not the expected one is a wrong answer."""
    if answer.kind != "ok":
        return
    texts = [c.get("text") for c in (answer.result or {}).get("content", [])]
    if want not in texts:
        # Re-file this answer from ok to wrong-answer.
        stats.outcomes[(op, "ok")] -= 1
        stats.record(op, "wrong-answer")


async def session_worker(cfg, stats: Stats, deadline: float, seed: int) -> None:
    rng = random.Random(seed)
    ops, weights = list(cfg.mix), list(cfg.mix.values())
    while time.monotonic() < deadline:
        s = Session(cfg.url, stats, cfg.timeout, cfg.max_body)
        try:
            if not await s.initialize():
                await asyncio.sleep(0.5)
                continue
            for op in rng.choices(ops, weights, k=rng.randint(5, 20)):
                await one_request(s, op, rng)
            if rng.random() < cfg.abandon:
                stats.sessions_abandoned += 1
            else:
                await s.delete()
                stats.sessions_deleted += 1
        finally:
            await s.close()


# --- list changes while a client holds a GET SSE stream --------------------


async def read_stream(s: Session, stats: Stats, changed: asyncio.Event) -> None:
    """Holds the session's GET SSE stream open, counting its notifications."""
    stats.sent += 1
    try:
        headers = {k: v for k, v in s.headers().items() if k != "content-type"}
        headers["accept"] = "text/event-stream"
        req = s.client.build_request("GET", s.url, headers=headers, timeout=None)
        response = await s.client.send(req, stream=True)
    except httpx.TransportError as err:
        stats.record("listen", f"transport:{type(err).__name__}")
        return
    stats.record("listen", f"http:{response.status_code}")
    try:
        async for event in httpx.EventSource(response):
            if not event.data:
                continue
            method = json.loads(event.data).get("method", "?")
            stats.notifications[method] += 1
            if method == "notifications/tools/list_changed":
                changed.set()
        stats.notifications["(stream ended by the server)"] += 1
    except httpx.TransportError as err:
        stats.notifications[f"(stream {type(err).__name__})"] += 1
    finally:
        await response.aclose()


async def burst(cfg, toggler: Session, rng: random.Random) -> bool | None:
    """Toggles the dynamic tool (and prompt) several times; returns whether
    the tool is there after it (None when a toggle failed)."""
    present = None
    for _ in range(rng.randint(3, cfg.burst)):
        answer = await toggler.call("toggle", "test_trigger_tool_change", {})
        if answer.kind != "ok":
            return None
        text = (answer.result or {}).get("content", [{}])[0].get("text", "")
        present = "added" in text
        if rng.random() < 0.3:
            await toggler.call("toggle", "test_trigger_prompt_change", {})
    return present


async def check_listing(listener: Session, stats: Stats, present: bool) -> None:
    answer = await listener.send("tools_list", "tools/list", {})
    if answer.kind != "ok":
        return
    names = {t.get("name") for t in (answer.result or {}).get("tools", [])}
    if ("test_dynamic_tool" in names) != present:
        stats.list_mismatches += 1


async def listen_round(cfg, stats: Stats, until: float, rng: random.Random) -> None:
    """One listener session and stream, bursts of list changes until `until`."""
    listener = Session(cfg.url, stats, cfg.timeout, cfg.max_body)
    toggler = Session(cfg.url, stats, cfg.timeout, cfg.max_body)
    changed = asyncio.Event()
    reader = None
    try:
        if not (await listener.initialize() and await toggler.initialize()):
            await asyncio.sleep(1)
            return
        reader = asyncio.create_task(read_stream(listener, stats, changed))
        await asyncio.sleep(0.5)  # the stream is open before the first burst
        while time.monotonic() < until:
            changed.clear()
            present = await burst(cfg, toggler, rng)
            stats.bursts += 1
            try:
                await asyncio.wait_for(changed.wait(), cfg.notify_wait)
            except asyncio.TimeoutError:
                stats.missed_bursts += 1
            if present is not None:
                await check_listing(listener, stats, present)
            await asyncio.sleep(min(cfg.burst_every, max(0.0, until - time.monotonic())))
    finally:
        if reader:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        for s in (listener, toggler):
            if s.session_id:
                await s.delete()
            await s.close()


async def list_changes(cfg, stats: Stats, deadline: float) -> None:
    rng = random.Random(cfg.seed + 10_000)
    while time.monotonic() < deadline:
        await listen_round(cfg, stats, min(deadline, time.monotonic() + 60), rng)


# --- the server's resources --------------------------------------------------


@dataclass
class Sample:
    minute: float
    rss_kib: int | None
    fds: int | None
    sessions: dict
    answered: int
    label: str = ""


def proc_figures(pid: int | None) -> tuple[int | None, int | None]:
    """The process's VmRSS (KiB) and its number of open file descriptors."""
    if pid is None:
        return None, None
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rss = int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))
        return rss, len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, AttributeError):
        return None, None


async def session_gauges(cfg) -> dict:
    """mcp_fusion_sessions_{open,live,parked} from /metrics, when served."""
    if not cfg.metrics_url:
        return {}
    try:
        async with httpx.AsyncClient(timeout=5) as client:
            text = (await client.get(cfg.metrics_url)).text
    except httpx.HTTPError:
        return {}
    found = re.findall(r"^mcp_fusion_sessions_(\w+) (\d+)", text, re.M)
    return {name: int(value) for name, value in found}


async def take_sample(cfg, stats: Stats, start: float) -> Sample:
    rss, fds = proc_figures(cfg.pid)
    minute = (time.monotonic() - start) / 60
    return Sample(minute, rss, fds, await session_gauges(cfg), stats.answered())


def progress(sample: Sample, stats: Stats, cfg) -> None:
    rss = f"{sample.rss_kib / 1024:.1f} MiB" if sample.rss_kib else "?"
    gauges = " ".join(f"{k} {v}" for k, v in sorted(sample.sessions.items()))
    print(
        f"soak: {sample.minute:4.1f}/{cfg.minutes} min  answered {sample.answered}"
        f"  unexpected {stats.unexpected()}  lost {stats.lost()}"
        f"  transport {stats.transport_errors()}  5xx {stats.server_errors()}"
        f"  bursts {stats.bursts} (missed {stats.missed_bursts})"
        f"  RSS {rss}  fds {sample.fds}  sessions: {gauges or '?'}",
        flush=True,
    )


async def sampler(cfg, stats: Stats, start: float, samples: list, stop: asyncio.Event) -> None:
    """A sample at start and at every whole minute until `stop`."""
    minute = 0
    while not stop.is_set():
        samples.append(await take_sample(cfg, stats, start))
        progress(samples[-1], stats, cfg)
        minute += 1
        wait = start + 60 * minute - time.monotonic()
        try:
            await asyncio.wait_for(stop.wait(), max(0.0, wait))
        except asyncio.TimeoutError:
            pass


# --- the report ----------------------------------------------------------------


def outcome_table(stats: Stats) -> list[str]:
    lines = [f"{'operation':<18} {'expected':<26} {'as expected':>11}  other answers and failures"]
    for op in EXPECTED:
        kinds = {k: n for (o, k), n in stats.outcomes.items() if o == op and n}
        if not kinds:
            continue
        good = kinds.pop(EXPECTED[op], 0)
        other = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "-"
        lines.append(f"{op:<18} {EXPECTED[op]:<26} {good:>11}  {other}")
    return lines


def mib(kib: int | None) -> str:
    return f"{kib / 1024:.1f}" if kib else "?"


def resource_table(samples: list[Sample], minutes: float) -> list[str]:
    middle = min(samples, key=lambda s: abs(s.minute - minutes / 2))
    lines = [f"{'':<7} {'minute':>6} {'RSS MiB':>8} {'fds':>5} {'sessions open/live/parked':>26} {'answered':>10}"]
    for s in samples:
        label = s.label or ("middle" if s is middle else "")
        g = s.sessions
        sess = f"{g.get('open', '?')}/{g.get('live', '?')}/{g.get('parked', '?')}"
        lines.append(f"{label:<7} {s.minute:>6.1f} {mib(s.rss_kib):>8} {s.fds or '?':>5} {sess:>26} {s.answered:>10}")
    return lines


def rss_growth(samples: list[Sample], warmup: float, tolerance: float) -> tuple[str, bool]:
    """Whether RSS after the warm-up stayed within `tolerance` (a fraction)."""
    after = [s for s in samples if s.minute >= warmup - 0.05 and s.rss_kib]
    if len(after) < 2:
        return "RSS after the warm-up: too few samples to judge", True
    base = after[0].rss_kib
    peak = max(s.rss_kib for s in after[1:])
    grew = (peak - base) / base
    flat = grew <= tolerance
    return (
        f"RSS after the warm-up (minute {after[0].minute:.1f}): {mib(base)} MiB, then at most"
        f" {mib(peak)} MiB ({grew:+.1%}; tolerance {tolerance:.0%}): {'flat' if flat else 'GREW'}",
        flat,
    )


def report(cfg, stats: Stats, samples: list[Sample], seconds: float) -> bool:
    """Prints the figures; returns whether the run passed."""
    answered = stats.answered()
    print(f"\n== {stats.sent} requests sent in {seconds / 60:.1f} min, {answered} answered"
          f" ({answered / seconds:.0f}/s); sessions deleted {stats.sessions_deleted},"
          f" abandoned {stats.sessions_abandoned}")
    print("\n".join(outcome_table(stats)))
    notes = ", ".join(f"{k} {n}" for k, n in sorted(stats.notifications.items())) or "none"
    print(f"\n== list changes: {stats.bursts} bursts, {stats.missed_bursts} without a"
          f" tools/list_changed within {cfg.notify_wait:g} s, {stats.list_mismatches} tools/list"
          f" disagreeing with the last toggle\n   stream notifications: {notes}")
    print("\n== server process" + (f" (pid {cfg.pid})" if cfg.pid else " (no pid: no RSS)"))
    print("\n".join(resource_table(samples, cfg.minutes)))
    verdict, flat = rss_growth(samples, cfg.warmup, cfg.rss_tolerance)
    print(verdict)
    failures = {
        "lost": stats.lost(),
        "transport errors": stats.transport_errors(),
        "5xx": stats.server_errors(),
        "unexpected answers": stats.unexpected(),
        "missed list changes": stats.missed_bursts,
        "tools/list mismatches": stats.list_mismatches,
        "requests without an outcome": stats.sent - sum(stats.outcomes.values()),
    }
    bad = {k: n for k, n in failures.items() if n}
    print("\n== " + ("PASS" if not bad and flat else "FAIL") + ": "
          + (", ".join(f"{k} {n}" for k, n in bad.items()) or "nothing lost, no 5xx, every answer as expected")
          + ("" if flat else "; RSS grew after the warm-up"))
    return not bad and flat


# --- the server and main ---------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(cfg) -> subprocess.Popen:
    port = free_port()
    cmd = [cfg.fusion, "serve", "--example", "conformance", "--port", str(port),
           "--max-body", str(cfg.max_body), "--session-idle", cfg.session_idle, "--metrics"]
    log = Path(cfg.server_log)
    log.parent.mkdir(parents=True, exist_ok=True)
    print(f"soak: starting {' '.join(cmd)} (stderr: {log})", flush=True)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=log.open("wb"))
    for _ in range(300):
        if proc.poll() is not None:
            sys.exit(f"soak: the server exited with {proc.returncode}; see {log}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    else:
        proc.kill()
        sys.exit("soak: the server did not listen within 30 s")
    cfg.url = f"http://127.0.0.1:{port}/mcp"
    cfg.metrics_url = f"http://127.0.0.1:{port}/metrics"
    cfg.pid = proc.pid
    return proc


async def run(cfg) -> bool:
    stats = Stats()
    samples: list[Sample] = []
    start = time.monotonic()
    deadline = start + cfg.minutes * 60
    stop = asyncio.Event()
    sampling = asyncio.create_task(sampler(cfg, stats, start, samples, stop))
    await asyncio.sleep(0.2)  # the start sample comes before any load
    load = [session_worker(cfg, stats, deadline, cfg.seed + i) for i in range(cfg.workers)]
    await asyncio.gather(*load, list_changes(cfg, stats, deadline))
    seconds = time.monotonic() - start
    stop.set()
    await sampling
    samples[0].label = "start"
    samples.append(await take_sample(cfg, stats, start))
    samples[-1].label = "end"
    if cfg.settle:
        await asyncio.sleep(cfg.settle)
        samples.append(await take_sample(cfg, stats, start))
        samples[-1].label = "settled"
    return report(cfg, stats, samples, seconds)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10)
    p.add_argument("--workers", type=int, default=8, help="concurrent session workers")
    p.add_argument("--url", help="soak this MCP endpoint instead of starting a server")
    p.add_argument("--pid", type=int, help="with --url: the server's pid, for RSS and fds")
    p.add_argument("--metrics-url", help="with --url: its Prometheus /metrics, for session gauges")
    p.add_argument("--fusion", default=str(ROOT / "target/release/fusion"))
    p.add_argument("--max-body", type=int, default=65536, help="the server's --max-body, bytes")
    p.add_argument("--session-idle", default="60s", help="the server's --session-idle")
    p.add_argument("--abandon", type=float, default=0.2, help="share of sessions left without DELETE")
    p.add_argument("--burst", type=int, default=12, help="most toggles in a list-change burst")
    p.add_argument("--burst-every", type=float, default=3.0, help="seconds between bursts")
    p.add_argument("--notify-wait", type=float, default=5.0)
    p.add_argument("--timeout", type=float, default=30.0, help="seconds before a request is lost")
    p.add_argument("--warmup", type=float, default=2.0, help="minutes of warm-up before RSS must stay flat")
    p.add_argument("--rss-tolerance", type=float, default=0.10, help="growth allowed after warm-up")
    p.add_argument("--weight", action="append", default=[], metavar="OP=N",
                   help="change an operation's weight in the mix (0 leaves it out); repeatable")
    p.add_argument("--settle", type=float, default=0,
                   help="seconds to wait after the load for a last sample (past --session-idle: idle RSS)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--server-log", default=str(ROOT / "target/soak/server.log"))
    return p.parse_args()


def mix_of(changes: list[str]) -> dict:
    """MIX with the --weight changes applied."""
    mix = dict(MIX)
    for change in changes:
        op, _, weight = change.partition("=")
        if op not in mix or not weight.isdigit():
            sys.exit(f"soak: --weight {change}: write OP=N, OP one of {', '.join(mix)}")
        mix[op] = int(weight)
    return {op: w for op, w in mix.items() if w}


def main() -> int:
    cfg = parse_args()
    cfg.mix = mix_of(cfg.weight)
    proc = None
    if not cfg.url:
        if not os.access(cfg.fusion, os.X_OK):
            print(f"soak: no fusion binary at {cfg.fusion} (cargo build --release -p fusion-cli)", file=sys.stderr)
            return 2
        proc = start_server(cfg)
    try:
        passed = asyncio.run(run(cfg))
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=20)
    if proc and proc.returncode not in (0, None):
        print(f"soak: the server exited with {proc.returncode} on SIGTERM")
        passed = False
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
