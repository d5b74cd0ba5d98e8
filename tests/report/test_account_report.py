"""The account report, fetched from a devnet (a delegator and a token holder), opened offline in a
real headless Chromium, its figures checked against the chain's truth; a node without the
history index; the ``hmyframe report account`` command."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from report_browser import open_page

from hmyframe import report
from hmyframe.addresses import to_one
from hmyframe.cli import main
from hmyframe.devnet import Chain, Devnet

SCREENSHOTS = Path(__file__).parents[2] / "build" / "reports"
CHAIN = {"seed": 3, "blocks": 400, "epoch_length": 20, "validators": 40}
HEAD = 399


@dataclass
class Written:
    delegator: Path
    holder: Path
    delegator_address: str
    holder_address: str
    cache: Path
    net: Devnet


def _collector(chain: Chain) -> str:
    counts: dict[str, int] = {}
    for n in range(1, HEAD + 1):
        for s in chain.block(0, n).staking_transactions:
            if s.directive == "CollectRewards":
                counts[s.sender] = counts.get(s.sender, 0) + 1
    return max(counts, key=lambda a: counts[a])


def _holder(chain: Chain) -> str:
    """The token holder holding the most tokens at the head."""
    ledger = chain.token_ledger(0, HEAD)
    counts: dict[int, int] = {}
    for balances in ledger.balances.values():
        for i, v in balances.items():
            if v:
                counts[i] = counts.get(i, 0) + 1
    return chain.token_holder(max(counts, key=lambda i: counts[i]))


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Written]:
    folder = tmp_path_factory.mktemp("account-report")
    cache = folder / "cache"
    with Devnet(**CHAIN, validator_rate_limit=False) as net:
        delegator, holder = _collector(net.chain), _holder(net.chain)
        first = report.account_report(
            folder / "delegator.html",
            delegator,
            rpc=net,
            cache=cache,
            labels={delegator: "Alice (delegator)"},
        )
        second = report.account_report(folder / "holder.html", holder, rpc=net, cache=cache)
        yield Written(first, second, delegator, holder, cache, net)


def _section(html: str, heading: str) -> str:
    start = html.index(f"<h2>{heading}</h2>")
    end = html.find("<h2>", start + 1)
    return html[start : end if end > 0 else None]


def _cells(html: str) -> list[list[str]]:
    """The text of each body row's cells."""
    rows = [row for row in re.findall(r"<tr>(.*?)</tr>", html, re.S) if "<td" in row]
    return [
        [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)] for row in rows
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["delegator", "holder"])
def test_account_report_opens_offline_in_chromium(written: Written, name: str) -> None:
    path: Path = getattr(written, name)
    seen = open_page(path)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"account_{name}.png").write_bytes(seen.screenshot)
    (SCREENSHOTS / f"account_{name}.pdf").write_bytes(seen.pdf)
    assert seen.title.startswith("Account report")
    assert len(seen.images) == len(re.findall(r"<img ", path.read_text())) >= 1
    for image in seen.images:
        assert image["complete"], image["alt"]
        assert min(image["shown"]) > 0, image["alt"]
        assert image["scheme"] == "data", image["alt"]
    assert seen.console_errors == []
    assert seen.requests == []
    assert seen.screenshot.startswith(b"\x89PNG")
    assert "no network is needed to view or print it" in seen.text


def test_balances_and_history_are_the_chains(written: Written) -> None:
    chain = written.net.chain
    for path, address in (
        (written.delegator, written.delegator_address),
        (written.holder, written.holder_address),
    ):
        html = path.read_text()
        balance = _cells(_section(html, "Balance"))
        assert [(r[0], r[1], r[3]) for r in balance] == [
            (str(s), f"{HEAD:,}", f"{chain.balance(s, address, HEAD):,}") for s in (0, 1)
        ]
        plain = sum(len(chain.history(s, address)) for s in (0, 1))
        staking = len(chain.history(0, address, staking=True))
        assert f'<div class="label">Transactions</div><div class="value">{plain:,}</div>' in html
        assert f'<div class="label">Staking transactions</div><div class="value">{staking:,}</div>' in html


