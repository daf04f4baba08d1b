"""Behaviour of the wire models beyond the spec examples: legacy shapes, the tricky unions, the
absent/null distinction, and that building with the precise classes gives valid JSON."""

from __future__ import annotations

import msgspec
import pytest

import mcpkit.types as t


def test_content_blocks_decode_by_type() -> None:
    blocks = t.decode(
        list[t.ContentBlock],
        [
            {"type": "text", "text": "a"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
            {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///x", "name": "x"},
            {"type": "resource", "resource": {"uri": "file:///x", "blob": "AA=="}},
        ],
    )
    assert [type(b) for b in blocks] == [
        t.TextContent,
        t.ImageContent,
        t.AudioContent,
        t.ResourceLink,
        t.EmbeddedResource,
    ]
    assert isinstance(blocks[3], t.Resource)  # a link is a resource descriptor with a type
    assert not blocks[4].resource.is_text


def test_unknown_content_type_is_rejected_with_a_path() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.content\[0\]"):
        t.decode(t.CallToolResult, {"content": [{"type": "video", "data": "x"}]})


def test_sampling_blocks_are_not_tool_blocks() -> None:
    with pytest.raises(msgspec.ValidationError):
        t.decode(
            t.CallToolResult,
            {"content": [{"type": "tool_use", "id": "1", "name": "n", "input": {}}]},
        )
    message = t.decode(
        t.SamplingMessage,
        {"role": "assistant", "content": {"type": "tool_use", "id": "1", "name": "n", "input": {}}},
    )
    assert isinstance(message.content, t.ToolUseContent)


def test_structured_content_is_none_when_absent() -> None:
    absent = t.decode(t.CallToolResult, {"content": []})
    assert absent.structured_content is None
    null = t.decode(t.CallToolResult, {"content": [], "structuredContent": None})
    assert null.structured_content is None
    assert t.to_wire(absent) == {"content": []}
    failed = t.decode(t.CallToolResult, {"content": [], "isError": True})
    assert failed.is_error is True
    assert t.to_wire(failed) == {"content": [], "isError": True}
    scalar = t.to_wire(t.CallToolResult(content=[], structured_content=42, result_type="complete"))
    assert scalar == {"content": [], "structuredContent": 42, "resultType": "complete"}


def test_false_survives_and_none_is_omitted() -> None:
    result = t.CallToolResult(content=[], is_error=False)
    assert t.to_wire(result) == {"content": [], "isError": False}
    assert t.to_wire(t.CallToolResult(content=[])) == {"content": []}


def test_meta_keeps_unknown_keys() -> None:
    obj = {"content": [], "_meta": {"com.example/x": [1], "traceparent": "00-abc"}}
    assert t.to_wire(t.decode(t.CallToolResult, obj)) == obj


def test_resource_contents_subclasses_require_their_payload() -> None:
    assert t.to_wire(t.TextResourceContents(uri="u", text="x")) == {"uri": "u", "text": "x"}
    with pytest.raises(msgspec.ValidationError, match="blob"):
        t.decode(t.BlobResourceContents, {"uri": "u", "text": "x"})
    read = t.decode(t.ReadResourceResult, {"contents": [{"uri": "u", "text": "x"}]})
    assert read.contents[0].is_text and read.contents[0].text == "x"


def test_legacy_task_shapes() -> None:
    task = {
        "taskId": "t",
        "status": "working",
        "createdAt": "c",
        "lastUpdatedAt": "c",
        "ttl": None,
        "pollInterval": 500,
    }
    created = t.decode(t.CreateTaskResult, {"task": task})
    assert created.task.ttl is None
    assert t.to_wire(created) == {"task": task}  # a null ttl is written, not dropped
    assert t.to_wire(t.decode(t.GetTaskResult, task | {"_meta": {}})) == task | {"_meta": {}}


def test_extension_tasks_decode_by_status() -> None:
    base = {
        "taskId": "t",
        "createdAt": "c",
        "lastUpdatedAt": "c",
        "ttlMs": 1000,
        "resultType": "complete",
    }
    failed = t.decode(
        t.DetailedTask, base | {"status": "failed", "error": {"code": -32603, "message": "boom"}}
    )
    assert isinstance(failed, t.FailedTask)
    assert failed.status == "failed"
    assert failed.error.code == -32603
    asking = t.decode(
        t.DetailedTask,
        base | {"status": "input_required", "inputRequests": {"k": {"method": "roots/list"}}},
    )
    assert isinstance(asking, t.InputRequiredTask)
    assert isinstance(asking.input_requests["k"], t.ListRootsRequest)
    with pytest.raises(msgspec.ValidationError):
        t.decode(t.DetailedTask, base | {"status": "completed"})  # no result
    created = t.ExtCreateTaskResult(
        task_id="t", status="working", created_at="c", last_updated_at="c", ttl_ms=None
    )
    assert t.to_wire(created)["resultType"] == "task"


def test_input_required_result_always_writes_its_result_type() -> None:
    assert t.to_wire(t.InputRequiredResult(request_state="s")) == {
        "resultType": "input_required",
        "requestState": "s",
    }
    with pytest.raises(msgspec.ValidationError):
        t.decode(t.InputRequiredResult, {"resultType": "complete"})


def test_input_requests_are_bare_method_and_params() -> None:
    request = t.CreateMessageRequest(
        params=t.CreateMessageRequestParams(
            messages=[t.SamplingMessage(role="user", content=t.TextContent(text="hi"))],
            max_tokens=10,
        )
    )
    assert t.to_wire(request) == {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
            "maxTokens": 10,
        },
    }
    legacy = t.CreateMessageRequest(jsonrpc="2.0", id=3, params=request.params)
    assert t.to_wire(legacy)["id"] == 3 and t.to_wire(legacy)["jsonrpc"] == "2.0"


def test_json_rpc_request_models_always_write_jsonrpc() -> None:
    assert t.to_wire(t.PingRequest(id=1)) == {"method": "ping", "jsonrpc": "2.0", "id": 1}
    note = t.ToolListChangedNotification()
    assert t.to_wire(note) == {"method": "notifications/tools/list_changed", "jsonrpc": "2.0"}


def test_client_request_union_picks_by_method() -> None:
    request = t.decode(
        t.ClientRequest,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}},
    )
    assert isinstance(request, t.CallToolRequest) and request.params.name == "x"
    with pytest.raises(msgspec.ValidationError):
        t.decode(t.ClientRequest, {"jsonrpc": "2.0", "id": 1, "method": "nope"})


