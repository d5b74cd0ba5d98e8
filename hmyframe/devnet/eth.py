"""The Ethereum namespace's public names (the methods live in :mod:`hmyframe.devnet.methods.eth`)."""

from hmyframe.devnet.methods.eth import (
    CLIENT_VERSION,
    DEFAULT_EFFECTIVE_GAS_PRICE,
    ETH_CHAIN_ID_BASE,
    eth_block_obj,
    eth_receipt_obj,
    eth_transaction_obj,
)

__all__ = [
    "CLIENT_VERSION",
    "DEFAULT_EFFECTIVE_GAS_PRICE",
    "ETH_CHAIN_ID_BASE",
    "eth_block_obj",
    "eth_receipt_obj",
    "eth_transaction_obj",
]
