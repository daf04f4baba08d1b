"""The package version, in a module of its own so any layer can read it without importing
the top-level package (whose lazy exports reach into ``server`` and ``client``)."""

__version__ = "0.1.0"
