"""The negotiated revision shapes every message sent to a peer.

mcpkit builds results, requests and notifications in the newest form it knows (a tool has
``title``, ``icons``, ``outputSchema``; a result has ``structuredContent``; content can be audio
or a ``resource_link``). A peer that negotiated an older revision has a schema without those
fields, so :func:`shape_for` — called at the one point each message leaves — rewrites the message
for that revision:

* a field the revision's schema does not define is dropped (``_meta`` maps and user-written JSON
  Schemas — ``inputSchema``, ``outputSchema``, ``requestedSchema`` — are kept whole);
* a content block whose type the revision lacks is converted to text the peer can show:
  ``resource_link`` becomes a line naming the resource's URI, ``audio`` becomes a placeholder
  naming its MIME type (a revision without audio cannot carry its bytes; sending them anyway
  would break a strict peer, and failing a whole tool result over one block would lose the
  rest). See :func:`convert_content`.

A form elicitation sent to a 2025-06-18 peer gets its ``requestedSchema`` in that revision's
words: titled single-selects as ``enum`` + ``enumNames``, ``default`` on booleans only (see
:func:`_older_form`).

What is *refused* rather than shaped (a request the revision lacks: ``elicitation/create``
before 2025-06-18, URL elicitation, multi-select form fields and sampling tools before
2025-11-25) is decided where the request is made, so the tool author gets the
missing-capability error instead of a silently altered request; see :func:`request_unsupported`.

The per-revision field tables are generated from the official schemas
(``scripts/gen_shape_tables.py`` → :mod:`mcpkit.protocol._shape_tables`), so nothing here
interprets JSON Schema at runtime. Shaping copies only the objects it changes: an unchanged
message is returned as the same object, and a shared cached result (a tools listing served to
sessions of several revisions) is never mutated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from mcpkit.protocol._observe import _observers, notify_outbound
from mcpkit.protocol._shape_tables import TABLES
from mcpkit.types._base import RESULT_TYPE_COMPLETE, RESULT_TYPE_INPUT_REQUIRED, RESULT_TYPE_KEY
from mcpkit.types._jsonrpc import ErrorResponse, Message, Notification, Request, Response
from mcpkit.types._versions import ALL_VERSIONS

__all__ = [
    "convert_content",
    "prepare_outbound",
    "request_unsupported",
    "shape_for",
    "shape_result",
]

_UNCOMPILED: Final[Any] = object()
_TASK_AUGMENTABLE: Final = frozenset({"tools/call", "sampling/createMessage", "elicitation/create"})
_RANK: Final = {version: rank for rank, version in enumerate(ALL_VERSIONS)}


def _before(revision: str, first: str) -> bool:
    """``revision`` predates ``first`` (an unknown, presumably newer, revision does not)."""
    return _RANK.get(revision, len(_RANK)) < _RANK[first]


def shape_for(revision: str | None, message: Message, method: str | None = None) -> Message:
    """``message`` as the peer that negotiated ``revision`` may receive it.

    ``method`` is the message's method or, for a response, the method of the request it
    answers. With no known revision (before negotiation) or method the message is returned
    unchanged; error responses are never changed (their ``data`` is free-form).

    The newest revisions are shaped too: mcpkit's structs are a union of every revision, so it
    can build a field even 2025-11-25 lacks (``capabilities.extensions``, a 2026-07-28 field, in
    the ``initialize`` of a server or client configured with extensions), and a user's
    hand-written result may carry anything. A message that needs no change costs a walk of its
    keys and is returned as the same object.
    """
    if revision is None:
        return message
    compiled = _compiled.get(revision) or _revision(revision)
    if compiled is None:
        return message
    if isinstance(message, Response):
        if method is None:
            return message
        result = message.result
        shaped = _shape_result(compiled, revision, method, result)
        return message if shaped is result else Response(message.id, shaped)
    if isinstance(message, ErrorResponse) or message.params is None:
        return message
    shaper = compiled.params.get(message.method, _UNCOMPILED)
    if shaper is _UNCOMPILED:
        shaper = compiled.compile("params", message.method)
    if shaper is None:
        return message
    params = message.params
    shaped_params = shaper(params)
    if message.method == "elicitation/create" and _before(revision, "2025-11-25"):
        shaped_params = _older_form(shaped_params)
    if shaped_params is params:
        return message
    if isinstance(message, Request):
        return Request(message.id, message.method, shaped_params)
    return Notification(message.method, shaped_params)


def prepare_outbound(message: Message, protocol_version: str | None, method: str | None) -> Message:
    """Shape ``message`` for ``protocol_version`` and show it to the outbound observers.

    The one call every send point makes right before encoding: observers (the schema check in
    the tests, ``MCPKIT_WIRE_LOG``) see exactly what goes on the wire.
    """
    if protocol_version is None and method == "initialize":
        # the revision is named in the message itself: the answer carries the negotiated one (a
        # transport may only learn it from this very message), the request the one offered,
        # which is the revision the request must be valid in
        if isinstance(message, Response):
            named = message.result.get("protocolVersion")
        elif isinstance(message, Request) and message.params is not None:
            named = message.params.get("protocolVersion")
        else:
            named = None
        protocol_version = named if isinstance(named, str) else None
    if protocol_version is not None:
        if type(message) is Request and message.params is not None:
            # a request whose top-level keys no shaper touches (``tools/call`` with ``name``,
            # ``arguments``, ``_meta``: every request a client usually sends) is sent as is
            plain = _plain_params.get((protocol_version, message.method), _UNCOMPILED)
            if plain is _UNCOMPILED:
                plain = _plain_params_for(protocol_version, message.method)
            if plain is None or not plain.issuperset(message.params):
                message = shape_for(protocol_version, message, method)
        else:
            message = shape_for(protocol_version, message, method)
    if _observers:  # (notify_outbound's own check, without the call when nobody observes)
        notify_outbound(message, protocol_version, method)
    return message


def shape_result(revision: str, method: str, result: dict[str, Any]) -> dict[str, Any]:
    """The result of ``method`` as ``revision`` may receive it (the same object if unchanged)."""
    compiled = _revision(revision)
    return result if compiled is None else _shape_result(compiled, revision, method, result)


def _shape_result(
    compiled: _Revision, revision: str, method: str, result: dict[str, Any]
) -> dict[str, Any]:
    shaper: Shaper | None
    if (
        RESULT_TYPE_KEY in result
        and result[RESULT_TYPE_KEY] != RESULT_TYPE_COMPLETE
        and not _before(revision, "2026-07-28")
    ):
        # an input-required answer has its own definition; a task answer belongs to the Tasks
        # extension, whose definitions are outside the core schema
        if result[RESULT_TYPE_KEY] != RESULT_TYPE_INPUT_REQUIRED:
            return result
        shaper = compiled.shaper("special", "InputRequiredResult")
    elif (
        "task" in result
        and method in _TASK_AUGMENTABLE
        and compiled.has_special("CreateTaskResult")
    ):
        shaper = compiled.shaper("special", "CreateTaskResult")
    else:
        if method == "tools/call":
            plain = compiled.plain_call_keys
            if plain is not None and _plain_call_result(result, plain):
                return result  # the common answer, which no revision changes: no walk
        shaper = compiled.results.get(method, _UNCOMPILED)
        if shaper is _UNCOMPILED:
            shaper = compiled.compile("results", method)
    if shaper is None:
        return result
    shaped: dict[str, Any] = shaper(result)
    return shaped


Shaper = Callable[[Any], Any]
"""A compiled node: returns its argument unchanged (the same object) or a shaped copy."""


def _keep(value: Any) -> Any:
    return value


class _Compiler:
    """Turns one revision's table (see scripts/gen_shape_tables.py) into nested closures.

    Compiled once per revision, on first use: the hot path is then plain function calls and
    C-level set checks, with no node interpretation.
    """

    def __init__(self, revision: str, defs: dict[str, Any]) -> None:
        self.revision = revision
        self.defs = defs
        self.named: dict[str, Shaper] = {}

    def compile(self, node: Any) -> Shaper:
        if node is None:
            return _keep
        if type(node) is str:
            return self.named_shaper(node)
        tag = node[0]
        if tag == "o":
            return self.object(node[1], node[2])
        if tag == "a":
            return _array(self.compile(node[1]))
        if tag == "t":
            return self.tagged(node[1])
        if tag == "u":
            return _by_json_type(self.compile(node[1]), self.compile(node[2]))
        return _map(self.compile(node[1]))

    def named_shaper(self, name: str) -> Shaper:
        shaper = self.named.get(name)
        if shaper is None:
            cell: list[Shaper] = []
            # a placeholder first, so a recursive definition refers to itself
            self.named[name] = lambda value: cell[0](value)
            cell.append(self.compile(self.defs[name]))
            shaper = self.named[name] = cell[0]
        return shaper

    def object(self, keys: tuple[str, ...] | None, children: dict[str, Any]) -> Shaper:
        allowed = frozenset(keys) if keys is not None else None
        compiled = tuple((key, self.compile(child)) for key, child in children.items())

        def shape_object(value: Any) -> Any:
            if type(value) is not dict:
                return value
            out: dict[str, Any] | None = None
            if allowed is not None and not allowed.issuperset(value):
                out = {key: item for key, item in value.items() if key in allowed}
            for key, child in compiled:
                if key in value:
                    item = value[key]
                    new = child(item)
                    if new is not item:
                        if out is None:
                            out = dict(value)
                        out[key] = new
            return value if out is None else out

        return shape_object

    def tagged(self, branches: dict[str, Any]) -> Shaper:
        compiled = {tag: self.compile(branch) for tag, branch in branches.items()}
        text = compiled.get("text")
        revision = self.revision

        def shape_tagged(value: Any) -> Any:
            if type(value) is not dict:
                return value
            branch = compiled.get(value.get("type"))  # type: ignore[arg-type]
            if branch is not None:
                return branch(value)
            if text is None:
                return value  # not a content union: nothing to convert to
            converted = convert_content(value, revision)
            return value if converted is value else text(converted)

        return shape_tagged


def _array(item: Shaper) -> Shaper:
    def shape_array(value: Any) -> Any:
        if type(value) is not list:
            return value
        out: list[Any] | None = None
        for index, element in enumerate(value):
            new = item(element)
            if new is not element and out is None:
                out = value[:index]
            if out is not None:
                out.append(new)
        return value if out is None else out

    return shape_array


def _by_json_type(for_object: Shaper, for_array: Shaper) -> Shaper:
    def shape_either(value: Any) -> Any:
        return for_array(value) if type(value) is list else for_object(value)

    return shape_either


def _map(values: Shaper) -> Shaper:
    def shape_map(value: Any) -> Any:
        if type(value) is not dict:
            return value
        out: dict[str, Any] | None = None
        for key, item in value.items():
            new = values(item)
            if new is not item and out is None:
                out = dict(value)
            if out is not None:
                out[key] = new
        return value if out is None else out

    return shape_map


def _plain_call_result(result: dict[str, Any], keys: frozenset[str]) -> bool:
    """A ``tools/call`` result of top-level ``keys`` only, whose content blocks are all bare
    text blocks (``type`` and ``text``): what most tools return. See :func:`_plain_call_keys`."""
    if not keys.issuperset(result):
        return False
    content = result.get("content")
    if type(content) is not list:
        return False
    for block in content:
        if type(block) is not dict or len(block) != 2 or block.get("type") != "text":
            return False
        if "text" not in block:
            return False
    return True


def _plain_call_keys(table: dict[str, Any], shaper: Shaper | None) -> frozenset[str] | None:
    """The top-level keys a ``tools/call`` result may have and still need no shaping in this
    revision, when its content blocks are bare text blocks; ``None``: no such shortcut.

    Read from the revision's table: its ``CallToolResult`` must list its keys and shape only
    ``content`` (so every other key's value is passed as is), and the compiled shaper must
    return a bare text block in ``content`` unchanged (a text value is never shaped: shapers
    change only objects and arrays). The test suite checks the shortcut against the full walk
    for every revision (tests/protocol/test_shape.py).
    """
    node = table["results"].get("tools/call")
    if type(node) is str:
        node = table["defs"].get(node)
    if shaper is None or not node or node[0] != "o" or node[1] is None:
        return None
    if set(node[2]) != {"content"}:
        return None
    sample = {"content": [{"type": "text", "text": "x"}]}
    if shaper(sample) is not sample:
        return None
    return frozenset(node[1])


class _Revision:
    """The shapers of one revision, each compiled on first use.

    ``params``, ``results`` and ``special`` are plain dicts filled as methods are first sent
    (a lookup is one ``dict.get``; :data:`_UNCOMPILED` means "not compiled yet": see
    :meth:`compile`). Compiling a whole revision up front cost ~1.2 M instructions on the
    way to a server's first answer, for the two or three methods a session uses early.
    """

    __slots__ = ("_compiler", "_plain_call_keys", "_table", "params", "results", "special")

    def __init__(self, revision: str, table: dict[str, Any]) -> None:
        self._compiler = _Compiler(revision, table["defs"])
        self._table = table
        self.params: dict[str, Shaper | None] = {}
        self.results: dict[str, Shaper | None] = {}
        self.special: dict[str, Shaper | None] = {}
        self._plain_call_keys: Any = _UNCOMPILED

    def compile(self, kind: str, name: str) -> Shaper | None:
        """The shaper of ``name`` in the table's ``kind`` section (``params``, ``results``,
        ``special``), compiled and kept; ``None`` when the revision shapes nothing there."""
        node = self._table[kind].get(name, _UNCOMPILED)
        if node is _UNCOMPILED or (node is None and kind != "special"):
            shaper = None
        else:
            shaper = self._compiler.compile(node)
        shapers: dict[str, Shaper | None] = getattr(self, kind)
        shapers[name] = shaper
        return shaper

    def shaper(self, kind: str, name: str) -> Shaper | None:
        shaper = getattr(self, kind).get(name, _UNCOMPILED)
        return self.compile(kind, name) if shaper is _UNCOMPILED else shaper

    def has_special(self, name: str) -> bool:
        return name in self._table["special"]

    @property
    def plain_call_keys(self) -> frozenset[str] | None:
        keys = self._plain_call_keys
        if keys is _UNCOMPILED:
            tools_call = self.shaper("results", "tools/call")
            keys = self._plain_call_keys = _plain_call_keys(self._table, tools_call)
        return keys  # type: ignore[no-any-return]


_compiled: dict[str, _Revision] = {}

_plain_params: dict[tuple[str, str], frozenset[str] | None] = {}
"""Per (revision, method) of a request: the top-level params keys that revision's shaping
never changes, whatever their values (the object's allowed keys less those with a shaper of
their own); ``None`` when that cannot be said (no object table, a rewrite of its own). Only
methods of a known revision's table are kept: the table stays bounded."""


