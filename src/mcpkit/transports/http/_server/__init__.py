"""The server side of Streamable HTTP: the ASGI app, its engines, guards and state."""
