"""Fixtures shared by the end-to-end tests of this folder (the helpers that
start servers are in `servers.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from servers import FUSION_BIN


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def fusion_binary() -> None:
    if not Path(FUSION_BIN).is_file():
        pytest.fail(f"{FUSION_BIN} does not exist: run `cargo build -p fusion-cli` or set FUSION_BIN")
