"""A real OAuth 2.1 authorization server for the browser tests:
`oidc-provider` (npm) run by `tests/oauth/server.mjs` with `node` on a free
loopback port (its clients and resource rules are described in that file).
Needs `tests/oauth/node_modules`, which scripts/test installs
(`bash scripts/npm-install tests/oauth`); without it the test fails saying so.
"""

from __future__ import annotations

import queue
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

FOLDER = Path(__file__).resolve().parents[1] / "oauth"


@contextmanager
def authorization_server() -> Iterator[str]:
    """Runs `node server.mjs` until the block ends; yields its issuer,
    `http://127.0.0.1:PORT`, once its `ready ISSUER` line is printed."""
    if not (FOLDER / "node_modules" / "oidc-provider").is_dir():
        pytest.fail(
            f"{FOLDER}/node_modules is missing: install it with "
            "`bash scripts/npm-install tests/oauth` (scripts/test does)"
        )
    process = subprocess.Popen(
        ["node", "server.mjs"],
        cwd=FOLDER,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def drain() -> None:
        # Reads every stdout line, so that the pipe never fills; "" at its end.
        for line in process.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=drain, daemon=True).start()
    try:
        try:
            # Bounded so that a server that never starts fails the test
            # instead of hanging it (not a timing assertion).
            line = lines.get(timeout=60)
        except queue.Empty:
            line = ""
        assert line.startswith("ready http://127.0.0.1:"), f"oidc-provider did not start: {line!r}"
        yield line.removeprefix("ready ").strip()
    finally:
        process.kill()
        process.wait()
