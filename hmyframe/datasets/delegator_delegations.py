"""``delegator_delegations``: a delegator's delegations at a block
(``getDelegationsByDelegatorByBlockNumber``).

The node's objects spell their keys ``validator_address``, ``delegator_address``, ``amount``,
``reward`` and ``Undelegations: [{"Amount", "Epoch"}]`` (a Go struct without JSON tags,
re-marshalled through a map; RPC notes §1.7), and a delegator without delegations answers
``null``. The columns are the ``delegations`` dataset's (one row per (validator, delegator);
``snapshot_block`` is the block asked for, ``delegation_index`` null: the method does not give
it); each pending undelegation, with its amount and epoch, is a row of ``undelegations``, read
from the same answers (``hmyframe.delegator_undelegations``).
"""

from __future__ import annotations

from . import delegations
from ._base import Dataset, shared
from ._validators import decode_validators

NAME = "delegator_delegations"

SCHEMA = delegations.SCHEMA.set(
    0, shared("snapshot_block", "Block the delegations were read at (the state after it).")
)

DATASET = Dataset(
    name=NAME,
    description="One row per (delegator, validator) at a block: exact amount, unclaimed reward, pending undelegations.",
    schema=SCHEMA,
    sort_by=("snapshot_block", "delegator_address", "validator_address"),
    source="delegator_delegations",
    methods=("hmy(v2)_getDelegationsByDelegatorByBlockNumber",),
    builder=delegations.build,
    decoder=decode_validators,
    summary="Each delegator's delegations at a block: validator, exact amount, reward and undelegations.",
    notes=(
        "One ``getDelegationsByDelegatorByBlockNumber`` per delegator, batched, on the beacon "
        "shard. The delegations at a block never change, so rows are cached per (chain, block), "
        "grown by union: asking again sends nothing (in the cache file a delegator without "
        "delegations is one row with a null validator, dropped from what a fetch returns). "
        "``delegator_undelegations`` gives each pending undelegation (amount, epoch) of the same "
        "answers, asked again each time."
    ),
)
