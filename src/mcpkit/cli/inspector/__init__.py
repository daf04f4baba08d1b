"""mcpkit's own inspector: a local web page to explore, call and debug any MCP server.

``mcpkit dev TARGET`` (or ``mcpkit inspect --web TARGET``) serves it on 127.0.0.1 with a
one-time token in the URL. The backend (:mod:`.app`, :mod:`.session`) drives mcpkit's own
client; the page (``static/``) is plain HTML, CSS and JavaScript shipped in the package — no
Node.js, no CDN, no build step. See docs/inspector.md.
"""

from mcpkit.cli.inspector._serve import inspector_url, run_inspector, serve_inspector
from mcpkit.cli.inspector._session import ConnectSpec

__all__ = ["ConnectSpec", "inspector_url", "run_inspector", "serve_inspector"]
