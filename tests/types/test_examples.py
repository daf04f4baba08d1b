"""Every worked example of the 2026-07-28 spec decodes into its model and re-encodes unchanged.

Folders are ``examples/<TypeName>/*.json``. ``<X>Response`` folders are JSON-RPC result envelopes
whose ``result`` decodes through the method table (so ``resultType`` picks the model); the
``<X>Error`` folders are error objects or whole error responses. A folder with no model fails the
test: the list of covered types is whatever the spec ships.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

import mcpkit.types as t
from _schema_check import SPEC_DIR
from mcpkit.protocol import _errors as errors
from mcpkit.types._jsonrpc import ErrorObject, ErrorResponse, Response, message_to_dict

SPEC = SPEC_DIR
EXAMPLES = SPEC / "2026-07-28" / "examples"
MODERN = "2026-07-28"

EXAMPLE_FILES = sorted(EXAMPLES.glob("*/*.json"))

ERROR_CODES: dict[str, int] = {
    "ParseError": errors.PARSE_ERROR,
    "InvalidParamsError": errors.INVALID_PARAMS,
    "InternalError": errors.INTERNAL_ERROR,
    "MethodNotFoundError": errors.METHOD_NOT_FOUND,
    "HeaderMismatchError": errors.HEADER_MISMATCH,
    "MissingRequiredClientCapabilityError": errors.MISSING_REQUIRED_CLIENT_CAPABILITY,
    "UnsupportedProtocolVersionError": errors.UNSUPPORTED_PROTOCOL_VERSION,
}
ERROR_DATA: dict[str, Any] = {
    "MissingRequiredClientCapabilityError": t.MissingRequiredClientCapabilityData,
    "UnsupportedProtocolVersionError": t.UnsupportedProtocolVersionData,
}


def _method_for_result(model: Any) -> t.MethodSpec:
    matches = [
        spec
        for spec in t.methods_for(MODERN).values()
        if spec.kind == "request" and spec.result is model
    ]
    assert len(matches) == 1, f"no single 2026-07-28 request returns {model!r}: {matches}"
    return matches[0]


def _roundtrip(model: Any, obj: Any) -> Any:
    value = t.decode(model, obj)
    assert t.to_wire(value) == obj
    # The encoded bytes decode back to the same JSON as well (no builtins-only artefacts).
    assert json.loads(msgspec.json.encode(value)) == obj
    return value


def test_the_examples_folder_is_there() -> None:
    assert len(EXAMPLE_FILES) > 100, f"spec examples not found under {EXAMPLES}"


@pytest.mark.parametrize(
    "path", EXAMPLE_FILES, ids=[f"{p.parent.name}/{p.stem}" for p in EXAMPLE_FILES]
)
def test_example_roundtrips(path: Path) -> None:
    obj = json.loads(path.read_text(encoding="utf-8"))
    name = path.parent.name
    if name.endswith("Response") and name[: -len("Response")] in t.__all__:
        envelope = msgspec.convert(obj, Response)
        spec = _method_for_result(getattr(t, name[: -len("Response")]))
        result = t.decode_result(spec, envelope.result)
        assert t.to_wire(result) == envelope.result
        assert message_to_dict(Response(id=envelope.id, result=t.to_wire(result))) == obj
    elif name in ERROR_CODES:
        if "jsonrpc" in obj:
            response = msgspec.convert(obj, ErrorResponse)
            assert message_to_dict(response) == obj
            error = response.error
        else:
            error = msgspec.convert(obj, ErrorObject)
            assert t.to_wire(error) == obj
        assert error.code == ERROR_CODES[name]
        if name in ERROR_DATA:
            _roundtrip(ERROR_DATA[name], error.data)
    else:
        assert name in t.__all__, f"no model named {name} in mcpkit.types"
        value = _roundtrip(getattr(t, name), obj)
        if isinstance(value, msgspec.Struct):
            assert type(value).__name__ == name


def test_input_responses_decode_by_the_method_they_answer() -> None:
    """``InputResponses`` values carry no tag: the keys of the matching ``InputRequests``
    example say which model each one is."""
    requests = json.loads(next((EXAMPLES / "InputRequests").glob("*.json")).read_text())
    responses = json.loads(next((EXAMPLES / "InputResponses").glob("*.json")).read_text())
    typed_requests = t.decode(t.InputRequests, requests)
    assert set(typed_requests) == set(responses)
    for key, request in typed_requests.items():
        answer = t.decode_input_response(type(request).__struct_config__.tag, responses[key])
        assert t.to_wire(answer) == responses[key]
    assert isinstance(
        t.decode_input_response("elicitation/create", responses["github_login"]), t.ElicitResult
    )
    assert isinstance(
        t.decode_input_response("sampling/createMessage", responses["capital_of_france"]),
        t.CreateMessageResult,
    )
