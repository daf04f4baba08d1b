"""The only place that imports pydantic, and only when a signature actually uses a pydantic type.

A stdio server should start in milliseconds, and importing pydantic costs far more than that, so
nothing at module level here touches it: each function imports it on first use. By the time one
of these runs, the user's own code has already imported pydantic to define the model.
"""

from __future__ import annotations

from typing import Any, Literal

from mcpkit.protocol._errors import UsageError
from mcpkit.server._schema.errors import ArgumentError
from mcpkit.server._schema.jsonschema import DEFS_PREFIX, JSONSchema

__all__ = ["PydanticType", "dump_model"]


class PydanticType:
    """A pydantic ``TypeAdapter`` for one parameter or return type, built once at registration."""

    __slots__ = ("_adapter", "_validation_error", "tp")

    def __init__(self, tp: Any, *, where: str) -> None:
        import pydantic

        self.tp = tp
        self._validation_error = pydantic.ValidationError
        try:
            self._adapter: Any = pydantic.TypeAdapter(tp)
        except pydantic.PydanticUserError as exc:
            raise UsageError(f"{where}: pydantic cannot handle this type: {exc}") from None

    def schema(
        self, mode: Literal["validation", "serialization"]
    ) -> tuple[JSONSchema, dict[str, JSONSchema]]:
        """The JSON Schema of the type and its ``$defs`` (separated, refs at ``#/$defs/``)."""
        schema: JSONSchema = self._adapter.json_schema(
            mode=mode, ref_template=DEFS_PREFIX + "{model}"
        )
        defs: dict[str, JSONSchema] = schema.pop("$defs", {})
        return schema, defs

    def validate_argument(self, value: Any, *, name: str) -> Any:
        """Validate one argument; failures become an :class:`ArgumentError` naming the path."""
        try:
            return self._adapter.validate_python(value)
        except self._validation_error as exc:
            raise ArgumentError.from_pydantic(exc.errors(), prefix=name) from None

    def validate_output(self, value: Any) -> Any:
        """Validate a tool's return value and dump it to JSON-able builtins.

        Raises ``ValueError`` (with pydantic's explanation) when the value does not conform.
        """
        try:
            checked = self._adapter.validate_python(value)
        except self._validation_error as exc:
            raise ValueError(str(exc)) from None
        return self._adapter.dump_python(checked, mode="json")


def dump_model(value: Any) -> Any:
    """``enc_hook`` for msgspec: a pydantic model met inside a plain value becomes a dict."""
    dump = getattr(value, "model_dump", None)
    if dump is not None and hasattr(type(value), "__pydantic_validator__"):
        return dump(mode="json")
    # msgspec's enc_hook contract: NotImplementedError means "not a type I handle" (msgspec then
    # raises its own TypeError). Not a placeholder.
    raise NotImplementedError(f"cannot serialise {type(value).__qualname__} to JSON")
