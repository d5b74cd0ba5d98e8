"""What a block-range fetch holds between the wire and the disk, bounded in bytes.

A long export's memory is what it holds at once: answers fetched and not yet converted, and
converted tables waiting for the rest of their chunk to be written. Counting chunks or pieces
bounds neither when blocks are large (a ``busy`` chunk of 1,000 blocks is ~130,000 transactions,
~90 MB of Arrow; a ``getBlocks`` answer of 100 such blocks is ~13 MB of JSON), so :class:`Hand`
bounds them by bytes:

* **Pieces in hand** (fetched or being fetched, not yet converted) are at most ``slots``, and
  their answers' bytes (estimated from the answers seen so far, then counted) at most
  ``answer_bytes``; a piece always goes alone, so a huge answer is slow, never stuck.
* **Oldest chunk first.** Slots go to the waiting piece of the oldest open chunk, then by block:
  a chunk is converted and written while later ones only fetch, instead of every chunk in flight
  converting a little and all of them holding their tables until the last piece arrives.
* **Converted tables held** by chunks not yet written are at most ``table_bytes``: past it only
  the oldest open chunk's pieces get slots (it is always let through, so the fetch never stalls).
* **Requests sized by the answers seen.** :meth:`Hand.step` cuts a piece (``blocks_per_request``
  blocks) into requests whose answers are about ``piece_bytes`` each, once the source's
  answers were seen (before, pieces are asked whole). The driver puts a cut piece's tables
  back together as one array a column, as the piece asked at once makes them: the files are
  the same.

The tables written do not depend on any of this: a chunk's pieces are put together in block
order whatever their size or the order they were converted in.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from dataclasses import dataclass, field

__all__ = ["ANSWER_BYTES", "PIECE_BYTES", "TABLE_BYTES", "Hand", "Ticket"]

#: Answer bytes held by the pieces in hand (fetched, not yet converted): room for the default
#: 8 requests in flight and 2 ahead of ``devnet``-profile answers (100 blocks, ~1.3-1.6 MB).
ANSWER_BYTES = 24 << 20
#: Answer bytes one request is sized for: a piece's decoded answers (Python objects, ~9x the
#: JSON) are the converter's peak, so a small piece keeps it small (``bench/export_memory.py``);
#: the driver cuts a piece only when its requests would be at most half of it, so ``devnet``
#: pieces (100 blocks, ~1.3-1.6 MB) are not cut: each request has a fixed cost (~5 ms a piece).
PIECE_BYTES = 1 << 20
#: Converted tables held by chunks not yet written, beyond which only the oldest chunk converts.
TABLE_BYTES = 48 << 20


@dataclass(eq=False)
class Ticket:
    """One piece's place in hand (from :meth:`Hand.take`, back with :meth:`Hand.give_back`)."""

    chunk: int
    source: str
    blocks: int
    answer: int  # answer bytes counted for it (estimated until answered)
    answered: bool = field(default=False)


