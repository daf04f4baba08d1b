"""RFC 6570 URI templates (levels 1-4), matching for resource lookup, and safe file joins.

:class:`UriTemplate` parses a template once. :meth:`UriTemplate.expand` implements the RFC's
expansion algorithm (all operators, ``*`` explode, ``:n`` prefix). :meth:`UriTemplate.match`
goes the other way for ``resources/read``: it compiles the template to one regular expression
at construction and returns the percent-decoded variables of a URI, or ``None``:

* ``{var}`` (and ``{.var}``, ``{/var}``, ``{;var}``) matches one non-empty segment: it never
  crosses ``/``, ``?`` or ``#``;
* ``{+var}`` and ``{#var}`` may contain ``/`` (a path);
* ``{?a,b}`` / ``{&a,b}`` match query parameters in any order, each optional, ignoring
  parameters the template does not name;
* exploded variables (``{/list*}``, ``{?list*}``) match as lists of strings.

Two adjacent expressions with no literal between them (``{a}{b}``) cannot be split
unambiguously; such a template expands fine but ``match`` raises :class:`UsageError`.

:func:`safe_join` resolves a client-supplied relative path under a root directory and refuses
anything that would escape it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Final
from urllib.parse import quote, unquote

from mcpkit.protocol._errors import InvalidParams, UsageError

__all__ = [
    "MAX_MATCH_URI_LENGTH",
    "MAX_TEMPLATE_LENGTH",
    "UnsafePathError",
    "UriTemplate",
    "safe_join",
]

MAX_TEMPLATE_LENGTH: Final = 4096
MAX_MATCH_URI_LENGTH: Final = 8192
"""Longer URIs never match (bounds the regex work an untrusted URI can cause)."""
MAX_PREFIX_LENGTH: Final = 9999
"""RFC 6570: a prefix modifier is ``:1`` to ``:9999``."""
_MAX_DECODE_ROUNDS: Final = 4

_RESERVED: Final = ":/?#[]@!$&'()*+,;="
_VARCHAR: Final = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+"
_VARNAME: Final = re.compile(rf"{_VARCHAR}(?:\.{_VARCHAR})*")
_PCT_TRIPLET: Final = re.compile(r"%[0-9A-Fa-f]{2}")


@dataclass(frozen=True, slots=True)
class _Operator:
    first: str
    sep: str
    named: bool
    ifemp: str
    allow_reserved: bool


_OPERATORS: Final = {
    "": _Operator("", ",", False, "", False),
    "+": _Operator("", ",", False, "", True),
    "#": _Operator("#", ",", False, "", True),
    ".": _Operator(".", ".", False, "", False),
    "/": _Operator("/", "/", False, "", False),
    ";": _Operator(";", ";", True, "", False),
    "?": _Operator("?", "&", True, "=", False),
    "&": _Operator("&", "&", True, "=", False),
}
_RESERVED_OPERATORS: Final = frozenset("=,!@|")


@dataclass(frozen=True, slots=True)
class _Var:
    name: str
    explode: bool
    prefix: int | None


@dataclass(frozen=True, slots=True)
class _Expression:
    op: str
    variables: tuple[_Var, ...]


def _encode(value: str, allow_reserved: bool) -> str:
    """Percent-encode ``value``; with ``allow_reserved``, keep reserved chars and %XX triplets."""
    if not allow_reserved:
        return quote(value, safe="")
    out: list[str] = []
    pos = 0
    for m in _PCT_TRIPLET.finditer(value):
        out.append(quote(value[pos : m.start()], safe=_RESERVED))
        out.append(m.group(0))
        pos = m.end()
    out.append(quote(value[pos:], safe=_RESERVED))
    return "".join(out)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class UriTemplate:
    """A parsed RFC 6570 template. Raises :class:`UsageError` for a malformed template."""

    __slots__ = (
        "_ambiguity",
        "_groups",
        "_parts",
        "_query_vars",
        "_regex",
        "template",
        "variables",
    )

    def __init__(self, template: str) -> None:
        if len(template) > MAX_TEMPLATE_LENGTH:
            raise UsageError(f"URI template longer than {MAX_TEMPLATE_LENGTH} characters")
        self.template = template
        self._parts: tuple[str | _Expression, ...] = tuple(_parse(template))
        names: list[str] = []
        for part in self._parts:
            if isinstance(part, _Expression):
                names.extend(v.name for v in part.variables if v.name not in names)
        self.variables: tuple[str, ...] = tuple(names)
        self._groups: list[tuple[_Var, str]] = []  # regex group v_<i> → (variable, operator)
        self._query_vars: dict[str, _Var] = {}  # every {?...}/{&...} variable, by name
        self._ambiguity: str | None = None
        self._regex: re.Pattern[str] | None = self._compile()

    def __repr__(self) -> str:
        return f"UriTemplate({self.template!r})"

    def __str__(self) -> str:
        return self.template

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UriTemplate) and other.template == self.template

    def __hash__(self) -> int:
        return hash(self.template)

    # -- expansion -----------------------------------------------------------------------------

    def expand(self, values: Mapping[str, Any]) -> str:
        """Expand the template. Values: str/number/bool, a sequence (list), a mapping, or None.

        ``None``, empty lists and empty mappings are *undefined* and are skipped, per the RFC.
        """
        out: list[str] = []
        for part in self._parts:
            if isinstance(part, str):
                out.append(_encode(part, True))
            else:
                out.append(_expand_expression(part, values))
        return "".join(out)

    # -- matching ------------------------------------------------------------------------------

    def match(self, uri: str) -> dict[str, str | list[str]] | None:
        """The variables of ``uri`` if it matches this template, else ``None``.

        Values are percent-decoded strings (lists for exploded variables). Query variables that
        are absent from the URI are absent from the result.
        """
        if self._regex is None:
            raise UsageError(f"URI template {self.template!r} cannot be matched: {self._ambiguity}")
        if len(uri) > MAX_MATCH_URI_LENGTH:
            return None
        m = self._regex.fullmatch(uri)
        if m is None:
            return None
        result: dict[str, str | list[str]] = {}
        for group, raw in m.groupdict().items():
            if raw is None:
                continue
            if group == "q":
                self._match_query(raw, result)
                continue
            var, op = self._groups[int(group[2:])]
            if var.explode:
                items = raw.split(_OPERATORS[op].sep) if raw else []
                if op == ";":
                    items = [s.partition("=")[2] for s in items]
                result[var.name] = [unquote(s) for s in items]
            else:
                if op == ";":
                    raw = raw.partition("=")[2]
                result[var.name] = unquote(raw)
        return result

    def _match_query(self, raw: str, result: dict[str, str | list[str]]) -> None:
        for pair in raw.split("&"):
            if not pair:
                continue
            key, _, value = pair.partition("=")
            key = unquote(key)
            var = self._query_vars.get(key)
            if var is None:
                continue  # parameters the template does not name are ignored
            decoded = unquote(value)
            if var.explode:
                existing = result.setdefault(key, [])
                assert isinstance(existing, list)
                existing.append(decoded)
            elif key not in result:
                result[key] = decoded

    def _compile(self) -> re.Pattern[str] | None:
        pieces: list[str] = []
        previous_open = False  # was the previous part an expression with an open-ended value?
        query_started = False
        for pos, part in enumerate(self._parts):
            if isinstance(part, str):
                pieces.append(re.escape(part))
                previous_open = False
                query_started = query_started or "?" in part
                continue
            if part.op in ("?", "&"):
                if not self._query_vars:  # one group captures the whole query string
                    lead = r"\?" if part.op == "?" and not query_started else "[?&]"
                    pieces.append(f"(?:{lead}(?P<q>[^#]*))?")
                self._query_vars.update((v.name, v) for v in part.variables)
                query_started = True
                previous_open = False
                continue
            if previous_open and part.op in ("", "+"):
                self._ambiguity = (
                    f"the expression {{{part.op}{part.variables[0].name}}} follows another "
                    "expression with no literal between them"
                )
                return None
            later_query = any(
                (isinstance(p, _Expression) and p.op in ("?", "&"))
                or (isinstance(p, str) and "?" in p)
                for p in self._parts[pos + 1 :]
            )
            pieces.append(self._expression_regex(part, later_query))
            previous_open = True
        return re.compile("".join(pieces), re.DOTALL)

    def _expression_regex(self, expr: _Expression, later_query: bool) -> str:
        op = expr.op
        spec = _OPERATORS[op]
        if op == "+":
            value = "[^?#]" if later_query else "[^#]"
        elif op == "#":
            value = "."
        else:
            excluded = "/?#" + spec.sep
            if len(expr.variables) > 1 or any(v.explode for v in expr.variables):
                excluded += ","
            value = "[^" + re.escape(excluded) + "]"
        sep = re.escape(spec.sep)
        groups: list[str] = []
        for n, var in enumerate(expr.variables):
            name = f"v_{len(self._groups)}"
            self._groups.append((var, op))
            if var.explode:
                body = f"(?P<{name}>{value}*(?:{sep}{value}*)*)"
            elif spec.named:
                body = f"(?P<{name}>{re.escape(var.name)}(?:={value}*)?)"
            else:
                body = f"(?P<{name}>{value}+)" if n == 0 else f"(?P<{name}>{value}*)"
            groups.append(body)
        first, *rest = groups
        return re.escape(spec.first) + first + "".join(f"(?:{sep}{g})?" for g in rest)


def _parse(template: str) -> list[str | _Expression]:
    parts: list[str | _Expression] = []
    pos = 0
    while pos < len(template):
        start = template.find("{", pos)
        close = template.find("}", pos)
        if close != -1 and (start == -1 or close < start):
            raise UsageError(f"URI template {template!r}: unmatched '}}' at position {close}")
        if start == -1:
            parts.append(template[pos:])
            break
        if start > pos:
            parts.append(template[pos:start])
        end = template.find("}", start)
        if end == -1:
            raise UsageError(f"URI template {template!r}: unclosed '{{' at position {start}")
        parts.append(_parse_expression(template, template[start + 1 : end]))
        pos = end + 1
    return parts


def _parse_expression(template: str, body: str) -> _Expression:
    op = body[:1] if body[:1] in _OPERATORS and body[:1] != "" else ""
    if body[:1] in _RESERVED_OPERATORS:
        raise UsageError(f"URI template {template!r}: operator {body[0]!r} is reserved")
    spec = body[len(op) :]
    if not spec:
        raise UsageError(f"URI template {template!r}: empty expression {{{body}}}")
    variables: list[_Var] = []
    for item in spec.split(","):
        explode = item.endswith("*")
        name, colon, prefix = (item[:-1] if explode else item).partition(":")
        if not _VARNAME.fullmatch(name):
            raise UsageError(f"URI template {template!r}: invalid variable name {name!r}")
        length: int | None = None
        if colon:
            if explode or not prefix.isdigit() or not 1 <= int(prefix) <= MAX_PREFIX_LENGTH:
                raise UsageError(
                    f"URI template {template!r}: invalid prefix modifier in {{{body}}} "
                    f"(use :1 to :{MAX_PREFIX_LENGTH}, not with *)"
                )
            length = int(prefix)
        variables.append(_Var(name, explode, length))
    return _Expression(op, tuple(variables))


def _expand_expression(expr: _Expression, values: Mapping[str, Any]) -> str:
    spec = _OPERATORS[expr.op]
    items: list[str] = []
    for var in expr.variables:
        value = values.get(var.name)
        if value is None:
            continue
        if isinstance(value, Mapping):
            if not value:
                continue
            pairs: list[tuple[str | None, str]] = [(str(k), _scalar(v)) for k, v in value.items()]
            items.append(_expand_composite(var, spec, pairs))
        elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
            if not value:
                continue
            listed: list[tuple[str | None, str]] = [(None, _scalar(v)) for v in value]
            items.append(_expand_composite(var, spec, listed))
        else:
            text = _scalar(value)
            if var.prefix is not None:
                text = text[: var.prefix]
            encoded = _encode(text, spec.allow_reserved)
            if spec.named:
                items.append(var.name + (f"={encoded}" if text else spec.ifemp))
            else:
                items.append(encoded)
    return spec.first + spec.sep.join(items) if items else ""


def _expand_composite(var: _Var, spec: _Operator, pairs: list[tuple[str | None, str]]) -> str:
    if var.prefix is not None:
        raise UsageError(f"URI template: the prefix modifier cannot apply to {var.name!r} (a list)")

    def enc(text: str) -> str:
        return _encode(text, spec.allow_reserved)

    if var.explode:
        parts: list[str] = []
        for key, value in pairs:
            if key is None:
                if spec.named:
                    parts.append(var.name + (f"={enc(value)}" if value else spec.ifemp))
                else:
                    parts.append(enc(value))
            else:
                parts.append(enc(key) + (f"={enc(value)}" if value else spec.ifemp))
        return spec.sep.join(parts)
    flat: list[str] = []
    for key, value in pairs:
        if key is not None:
            flat.append(enc(key))
        flat.append(enc(value))
    joined = ",".join(flat)
    return f"{var.name}={joined}" if spec.named else joined


class UnsafePathError(InvalidParams):
    """A client-supplied path would leave its root directory (or is not a plain relative path)."""


def _decoded_forms(relative: str) -> list[str]:
    forms = [relative]
    for _ in range(_MAX_DECODE_ROUNDS):
        decoded = unquote(forms[-1])
        if decoded == forms[-1]:
            break
        forms.append(decoded)
    return forms


def safe_join(root: Path | str, relative: str) -> Path:
    """``root / relative``, resolved, guaranteed to stay inside ``root``.

    Refuses (with :class:`UnsafePathError`, -32602): NUL bytes, absolute paths and drive
    letters, backslashes, ``..`` segments (also when percent-encoded, even repeatedly), and
    symlinks that resolve outside ``root``. The file need not exist.
    """

    def refuse(reason: str) -> UnsafePathError:
        return UnsafePathError(f"Unsafe path {relative!r}: {reason}")

    for form in _decoded_forms(relative):
        if "\x00" in form:
            raise refuse("it contains a NUL byte")
        if "\\" in form:
            raise refuse("backslashes are not allowed")
        if PurePosixPath(form).is_absolute() or PureWindowsPath(form).drive:
            raise refuse("it must be a relative path")
        if any(segment == ".." for segment in form.split("/")):
            raise refuse("'..' segments are not allowed")
    base = Path(root).resolve()
    target = (base / relative).resolve()
    if target != base and not target.is_relative_to(base):
        raise refuse("it resolves outside the allowed directory")
    return target
