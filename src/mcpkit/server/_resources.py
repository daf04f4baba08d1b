"""Resources: static URIs, RFC 6570 templates, and files under a root.

A read function may return ``str`` (text), ``bytes`` (base64 blob), any JSON value (text with
``application/json``), a :class:`ResourceData`, or a list of those (several contents per read,
e.g. a directory). Template variables are passed as keyword arguments, after matching.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from mcpkit.protocol._errors import UsageError
from mcpkit.server._context import Context
from mcpkit.types._jsonrpc import JSONObject

if TYPE_CHECKING:  # imported where used: a server without resources never pays for them
    from pathlib import Path

__all__ = ["RegisteredResource", "ResourceData", "file_resource_reader", "to_contents"]


class ResourceData(msgspec.Struct):
    """One entry of a read result; give ``text`` or ``blob`` (raw bytes)."""

    uri: str | None = None
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None
    meta: JSONObject | None = None


def _context_param(fn: Callable[..., Any]) -> str | None:
    for name, param in inspect.signature(fn).parameters.items():
        if param.annotation is Context or param.annotation == "Context":
            return name
    return None


class RegisteredResource:
    """A resource or a resource template, with its reader."""

    __slots__ = ("_ctx_param", "_is_async", "definition", "fn", "is_template", "template", "uri")

    def __init__(
        self,
        uri: str,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: JSONObject | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
    ) -> None:
        self.uri = uri
        self.fn = fn
        from mcpkit.server._uri_template import UriTemplate

        self.template = UriTemplate(uri)
        self.is_template = bool(self.template.variables)
        self._ctx_param = _context_param(fn)
        self._is_async = inspect.iscoroutinefunction(inspect.unwrap(fn))
        params = set(inspect.signature(fn).parameters) - {self._ctx_param}
        missing = set(self.template.variables) - params
        if missing and not any(
            p.kind is inspect.Parameter.VAR_KEYWORD
            for p in inspect.signature(fn).parameters.values()
        ):
            raise UsageError(
                f"resource {uri!r}: the function {fn.__name__} has no parameter for "
                f"template variable(s) {', '.join(sorted(missing))}"
            )
        definition: JSONObject = {
            "uriTemplate" if self.is_template else "uri": uri,
            "name": name or fn.__name__,
        }
        doc = inspect.getdoc(fn)
        for key, value in (
            ("title", title),
            ("description", description if description is not None else doc),
            ("mimeType", mime_type),
            ("size", None if self.is_template else size),
            ("annotations", annotations),
            ("icons", list(icons) if icons else None),
            ("_meta", meta),
        ):
            if value is not None:
                definition[key] = value
        self.definition = definition

    @property
    def mime_type(self) -> str | None:
        value = self.definition.get("mimeType")
        return value if isinstance(value, str) else None

    def match(self, uri: str) -> dict[str, Any] | None:
        if not self.is_template:
            return {} if uri == self.uri else None
        return self.template.match(uri)

    async def read(self, uri: str, variables: dict[str, Any], ctx: Context) -> list[JSONObject]:
        kwargs: dict[str, Any] = dict(variables)
        if self._ctx_param is not None:
            kwargs[self._ctx_param] = ctx
        if self._is_async:
            value = await self.fn(**kwargs)
        else:
            value = await asyncio.to_thread(lambda: self.fn(**kwargs))
        return to_contents(value, uri, self.mime_type)


def to_contents(value: Any, uri: str, mime_type: str | None) -> list[JSONObject]:
    """Normalise what a reader returned into wire ``contents``."""
    items = (
        value
        if isinstance(value, list) and value and all(isinstance(v, ResourceData) for v in value)
        else [value]
    )
    out: list[JSONObject] = []
    for item in items:
        if isinstance(item, ResourceData):
            entry: JSONObject = {"uri": item.uri or uri}
            mime = item.mime_type or mime_type
            if mime:
                entry["mimeType"] = mime
            if item.blob is not None:
                entry["blob"] = base64.b64encode(item.blob).decode("ascii")
            else:
                entry["text"] = item.text or ""
            if item.meta:
                entry["_meta"] = item.meta
        elif isinstance(item, bytes | bytearray | memoryview):
            entry = {
                "uri": uri,
                "mimeType": mime_type or "application/octet-stream",
                "blob": base64.b64encode(bytes(item)).decode("ascii"),
            }
        elif isinstance(item, str):
            entry = {"uri": uri, "mimeType": mime_type or "text/plain", "text": item}
        else:
            entry = {
                "uri": uri,
                "mimeType": mime_type or "application/json",
                "text": msgspec.json.encode(item).decode(),
            }
        out.append(entry)
    return out


def file_resource_reader(root: Path | str) -> Callable[[str], Any]:
    """A reader for ``{+path}`` templates that serves files under ``root`` and nothing else.

    Traversal (``..``, absolute paths, symlinks leaving the root, encoded tricks) is refused,
    and so is a symlink swapped in after the check: the file is opened without following links
    (:func:`mcpkit.server._safe_files.read_under`).
    """
    import mimetypes
    import posixpath
    from pathlib import Path

    from mcpkit.server._safe_files import read_under

    base = Path(root).resolve()

    def read_file(path: str) -> ResourceData:
        mime, _ = mimetypes.guess_type(posixpath.basename(path))
        data = read_under(base, path)
        if mime and (mime.startswith("text/") or mime in ("application/json", "application/xml")):
            return ResourceData(text=data.decode("utf-8", "replace"), mime_type=mime)
        try:
            return ResourceData(text=data.decode("utf-8"), mime_type=mime or "text/plain")
        except UnicodeDecodeError:
            return ResourceData(blob=data, mime_type=mime or "application/octet-stream")

    return read_file
