"""Optional integrations, each behind its own extra (``mcpkit[auth]``, ...).

Nothing in the core packages imports ``mcpkit.contrib``; a module here may import any layer
below it. Import the integration you need directly, e.g. ``mcpkit.contrib.auth``.
"""

from __future__ import annotations

__all__: list[str] = []
