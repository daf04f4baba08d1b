"""Installing mcpkit as a user does: ``scripts/build``'s wheel into a clean venv, then the
README's quickstart from it (not from the checkout)."""

from __future__ import annotations

import os
import subprocess
import tarfile
import zipfile
from pathlib import Path
from typing import Final

from ._blocks import PYTHON_LANGUAGES, parse_blocks
from ._install import ROOT, Installs, installs_told

RUN_TIMEOUT_S: Final = 60.0


def test_scripts_build_makes_a_wheel_and_an_sdist(installs: Installs) -> None:
    wheel = installs.wheel()
    names = zipfile.ZipFile(wheel).namelist()
    assert "mcpkit/__init__.py" in names and "mcpkit/py.typed" in names
    assert "mcpkit/cli/inspector/static/index.html" in names  # the inspector's page ships
    assert not any(name.startswith(("tests/", "examples/")) for name in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "mcpkit = mcpkit.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    (sdist,) = installs.dist.glob("mcpkit-*.tar.gz")
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
    assert any(m.endswith("/docs/cli.md") for m in members)  # where `mcpkit --help` points


def test_the_readme_quickstart_runs_from_the_installed_wheel(
    installs: Installs, tmp_path: Path
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    told = installs_told(readme)
    assert told.extras == {"cli"} and not told.packages, told  # what the README says to install
    venv = installs.venv(told)
    server = next(
        b for b in parse_blocks(Path("README.md"), readme)
        if b.language in PYTHON_LANGUAGES and b.save_as == "server.py"
    )  # fmt: skip
    (tmp_path / "server.py").write_text(server.text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MCPKIT_", "PYTHON"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    def run(*argv: str) -> str:
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S, check=False)  # fmt: skip
        assert done.returncode == 0, f"{argv}: {done.stdout}\n{done.stderr}"
        return done.stdout

    where = run("python", "-c", "import mcpkit; print(mcpkit.__file__)")
    assert Path(where.strip()).is_relative_to(venv), where  # the wheel's copy, not the checkout's
    assert run("mcpkit", "call", "server.py", "greet", "name=Ada", "times=2").strip() == (
        "Hello, Ada! Hello, Ada!"
    )
    assert "greet" in run("mcpkit", "list", "server.py")