def test_holder_report_lists_its_tokens_exactly(written: Written) -> None:
    """The tokens it called on either shard that it holds at the head, with the ledger's exact
    balance (an HRC-721's balanceOf counts the NFTs it owns)."""
    chain = written.net.chain
    holder = written.holder_address
    index = next(i for i in range(10_000) if chain.token_holder(i) == holder)
    want = {}
    for shard in (0, 1):
        ledger = chain.token_ledger(shard, HEAD)
        called = {
            tx.to
            for e in chain.history(shard, holder)
            for tx in [chain.find_transaction(e.tx_hash)]
            if tx is not None and tx.sender == holder and tx.input != "0x"
        }
        for idx, token in enumerate(chain.tokens(shard)):
            if token.address not in called:
                continue
            if token.standard == "hrc20":
                held = ledger.balances.get(idx, {}).get(index, 0)
            elif token.standard == "hrc721":
                held = sum(1 for owner in ledger.nft_owner.values() if owner == index)
            else:
                continue  # an HRC-1155's balances are per id: balanceOf(address) is not its
            if held:
                want[to_one(token.address)] = held
    assert len(want) >= 3
    rows = _cells(_section(written.holder.read_text(), "Tokens held"))
    assert {r[1]: int(r[3].replace(",", "")) for r in rows} == want


def test_delegator_report_has_its_rewards_by_epoch(written: Written) -> None:
    """The per-epoch table's exact accrued atto are the chain's: the unclaimed reward at the
    epoch's end, less the one before, plus what CollectRewards paid in between."""
    chain = written.net.chain
    who = written.delegator_address
    rows = _cells(_section(written.delegator.read_text(), "Rewards by validator"))
    per_epoch = [r for r in rows if len(r) == 5]
    assert [int(r[0]) for r in per_epoch] == list(range(9, 19))
    for r in per_epoch:
        epoch = int(r[0])
        last = epoch * 20 + 19
        now = sum(d.reward for _, d in chain.delegations_by_delegator(who, last))
        before = sum(d.reward for _, d in chain.delegations_by_delegator(who, last - 20))
        paid = sum(
            m.amount
            for n in range(last - 19, last + 1)
            for m in chain.balance_movements(0, n)
            if m.kind == "collect_rewards" and m.address == who
        )
        assert int(r[4].replace(",", "")) == now - before + paid
    delegations = _cells(_section(written.delegator.read_text(), "Delegations"))
    assert sorted(r[0] for r in delegations) == sorted(
        to_one(v) for v, _ in chain.delegations_by_delegator(who, HEAD)
    )
    assert "Account report: Alice (delegator)" in written.delegator.read_text()


def test_a_node_without_the_history_index(make_devnet: object, tmp_path: Path) -> None:
    bare = make_devnet(**CHAIN, explorer=False)  # type: ignore[operator]
    address = _holder(bare.chain)
    path = report.account_report(
        tmp_path / "bare.html", address, rpc=bare, cache=tmp_path / "cache", epochs=2
    )
    html = path.read_text()
    assert "This node keeps no transaction history index" in html
    assert "Tokens held" in html  # the rest of the report is there


def test_the_report_account_command(
    written: Written, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli.html"
    code = main(
        ["report", "account", written.holder_address, "--out", str(out), "--rpc", written.net.url,
         "--epochs", "3", "--label", f"{written.holder_address}=Bob", "--no-progress"]
    )  # fmt: skip
    assert code == 0
    assert f"wrote the account report to {out.resolve()}" in capsys.readouterr().out
    assert "Account report: Bob" in out.read_text()
    assert main(["report", "account", "one1nope", "--out", str(out), "--rpc", written.net.url]) == 1
    err = capsys.readouterr().err
    assert "one1nope" in err
    assert len(err.strip().splitlines()) == 1
