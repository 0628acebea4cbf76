"""Serving this folder's pages on a loopback origin and opening them in
headless Chromium (Debian's `chromium`, or `$CHROMIUM`): shared by the
browser tests.

A page writes what it read into `<pre id="results">` as JSON; `open_page`
returns that JSON once the page is done.
"""

from __future__ import annotations

import base64
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

HERE = Path(__file__).resolve().parent


def chromium() -> str:
    found = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not found:
        pytest.fail("chromium is not installed: apt-get install chromium (scripts/test does)")
    return found


class PageHandler(http.server.SimpleHTTPRequestHandler):
    """Serves this folder (GET) and, when `client` is set, `POST /token`:
    the page's own backend, which holds a confidential client's secret (a
    browser may not: oidc-provider refuses a confidential client's token
    request from a browser origin). The page posts the JSON
    `{"tokenEndpoint", "resource", "scope"}` it discovered; the backend makes
    the client credentials request (RFC 6749 §4.4, with the RFC 8707
    `resource`) as `client` (secret `<client>-secret`, client_secret_basic)
    and answers the authorization server's status and JSON as they came."""

    client: str | None = None

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        if self.path != "/token" or self.client is None:
            self.send_error(404)
            return
        asked = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        form = urllib.parse.urlencode(
            {"grant_type": "client_credentials", "scope": asked["scope"], "resource": asked["resource"]}
        ).encode()
        basic = base64.b64encode(f"{self.client}:{self.client}-secret".encode()).decode()
        request = urllib.request.Request(
            asked["tokenEndpoint"],
            data=form,
            headers={"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, body = answer.status, answer.read()
        except urllib.error.HTTPError as refused:
            status, body = refused.code, refused.read()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def page_server(client: str | None = None) -> Iterator[int]:
    """Serves this folder on a free loopback port, with the `POST /token`
    backend of `client` when given; yields the port."""
    handler = functools.partial(type("Handler", (PageHandler,), {"client": client}), directory=str(HERE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def open_page(url: str, profile: Path) -> dict[str, Any]:
    """Opens `url` in headless Chromium until the page is done; the JSON
    the page wrote into #results."""
    command = [
        chromium(),
        "--headless=new",
        "--disable-gpu",
        f"--user-data-dir={profile}",
        # Virtual time waits for the page's fetches, then stops.
        "--virtual-time-budget=10000",
        "--dump-dom",
        url,
    ]
    if os.geteuid() == 0:
        # Chromium refuses to run as root with its sandbox.
        command.insert(1, "--no-sandbox")
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = re.search(r'<pre id="results">(.*?)</pre>', done.stdout, re.S)
    assert found, done.stdout
    return json.loads(html.unescape(found.group(1)))
