# Sourced by actionability/run.sh (the scripted agent) and
# actionability/model/run.sh (a language model): the stacks both measure,
# built and installed the same way. Expects $root (the repository), $out
# (target/actionability), $caller (where the script was called from),
# $stacks (a comma-separated list), $prebuilt (a built fusion or empty),
# $fusion and $rmcp_server (the binaries' default paths), and say().
#
# setup_stacks builds what the chosen stacks need (fusion and the rmcp
# stacks' server in one cargo build, so that mcp-fusion is compiled once;
# no build of fusion with --fusion BIN), then installs the MCP Python SDK
# client (.venv) and the TypeScript and FastMCP twins under $out: the
# TypeScript twin always, as the foreign server of the `foreign` scenarios.
# stack_arguments fills the array stack_args with one --stack NAME=COMMAND a
# chosen stack, and the array cart_args with one --cart-stack NAME=COMMAND a
# chosen stack that has a cart twin (the servers of the scenarios whose
# profile says server: cart); with $with_cart set (the model's run.sh),
# setup_stacks also builds the cart example (`cart`, $cart).

setup_stacks() {
    # The rmcp stacks' server is built with fusion, in one build, so that
    # mcp-fusion is compiled once with the features of both.
    packages=()
    [ -n "$prebuilt" ] || packages+=(-p fusion-cli)
    case ",$stacks," in *,rmcp,* | *,ours-rmcp,*) packages+=(-p actionability-rmcp) ;; esac
    case ",$stacks,${with_cart:-}" in *,ours,*1) packages+=(-p cart-example) ;; esac
    if [ -n "$prebuilt" ]; then
        case "$prebuilt" in /*) ;; *) prebuilt="$caller/$prebuilt" ;; esac
        if [ ! -x "$prebuilt" ]; then
            echo "run.sh: --fusion $prebuilt: no executable there" >&2
            exit 2
        fi
        fusion="$prebuilt"
        say "fusion: $fusion (not rebuilt)"
    fi
    if [ ${#packages[@]} -gt 0 ]; then
        say "cargo build ${packages[*]}"
        cargo build -q "${packages[@]}"
    fi

    say "the MCP Python SDK client the agent uses (.venv)"
    bash scripts/venv-install .venv tests/python/requirements.txt >&2 || exit 2

    say "npm: the TypeScript SDK server (target/actionability/ts)"
    bash scripts/npm-install actionability/servers/ts "$out/ts" >&2 || exit 2
    cp actionability/servers/ts/server.mjs "$out/ts/"

    say "the FastMCP server (target/actionability/fastmcp/venv)"
    bash scripts/venv-install "$out/fastmcp/venv" actionability/servers/fastmcp/requirements.txt >&2 || exit 2
}

stack_arguments() {
    stack_args=()
    cart_args=()
    IFS=',' read -r -a chosen <<<"$stacks"
    for stack in "${chosen[@]}"; do
        case "$stack" in
            ours) stack_args+=(--stack "ours=$fusion serve --example actionability --stdio")
                cart_args+=(--cart-stack "ours=${cart:-}") ;;
            ts-sdk) stack_args+=(--stack "ts-sdk=node $out/ts/server.mjs")
                cart_args+=(--cart-stack "ts-sdk=node $out/ts/server.mjs --cart") ;;
            fastmcp) stack_args+=(--stack "fastmcp=$out/fastmcp/venv/bin/python $root/actionability/servers/fastmcp/server.py")
                cart_args+=(--cart-stack "fastmcp=$out/fastmcp/venv/bin/python $root/actionability/servers/fastmcp/server.py --cart") ;;
            rmcp) stack_args+=(--stack "rmcp=$rmcp_server")
                cart_args+=(--cart-stack "rmcp=$rmcp_server --cart") ;;
            ours-rmcp) stack_args+=(--stack "ours-rmcp=$rmcp_server --adapter") ;;
            *) echo "run.sh: unknown stack $stack (ours, ts-sdk, fastmcp, rmcp, ours-rmcp)" >&2; exit 2 ;;
        esac
    done
}
