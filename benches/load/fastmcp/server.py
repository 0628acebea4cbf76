"""The bench tool on FastMCP, as its documentation writes a tool.

    get_invoice {id: string matching ^inv_[0-9]+$, email: an email address
                 (pydantic EmailStr), amount: integer >= 1}, all required
    success: one text block {"id":"<id>","status":"open"}, isError false
    invalid arguments: FastMCP's own tool result, isError true

Usage:
    python server.py               stdio (newline-delimited JSON-RPC)
    python server.py --http PORT   Streamable HTTP at http://127.0.0.1:PORT/mcp

benches/load/compare.sh installs it (requirements.txt) in a scratch venv
under target/load-bench/ and drives it with the `load` binary.
"""

import sys
from typing import Annotated

from fastmcp import FastMCP
from pydantic import EmailStr, Field

mcp = FastMCP("fastmcp-bench")


@mcp.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
def get_invoice(
    id: Annotated[str, Field(pattern=r"^inv_[0-9]+$", description="The invoice id, e.g. inv_1.")],
    email: Annotated[EmailStr, Field(description="Who the invoice is sent to, e.g. user@example.com.")],
    amount: Annotated[int, Field(ge=1, description="The amount, in cents (at least 1).")],
) -> str:
    """Read one invoice by id."""
    # The pattern leaves only `inv_` and digits: nothing to escape in JSON.
    return f'{{"id":"{id}","status":"open"}}'


def main(argv: list[str]) -> int:
    if not argv:
        mcp.run(show_banner=False)
        return 0
    if len(argv) == 2 and argv[0] == "--http" and argv[1].isdigit() and int(argv[1]) < 65536:
        mcp.run(transport="http", host="127.0.0.1", port=int(argv[1]), show_banner=False)
        return 0
    print("usage: python server.py [--http PORT]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