class Hand:
    """The bound on pieces in hand and converted tables held, for one fetch of one shard.

    Parameters
    ----------
    slots
        Pieces in hand at most.
    answer_bytes
        Answer bytes of the pieces in hand at most (a piece alone is always let through).
    table_bytes
        Converted bytes held by open chunks beyond which only the oldest chunk gets slots.
    piece_bytes
        Answer bytes a request is sized for (:meth:`step`).
    """

    def __init__(
        self,
        slots: int,
        answer_bytes: int = ANSWER_BYTES,
        table_bytes: int = TABLE_BYTES,
        piece_bytes: int = PIECE_BYTES,
    ) -> None:
        self.slots = slots
        self.answer_bytes = answer_bytes
        self.piece_bytes = piece_bytes
        self.table_bytes = table_bytes
        self.pieces = 0
        self.answers = 0  # answer bytes of the pieces in hand
        self.tables: dict[int, int] = {}  # open chunk -> converted bytes it holds
        self.peak_answers = self.peak_tables = 0  # (what a test or a profile reads)
        self._open: dict[int, int] = {}  # chunk -> sources running it
        self._per_block: dict[str, float] = {}  # source -> answer bytes per block seen
        self._waiting: list[tuple[int, int, int, asyncio.Future[None], Ticket]] = []
        self._order = itertools.count()

    # ------------------------------------------------------------------ chunks

    def open(self, chunk: int) -> None:
        """A source starts on the chunk starting at block ``chunk``."""
        self._open[chunk] = self._open.get(chunk, 0) + 1
        self.tables.setdefault(chunk, 0)

    def close(self, chunk: int) -> None:
        """A source is done with ``chunk`` (written or failed): its tables are no longer held."""
        left = self._open.get(chunk, 0) - 1
        if left > 0:
            self._open[chunk] = left
        else:
            self._open.pop(chunk, None)
            self.tables.pop(chunk, None)
        self._wake()

    def oldest(self) -> int | None:
        """The open chunk with the lowest blocks (``None``: none open)."""
        return min(self._open) if self._open else None

    # ------------------------------------------------------------------ request sizes

    def estimate(self, source: str, blocks: int) -> int | None:
        """Answer bytes expected for ``blocks`` blocks of ``source`` (``None``: none seen yet)."""
        per_block = self._per_block.get(source)
        return None if per_block is None else int(per_block * blocks)

    def step(self, source: str, blocks: int) -> int:
        """Blocks per request for a piece of ``blocks`` blocks of ``source``.

        ``blocks``, lowered so that one answer is about ``piece_bytes``; ``blocks`` itself
        before the source's first answer (nothing known yet: pieces are asked as the options
        say, so a short fetch makes exactly the requests it always made).
        """
        per_block = self._per_block.get(source)
        if per_block is None or per_block <= 0:
            return blocks
        return max(1, min(blocks, int(self.piece_bytes / per_block)))

    # ------------------------------------------------------------------ pieces

    async def take(self, source: str, chunk: int, first: int, blocks: int) -> Ticket:
        """Wait for a place in hand for the piece of blocks ``first..`` of ``chunk``."""
        ticket = Ticket(chunk, source, blocks, 0)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (chunk, first, next(self._order), future, ticket))
        self._grant()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.give_back(ticket)  # granted as it was cancelled
            raise
        return ticket

    def answered(self, ticket: Ticket, nbytes: int) -> None:
        """The piece's answers arrived: ``nbytes`` of them (learnt for later estimates)."""
        self.answers += nbytes - ticket.answer
        ticket.answer, ticket.answered = nbytes, True
        self.peak_answers = max(self.peak_answers, self.answers)
        if ticket.blocks > 0:
            seen = nbytes / ticket.blocks
            known = self._per_block.get(ticket.source)
            self._per_block[ticket.source] = seen if known is None else max(seen, 0.75 * known + 0.25 * seen)
        self._wake()

    def converted(self, ticket: Ticket, nbytes: int) -> None:
        """The piece became ``nbytes`` of tables, held by its chunk until the chunk closes."""
        if ticket.chunk in self.tables:
            self.tables[ticket.chunk] += nbytes
            self.peak_tables = max(self.peak_tables, sum(self.tables.values()))

    def give_back(self, ticket: Ticket) -> None:
        """The piece is converted (or failed): its place and its answers are free."""
        self.pieces -= 1
        self.answers -= ticket.answer
        ticket.answer = 0
        self._wake()

    # ------------------------------------------------------------------ internals

    def _may(self, chunk: int, ticket: Ticket) -> bool:
        if self.pieces >= self.slots:
            return False
        # (estimated now, from every answer seen so far; unknown before a source's first
        # answer: counted as 0 until it arrives, see answered)
        ticket.answer = self.estimate(ticket.source, ticket.blocks) or 0
        if self.pieces and self.answers + ticket.answer > self.answer_bytes:
            return False
        return chunk == self.oldest() or sum(self.tables.values()) < self.table_bytes

    def _grant(self) -> None:
        while self._waiting:
            chunk, _, _, future, ticket = self._waiting[0]
            if future.done():  # cancelled while waiting
                heapq.heappop(self._waiting)
                continue
            if not self._may(chunk, ticket):
                return
            heapq.heappop(self._waiting)
            self.pieces += 1
            self.answers += ticket.answer
            self.peak_answers = max(self.peak_answers, self.answers)
            future.set_result(None)

    def _wake(self) -> None:
        self._grant()