def _plain_params_for(revision: str, method: str) -> frozenset[str] | None:
    """Work out (and keep, for a known revision and method) :data:`_plain_params`'s entry."""
    table = TABLES.get(revision)
    if table is None or method not in table["params"]:
        return None
    node = table["params"][method]
    plain: frozenset[str] | None = None
    if (
        method != "elicitation/create"  # rewritten for older revisions beyond its keys
        and type(node) is not str
        and node is not None
        and node[0] == "o"
        and node[1] is not None
    ):
        plain = frozenset(node[1]) - frozenset(node[2])
    _plain_params[revision, method] = plain
    return plain


def _revision(revision: str) -> _Revision | None:
    compiled = _compiled.get(revision)
    if compiled is None:
        table = TABLES.get(revision)
        if table is None:
            return None
        compiled = _compiled[revision] = _Revision(revision, table)
    return compiled


def convert_content(block: dict[str, Any], revision: str) -> dict[str, Any]:
    """A text block standing in for a content ``block`` whose type ``revision`` lacks.

    ``resource_link`` → ``"<name>: <uri>"`` (the URI is what a reader needs to fetch it);
    ``audio`` → ``"[audio (<mimeType>) omitted: protocol revision <revision> cannot carry
    audio]"``. Any other unknown type is returned unchanged (nothing meaningful to convert to).
    """
    kind = block.get("type")
    if kind == "resource_link":
        uri = block.get("uri", "")
        name = block.get("title") or block.get("name")
        text = f"{name}: {uri}" if name and name != uri else str(uri)
        description = block.get("description")
        if isinstance(description, str) and description:
            text += f" ({description})"
    elif kind == "audio":
        mime = block.get("mimeType") or "unknown type"
        text = f"[audio ({mime}) omitted: protocol revision {revision} cannot carry audio]"
    else:
        return block
    out: dict[str, Any] = {"type": "text", "text": text}
    if "annotations" in block:
        out["annotations"] = block["annotations"]
    return out


