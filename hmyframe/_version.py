"""The package version, in a module of its own so that any module can read it without
importing the package's ``__init__`` (which names, for type checkers, nearly every module)."""

__version__ = "0.1.0"
