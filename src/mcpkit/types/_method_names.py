"""Method names that more than one layer spells, defined once.

The method table (:mod:`mcpkit.types._methods`) and the message models are the catalogue of
every method; these are the names the protocol engine, the runtime and the transports branch on
by hand (a cancel, a progress report, the end of the handshake). A module-level name costs
nothing on the hot path.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CANCELLED_NOTIFICATION", "INITIALIZED_NOTIFICATION", "PROGRESS_NOTIFICATION"]

CANCELLED_NOTIFICATION: Final = "notifications/cancelled"
INITIALIZED_NOTIFICATION: Final = "notifications/initialized"
PROGRESS_NOTIFICATION: Final = "notifications/progress"
