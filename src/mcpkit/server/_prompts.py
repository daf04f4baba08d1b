"""Prompts: parameterised message templates.

Arguments come from the function's parameters (prompt arguments are always strings on the wire;
a parameter with a default is optional). The function returns a ``str`` (one user message), a
:class:`Message`, a message dict, or a list of those; content may be any content block.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from typing import Any, Literal

import msgspec

from mcpkit.protocol._errors import InvalidParams
from mcpkit.server._context import Context
from mcpkit.server._names import validate_tool_name
from mcpkit.types._jsonrpc import JSONObject

__all__ = ["Message", "RegisteredPrompt"]


class Message(msgspec.Struct):
    """One prompt message; ``content`` is a string (text) or a content-block dict."""

    content: str | JSONObject
    role: Literal["user", "assistant"] = "user"

    def to_wire(self) -> JSONObject:
        content = (
            {"type": "text", "text": self.content}
            if isinstance(self.content, str)
            else self.content
        )
        return {"role": self.role, "content": content}


def _param_doc(doc: str | None) -> dict[str, str]:
    """``name: description`` lines from an Args/Parameters docstring section."""
    out: dict[str, str] = {}
    if not doc:
        return out
    in_args = False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.rstrip(":") in ("Args", "Arguments", "Parameters"):
            in_args = True
            continue
        if in_args:
            if not stripped:
                continue
            if ":" not in stripped or stripped.endswith(":"):
                break
            name, _, text = stripped.partition(":")
            out[name.split("(")[0].strip()] = text.strip()
    return out


class RegisteredPrompt:
    __slots__ = ("_ctx_param", "_is_async", "arguments", "definition", "fn", "name")

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
    ) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        validate_tool_name(self.name)
        self._is_async = inspect.iscoroutinefunction(inspect.unwrap(fn))
        self._ctx_param: str | None = None
        doc = inspect.getdoc(fn)
        docs = _param_doc(doc)
        arguments: list[JSONObject] = []
        for pname, param in inspect.signature(fn).parameters.items():
            if param.annotation is Context or param.annotation == "Context":
                self._ctx_param = pname
                continue
            arg: JSONObject = {"name": pname}
            if pname in docs:
                arg["description"] = docs[pname]
            arg["required"] = param.default is inspect.Parameter.empty
            arguments.append(arg)
        self.arguments = arguments
        definition: JSONObject = {"name": self.name}
        summary = description if description is not None else (doc or "").split("\n\n")[0] or None
        for key, value in (
            ("title", title),
            ("description", summary),
            ("arguments", arguments or None),
            ("icons", list(icons) if icons else None),
            ("_meta", meta),
        ):
            if value is not None:
                definition[key] = value
        self.definition = definition

    async def render(self, arguments: JSONObject | None, ctx: Context) -> JSONObject:
        args = dict(arguments or {})
        known = {a["name"] for a in self.arguments}
        missing = [a["name"] for a in self.arguments if a["required"] and a["name"] not in args]
        if missing:
            raise InvalidParams(
                f"Prompt {self.name!r} is missing required argument(s): {', '.join(missing)}"
            )
        unknown = sorted(set(args) - known)
        if unknown:
            raise InvalidParams(f"Prompt {self.name!r} has no argument(s): {', '.join(unknown)}")
        for key, value in args.items():
            if not isinstance(value, str):
                raise InvalidParams(f"Prompt argument {key!r} must be a string")
        if self._ctx_param is not None:
            args[self._ctx_param] = ctx
        if self._is_async:
            value = await self.fn(**args)
        else:
            value = await asyncio.to_thread(lambda: self.fn(**args))
        result: JSONObject = {"messages": _messages(value)}
        description = self.definition.get("description")
        if description:
            result["description"] = description
        return result


def _messages(value: Any) -> list[JSONObject]:
    items = value if isinstance(value, list | tuple) else [value]
    out: list[JSONObject] = []
    for item in items:
        if isinstance(item, Message):
            out.append(item.to_wire())
        elif isinstance(item, str):
            out.append({"role": "user", "content": {"type": "text", "text": item}})
        elif isinstance(item, dict) and "role" in item and "content" in item:
            out.append(item)
        elif isinstance(item, dict) and "type" in item:
            out.append({"role": "user", "content": item})
        else:
            raise TypeError(f"a prompt returned {type(item).__name__}; return str or Message")
    return out
