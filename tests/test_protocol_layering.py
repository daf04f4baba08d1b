"""Protocol decisions are made only in ``mcpkit.protocol`` (and the wire data in ``mcpkit.types``).

``lint-imports`` keeps the layers' imports in order; this test keeps their *knowledge* in order.
It reads every other module's syntax tree and fails on a reintroduced copy of a protocol rule:

* spelling an ``io.modelcontextprotocol/*`` key (they are named once, in ``mcpkit.types.meta``);
* reading a ``_meta`` key that decides the era or the request's terms (protocol version, client
  capabilities and info, log level), a ``progressToken`` or a cancel's ``requestId`` by hand,
  instead of through ``mcpkit.protocol`` (``request_era``, ``parse_request_meta``,
  ``progress_token_of``, ``cancelled_request_id``, ``ProgressTracker``...);
* comparing protocol revisions as strings (``version < "2025-06-18"``, ``max(versions)``)
  instead of in release order (``at_least``, ``newest``, ``release_key``);
* deciding the handshake by hand: comparing a method with ``"initialize"`` or
  ``"notifications/initialized"``, or setting a lifecycle's ``state`` (what may happen before,
  during and after the handshake is ``mcpkit.protocol._lifecycle``'s, through the connection
  objects). The few modules that need the method for something else are listed in
  :data:`ALLOWED` with the reason;
* running a lifecycle without a connection object: feeding one a received message or building
  one (every transport, stateless HTTP requests included, runs on a ``ServerConnection``), and
  the dispatcher touching a lifecycle at all.

Writing a key into a message being built (``meta[keys.PROGRESS_TOKEN] = id``, a dict display) is
not a decision and stays allowed. Docstrings are not code and are skipped.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

SRC: Final = Path(__file__).resolve().parent.parent / "src" / "mcpkit"
RULE_HOMES: Final = (SRC / "protocol", SRC / "types")

DECISION_KEY_NAMES: Final = frozenset(
    {
        "PROTOCOL_VERSION_KEY",
        "CLIENT_CAPABILITIES_KEY",
        "CLIENT_INFO_KEY",
        "LOG_LEVEL_KEY",
        "PROGRESS_TOKEN_KEY",
        "PROTOCOL_VERSION",
        "CLIENT_CAPABILITIES",
        "CLIENT_INFO",
        "LOG_LEVEL",
        "PROGRESS_TOKEN",
    }
)
"""Names under which the protocol layer exports the deciding keys."""
META_MODULE_ALIASES: Final = frozenset({"keys", "meta", "protocol"})
"""How modules name ``mcpkit.types.meta`` / ``mcpkit.protocol`` when they read a key from them."""
DECISION_KEY_STRINGS: Final = frozenset({"progressToken", "requestId"})
REVISION: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$")
HANDSHAKE_METHODS: Final = frozenset({"initialize", "notifications/initialized"})
HANDSHAKE_NAMES: Final = frozenset({"INITIALIZE", "INITIALIZED"})
HANDSHAKE_BY_METHOD: Final = "decides by the handshake's method"
HANDSHAKE_STATE: Final = "sets a lifecycle's state by hand"
ALLOWED: Final[dict[str, dict[str, str]]] = {
    "contrib/otel/_telemetry.py": {
        HANDSHAKE_BY_METHOD: "telemetry notes which server a session belongs to when it sees "
        "initialize: it observes, and decides nothing about the conversation",
    },
    "transports/http/_client/legacy.py": {
        HANDSHAKE_BY_METHOD: "the Streamable HTTP client's session mechanics: the initialize "
        "POST carries no session id and its answer assigns one, the GET stream opens once "
        "notifications/initialized went out; the handshake itself is decided by the client's "
        "negotiation (client/_negotiate.py, moving onto ClientConnection)",
    },
    "server/_request.py": {
        HANDSHAKE_STATE: "restores a lifecycle snapshot another worker took (a shared session "
        "store): data the lifecycle itself produced, not a new decision",
    },
}
"""Module (relative to ``src/mcpkit``) → kind of finding it may have → why it is not a copy of
a protocol rule."""
ORDERING: Final = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def modules() -> list[Path]:
    return sorted(
        path
        for path in SRC.rglob("*.py")
        if not any(path.is_relative_to(home) for home in RULE_HOMES)
    )


def docstring_nodes(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                found.add(id(body[0].value))
        # an attribute docstring: a bare string right after an assignment
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                for statement in statements:
                    if (
                        isinstance(statement, ast.Expr)
                        and isinstance(statement.value, ast.Constant)
                        and isinstance(statement.value.value, str)
                    ):
                        found.add(id(statement.value))
    return found


def is_decision_key(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in DECISION_KEY_STRINGS or node.value.startswith(
            "io.modelcontextprotocol/"
        )
    if isinstance(node, ast.Name):
        return node.id in DECISION_KEY_NAMES
    if isinstance(node, ast.Attribute):  # keys.PROTOCOL_VERSION, not otel's attr.PROTOCOL_VERSION
        return (
            node.attr in DECISION_KEY_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id in META_MODULE_ALIASES
        )
    return False


def names_a_version(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return "version" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "version" in node.attr.lower()
    return False


def names_a_handshake_method(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in HANDSHAKE_METHODS
    if isinstance(node, ast.Name | ast.Attribute):  # protocol.lifecycle's INITIALIZE(D)
        return (node.id if isinstance(node, ast.Name) else node.attr) in HANDSHAKE_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(names_a_handshake_method(element) for element in node.elts)
    return False


def is_lifecycle_state(target: ast.AST) -> bool:
    """``lifecycle.state = ...`` / ``conn.lifecycle.state = ...``."""
    if not (isinstance(target, ast.Attribute) and target.attr == "state"):
        return False
    owner = target.value
    return (isinstance(owner, ast.Name) and owner.id == "lifecycle") or (
        isinstance(owner, ast.Attribute) and owner.attr == "lifecycle"
    )


def violations(source: str) -> Iterator[tuple[int, str]]:
    """Each (line, what) in ``source`` that makes a protocol decision outside the protocol."""
    tree = ast.parse(source)
    docstrings = docstring_nodes(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("io.modelcontextprotocol/")
            and id(node) not in docstrings
        ):
            yield node.lineno, f"spells the key {node.value!r} (use mcpkit.types.meta)"
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if is_decision_key(node.slice):
                yield node.lineno, "reads a protocol _meta/progress/cancel key by subscript"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop") and node.args and is_decision_key(node.args[0]):
                if node.func.attr == "pop" and isinstance(node.args[0], ast.Name | ast.Attribute):
                    continue  # removing our own key from a dict we build is not a decision
                yield node.lineno, f"reads a protocol key with .{node.func.attr}()"
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(op, ast.In | ast.NotIn) for op in node.ops) and is_decision_key(
                node.left
            ):
                yield node.lineno, "tests for a protocol key (era detection is request_era)"
            if any(isinstance(op, ORDERING) for op in node.ops) and any(
                isinstance(o, ast.Constant) and isinstance(o.value, str) and REVISION.match(o.value)
                for o in operands
            ):
                yield node.lineno, "compares a protocol revision as a string (use at_least)"
        if isinstance(node, ast.Compare) and any(
            names_a_handshake_method(o) for o in (node.left, *node.comparators)
        ):
            yield node.lineno, f"{HANDSHAKE_BY_METHOD} (the lifecycle is protocol.lifecycle's)"
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(is_lifecycle_state(target) for target in targets):
                yield node.lineno, f"{HANDSHAKE_STATE} (use the lifecycle's own methods)"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("max", "min", "sorted")
            and node.args
            and names_a_version(node.args[0])
            and not any(keyword.arg == "key" for keyword in node.keywords)
        ):
            yield node.lineno, f"{node.func.id}() of revisions as strings (use newest/release_key)"


def allowed(path: Path, what: str) -> bool:
    kinds = ALLOWED.get(path.relative_to(SRC).as_posix(), {})
    return any(what.startswith(kind) for kind in kinds)


def scan() -> list[str]:
    return [
        f"{path.relative_to(SRC.parent)}:{line}: {what}"
        for path in modules()
        for line, what in violations(path.read_text(encoding="utf-8"))
        if not allowed(path, what)
    ]


def test_no_module_outside_the_protocol_makes_a_protocol_decision() -> None:
    # In a fresh interpreter: after another test met a RecursionError (deeply nested JSON),
    # CPython 3.11's ast.parse can fail with "AST constructor recursion depth mismatch".
    child = subprocess.run(
        [sys.executable, __file__], capture_output=True, text=True, timeout=120, check=False
    )
    assert child.returncode == 0, child.stderr
    found = [line for line in child.stdout.splitlines() if line]
    assert not found, "protocol decisions outside mcpkit.protocol:\n" + "\n".join(found)


def test_every_allowance_is_still_needed() -> None:
    """An entry of :data:`ALLOWED` whose module no longer does what it excuses must go, so the
    list stays the honest inventory of what is left outside the protocol."""
    child = subprocess.run(  # a fresh interpreter, as above
        [sys.executable, __file__, "--stale"], capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert child.returncode == 0, child.stderr
    stale = [line for line in child.stdout.splitlines() if line]
    assert not stale, "remove from ALLOWED:\n" + "\n".join(stale)


def stale_allowances() -> list[str]:
    stale = []
    for name, kinds in ALLOWED.items():
        found = [what for _, what in violations((SRC / name).read_text(encoding="utf-8"))]
        stale += [f"{name}: {kind}" for kind in kinds if not any(w.startswith(kind) for w in found)]
    return stale


def test_the_scan_covers_the_consumers() -> None:
    scanned = {path.relative_to(SRC).as_posix() for path in modules()}
    for consumer in (
        "_runtime/session.py",
        "server/_dispatch.py",
        "server/_context.py",
        "transports/http/_server/endpoint.py",
        "transports/http/_server/legacy_sessions.py",
        "client/_channel.py",
    ):
        assert consumer in scanned
    assert not any(name.startswith(("protocol/", "types/")) for name in scanned)


@pytest.mark.parametrize(
    "copy",
    [
        # era detection, the way it used to be coded in the dispatcher and the HTTP endpoint
        'meta = params.get("_meta")\nmodern = PROTOCOL_VERSION_KEY in meta\n',
        'x = meta.get("io.modelcontextprotocol/protocolVersion")\n',
        "x = meta[keys.LOG_LEVEL]\n",
        'KEY = "io.modelcontextprotocol/subscriptionId"\n',
        # progress and cancellation fields read by hand
        'token = meta.get("progressToken")\n',
        'if p["progressToken"] == request_id:\n    pass\n',
        'state.cancel((message.params or {}).get("requestId"))\n',
        # revisions compared as strings
        'if version >= "2025-06-18":\n    pass\n',
        'old = "2025-11-25" > info.protocol_version\n',
        "best = max(config.legacy_versions)\n",
        "ordered = sorted(supported_versions, reverse=True)\n",
        # the handshake decided by hand
        'if request.method == "initialize":\n    pass\n',
        'if note.method in ("notifications/initialized", "ping"):\n    pass\n',
        "connection.lifecycle.state = ServerState.OPERATING\n",
        "lifecycle.state = ServerState.AWAITING_INITIALIZE\n",
        "if message.method != lifecycle.INITIALIZED:\n    pass\n",
    ],
)
def test_a_reintroduced_copy_is_caught(copy: str) -> None:
    assert list(violations(copy)), copy


@pytest.mark.parametrize(
    "fine",
    [
        '"""Reads ``_meta["io.modelcontextprotocol/related-task"]``."""\n',
        "meta[keys.PROGRESS_TOKEN] = request_id\n",
        "body = {SUBSCRIPTION_ID: sid}\n",
        "meta.pop(PROGRESS_TOKEN_KEY, None)\n",
        "if attr.PROTOCOL_VERSION not in attributes:\n    pass\n",  # another vocabulary's name
        "if at_least(version, '2025-06-18'):\n    pass\n",
        "best = newest(config.legacy_versions)\n",
        "ordered = sorted(supported_versions, key=release_key)\n",
        'raise UsageError(f"a 2026 request needs _meta[{PROTOCOL_VERSION_KEY!r}]")\n',
        'handlers = {"initialize": on_initialize}\n',  # naming a method decides nothing
        'Request(0, "initialize", params)\n',
        "state = lifecycle.state\n",
    ],
)
def test_building_messages_is_not_a_decision(fine: str) -> None:
    assert not list(violations(fine)), fine


GATING_CALLS: Final = frozenset(
    {
        "accept_legacy_offer",
        "negotiate_legacy",
        "require_server_capability",
        "require_client_capability",
        "require_sampling",
        "require_elicitation_mode",
        "refuse_undeclared_question",
    }
)
"""The handshake's version checks and capability gating: the connection objects apply them."""
GATING_CALL_HOMES: Final = {
    # a 2026 input request travels inside a result, not through a connection: the side that
    # builds it (the server's Context) and the side that answers it (the client's Questions)
    # apply the same protocol function the connections use
    "client/_questions.py": frozenset({"refuse_undeclared_question"}),
    "server/_context.py": frozenset(
        {"require_elicitation_mode", "require_sampling", "require_client_capability"}
    ),
}


