"""What the coach's workers do: the hint for a view, the review of a deal and the record
of a partie, each worked out from one seat's view or from the partie's own entries, in a
worker process of the coach pool (app/pools.py, for app/coach.py), never in the event
loop.

This module imports only the engine and app/store.py's entry format, so a worker stays
as light as the engine. A partie is given as where it started (`Start`: the seed that
cut, and the first deal's pack when the match began dealt) and its entries as stored
(`app.store.encode_entry`): each deal's pack travels with the action that dealt it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson

import engine
from app.store import Start, decode_entry


def _states(start: Start, entries: Sequence[str]
            ) -> Iterator[tuple[int, dict[str, Any], engine.State]]:
    """Each entry replayed: (seat or engine.NO_SEAT, action, the state after it)."""
    decoded = (decode_entry(text) for text in entries)
    for seat, action, state in engine.replaying(start.seed, decoded,
                                                first_dealer=start.first_dealer,
                                                pack=start.first_pack, rules=start.rules):
        assert isinstance(action, dict)
        yield seat, action, state


def hint_for(view: dict[str, Any]) -> dict[str, Any]:
    from engine.computer.advice import hint

    return hint(view)


def record_for(start: Start, entries: Sequence[str], seat: int | None, names: Sequence[str],
               meta: dict[str, Any]) -> dict[str, Any]:
    """The record of the partie so far, as `seat` saw it (None: a watcher), under the
    rules it is played under (the record says them)."""
    from engine.record import RecordBuilder

    builder = RecordBuilder(seat, names, meta)
    builder.start(engine.new_partie(start.seed, first_dealer=start.first_dealer,
                                    pack=start.first_pack, rules=start.rules))
    for actor, action, state in _states(start, entries):
        if actor == engine.NO_SEAT and action.get("type") == "abandon":
            builder.end(state)
        elif actor == engine.NO_SEAT:
            builder.deal_again(state)
        else:
            builder.add(actor, action, state)
    return builder.record()


def review_for(start: Start, entries: Sequence[str], seat: int, deal_number: int,
               names: Sequence[str]) -> dict[str, Any]:
    """The review of deal `deal_number` for `seat`, from its record."""
    from engine.review import review_deal

    record = record_for(start, entries, seat, names, {})
    index = _deal_index(record, deal_number)
    review: dict[str, Any] = review_deal(record, index)
    review["positions"] = _positions(record, index, review)
    return review


def record_json(start: Start, entries: Sequence[str], seat: int | None,
                names: Sequence[str], meta: dict[str, Any],
                reviews: dict[int, dict[str, Any]]) -> bytes:
    """The record to download: a seat's holds the review of each finished deal (those in
    `reviews` reused, the others worked out here), and of the partie once it is over."""
    record = record_for(start, entries, seat, names, meta)
    if seat is not None:
        from engine.review import review_deal, review_record

        finished = [d for d in record["deals"] if _finished(d)]
        for deal in finished:
            number = deal["number"]
            if number not in reviews:
                reviews[number] = review_deal(record, record["deals"].index(deal))
        record["reviews"] = [reviews[d["number"]] for d in finished]
        if record["result"] is not None:
            record["summary"] = review_record(record).get("summary")
    return orjson.dumps(record)


def partie_summary(start: Start, entries: Sequence[str], seat: int,
                   names: Sequence[str]) -> dict[str, Any]:
    from engine.review import review_record

    record = record_for(start, entries, seat, names, {})
    summary: dict[str, Any] = review_record(record)
    return summary


def _finished(deal: dict[str, Any]) -> bool:
    last = deal["steps"][-1]["view"] if deal["steps"] else None
    return last is not None and last["phase"] in ("deal_over", "partie_over")


def _deal_index(record: dict[str, Any], deal_number: int) -> int:
    indexes = [i for i, d in enumerate(record["deals"]) if d["number"] == deal_number
               and not d.get("void")]
    if not indexes:
        raise ValueError(f"no deal {deal_number} in this partie")
    return indexes[-1]


def _positions(record: dict[str, Any], index: int, review: dict[str, Any]
               ) -> dict[str, Any]:
    """For each item, the seat's view just before that decision, so the page can show the
    position again: keyed by the item's step index."""
    deal = record["deals"][index]
    out: dict[str, Any] = {}
    for item in review.get("items", []):
        step = item["step"]
        if step > 0:
            out[str(step)] = deal["steps"][step - 1]["view"]
        elif index > 0 and record["deals"][index - 1]["steps"]:
            out[str(step)] = record["deals"][index - 1]["steps"][-1]["view"]
        else:
            out[str(step)] = record["start"]
    return out
