"""The bound on what a block-range fetch holds (:mod:`hmyframe.engine._hand`): pieces handed out
oldest chunk first, answer bytes and converted tables bounded, requests sized by what was seen."""

from __future__ import annotations

import asyncio

from hmyframe.engine._hand import Hand


def _run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_pieces_go_to_the_oldest_chunk_first() -> None:
    async def main() -> list[tuple[int, int]]:
        hand = Hand(slots=1, answer_bytes=10**9, table_bytes=10**9)
        for chunk in (0, 100):
            hand.open(chunk)
        order: list[tuple[int, int]] = []

        async def piece(chunk: int, first: int) -> None:
            ticket = await hand.take("blocks", chunk, first, 10)
            order.append((chunk, first))
            await asyncio.sleep(0)
            hand.give_back(ticket)

        # the later chunk asks first; each of its pieces still waits for the older chunk's
        await asyncio.gather(*(piece(100, f) for f in (100, 110)), *(piece(0, f) for f in (0, 10)))
        return order

    order = _run(main())
    # the later chunk's first ask found the slot free; then the older chunk's pieces go first
    assert order == [(100, 100), (0, 0), (0, 10), (100, 110)]


def test_answer_bytes_in_hand_are_bounded_and_a_piece_alone_always_goes() -> None:
    async def main() -> tuple[Hand, list[int]]:
        hand = Hand(slots=8, answer_bytes=1000, table_bytes=10**9)
        hand.open(0)
        probe = await hand.take("blocks", 0, 0, 10)  # nothing known yet: a probe goes
        hand.answered(probe, 5000)  # over the bound alone
        held: list[int] = []

        async def piece(first: int) -> None:
            ticket = await hand.take("blocks", 0, first, 10)
            held.append(hand.pieces)
            await asyncio.sleep(0.001)
            hand.answered(ticket, 400)
            await asyncio.sleep(0.001)
            hand.give_back(ticket)

        pieces = asyncio.gather(*(piece(f) for f in range(10, 100, 10)))
        await asyncio.sleep(0.01)
        assert held == []  # the oversized answer in hand holds every other piece back
        hand.give_back(probe)
        await pieces
        assert hand.pieces == 0
        assert hand.answers == 0
        return hand, held

    hand, held = _run(main())
    assert hand.peak_answers == 5000  # the oversized piece went, alone
    # then one at a time: the estimate learnt from it stays above what two 400-byte answers
    # and another piece would fit in 1000 bytes
    assert held == [1] * 9
    # learnt conservatively: up at once to a larger answer, down only gradually
    assert hand.estimate("blocks", 10) == int(400 + 4600 * 0.75**9)


def test_converted_tables_past_the_bound_let_only_the_oldest_chunk_convert() -> None:
    async def main() -> list[str]:
        hand = Hand(slots=4, answer_bytes=10**9, table_bytes=1000)
        hand.open(0)
        hand.open(100)
        events: list[str] = []
        first = await hand.take("blocks", 0, 0, 10)
        hand.answered(first, 10)
        hand.converted(first, 5000)  # chunk 0 now holds more than the bound
        hand.give_back(first)
        later = asyncio.ensure_future(hand.take("blocks", 100, 100, 10))
        await asyncio.sleep(0.01)
        events.append(f"later granted: {later.done()}")
        older = await hand.take("blocks", 0, 10, 10)  # the oldest chunk always gets a place
        events.append("oldest granted")
        hand.give_back(older)
        await asyncio.sleep(0.01)
        events.append(f"later granted: {later.done()}")
        hand.close(0)  # chunk 0 written: its tables are no longer held
        hand.give_back(await later)
        events.append(f"held after close: {sum(hand.tables.values())}")
        return events

    assert _run(main()) == [
        "later granted: False",
        "oldest granted",
        "later granted: False",
        "held after close: 0",
    ]


def test_requests_are_sized_by_the_answer_bytes_seen_per_block() -> None:
    async def main() -> tuple[int, int, int, int]:
        hand = Hand(slots=4, piece_bytes=100_000)
        hand.open(0)
        first = hand.step("blocks", 100)  # nothing seen yet: the piece as the options say
        ticket = await hand.take("blocks", 0, 0, first)
        hand.answered(ticket, first * 10_000)  # 10 kB a block
        hand.give_back(ticket)
        return (
            first,
            hand.step("blocks", 100),  # 100 kB answers: 10 blocks a request
            hand.step("blocks", 5),  # (never more than the piece)
            hand.step("receipts", 100),  # another source: its own answers decide
        )

    assert _run(main()) == (100, 10, 5, 100)
