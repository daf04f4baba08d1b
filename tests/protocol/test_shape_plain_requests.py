"""``prepare_outbound``'s short cut for requests against ``shape_for``: the same message.

A request whose top-level params keys no shaper of the revision touches is sent as it is,
without the shaping walk. For every revision and every request method of the tables, params
made of plain keys, of keys with a shaper of their own (given values that shaper changes) and
of unknown keys must come out of ``prepare_outbound`` exactly as ``shape_for`` makes them, and
as the same object whenever ``shape_for`` leaves them unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.protocol._shape import prepare_outbound, shape_for
from mcpkit.protocol._shape_tables import TABLES
from mcpkit.types._jsonrpc import Request

pytestmark = pytest.mark.no_schema_check  # odd params on purpose: only the shaping is compared

ODD_VALUE: dict[str, Any] = {"not-in-any-schema": 1, "type": "resource_link", "uri": "x://y"}
"""A value a shaper of that key would change (an unknown field, a content type older
revisions lack); a plain key's value is sent as it is whatever it holds."""


def _candidates(node: Any) -> list[dict[str, Any]]:
    """Params to try for one method's table node."""
    if node is None or type(node) is str or node[0] != "o" or node[1] is None:
        return [{"_meta": {"k": 1}}, {"anything": ODD_VALUE}]
    allowed, children = node[1], node[2]
    plain = {key: ODD_VALUE for key in allowed if key not in children}
    tries = [dict(plain), {}, {**plain, "unknown-key": 1}]
    for key in children:
        tries.append({**plain, key: ODD_VALUE})
        tries.append({**plain, key: [ODD_VALUE]})
    return tries


CASES = [
    (revision, method, params)
    for revision, table in TABLES.items()
    for method, node in table["params"].items()
    if not method.startswith("notifications/")
    for params in _candidates(node)
]


@pytest.mark.parametrize(("revision", "method", "params"), CASES)
def test_a_request_comes_out_as_shape_for_makes_it(
    revision: str, method: str, params: dict[str, Any]
) -> None:
    request = Request(7, method, params)
    expected = shape_for(revision, Request(7, method, params), method)
    sent = prepare_outbound(request, revision, method)
    assert sent == expected
    if expected.params == params:
        assert sent is request  # unchanged: not copied either


def test_the_short_cut_is_taken_for_the_usual_tool_call() -> None:
    # the case it exists for, in every revision: name, arguments and _meta are sent as given
    for revision in TABLES:
        params = {"name": "echo", "arguments": {"content": ODD_VALUE}, "_meta": {"k": 1}}
        request = Request(1, "tools/call", params)
        assert prepare_outbound(request, revision, "tools/call") is request


def test_an_older_form_elicitation_is_still_rewritten() -> None:
    # elicitation/create is rewritten for 2025-06-18 beyond its keys: never short-cut
    schema = {
        "type": "object",
        "properties": {"c": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}},
    }
    params = {"message": "pick", "requestedSchema": schema}
    request = Request(1, "elicitation/create", params)
    sent = prepare_outbound(request, "2025-06-18", "elicitation/create")
    assert sent == shape_for("2025-06-18", request, "elicitation/create")
    assert sent is not request
