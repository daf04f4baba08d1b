"""Loading an OpenAPI document and following its local ``$ref``s, with the place of every problem.

Only references inside the document (``#/...``) are followed: fetching other files or URLs named
by a ``$ref`` would let a document make the server read arbitrary places, so such references are
refused with an error naming them (bundle the document first).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, Final

from mcpkit.contrib.openapi._errors import OpenAPIError

__all__ = ["Document", "escape_pointer", "fetch_document", "load_document"]

HTTP_METHODS: Final = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_REF_CHAIN: Final = 64
"""``$ref`` hops followed for one object before the chain is called a cycle."""
MAX_DOCUMENT_BYTES: Final = 32 * 1024 * 1024
"""Largest document body :func:`fetch_document` reads (the largest public APIs' are ~10 MB)."""
MAX_REDIRECTS: Final = 5
"""Redirects :func:`fetch_document` follows."""


def escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    from urllib.parse import unquote

    return unquote(token).replace("~1", "/").replace("~0", "~")


def _parse_text(text: str, origin: str) -> Any:
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise OpenAPIError("/", f"{origin} is not valid JSON: {exc}") from None
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is part of the [openapi] extra
        raise OpenAPIError(
            "/", f"{origin} looks like YAML; install mcpkit[openapi] (PyYAML) to read it"
        ) from None
    # libyaml's C loader when PyYAML was built with it: ~8x faster on a 3 MB document (8.3 s
    # with the pure-Python loader); the same safe subset of YAML either way.
    loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    try:
        return yaml.load(text, Loader=loader)  # a safe loader, C or Python
    except yaml.YAMLError as exc:
        raise OpenAPIError("/", f"{origin} is neither JSON nor valid YAML: {exc}") from None


def load_document(source: Mapping[str, Any] | str | Path, *, timeout: float = 30.0) -> Document:
    """Read a document from a dict, a file path, or an ``http(s)://`` URL (JSON or YAML).

    A URL is fetched synchronously (for scripts), with the bounds of :func:`fetch_document`;
    inside a running event loop prefer ``await fetch_document(...)``, which does not block it."""
    if isinstance(source, Mapping):
        return Document(dict(source))
    text_source = str(source)
    if text_source.startswith(("http://", "https://")):
        return _run_blocking(fetch_document(text_source, timeout=timeout))
    path = Path(text_source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise OpenAPIError("/", f"could not read {path}: {exc.strerror or exc}") from None
    raw = _parse_text(text, str(path))
    if not isinstance(raw, dict):
        raise OpenAPIError("/", f"the document must be an object, not {type(raw).__name__}")
    return Document(raw)


def _run_blocking(fetch: Coroutine[Any, Any, Document]) -> Document:
    """Run ``fetch`` to the end from synchronous code (in a thread of its own when this thread
    already runs an event loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(fetch)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, fetch).result()


async def fetch_document(
    url: str,
    client: Any = None,
    *,
    timeout: float = 30.0,
    max_bytes: int = MAX_DOCUMENT_BYTES,
    redirect_policy: Any = None,
) -> Document:
    """Fetch a document over HTTP without blocking the event loop (``client``: an
    ``httpx.AsyncClient`` whose auth and base URL apply; a relative ``url`` uses its base).

    Bounded: ``timeout`` covers the whole fetch (connection, every redirect, the whole body,
    however slowly it trickles), the body may not exceed ``max_bytes``, at most
    :data:`MAX_REDIRECTS` redirects are followed, and a redirect to another origin must pass
    the address policy (``redirect_policy``, a :class:`~mcpkit.contrib.auth.UrlPolicy`; by
    default https and public addresses only): the URL you name may be local, a server's
    redirect may not send the fetch into your network."""
    import httpx

    own = client is None
    http: httpx.AsyncClient = client if client is not None else httpx.AsyncClient(timeout=timeout)
    try:
        async with asyncio.timeout(timeout):
            text = await _fetch_text(http, url, max_bytes, redirect_policy)
    except TimeoutError:
        raise OpenAPIError(
            "/", f"could not fetch {url}: no complete answer within {timeout:g} s"
        ) from None
    except httpx.HTTPError as exc:
        raise OpenAPIError("/", f"could not fetch {url}: {exc}") from None
    finally:
        if own:
            await http.aclose()
    raw = _parse_text(text, url)
    if not isinstance(raw, dict):
        raise OpenAPIError("/", f"the document must be an object, not {type(raw).__name__}")
    return Document(raw)


async def _fetch_text(http: Any, url: str, max_bytes: int, redirect_policy: Any) -> str:
    from urllib.parse import urljoin, urlsplit

    current = url
    for _ in range(MAX_REDIRECTS + 1):
        request = http.build_request("GET", current)
        response = await http.send(request, stream=True, follow_redirects=False)
        try:
            location = response.headers.get("location")
            if response.is_redirect and location:
                target = urljoin(str(request.url), location)
                here, there = urlsplit(str(request.url)), urlsplit(target)
                if (here.scheme, here.netloc) != (there.scheme, there.netloc):
                    await _check_redirect(target, redirect_policy, str(request.url))
                current = target
                continue
            response.raise_for_status()
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise OpenAPIError("/", f"{current} is larger than {max_bytes} bytes")
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise OpenAPIError("/", f"{current} is larger than {max_bytes} bytes")
                chunks.append(chunk)
            return b"".join(chunks).decode(response.encoding or "utf-8", errors="replace")
        finally:
            await response.aclose()
    raise OpenAPIError("/", f"could not fetch {url}: more than {MAX_REDIRECTS} redirects")


async def _check_redirect(target: str, policy: Any, source: str) -> None:
    from mcpkit.contrib.auth import InsecureURLError, OAuthFlowError, UrlPolicy, check_url

    try:
        await check_url(target, policy if policy is not None else UrlPolicy())
    except (InsecureURLError, OAuthFlowError) as exc:
        raise OpenAPIError(
            "/", f"{source} redirected to another origin the address policy refuses: {exc}"
        ) from None


class Document:
    """A parsed OpenAPI 3.0 / 3.1 document: the raw tree plus pointer-aware lookups."""

    def __init__(self, raw: dict[str, Any]) -> None:
        if "swagger" in raw:
            raise OpenAPIError(
                "/swagger",
                f"Swagger {raw['swagger']} documents are not supported; convert the document "
                "to OpenAPI 3 first",
            )
        version = raw.get("openapi")
        if not isinstance(version, str):
            raise OpenAPIError("/openapi", "missing: an OpenAPI 3.0 or 3.1 document declares it")
        if not version.startswith(("3.0", "3.1", "3.2")):
            raise OpenAPIError("/openapi", f"version {version!r} is not supported (3.0 or 3.1)")
        self.raw = raw
        self.version = version
        self.is_30 = version.startswith("3.0")
        paths = raw.get("paths", {})
        if not isinstance(paths, dict):
            raise OpenAPIError("/paths", "must be an object mapping paths to path items")
        self.paths: dict[str, Any] = paths
        info = raw.get("info")
        self.info: dict[str, Any] = info if isinstance(info, dict) else {}

    @property
    def title(self) -> str:
        title = self.info.get("title")
        return title if isinstance(title, str) and title else "openapi"

    def lookup(self, ref: str, at: str) -> tuple[Any, str]:
        """The object a ``$ref`` names and its pointer; ``at`` is where the ``$ref`` stands."""
        if not isinstance(ref, str):
            raise OpenAPIError(at, "$ref must be a string")
        if not ref.startswith("#"):
            raise OpenAPIError(
                at,
                f"$ref {ref!r} points outside the document; external references are not "
                "followed (bundle the document into one file first)",
            )
        pointer = ref[1:]
        node: Any = self.raw
        if pointer:
            if not pointer.startswith("/"):
                raise OpenAPIError(at, f"$ref {ref!r} is not a JSON pointer ('#/...')")
            for token in pointer[1:].split("/"):
                key = _unescape(token)
                if isinstance(node, dict) and key in node:
                    node = node[key]
                elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                    node = node[int(key)]
                else:
                    raise OpenAPIError(at, f"$ref {ref!r} points to nothing in the document")
        return node, pointer or "/"

    def resolve(self, node: Any, at: str) -> tuple[Any, str]:
        """Follow ``$ref`` hops from a non-schema object (parameter, body, response ...)."""
        seen: list[str] = []
        while isinstance(node, dict) and "$ref" in node:
            if at in seen or len(seen) >= MAX_REF_CHAIN:
                chain = " -> ".join([*seen, at])
                raise OpenAPIError(seen[0], f"$ref cycle that never reaches an object: {chain}")
            seen.append(at)
            node, at = self.lookup(node["$ref"], at + "/$ref")
        return node, at
