"""The cards of a seat's hand in the server's log (issue 25): a refused play used to log the
seat's legal cards by name at info level. The seat still gets its full clear error; the
log gets the code and a summary that names no card."""

from __future__ import annotations

import asyncio
import logging
import random
import re
from pathlib import Path

from livekit import LiveSeat, live_server

import engine

CARD_WORDS = re.compile("|".join(re.escape(c.name) for c in engine.DECK))


def cards_in_log(log: str, room_ids: list[str], cards: set[str]) -> set[str]:
    """Card codes (tokens) or card names in words among `cards` that `log` names; room ids
    are taken out first (random text: "x-KD_y..." names no card)."""
    for room_id in room_ids:
        log = log.replace(room_id, "<room>")
    tokens = set(re.findall(r"(?<![A-Za-z0-9])(?:10|[AKQJ987])[SHDC](?![A-Za-z0-9])", log))
    named = {engine.Card.parse(c).name for c in cards}
    return (tokens & cards) | {n for n in named if n in log}


def test_a_refused_play_logs_no_card_of_the_hand(tmp_path: Path) -> None:
    """Drive both seats to the tricks, then send refused plays and calls: each seat gets
    its full clear error (the allowed cards named), the log only the code and a summary
    with no card in it."""
    with live_server(tmp_path) as server:
        room_id, t0, t1 = server.friend_room()
        held: set[str] = set()

        async def traffic() -> None:
            rng = random.Random(5)
            a = await LiveSeat.open(server, room_id, t0)
            b = await LiveSeat.open(server, room_id, t1)
            await a.expect("state")
            await b.expect("state")
            seats = (a, b)
            refused = 0
            for _ in range(400):
                for s in seats:
                    held.update(s.view["hand"])
                movers = [s for s in seats if s.view["to_move"] == s.seat]
                if a.view["phase"] == "play" and movers:
                    mover = movers[0]
                    other = b if mover is a else a
                    # Out of turn: a card of the other seat's hand.
                    await other.ws.send(other.action_text(
                        {"type": "play", "card": other.view["hand"][0]}))
                    error = await other.answer()
                    assert error["code"] == "out_of_turn", error
                    await other.expect("state")
                    # In turn, a card it may not play (one of its own if it must follow).
                    plays = {e["card"] for e in mover.view["legal"] if e["type"] == "play"}
                    wrong = next((c for c in mover.view["hand"] if c not in plays),
                                 other.view["hand"][0])
                    await mover.ws.send(mover.action_text({"type": "play", "card": wrong}))
                    error = await mover.answer()
                    assert error["code"] == "illegal_action", error
                    named = {c for c in plays
                             if engine.Card.parse(c).name in error["message"]}
                    assert named == plays, "the seat's own error names what it may play"
                    await mover.expect("state")
                    refused += 1
                    if refused >= 6:
                        break
                if not movers:
                    break  # the deal is over
                mover = movers[0]
                other = b if mover is a else a
                legal = [e for e in mover.view["legal"] if e["type"] != "see"]
                entry = dict(rng.choice(legal))
                entry.pop("label")
                entry.pop("say", None)
                if entry["type"] == "discard":
                    entry = {"type": "discard",
                             "cards": rng.sample(mover.view["hand"], entry["min"])}
                if mover.view["phase"] == "declare":
                    # A call of cards it holds, in whatever category: refused or not, the
                    # log names none of them.
                    await mover.ws.send(mover.action_text(
                        {"type": "call", "category": "set", "cards": mover.view["hand"][:3]}))
                    assert (await mover.answer())["type"] == "error"
                    await mover.expect("state")
                await mover.ws.send(mover.action_text(entry))
                await mover.expect("state")
                await other.expect("state")
            assert refused >= 6
            for s in seats:
                await s.ws.close()

        asyncio.run(traffic())
        log = server.log()
    assert "refused room=" in log and "illegal_action" in log and "out_of_turn" in log
    assert len(held) >= 20
    assert not cards_in_log(log, [room_id], held)


def test_a_log_line_keeps_the_code_and_a_summary_and_the_room_id() -> None:
    from app.__main__ import NoCards

    record = logging.LogRecord(
        "piquet.rooms", logging.INFO, __file__, 1, "refused room=%s seat=%d code=%s: %s",
        ("x-KD_y0123456789", 0, "illegal_action",
         "{'type': 'play', 'card': 'qh'} is not allowed now (follow); "
         "allowed: Jack of Spades; Ten of Spades"), None)
    assert NoCards().filter(record)
    assert record.getMessage() == ("refused room=x-KD_y0123456789 seat=0 code=illegal_action: "
                                   "{'type': 'play', 'card': '(card)'} is not allowed now "
                                   "(follow)")
