"""The oracle tests' devnet: one per module, busy with tokens (see ``oracle_helpers``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from oracle_helpers import ORACLE_NET

from hmyframe.devnet import Devnet


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    """A devnet of :data:`~oracle_helpers.ORACLE_NET`, its limiter off, serving ``eth_`` too."""
    with Devnet(**ORACLE_NET, validator_rate_limit=False) as devnet:
        yield devnet