def _older_form(params: dict[str, Any]) -> dict[str, Any]:
    """A form's ``requestedSchema`` as 2025-06-18 defines it: a titled single-select
    (``oneOf`` of ``{const, title}``) becomes ``enum`` + ``enumNames``, which says the same, and
    ``default`` is kept on booleans only (the one field type that has it there; elsewhere it is
    a pre-fill hint, dropped). Multi-select arrays cannot be said at all: they are refused before
    the request is made (:func:`request_unsupported`)."""
    schema = params.get("requestedSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return params
    changed = {name: _older_field(field) for name, field in properties.items()}
    if all(changed[name] is field for name, field in properties.items()):
        return params
    assert isinstance(schema, dict)
    return {**params, "requestedSchema": {**schema, "properties": changed}}


def _older_field(field: Any) -> Any:
    if not isinstance(field, dict):
        return field
    out = field
    if "default" in field and field.get("type") != "boolean":
        out = {k: v for k, v in field.items() if k != "default"}
    options = field.get("oneOf")
    if field.get("type") == "string" and isinstance(options, list) and "enum" not in field:
        out = {k: v for k, v in out.items() if k != "oneOf"}
        out["enum"] = [o.get("const") for o in options if isinstance(o, dict)]
        out["enumNames"] = [o.get("title", o.get("const")) for o in options if isinstance(o, dict)]
    return out


def _multi_select(params: dict[str, Any]) -> list[str]:
    schema = params.get("requestedSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return []
    return [
        str(name)
        for name, field in properties.items()
        if isinstance(field, dict) and field.get("type") == "array"
    ]


def request_unsupported(revision: str | None, method: str, params: dict[str, Any]) -> str | None:
    """Why ``revision`` cannot carry this request (``None`` when it can).

    The caller turns the reason into the missing-capability error for the tool author; the
    request is never sent in an altered form.
    """
    if revision is None:
        return None
    if method == "elicitation/create":
        if _before(revision, "2025-06-18"):
            return f"elicitation needs protocol revision 2025-06-18 or later (peer: {revision})"
        if params.get("mode") == "url" and _before(revision, "2025-11-25"):
            return (
                f"URL-mode elicitation needs protocol revision 2025-11-25 or later "
                f"(peer: {revision})"
            )
        arrays = _multi_select(params) if _before(revision, "2025-11-25") else []
        if arrays:
            return (
                f"multi-select fields ({', '.join(arrays)}) need protocol revision 2025-11-25 "
                f"or later (peer: {revision})"
            )
    elif (
        method == "sampling/createMessage"
        and _before(revision, "2025-11-25")
        and (params.get("tools") is not None or params.get("toolChoice") is not None)
    ):
        return f"sampling with tools needs protocol revision 2025-11-25 or later (peer: {revision})"
    return None
