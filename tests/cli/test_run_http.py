"""``mcpkit run --http`` as a newcomer meets it: the endpoint URL printed, a port in use as one
line and exit 3, and a base install without the ``http`` extra told what to install — all with
real processes and a really occupied port."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys

import httpx

from ._process import Running, modern_request
from ._run import FIXTURES, MCPKIT, mcpkit

SERVER = str(FIXTURES / "failing_server.py")
STOP_TIMEOUT = 30.0

# Makes ``import httpx`` / ``import uvicorn`` fail as in an install without extras.
WITHOUT = """
import sys

class _Without:
    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _Without({names!r}))
from mcpkit.cli import main
sys.exit(main({argv!r}))
"""


def _without(names: list[str], argv: list[str]) -> list[str]:
    return [sys.executable, "-c", WITHOUT.replace("{names!r}", repr(names)).replace(
        "{argv!r}", repr(argv))]  # fmt: skip


def _serve_and_call(argv: list[str]) -> None:
    running = Running(argv)
    try:
        line = running.wait_stderr("mcpkit: serving failing-server at ")
        found = re.search(r"at (http://127\.0\.0\.1:(\d+)/mcp)$", line)
        assert found, line
        url = found.group(1)
        answer = httpx.post(
            url,
            content=modern_request(1, "tools/list"),
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": "tools/list",
            },
            timeout=STOP_TIMEOUT,
        )
        assert answer.status_code == 200, answer.text
        assert "explode" in answer.text
    finally:
        running.process.send_signal(signal.SIGINT)
        running.process.wait(STOP_TIMEOUT)


def test_run_http_prints_the_full_endpoint_url_and_serves_it() -> None:
    _serve_and_call([*MCPKIT, "run", SERVER, "--http", "--port", "0"])


def test_a_port_in_use_is_one_line_and_exit_3() -> None:
    with socket.socket() as occupier:
        occupier.bind(("127.0.0.1", 0))
        occupier.listen()
        port = occupier.getsockname()[1]
        ran = mcpkit("run", SERVER, "--http", "--port", str(port))
    assert ran.code == 3, ran
    lines = ran.err.splitlines()
    assert lines[0] == (
        f"mcpkit: error: port {port} on 127.0.0.1 is already in use (another server, or this "
        "one still running)"
    ), ran
    assert lines[1:] == [f"hint: choose another port with --port, or stop what listens on {port}"]


def test_without_the_http_extra_serving_says_what_to_install_in_one_line() -> None:
    done = subprocess.run(
        _without(["httpx", "uvicorn"], ["run", SERVER, "--http", "--port", "0"]),
        capture_output=True, text=True, timeout=STOP_TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert done.stderr.splitlines() == [
        "mcpkit: error: serving HTTP needs uvicorn, which is not installed: install mcpkit[http] "
        "(pip install 'mcpkit[http]')"
    ], done.stderr


def test_the_server_serves_http_without_the_http_client_installed() -> None:
    _serve_and_call(_without(["httpx"], ["run", SERVER, "--http", "--port", "0"]))


def test_building_the_http_app_does_not_import_httpx() -> None:
    code = (
        "import sys\n"
        "from mcpkit.server import Server\n"
        "Server('x').http_app()\n"
        "print('httpx' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=STOP_TIMEOUT, check=True)  # fmt: skip
    assert done.stdout.strip() == "False"


def _listening(argv: list[str]) -> tuple[Running, str]:
    running = Running(argv)
    line = running.wait_stderr("mcpkit: serving failing-server at ")
    found = re.search(r"at (http://127\.0\.0\.1:\d+)/mcp$", line)
    assert found, line
    return running, found.group(1)


def _stop(running: Running) -> None:
    running.process.send_signal(signal.SIGINT)
    running.process.wait(STOP_TIMEOUT)


def _from(source: str, base: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=source)
    return httpx.Client(base_url=base, transport=transport, timeout=STOP_TIMEOUT)


def _idle_sockets(source: str, base: str, count: int) -> list[socket.socket]:
    host, port = base.removeprefix("http://").split(":")
    sockets = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind((source, 0))
        sock.connect((host, int(port)))
        sockets.append(sock)
    return sockets


_LIST = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/list",
}


def test_a_peer_at_its_connection_cap_still_gets_health_checks_answered() -> None:
    """A load balancer whose address holds ``--max-connections-per-peer`` connections must
    still see the worker healthy; anything else from that address is refused."""
    running, base = _listening(
        [*MCPKIT, "run", SERVER, "--http", "--port", "0", "--max-connections-per-peer", "2"]
    )
    held = _idle_sockets("127.0.0.2", base, 2)
    try:
        with _from("127.0.0.2", base) as http:
            assert http.get("/healthz").status_code == 200
            refused = http.post("/mcp", content=modern_request(1, "tools/list"), headers=_LIST)
            assert refused.status_code == 503, refused.text
        with _from("127.0.0.3", base) as other:  # another peer is not affected
            answer = other.post("/mcp", content=modern_request(1, "tools/list"), headers=_LIST)
            assert answer.status_code == 200, answer.text
    finally:
        for sock in held:
            sock.close()
        _stop(running)


def test_a_trusted_proxy_is_not_capped_its_forwarded_clients_are() -> None:
    """``--forwarded-allow-ips``: the proxy's connections carry many clients, so they are not
    capped per address; each client it forwards (``X-Forwarded-For``) has the cap instead."""
    argv = [*MCPKIT, "run", SERVER, "--http", "--port", "0", "--max-connections-per-peer", "2"]
    running, base = _listening([*argv, "--forwarded-allow-ips", "127.0.0.2"])
    held = _idle_sockets("127.0.0.2", base, 3)
    try:
        with _from("127.0.0.2", base) as proxy:
            answer = proxy.post(
                "/mcp",
                content=modern_request(1, "tools/list"),
                headers={**_LIST, "x-forwarded-for": "203.0.113.7"},
            )
            assert answer.status_code == 200, answer.text
    finally:
        for sock in held:
            sock.close()
        _stop(running)


def test_limit_options_need_http() -> None:
    ran = mcpkit("run", SERVER, "--forwarded-allow-ips", "10.0.0.1")
    assert ran.code == 2, ran
    assert "apply to --http" in ran.err, ran


def test_max_connections_per_peer_zero_turns_the_cap_off() -> None:
    argv = [*MCPKIT, "run", SERVER, "--http", "--port", "0", "--max-connections-per-peer", "0"]
    running, base = _listening(argv)
    held = _idle_sockets("127.0.0.2", base, 110)  # beyond the default cap of 100
    try:
        with _from("127.0.0.2", base) as http:
            answer = http.post("/mcp", content=modern_request(1, "tools/list"), headers=_LIST)
            assert answer.status_code == 200, answer.text
    finally:
        for sock in held:
            sock.close()
        _stop(running)