def test_elicitation_params_decode_either_mode() -> None:
    form = t.decode(
        t.ElicitRequestParams,
        {
            "message": "m",
            "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}},
        },
    )
    assert not form.is_url and form.requested_schema is not None
    url = t.decode(
        t.ElicitRequestParams,
        {"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"},
    )
    assert url.is_url and url.elicitation_id == "e"
    with pytest.raises(msgspec.ValidationError, match="requestedSchema"):
        t.decode(t.ElicitRequestFormParams, {"message": "m"})
    built = t.ElicitRequestURLParams(mode="url", message="m", url="https://x")
    assert t.to_wire(built) == {"mode": "url", "message": "m", "url": "https://x"}


@pytest.mark.parametrize(
    ("schema", "model"),
    [
        ({"type": "string", "format": "email"}, t.StringSchema),
        ({"type": "integer", "minimum": 1}, t.NumberSchema),
        ({"type": "boolean", "default": True}, t.BooleanSchema),
        ({"type": "string", "enum": ["a"]}, t.UntitledSingleSelectEnumSchema),
        ({"type": "string", "enum": ["a"], "enumNames": ["A"]}, t.LegacyTitledEnumSchema),
        (
            {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
            t.TitledSingleSelectEnumSchema,
        ),
        (
            {"type": "array", "items": {"type": "string", "enum": ["a"]}},
            t.UntitledMultiSelectEnumSchema,
        ),
        (
            {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
            t.TitledMultiSelectEnumSchema,
        ),
    ],
)
def test_primitive_schema_variants(schema: dict[str, object], model: type) -> None:
    value = t.primitive_schema(schema)
    assert type(value) is model
    assert t.to_wire(value) == schema


def test_primitive_schema_rejects_nesting() -> None:
    with pytest.raises(msgspec.ValidationError):
        t.primitive_schema({"type": "object", "properties": {}})


def test_elicit_result_content_keeps_value_types() -> None:
    obj = {"action": "accept", "content": {"s": "x", "i": 3, "f": 1.5, "b": True, "m": ["a"]}}
    result = t.decode(t.ElicitResult, obj)
    assert result.content == obj["content"]
    assert type(result.content["i"]) is int  # type: ignore[index]


def test_legacy_2024_shapes_decode() -> None:
    init = t.decode(
        t.InitializeRequestParams,
        {
            "protocolVersion": "2024-11-05",
            "capabilities": {"roots": {"listChanged": True}, "sampling": {}},
            "clientInfo": {"name": "c", "version": "1"},
        },
    )
    assert init.capabilities.roots is not None and init.capabilities.roots.list_changed
    ref = t.decode(
        t.CompleteRequestParams,
        {
            "ref": {"type": "ref/resource", "uri": "x://{id}"},
            "argument": {"name": "id", "value": "1"},
        },
    )
    assert isinstance(ref.ref, t.ResourceReference)
    progress = t.decode(t.ProgressNotificationParams, {"progressToken": "p", "progress": 1})
    assert progress.message is None and progress.progress == 1


def test_tool_keeps_schemas_verbatim() -> None:
    tool = {
        "name": "n",
        "inputSchema": {
            "type": "object",
            "$defs": {"a": {}},
            "properties": {"x": {"$ref": "#/$defs/a", "x-mcp-header": "X"}},
        },
        "outputSchema": {"type": "array"},
        "execution": {"taskSupport": "optional"},
        "annotations": {"readOnlyHint": True},
    }
    assert t.to_wire(t.decode(t.Tool, tool)) == tool


def test_wrong_scalar_types_are_not_coerced() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.name"):
        t.decode(t.CallToolRequestParams, {"name": 5})
    with pytest.raises(msgspec.ValidationError):
        t.decode(t.PaginatedRequestParams, {"cursor": 3})