def gating_calls(source: str) -> Iterator[tuple[int, str]]:
    """Each (line, name) in ``source`` that checks a handshake or a capability by hand."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in GATING_CALLS:
                yield node.lineno, name


def test_handshake_and_capability_checks_are_left_to_the_connection() -> None:
    """The negotiated revision and capability gating of both roles live in ``ServerConnection``
    / ``ClientConnection``: no other module calls the checks they are made of."""
    found = [
        f"{path.relative_to(SRC).as_posix()}:{line}: calls {name}()"
        for path in modules()
        for line, name in gating_calls(path.read_text(encoding="utf-8"))
        if name not in GATING_CALL_HOMES.get(path.relative_to(SRC).as_posix(), frozenset())
    ]
    assert not found, "handshake/capability checks outside the connection:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "copy",
    [
        "require_server_capability(self.server_capabilities, 'prompts/get')\n",
        "version = accept_legacy_offer(result.get('protocolVersion'), versions)\n",
        "capabilities.require_sampling(declared, params)\n",
    ],
)
def test_a_reintroduced_gate_is_caught(copy: str) -> None:
    assert list(gating_calls(copy)), copy


LIFECYCLES: Final = frozenset({"ServerLifecycle", "ClientLifecycle"})
ENGINE_BYPASSES: Final = frozenset({"engine_admits", "assume_operating"})
"""Names of the old way around the engine: a flag telling the dispatcher to feed the lifecycle
itself (a stateless HTTP request had no connection), and the mutator that faked its handshake."""


def owns_a_lifecycle(node: ast.AST) -> bool:
    """``lifecycle`` / ``x.lifecycle``: an expression naming a lifecycle object."""
    return (isinstance(node, ast.Name) and node.id == "lifecycle") or (
        isinstance(node, ast.Attribute) and node.attr == "lifecycle"
    )


def lifecycle_bypasses(source: str) -> Iterator[tuple[int, str]]:
    """Each (line, what) in ``source`` that runs a lifecycle without a connection object: feeds
    it a received message, builds one, or names the old bypass of the engine."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "receive"
                and owns_a_lifecycle(func.value)
            ):
                yield node.lineno, "feeds a lifecycle a received message"
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in LIFECYCLES:
                yield node.lineno, f"builds a {name} that no connection runs"
        if isinstance(node, ast.Attribute) and node.attr in ENGINE_BYPASSES:
            yield node.lineno, f"uses {node.attr}"


