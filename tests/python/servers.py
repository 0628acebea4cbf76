"""Starting `fusion serve` for the end-to-end tests, and opening an official
MCP Python SDK client session (or high-level client) on it, over stdio or
Streamable HTTP.

Shared by the test modules of this folder (plain helpers; the fixtures are in
`conftest.py`). The binary is `$FUSION_BIN` (default `target/debug/fusion`,
relative to the repository root).
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Iterator, Sequence

from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
FUSION_BIN = os.environ.get("FUSION_BIN", str(ROOT / "target" / "debug" / "fusion"))

# Each transport with the 2025-11-25 `initialize` handshake, and with the
# 2026-07-28 stateless protocol (`server/discover`).
TRANSPORTS = ["stdio", "http", "stdio-2026", "http-2026"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def http_server(
    serve_args: Sequence[str], command: str = "serve", env: dict[str, str] | None = None
) -> Iterator[str]:
    """Runs `fusion COMMAND --port N SERVE_ARGS…` (`fusion serve`, or
    `fusion gateway`; with `env` added to its environment) until the block
    ends; yields the endpoint URL once the
    server accepts connections."""
    last_output = ""
    for _attempt in range(5):
        port = free_port()
        process = subprocess.Popen(
            [FUSION_BIN, command, "--port", str(port), *serve_args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "RUST_LOG": "warn", **(env or {})},
        )
        lines: list[str] = []
        ready = threading.Event()

        def drain(stream=process.stderr, lines=lines, ready=ready) -> None:
            # Reads every stderr line, so that the pipe never fills.
            for line in stream:
                lines.append(line.rstrip("\n"))
                if "MCP endpoint: " in line:
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        try:
            # Bounded so that a server that never starts fails the test
            # instead of hanging it (not a timing assertion).
            ready.wait(timeout=60)
            if process.poll() is None and any("MCP endpoint: " in line for line in lines):
                wait_until_it_answers(port)
                yield f"http://127.0.0.1:{port}/mcp"
                return
            last_output = "\n".join(lines)
        finally:
            process.kill()
            process.wait()
    raise AssertionError(f"fusion {command} did not start over HTTP; its stderr:\n{last_output}")


def wait_until_it_answers(port: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@asynccontextmanager
async def open_session(
    transport: str, serve_args: Sequence[str], command: str = "serve", **session_options: Any
) -> AsyncIterator[ClientSession]:
    """A ready client session with a fresh `fusion COMMAND SERVE_ARGS…`
    (`fusion serve`, or `fusion gateway`); `session_options` go to
    `ClientSession` (callbacks)."""
    if transport.startswith("stdio"):
        params = StdioServerParameters(
            command=FUSION_BIN,
            args=[command, "--stdio", *serve_args],
            env={"RUST_LOG": "warn"},
        )
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, **session_options) as session:
                    await start(session, transport)
                    yield session
    else:
        with http_server(serve_args, command) as url:
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write, **session_options) as session:
                    await start(session, transport)
                    yield session


async def start(session: ClientSession, transport: str) -> None:
    if transport.endswith("-2026"):
        await session.discover()
        assert session.protocol_version == "2026-07-28"
    else:
        await session.initialize()
        assert session.protocol_version == "2025-11-25"


def texts(result) -> list[str]:
    out = []
    for block in result.content:
        assert block.type == "text", block
        out.append(block.text)
    return out


@asynccontextmanager
async def open_client(transport: str, serve_args: Sequence[str], **client_options: Any) -> AsyncIterator[Client]:
    """A connected high-level `mcp.Client` to a fresh `fusion serve
    SERVE_ARGS…`: the 2025-11-25 handshake, or (`*-2026`) the 2026-07-28
    protocol, whose input-required results the client answers through its
    callbacks and retries (SEP-2322). `client_options` go to `Client`."""
    mode = "2026-07-28" if transport.endswith("-2026") else "legacy"
    if transport.startswith("stdio"):
        server: Any = StdioServerParameters(
            command=FUSION_BIN, args=["serve", "--stdio", *serve_args], env={"RUST_LOG": "warn"}
        )
        async with Client(server, mode=mode, **client_options) as client:
            yield client
    else:
        with http_server(serve_args) as url:
            async with Client(url, mode=mode, **client_options) as client:
                yield client
