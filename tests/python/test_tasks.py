"""Tasks (the MCP Tasks extension `io.modelcontextprotocol/tasks`, SEP-2663)
end to end with the official Python SDK client in 2026-07-28 mode, against
two `fusion serve --example conformance` replicas sharing a real Redis
(`--task-store redis://…`): a task created, polled and cancelled on one
replica is read on the other; a failed action's task result is the
`<tool_error>` envelope with its `_meta` twin; an unknown task is -32602.

The SDK has no task helpers: the `CreateTaskResult` comes through a
`ResultClaim` on `tools/call`, and `tasks/get` / `tasks/cancel` through its
generic `send_request`.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from contextlib import asynccontextmanager, contextmanager
from typing import Any, AsyncIterator, Iterator, Literal

import anyio
import mcp_types
import pytest
from mcp import ClientSession
from mcp.client.extension import ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import ConfigDict, TypeAdapter

from servers import free_port, http_server

TASKS = "io.modelcontextprotocol/tasks"
META_KEY = "mcp-fusion/error"


class CreateTaskResult(mcp_types.Result):
    """SEP-2663 `CreateTaskResult` (`Result & Task`, `resultType: "task"`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


async def _unresolved(result: CreateTaskResult, _ctx: Any) -> mcp_types.CallToolResult:
    raise AssertionError("the test reads tasks itself (allow_claimed=True)")


TASK_CLAIM = ResultClaim(result_type="task", model=CreateTaskResult, resolve=_unresolved)


class TaskParams(mcp_types.RequestParams):
    task_id: str


class GetTask(mcp_types.Request[TaskParams, Literal["tasks/get"]]):
    name_param = "taskId"


class CancelTask(mcp_types.Request[TaskParams, Literal["tasks/cancel"]]):
    name_param = "taskId"


class UpdateParams(TaskParams):
    input_responses: dict[str, Any]


class UpdateTask(mcp_types.Request[UpdateParams, Literal["tasks/update"]]):
    name_param = "taskId"


ANY = TypeAdapter(dict[str, Any])


@contextmanager
def redis_server() -> Iterator[str]:
    """A `redis-server` on a free loopback port (scripts/test installs it)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed (scripts/test installs it)")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait()


@asynccontextmanager
async def client(url: str) -> AsyncIterator[ClientSession]:
    """A 2026-07-28 session declaring the tasks extension on every request."""
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(
            read, write, extensions={TASKS: {}}, result_claims={TASKS: [TASK_CLAIM]}
        ) as session:
            await session.discover()
            assert session.protocol_version == "2026-07-28"
            yield session


async def start(session: ClientSession, name: str, arguments: dict[str, Any]) -> CreateTaskResult:
    created = await session.call_tool(name, arguments, allow_claimed=True)
    assert isinstance(created, CreateTaskResult), created
    return created


async def get(session: ClientSession, task_id: str) -> dict[str, Any]:
    return await session.send_request(
        GetTask(method="tasks/get", params=TaskParams(task_id=task_id)), ANY
    )


async def cancel(session: ClientSession, task_id: str) -> dict[str, Any]:
    return await session.send_request(
        CancelTask(method="tasks/cancel", params=TaskParams(task_id=task_id)), ANY
    )


async def update(session: ClientSession, task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
    return await session.send_request(
        UpdateTask(
            method="tasks/update",
            params=UpdateParams(task_id=task_id, input_responses=responses),
        ),
        ANY,
    )


async def until_status(session: ClientSession, task_id: str, status: str) -> dict[str, Any]:
    for _ in range(300):
        task = await get(session, task_id)
        if task["status"] == status:
            return task
        await anyio.sleep(0.05)
    raise AssertionError(f"task {task_id} is not {status}: {task}")


async def until_terminal(session: ClientSession, task_id: str) -> dict[str, Any]:
    # Polls as the spec says (pollIntervalMs is 1000; a shorter pause keeps
    # the test quick); bounded so that a task that never ends fails the test.
    for _ in range(300):
        task = await get(session, task_id)
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
        await anyio.sleep(0.05)
    raise AssertionError(f"task {task_id} did not end: {task}")


@pytest.fixture(scope="module")
def replicas() -> Iterator[tuple[str, str]]:
    with redis_server() as redis_url:
        args = ["--example", "conformance", "--task-store", redis_url]
        with http_server(args) as one, http_server(args) as other:
            yield one, other


@pytest.mark.anyio
async def test_a_task_started_on_one_replica_is_read_on_the_other(replicas) -> None:
    one_url, other_url = replicas
    async with client(one_url) as one, client(other_url) as other:
        created = await start(one, "slow_compute", {"seconds": 0, "label": "quick"})
        assert created.status == "working"
        assert created.ttl_ms == 3_600_000
        assert created.poll_interval_ms == 1000
        assert created.created_at == created.last_updated_at
        # Durable on creation: the other replica finds it at once.
        seen = await get(other, created.task_id)
        assert seen["taskId"] == created.task_id
        assert seen["resultType"] == "complete"
        done = await until_terminal(one, created.task_id)
        assert done["status"] == "completed"
        assert done["result"]["content"] == [{"type": "text", "text": "Computed quick after 0 s."}]
        assert done["result"]["isError"] is False
        # The other replica reads the same task, result included.
        assert await get(other, created.task_id) == done
        # Cancelling a finished task: the same empty acknowledgement, and it
        # stays completed.
        assert await cancel(other, created.task_id) == {"resultType": "complete"}
        assert (await get(one, created.task_id))["status"] == "completed"


@pytest.mark.anyio
async def test_a_failed_action_s_task_result_is_its_envelope(replicas) -> None:
    one_url, other_url = replicas
    async with client(one_url) as one, client(other_url) as other:
        created = await start(one, "failing_job", {})
        done = await until_terminal(other, created.task_id)
        assert done["status"] == "completed"
        result = done["result"]
        assert result["isError"] is True
        assert result["content"] == [
            {
                "type": "text",
                "text": (
                    '<tool_error code="CONFLICT" severity="error">\n'
                    "  <message>failing_job fails on every call, by design.</message>\n"
                    "  <recovery>Do not call failing_job again: it always fails.</recovery>\n"
                    "</tool_error>"
                ),
            }
        ]
        assert result["_meta"][META_KEY] == {
            "code": "CONFLICT",
            "severity": "error",
            "message": "failing_job fails on every call, by design.",
            "recovery": "Do not call failing_job again: it always fails.",
        }


@pytest.mark.anyio
async def test_a_task_is_cancelled_on_its_replica_and_from_the_other(replicas) -> None:
    one_url, other_url = replicas
    async with client(one_url) as one, client(other_url) as other:
        # Cancelled where it runs: its handler is cancelled, both replicas
        # read `cancelled`.
        running = await start(one, "slow_compute", {"seconds": 600, "label": "long"})
        assert (await get(other, running.task_id))["status"] == "working"
        assert await cancel(one, running.task_id) == {"resultType": "complete"}
        for session in (one, other):
            task = await get(session, running.task_id)
            assert task["status"] == "cancelled"
            assert task["statusMessage"] == "Cancelled by the client."
            assert "result" not in task
        # Cancelled from the other replica: recorded in the store.
        remote = await start(one, "slow_compute", {"seconds": 600, "label": "remote"})
        assert await cancel(other, remote.task_id) == {"resultType": "complete"}
        assert (await get(one, remote.task_id))["status"] == "cancelled"


@pytest.mark.anyio
async def test_an_answer_sent_to_the_other_replica_reaches_the_running_task(replicas) -> None:
    one_url, other_url = replicas
    async with client(one_url) as one, client(other_url) as other:
        created = await start(one, "confirm_delete", {"filename": "remote.txt"})
        asking = await until_status(other, created.task_id, "input_required")
        (key,) = asking["inputRequests"]
        assert asking["inputRequests"][key]["method"] == "elicitation/create"
        assert asking["inputRequests"][key]["params"]["message"] == "Delete remote.txt?"
        # Answered through the replica that does not run the task: kept in
        # the store, taken by the running replica within a poll interval.
        answer = {key: {"action": "accept", "content": {"confirm": True}}}
        assert await update(other, created.task_id, answer) == {"resultType": "complete"}
        done = await until_terminal(other, created.task_id)
        assert done["status"] == "completed"
        assert done["result"]["content"] == [{"type": "text", "text": "Deleted remote.txt."}]
        assert done["result"]["isError"] is False
        assert "inputRequests" not in done


@pytest.mark.anyio
async def test_an_unknown_task_is_invalid_params(replicas) -> None:
    _, other_url = replicas
    async with client(other_url) as other:
        for request in (get, cancel):
            with pytest.raises(MCPError) as raised:
                await request(other, "no-such-task")
            assert raised.value.code == -32602
            assert raised.value.message == (
                'Unknown task "no-such-task": no task has this id, or its ttlMs has passed. '
                "Call the tool again to start a new task."
            )
