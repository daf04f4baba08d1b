"""HTTP client transport (owned by the client-transport engineer; the server side lives in
asgi.py and friends).

Work in progress: the Streamable HTTP client (both eras) and the 2024-11-05 HTTP+SSE fallback.
"""

from __future__ import annotations
