"""Reading interfaces: canonical types, ABI JSON in its forms, human-readable signatures, the built-in
ABIs (their topics and selectors are the standards' well-known ones), and a malformed ABI as one
:class:`~hmyframe.errors.AbiError` line naming the entry."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from hmyframe.abi import BUILTIN_ABIS, Abi, builtin, event_topic, function_selector, parse_abi, parse_type
from hmyframe.abi._api import choose_events, choose_functions, keys_of
from hmyframe.datasets import token_transfers
from hmyframe.errors import AbiError, ConfigError, HmyframeError


@pytest.mark.parametrize(
    ("text", "canonical", "dynamic", "head"),
    [
        ("uint", "uint256", False, 32),
        ("int", "int256", False, 32),
        ("uint8", "uint8", False, 32),
        ("bytes32", "bytes32", False, 32),
        ("bytes", "bytes", True, 32),
        ("string[]", "string[]", True, 32),
        ("address[3]", "address[3]", False, 96),
        ("(uint,address)[2]", "(uint256,address)[2]", False, 128),
        ("(uint256,bytes)[2]", "(uint256,bytes)[2]", True, 32),
        ("uint16[2][]", "uint16[2][]", True, 32),
        ("((int8,bool)[],bytes4)", "((int8,bool)[],bytes4)", True, 32),
        ("function", "function", False, 32),
    ],
)
def test_types_have_their_canonical_spelling_and_encoding_shape(
    text: str, canonical: str, dynamic: bool, head: int
) -> None:
    t = parse_type(text)
    assert (t.canonical, t.dynamic, t.head_size) == (canonical, dynamic, head)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("uint7", "uint8 .. uint256 in steps of 8"),
        ("uint264", "uint8 .. uint256 in steps of 8"),
        ("int0", "int8 .. int256"),
        ("bytes33", "bytes1 .. bytes32"),
        ("bytes0", "bytes1 .. bytes32"),
        ("address[0]", "length of at least 1"),
        ("fixed128x18", "fixed-point types are not supported"),
        ("uint256[", "unknown type"),
        ("tuple", "no components"),
        ("float", "unknown type"),
    ],
)
def test_a_malformed_type_says_what_was_expected(text: str, expected: str) -> None:
    with pytest.raises(AbiError, match=expected):
        parse_type(text)


def test_the_built_in_abis_have_the_standards_topics_and_selectors() -> None:
    topics = {
        "hrc20": {
            "Transfer": token_transfers.TRANSFER,
            "Approval": "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925",
        },
        "hrc1155": {
            "TransferSingle": token_transfers.TRANSFER_SINGLE,
            "TransferBatch": token_transfers.TRANSFER_BATCH,
            "ApprovalForAll": "0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31",
        },
        "wone": {
            "Deposit": "0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c",
            "Withdrawal": "0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65",
        },
        "uniswap_v2_factory": {
            "PairCreated": "0x0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9"
        },
        "uniswap_v2_pair": {
            # Swap and Sync: the topics of the real mainnet block in tests/real/mainnet-2023
            "Swap": "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822",
            "Sync": "0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1",
            "Mint": "0x4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f",
            "Burn": "0xdccd412f0b1252819cb1fd330b93224ca42612892bb3f4f789976e6d81936496",
        },
    }
    for name, expected in topics.items():
        got = {e.name: e.topic0 for e in builtin(name).events}
        assert {k: got[k] for k in expected} == expected, name
    selectors = {
        "hrc20": {"transfer": "0xa9059cbb", "approve": "0x095ea7b3", "transferFrom": "0x23b872dd"},
        "wone": {"deposit": "0xd0e30db0", "withdraw": "0x2e1a7d4d"},
        "uniswap_v2_pair": {"swap": "0x022c0d9f", "permit": "0xd505accf"},
        "uniswap_v2_router": {
            "swapExactTokensForTokens": "0x38ed1739",
            "swapExactETHForTokens": "0x7ff36ab5",
            "addLiquidity": "0xe8e33700",
            "removeLiquidityETH": "0x02751cec",
        },
    }
    for name, expected in selectors.items():
        got = {f.name: f.selector for f in builtin(name).functions}
        assert {k: got[k] for k in expected} == expected, name
    # HRC-721's Transfer has the HRC-20 signature, with the token id indexed
    (nft_transfer,) = [e for e in builtin("hrc721").events if e.name == "Transfer"]
    assert nft_transfer.topic0 == token_transfers.TRANSFER
    assert nft_transfer.topic_count == 4
    overloads = [f.signature for f in builtin("hrc721").functions if f.name == "safeTransferFrom"]
    assert overloads == [
        "safeTransferFrom(address,address,uint256)",
        "safeTransferFrom(address,address,uint256,bytes)",
    ]


def test_every_built_in_is_a_json_file_of_the_package_and_names_are_forgiving() -> None:
    files = {p.name for p in resources.files("hmyframe.abi").joinpath("builtin").iterdir()}
    assert files == {f"{n}.json" for n in BUILTIN_ABIS}
    for name in BUILTIN_ABIS:
        text = resources.files("hmyframe.abi").joinpath("builtin", f"{name}.json").read_text()
        assert parse_abi(json.loads(text)) == builtin(name)
    assert builtin("HRC-20") == builtin("hrc20") == parse_abi("Hrc20")
    assert builtin("UniswapV2Pair") == builtin("uniswap_v2_pair")
    with pytest.raises(AbiError, match="no built-in ABI named 'erc4626': expected one of hrc20, hrc721"):
        builtin("erc4626")


def test_json_in_every_form_gives_the_same_abi(tmp_path: Path) -> None:
    entries = [
        {"type": "constructor", "inputs": []},
        {
            "type": "event",
            "name": "Swap",
            "anonymous": False,
            "inputs": [
                {"name": "sender", "type": "address", "indexed": True},
                {"name": "amount", "type": "uint"},
                {"name": "route", "type": "tuple[]", "components": [{"name": "pair", "type": "address"}]},
            ],
        },
        {
            "name": "ping",
            "inputs": [{"name": "", "type": "bytes"}],
            "outputs": [],
        },  # type defaults to function
        {"type": "error", "name": "Nope", "inputs": []},
    ]
    abi = parse_abi(entries)
    assert [e.signature for e in abi.events] == ["Swap(address,uint256,(address)[])"]
    assert [f.signature for f in abi.functions] == ["ping(bytes)"]
    path = tmp_path / "Pair (copy).json"  # a parenthesis in a file name is no signature
    path.write_text(json.dumps({"contractName": "Pair", "abi": entries}))
    assert parse_abi(path) == parse_abi(str(path)) == parse_abi(json.dumps(entries)) == abi
    assert parse_abi({"abi": json.dumps(entries)}) == abi
    assert parse_abi(abi) is abi
    assert abi + builtin("wone") == Abi(
        abi.events + builtin("wone").events, abi.functions + builtin("wone").functions
    )


def test_signatures_with_or_without_names_keywords_and_tuples() -> None:
    named = parse_abi(
        "Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, "
        "uint256 amount1Out, address indexed to)"
    )
    bare = parse_abi("Swap(address indexed,uint,uint,uint,uint,address indexed)")
    assert named.events[0].topic0 == bare.events[0].topic0 == builtin("uniswap_v2_pair").events[4].topic0
    assert [p.name for p in bare.events[0].inputs] == [""] * 6
    several = parse_abi(
        "event Deposit(address indexed dst, uint wad); function withdraw(uint256 wad) external;\n"
        "event Note((uint256 a, address[] b)[] indexed items, string memory text) anonymous;"
        "function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external"
    )
    assert [e.full_signature for e in several.events] == [
        "Deposit(address indexed dst, uint256 wad)",
        "Note((uint256 a, address[] b)[] indexed items, string text) anonymous",
    ]
    assert several.events[1].signature == "Note((uint256,address[])[],string)"
    assert [f.selector for f in several.functions] == ["0x2e1a7d4d", "0x022c0d9f"]
    assert parse_abi("f(tuple(uint256,address) x, (bool y)[2] z)", default="function").functions[
        0
    ].signature == ("f((uint256,address),(bool)[2])")
    # a bare signature is an event for events() and a function for calls()
    assert (
        parse_abi("transfer(address to, uint256 value)", default="function").functions[0].selector
        == "0xa9059cbb"
    )
    assert event_topic("Transfer(address,address,uint256)") == token_transfers.TRANSFER
    assert function_selector("balanceOf(address)") == "0x70a08231"


def test_choosing_events_and_keying_overloads() -> None:
    chosen, single = choose_events("hrc20", None)
    assert ([e.name for e in chosen], single) == (["Transfer", "Approval"], False)
    chosen, single = choose_events("hrc20", "Transfer")
    assert ([e.name for e in chosen], single) == (["Transfer"], True)
    chosen, single = choose_events("Transfer(address indexed a, address indexed b, uint256 c)", None)
    assert single
    both = list(builtin("hrc20").events[:1]) + [e for e in builtin("hrc721").events if e.name == "Transfer"]
    assert keys_of(both) == [
        "Transfer(address indexed from, address indexed to, uint256 value)",
        "Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
    ]
    functions, single = choose_functions("hrc721", "safeTransferFrom")
    assert not single
    assert keys_of(functions) == [
        "safeTransferFrom(address,address,uint256)",
        "safeTransferFrom(address,address,uint256,bytes)",
    ]
    functions, single = choose_functions("hrc721", "safeTransferFrom(address,address,uint256)")
    assert single
    assert len(functions) == 1
    with pytest.raises(AbiError, match="no event 'Swap' in the ABI: it has Transfer, Approval"):
        choose_events("hrc20", "Swap")
    with pytest.raises(AbiError, match="the ABI has no event"):
        choose_events("uniswap_v2_router", None)


@pytest.mark.parametrize(
    ("abi", "expected"),
    [
        (
            [{"type": "event", "name": "Swap", "inputs": [{"name": "x", "type": "uint257"}]}],
            r"ABI entry 0 \(event 'Swap'\): inputs\[0\] \(x\): type 'uint257'",
        ),
        (
            [{"type": "function", "name": "ok", "inputs": []}, {"type": "event", "inputs": []}],
            r"ABI entry 1 \(event None\): expected a name",
        ),
        ([1], r"ABI entry 0: expected an object, got 1"),
        ([{"type": "modifier", "name": "m"}], r"ABI entry 0: type 'modifier'; expected function, event"),
        (
            [
                {
                    "type": "event",
                    "name": "Many",
                    "inputs": [{"name": n, "type": "uint8", "indexed": True} for n in "abcd"],
                }
            ],
            r"ABI entry 0 \(event 'Many'\): 4 indexed arguments; an event has at most 3",
        ),
        (
            [{"type": "event", "name": "T", "inputs": [{"name": "t", "type": "tuple"}]}],
            r"ABI entry 0 \(event 'T'\): inputs\[0\] \(t\)",
        ),
        (
            [{"type": "event", "name": "E", "inputs": [{"name": "x"}]}],
            r"inputs\[0\] \(x\): expected a 'type' string",
        ),
        ('[{"type": "event", "name": "E",}]', r"ABI JSON is not JSON: .* at line 1 column"),
        (
            "Swap(address indexed indexed x)",
            r"signature 'Swap\(address indexed indexed x\)': argument 0 .*expected TYPE \[indexed\] \[name\]",
        ),
        ("Swap(address x", r"unbalanced parentheses"),
        ("function f(uint256 indexed x)", r"'indexed' only marks an event's arguments"),
        ("Swap(uint7 x)", r"argument 0 'uint7 x': type 'uint7'"),
        ("no_such_abi", r"'no_such_abi' is not a built-in ABI \(hrc20, .*\), a file, JSON or a signature"),
        (42, r"expected an ABI .* got 42"),
    ],
)
def test_a_malformed_abi_is_one_line_naming_the_entry(abi: object, expected: str) -> None:
    with pytest.raises(AbiError, match=expected) as info:
        parse_abi(abi)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ConfigError)
    assert isinstance(info.value, HmyframeError)


def test_an_unreadable_abi_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(AbiError, match=r"cannot read the ABI file '.*bad.json'"):
        parse_abi(bad)
    bad.write_text("[1, 2")
    with pytest.raises(AbiError, match=r"ABI file bad.json is not JSON"):
        parse_abi(str(bad))