def test_every_lifecycle_is_run_by_a_connection() -> None:
    """Every transport feeds what it reads to a ``ServerConnection`` / ``ClientConnection``
    (stdio, memory, HTTP sessions and stateless HTTP requests alike): no other module builds a
    lifecycle or feeds one, so the handshake's decisions have one home."""
    found = [
        f"{path.relative_to(SRC).as_posix()}:{line}: {what}"
        for path in modules()
        for line, what in lifecycle_bypasses(path.read_text(encoding="utf-8"))
    ]
    assert not found, "lifecycles run outside a connection:\n" + "\n".join(found)


def test_the_dispatcher_never_touches_a_lifecycle() -> None:
    """The dispatcher serves what a connection admitted: it reads the revision and the client's
    declarations from the server's per-session state and makes no lifecycle or admission
    decision of its own (not even for a stateless HTTP request)."""
    tree = ast.parse((SRC / "server" / "_dispatch.py").read_text(encoding="utf-8"))
    touches = [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Attribute) and node.attr in {"lifecycle", *ENGINE_BYPASSES})
        or (isinstance(node, ast.Name) and node.id in LIFECYCLES)
    ]
    assert not touches, f"server/_dispatch.py touches a lifecycle on lines {touches}"


@pytest.mark.parametrize(
    "copy",
    [
        "connection.lifecycle.receive(request)\n",
        "lifecycle.receive(Notification(method, params))\n",
        "self.lifecycle = ServerLifecycle(supported_versions)\n",
        "if not connection.engine_admits:\n    pass\n",
        "lifecycle.assume_operating(version)\n",
    ],
)
def test_a_lifecycle_run_by_hand_is_caught(copy: str) -> None:
    assert list(lifecycle_bypasses(copy)), copy


@pytest.mark.parametrize(
    "fine",
    [
        "state = conn.lifecycle.state\n",
        "connection = server.new_connection(lifecycle=engine.lifecycle)\n",
        "event = engine.receive(message)\n",
        "engine = ServerConnection.for_stateless_request(version)\n",
    ],
)
def test_running_a_connection_is_fine(fine: str) -> None:
    assert not list(lifecycle_bypasses(fine)), fine


if __name__ == "__main__":
    print("\n".join(stale_allowances() if "--stale" in sys.argv else scan()))
