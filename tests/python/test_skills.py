"""`fusion serve --example conformance --skills examples/skills` driven by
the official MCP Python SDK client, over stdio and Streamable HTTP, on both
revisions: the skills extension (SEP-2640) declared, `skills/list`,
`skills/get` and `resources/directory/read` (sent as generic requests: this
SDK has no skills methods), each `SKILL.md` merged into `resources/list`, a
skill's files read with `resources/read`, and a hidden file not served.

Digests and sizes are computed here from the files on disk.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from mcp import types
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from servers import ROOT, TRANSPORTS, open_session

pytestmark = pytest.mark.anyio

SKILLS_DIR = ROOT / "examples" / "skills"
SERVE = ["--example", "conformance", "--skills", str(SKILLS_DIR)]
ANY = TypeAdapter(dict[str, Any])


def entry(path: str) -> dict:
    data = (SKILLS_DIR / path).read_bytes()
    return {
        "uri": f"skill://{path}",
        "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
        "size": len(data),
    }


REFUNDS = {
    "uri": "skill://invoice-reminders/refunds/SKILL.md",
    "frontmatter": {"name": "refunds", "description": "Refund a paid invoice, in part or in full."},
    "resources": [entry("invoice-reminders/refunds/SKILL.md")],
}
INVOICE_REMINDERS = {
    "uri": "skill://invoice-reminders/SKILL.md",
    "frontmatter": {
        "name": "invoice-reminders",
        "description": "Write a polite payment reminder for an overdue invoice.",
    },
    "resources": [
        entry("invoice-reminders/SKILL.md"),
        entry("invoice-reminders/refunds/SKILL.md"),
        entry("invoice-reminders/templates/reminder.txt"),
    ],
}


def without_cache_hints(result: dict, transport: str) -> dict:
    """The result without what 2026-07-28 adds to every complete result
    (SEP-2549 caching hints, `resultType`), which it must carry."""
    if transport.endswith("-2026"):
        assert result.pop("resultType") == "complete"
        assert result.pop("ttlMs") == 0
        assert result.pop("cacheScope") == "private"
    return result


class UriParams(types.RequestParams):
    """The params of `skills/get` and `resources/directory/read` (this SDK
    sends the params of a generic request only as a model)."""

    uri: str


async def request(session, method: str, uri: str | None = None) -> dict:
    params = UriParams(uri=uri) if uri is not None else None
    return await session.send_request(types.Request(method=method, params=params), ANY)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_skills_are_listed_and_got(transport: str) -> None:
    async with open_session(transport, SERVE) as session:
        extensions = session.server_capabilities.extensions
        listed = await request(session, "skills/list")
        got = await request(session, "skills/get", REFUNDS["uri"])
        with pytest.raises(MCPError) as unknown:
            await request(session, "skills/get", "skill://invoices/SKILL.md")
    assert extensions["io.modelcontextprotocol/skills"] == {"directoryRead": True}
    assert without_cache_hints(listed, transport) == {"skills": [INVOICE_REMINDERS, REFUNDS]}
    assert without_cache_hints(got, transport) == {"skill": REFUNDS}
    assert unknown.value.error.code == -32602
    assert unknown.value.error.message == "unknown skill skill://invoices/SKILL.md"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_skill_files_are_resources(transport: str) -> None:
    async with open_session(transport, SERVE) as session:
        resources = await session.list_resources()
        children = await request(session, "resources/directory/read", "skill://invoice-reminders/templates")
        reminder = await session.read_resource("skill://invoice-reminders/templates/reminder.txt")
        with pytest.raises(MCPError) as hidden:
            await session.read_resource("skill://invoice-reminders/.drafts.md")
    assert [resource.uri for resource in resources.resources] == [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "skill://invoice-reminders/SKILL.md",
        "skill://invoice-reminders/refunds/SKILL.md",
    ]
    text = (SKILLS_DIR / "invoice-reminders/templates/reminder.txt").read_text()
    assert children["resources"] == [
        {
            "uri": "skill://invoice-reminders/templates/reminder.txt",
            "name": "reminder.txt",
            "mimeType": "text/plain",
            "size": len(text.encode()),
        }
    ]
    [contents] = reminder.contents
    assert contents.model_dump(by_alias=True, exclude_none=True) == {
        "uri": "skill://invoice-reminders/templates/reminder.txt",
        "mimeType": "text/plain",
        "text": text,
    }
    # -32002 on 2025-11-25, -32602 on 2026-07-28 (an mcp-fusion server names
    # the valid URIs either way).
    assert hidden.value.error.code in (-32002, -32602)
    assert hidden.value.error.data["uri"] == "skill://invoice-reminders/.drafts.md"
