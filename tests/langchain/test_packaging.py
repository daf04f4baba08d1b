"""The LangChain bridge is an optional extra: nothing else imports it."""

from __future__ import annotations

import subprocess
import sys


def test_importing_mcpkit_does_not_import_langchain() -> None:
    code = (
        "import sys, mcpkit, mcpkit.server, mcpkit.client, mcpkit.testing\n"
        "bad = [m for m in sys.modules if m.startswith(('langchain', 'langgraph'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_public_names_exist() -> None:
    import mcpkit.contrib.langchain as bridge

    assert len(bridge.__all__) == len(set(bridge.__all__))
    for name in bridge.__all__:
        assert hasattr(bridge, name), name
