"""``python -m hmyframe`` runs the command line (same as the ``hmyframe`` script)."""

from __future__ import annotations

from hmyframe.cli import main

raise SystemExit(main())
