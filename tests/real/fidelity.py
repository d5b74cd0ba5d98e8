"""Write ``docs/fidelity.md``: which real node answers back each method hmyframe calls.

Run ``python tests/real/fidelity.py`` after changing the corpus (``tests/real/``) or the
methods hmyframe calls (:data:`METHODS`); ``tests/real/test_fidelity.py`` fails while the
committed page differs from what this writes, and while hmyframe calls a method missing here.
The output depends on the corpus files only (sorted), so it is byte-for-byte reproducible.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PAGE = ROOT / "docs" / "fidelity.md"
if str(HERE.parent) not in sys.path:  # run as a script: make tests/real_corpus.py importable
    sys.path.insert(0, str(HERE.parent))

import real_corpus as rc  # noqa: E402

#: The node eras the table has a column for (the corpus's eras outside it are counted too).
ERAS = ("2019", "2020", "2021", "2022", "2023", "2024", "2025")


@dataclass(frozen=True)
class Method:
    """One method hmyframe calls (or decodes), the namespaces it uses it in, and where."""

    name: str
    namespaces: tuple[str, ...]
    where: str


#: Every node method hmyframe calls, in each namespace it calls it in, and the code that does.
#: ``tests/real/test_fidelity.py`` checks this list against the package's call sites.
METHODS: tuple[Method, ...] = (
    Method("blockNumber", ("hmy", "hmyv2"), "rpc/methods.py, rpc/heads.py (polling), engine/_session.py"),
    Method(
        "getShardingStructure",
        ("hmy", "hmyv2"),
        "rpc/methods.py, rpc/routing.py, rpc/heads.py, engine/_lookups.py",
    ),
    Method("getBlockByNumber", ("hmy", "hmyv2"), "rpc/methods.py, datasets/sources.py, engine/_snapshots.py"),
    Method("getBlockByHash", ("hmy", "hmyv2"), "rpc/methods.py"),
    Method("getBlocks", ("hmy", "hmyv2"), "rpc/methods.py, datasets/sources.py (blocks, transactions)"),
    Method("getBlockSigners", ("hmy",), "datasets/sources.py (signers with v1 blocks)"),
    Method("getTransactionByHash", ("hmy", "hmyv2"), "rpc/methods.py, engine/_lookups.py"),
    Method("getStakingTransactionByHash", ("hmy", "hmyv2"), "rpc/methods.py"),
    Method(
        "getTransactionReceipt",
        ("hmy", "hmyv2"),
        "datasets/sources.py (receipts by transaction), engine/_accounts.py (rewards_collected)",
    ),
    Method("getBlockReceipts", ("hmy", "hmyv2"), "datasets/sources.py (receipts by block)"),
    Method("getLogs", ("hmy",), "datasets/sources.py (logs, token_transfers)"),
    Method("getTransactionCount", ("hmy", "hmyv2"), "rpc/methods.py, engine/_lookups.py (tx_counts)"),
    Method("getPendingCXReceipts", ("hmy", "hmyv2"), "rpc/methods.py, engine/_lookups.py (cx_receipts)"),
    Method(
        "getCXReceiptByHash",
        ("hmy", "hmyv2"),
        "datasets/cx_receipts.py (decodes its answers), engine/_accounts.py (native_transfers)",
    ),
    Method("getAllValidatorInformation", ("hmy", "hmyv2"), "rpc/methods.py"),
    Method(
        "getAllValidatorInformationByBlockNumber", ("hmy", "hmyv2"), "rpc/methods.py, engine/_snapshots.py"
    ),
    Method("getValidatorInformation", ("hmy", "hmyv2"), "datasets/validators.py (decodes its answers)"),
    Method("getValidatorInformationByBlockNumber", ("hmy", "hmyv2"), "rpc/methods.py"),
    Method("getAllValidatorAddresses", ("hmy", "hmyv2"), "rpc/methods.py"),
    Method("epochLastBlock", ("hmy", "hmyv2"), "rpc/methods.py"),
    Method("getEpoch", ("hmy", "hmyv2"), "engine/_history.py"),
    Method("getCode", ("hmy", "hmyv2", "eth"), "engine/_tokens.py"),
    Method(
        "call",
        ("hmy", "hmyv2", "eth"),
        "engine/_tokens.py, engine/_accounts.py (token_balances), engine/_dex.py (dex_pairs)",
    ),
    Method("getBalanceByBlockNumber", ("hmy", "hmyv2"), "engine/_accounts.py (balances)"),
    Method(
        "getDelegationsByDelegatorByBlockNumber",
        ("hmy", "hmyv2"),
        "engine/_accounts.py (delegator_delegations, undelegations)",
    ),
    Method("getTransactionsHistory", ("hmy", "hmyv2"), "engine/_accounts.py (account_transactions)"),
    Method("getStakingTransactionsHistory", ("hmy", "hmyv2"), "engine/_accounts.py (account_transactions)"),
    Method("subscribe", ("hmy", "eth"), "rpc/heads.py (newHeads over WebSocket)"),
    Method("subscription", ("hmy", "eth"), "rpc/heads.py (the newHeads notifications it reads)"),
    Method("block", ("trace",), "rpc/client.py, datasets/sources.py (traces)"),
    Method("transaction", ("trace",), "rpc/client.py, engine/_lookups.py (traces)"),
    Method("clientVersion", ("web3",), "engine/_origin.py"),
)


def _short(answer_id: str) -> str:
    """The id without its ``.json`` (``mainnet-2023/hmy_getLogs__getblock-docs``)."""
    return answer_id.removesuffix(".json")


def _cell(ids: list[str]) -> str:
    return "<br>".join(f"`{i}`" for i in ids) if ids else "—"


def render() -> str:
    """The page, as text."""
    answers = rc.load()
    by_method: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for answer in answers:
        by_method[answer.method][answer.era].append(_short(answer.id))
    rows = []
    backed = total = 0
    for method in METHODS:
        for namespace in method.namespaces:
            full = f"{namespace}_{method.name}"
            eras = by_method.get(full, {})
            count = sum(len(v) for v in eras.values())
            total += 1
            backed += count > 0
            cells = [_cell(sorted(eras.get(era, []))) for era in ERAS]
            other = sorted(e for e in eras if e not in ERAS)
            status = f"{count} real" if count else "**devnet only**"
            if other:
                status += " (also " + ", ".join(other) + ")"
            rows.append(f"| `{full}` | " + " | ".join(cells) + f" | {status} |")
    called = {f"{ns}_{m.name}" for m in METHODS for ns in m.namespaces}
    extra: dict[str, int] = defaultdict(int)
    for answer in answers:
        if answer.method not in called:
            extra[answer.method] += 1
    collections = [
        f"- `{folder.name}/`: {sum(1 for a in answers if a.id.startswith(folder.name + '/'))} answers"
        for folder in rc.collection_folders()
    ]
    samples = sum(1 for a in answers if a.id.startswith("samples/"))
    lines = [
        "# Fidelity: real node answers behind each method hmyframe calls",
        "",
        "<!-- Generated by tests/real/fidelity.py from tests/real/ and tests/samples/; do not edit."
        " Regenerate: python tests/real/fidelity.py -->",
        "",
        "hmyframe's tests talk to a simulated devnet, and a devnet only confirms our own reading of",
        "the node. This table says, for every method hmyframe calls (rows: method and namespace) and",
        "every node era (columns: the year the node software answered), which **real** answers of a",
        "Harmony node back our reading: ids of the corpus (`tests/real_corpus.py`), which tests",
        "compare hmyframe and the devnet with. A row marked **devnet only** has no real answer yet:",
        "there, the devnet's shape is our reading of the node's Go source and nothing more.",
        "",
        "The corpus is collected by hand from public sources and checked by `tests/real/test_corpus.py`:",
        "provider API references whose examples are real node answers (each file names the page and",
        "commit), harmony-one's localnet test suite (`harmony-test`, reference replies dated by git",
        "blame), the Harmony docs where an example agrees with its request and with the other answers",
        "(`tests/real/samples.json` says why each is kept or rejected), and node replies pasted in",
        "harmony-one issue threads (cited by URL). Hand-written examples, placeholders, cut-short or",
        "self-contradicting answers are left out; CLI re-prints (numbers through float64) are marked",
        "`exact_numbers: false` and back shapes only.",
        "",
        f"**{backed} of {total}** method/namespace pairs have at least one real answer;"
        f" the corpus holds {len(answers)} answers ({samples} vendored samples, the rest in collections).",
        "",
        "| method | " + " | ".join(ERAS) + " | real answers |",
        "| --- | " + " | ".join("---" for _ in ERAS) + " | --- |",
        *rows,
        "",
        "## Where hmyframe calls them",
        "",
        "| method | namespaces | called from (hmyframe/) |",
        "| --- | --- | --- |",
        *(f"| `{m.name}` | {', '.join(m.namespaces)} | {m.where} |" for m in METHODS),
        "",
        "## The collections",
        "",
        *collections,
        f"- `samples/`: {samples} of the vendored samples (`tests/samples/`, listed in `tests/real/samples.json`)",
        "",
        "## Real answers to methods hmyframe does not call",
        "",
        "Kept for the devnet's other methods and for future use:",
        "",
        ", ".join(f"`{m}` ({n})" for m, n in sorted(extra.items())) + ".",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Write ``docs/fidelity.md``."""
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
