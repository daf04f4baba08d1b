"""The one error a malformed or unsupported OpenAPI document raises, naming the place in it."""

from __future__ import annotations

from mcpkit.protocol import UsageError

__all__ = ["OpenAPIError"]


class OpenAPIError(UsageError):
    """The document cannot be used as written; ``pointer`` is the JSON pointer of the culprit.

    Raised while converting, never per call, so a bad document fails when a server is built
    rather than when a model first calls one of its tools.
    """

    def __init__(self, pointer: str, message: str) -> None:
        self.pointer = pointer or "/"
        self.detail = message
        super().__init__(f"OpenAPI document, at {self.pointer}: {message}")
