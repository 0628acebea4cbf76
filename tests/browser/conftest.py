"""The browser tests start `fusion serve` with the helpers of the Python
end-to-end tests (`tests/python/servers.py`); their own helpers are
`pages.py` (the page server, Chromium) and `authorization_server.py`
(oidc-provider)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
