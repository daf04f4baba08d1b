"""The interactive step of the authorization-code flow, made pluggable.

A :class:`RedirectHandler` sends the user (or a robot) to the authorization URL; a
:class:`CallbackHandler` says where the authorization server must redirect back and returns
what arrived there. One object may play both roles, as both shipped ones do:

* :class:`HeadlessAuthorizer` fetches the authorization URL itself and reads the redirect
  (authorization servers that approve without a user: tests, the conformance suite, CI);
* :class:`mcpkit.contrib.auth._browser.BrowserAuthorizer` opens the system browser and
  receives the redirect on a one-shot loopback HTTP server (people).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable
from urllib.parse import parse_qs, urljoin, urlsplit

from mcpkit.contrib.auth._errors import AuthorizationResponseError, OAuthFlowError
from mcpkit.contrib.auth._http import SafeHttp, UrlPolicy
from mcpkit.contrib.auth._urls import check_browser_url

__all__ = [
    "DEFAULT_HEADLESS_REDIRECT_URI",
    "AuthorizationResponse",
    "CallbackHandler",
    "HeadlessAuthorizer",
    "RedirectHandler",
    "same_endpoint",
]

DEFAULT_HEADLESS_REDIRECT_URI: Final = "http://localhost:3000/callback"
"""Never served: the headless handler reads the redirect instead of following it."""
MAX_HEADLESS_HOPS: Final = 5
"""Redirects followed inside the authorization server before the one back to the client."""
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})
_FIELDS: Final = ("code", "state", "iss", "error", "error_description", "error_uri")


@dataclass(frozen=True, slots=True)
class AuthorizationResponse:
    """The parameters the authorization server put on the redirect URI."""

    code: str | None = None
    state: str | None = None
    iss: str | None = None
    error: str | None = None
    error_description: str | None = None
    error_uri: str | None = None

    def __repr__(self) -> str:
        code = None if self.code is None else "<redacted>"
        return (
            f"AuthorizationResponse(code={code!r}, iss={self.iss!r}, error={self.error!r}, "
            f"state={'<set>' if self.state else None})"
        )

    @classmethod
    def from_query(cls, query: str) -> AuthorizationResponse:
        """Parse a redirect query string; a parameter given twice is refused (RFC 6749 §3.1)."""
        params = parse_qs(query, keep_blank_values=True)
        for name in _FIELDS:
            if len(params.get(name, ())) > 1:
                raise AuthorizationResponseError(
                    f"the authorization response repeats the {name!r} parameter"
                )
        values = {name: params[name][0] for name in _FIELDS if name in params}
        return cls(**values)

    @classmethod
    def from_url(cls, url: str) -> AuthorizationResponse:
        return cls.from_query(urlsplit(url).query)


@runtime_checkable
class RedirectHandler(Protocol):
    """Sends the resource owner to the authorization URL (already validated by the client)."""

    async def open(self, authorization_url: str) -> None: ...


@runtime_checkable
class CallbackHandler(Protocol):
    """Receives the authorization response.

    ``prepare`` readies the receiver and returns the redirect URI to register and send;
    ``wait`` returns the response for the request whose ``state`` is given (a receiver may
    ignore stray callbacks carrying another state); ``close`` releases whatever ``prepare``
    took and is always called, even when the flow failed.
    """

    async def prepare(self) -> str: ...

    async def wait(self, state: str) -> AuthorizationResponse: ...

    async def close(self) -> None: ...


def same_endpoint(url: str, redirect_uri: str) -> bool:
    """Whether ``url`` points at ``redirect_uri`` (scheme, authority and path; query ignored)."""
    a, b = urlsplit(url), urlsplit(redirect_uri)
    return (a.scheme.lower(), a.netloc.lower(), a.path or "/") == (
        b.scheme.lower(),
        b.netloc.lower(),
        b.path or "/",
    )


class HeadlessAuthorizer:
    """Follows the authorization URL with HTTP and captures the redirect back to the client.

    Works only with authorization servers that approve without a person (test and mock
    servers); a login page ends the flow with an error that says so. The URL and every
    redirect hop go through the same SSRF policy as discovery.
    """

    def __init__(
        self,
        redirect_uri: str = DEFAULT_HEADLESS_REDIRECT_URI,
        *,
        url_policy: UrlPolicy | None = None,
    ) -> None:
        self.redirect_uri = redirect_uri
        self.url_policy = url_policy or UrlPolicy()
        self._response: AuthorizationResponse | None = None

    async def prepare(self) -> str:
        self._response = None
        return self.redirect_uri

    async def open(self, authorization_url: str) -> None:
        check_browser_url(
            authorization_url, allow_insecure_loopback=self.url_policy.allow_insecure_loopback
        )
        url = authorization_url
        async with SafeHttp(self.url_policy) as http:
            for _ in range(MAX_HEADLESS_HOPS + 1):
                reply = await http.get(url, follow_same_origin=False)
                location = reply.headers.get("location")
                if reply.status_code not in _REDIRECTS or not location:
                    raise OAuthFlowError(
                        f"the authorization endpoint answered {reply.status_code} instead of "
                        "redirecting back; a headless flow needs a server that approves "
                        "without a user (use BrowserAuthorizer for people)"
                    )
                target = urljoin(url, location)
                if same_endpoint(target, self.redirect_uri):
                    self._response = AuthorizationResponse.from_url(target)
                    return
                url = target
        raise OAuthFlowError(
            f"the authorization server redirected more than {MAX_HEADLESS_HOPS} times "
            "without reaching the redirect URI"
        )

    async def wait(self, state: str) -> AuthorizationResponse:
        if self._response is None:
            raise OAuthFlowError("no authorization response was captured")
        return self._response

    async def close(self) -> None:
        self._response = None
