"""The contract: generated code is current, and the .proto files are buf-lint clean."""

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"
GENERATED = PROTO / "unoplay" / "v1"
BUF_VERSION = "1.75.0"


def generate(out: Path) -> None:
    """Run the same protoc command as `make proto`, into ``out``."""
    protos = sorted(str(p.relative_to(PROTO)) for p in GENERATED.glob("*.proto"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{PROTO}",
            f"--python_out={out}",
            f"--pyi_out={out}",
            f"--grpc_python_out={out}",
            *protos,
        ],
        check=True,
        cwd=PROTO,
        timeout=120,
    )


def test_generated_code_is_not_stale(tmp_path):
    generate(tmp_path)
    fresh = tmp_path / "unoplay" / "v1"
    made = sorted(p.name for p in fresh.iterdir())
    committed = sorted(
        p.name
        for p in GENERATED.iterdir()
        if p.suffix in (".py", ".pyi") and p.name != "__init__.py"
    )
    assert made == committed, "run `make proto` and commit the result"
    stale = [
        name for name in made if not filecmp.cmp(fresh / name, GENERATED / name, shallow=False)
    ]
    assert not stale, f"stale generated files {stale}: run `make proto` and commit the result"


def test_proto_files_pass_buf_lint():
    buf = shutil.which("buf")
    command = [buf, "lint"] if buf else None
    if command is None:
        npx = shutil.which("npx")
        if npx is None:
            pytest.skip(
                "buf lint needs `buf` or Node's `npx` (to fetch @bufbuild/buf); neither is installed"
            )
        command = [npx, "--yes", f"@bufbuild/buf@{BUF_VERSION}", "lint"]
    result = subprocess.run(command, cwd=PROTO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
