"""``hmyframe accounts``: balances, history, delegations and rewards of addresses, printed or
written exactly to Parquet / CSV, over real HTTP against the devnet; bad input is one line."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hmyframe.cli import main
from hmyframe.devnet import Devnet

CHAIN = {"seed": 3, "blocks": 400, "epoch_length": 20, "validators": 40}


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(**CHAIN, validator_rate_limit=False) as devnet:
        yield devnet


def test_balances_to_parquet_are_exact(
    net: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = net.chain
    addresses = chain.accounts(1, 399)[:5]
    listed = tmp_path / "addresses.txt"
    listed.write_text("# treasury and friends\n" + "\n".join(addresses[2:]) + "\n")
    out = tmp_path / "balances.parquet"
    code = main(
        ["accounts", "balances", *addresses[:2], "--addresses-file", str(listed), "--blocks", "0:399:100",
         "--shard", "1", "--rpc", net.url, "--out", str(out), "--no-progress"]
    )  # fmt: skip
    assert code == 0
    assert f"wrote 20 balances rows to {out.resolve()}" in capsys.readouterr().out
    rows = pq.read_table(out).to_pylist()
    assert str(pq.read_schema(out).field("balance").type) == "decimal128(38, 0)"
    assert sorted((r["address_hex"], r["block_number"], int(r["balance"])) for r in rows) == sorted(
        (a, b, chain.balance(1, a, b)) for a in addresses for b in (0, 100, 200, 300)
    )


def test_history_to_csv_and_printed(net: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chain = net.chain
    validator = max(chain.validator_addresses(), key=lambda v: len(chain.history(0, v, staking=True)))
    out = tmp_path / "history.csv"
    assert main(["accounts", "history", validator, "--rpc", net.url, "--out", str(out), "--no-progress"]) == 0
    with out.open() as f:
        rows = list(csv.DictReader(f))
    staking = [r["transaction_hash"] for r in rows if r["kind"] == "staking"]
    assert staking == [e.tx_hash for e in chain.history(0, validator, staking=True)]
    capsys.readouterr()
    assert main(["accounts", "history", validator, "--order", "desc", "--limit", "1", "--rpc", net.url]) == 0
    printed = capsys.readouterr().out
    assert chain.history(0, validator, staking=True)[-1].tx_hash in printed
    assert printed.splitlines()[0].split() == [
        "address", "block_number", "shard_id", "kind", "direction", "transaction_hash", "value_one", "directive",
    ]  # fmt: skip


def test_delegations_and_rewards_printed(net: Devnet, capsys: pytest.CaptureFixture[str]) -> None:
    chain = net.chain
    delegator = next(
        s.sender
        for n in range(1, 400)
        for s in chain.block(0, n).staking_transactions
        if s.directive == "Delegate"
    )
    assert main(["accounts", "delegations", delegator, "--block", "300", "--rpc", net.url]) == 0
    printed = capsys.readouterr().out
    from hmyframe.addresses import to_one

    for validator, _ in chain.delegations_by_delegator(delegator, 300):
        assert to_one(validator) in printed
    assert main(["accounts", "rewards", delegator, "--epochs", "3", "--rpc", net.url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["delegator_address", "epoch", "validator_address"]
    assert {line.split()[1] for line in lines[1:]} == {"16", "17", "18"}


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["accounts", "balances", "one1nope"], "one1nope"),
        (["accounts", "balances", "0x" + "12" * 20, "--blocks", "5000"], "block 5000 is beyond the head 399"),
        (["accounts", "balances", "0x" + "12" * 20, "--out", "x.txt"], "x.txt"),
        (["accounts", "history"], "give at least one address"),
    ],
)
def test_bad_input_is_one_line(
    net: Devnet, argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--rpc", net.url, "--no-progress"]) == 1
    err = capsys.readouterr().err.strip()
    assert named in err
    assert len(err.splitlines()) == 1


def test_bad_blocks_spec_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["accounts", "balances", "0x" + "12" * 20, "--blocks", "1:x"])
    assert stop.value.code == 2
    assert "START:END[:STEP], got '1:x'" in capsys.readouterr().err
