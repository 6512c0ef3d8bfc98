"""The computer's seat at a table: it plays seat 1 from that seat's view only.

`ComputerSeat` decides: when to move (the pace, which depends on the level and the step,
never on the cards), where to think (the worker pool for good and strong, the event
loop for basic), and what to play. Its move is made as a person's is, through the
room's `submit` (app/room.py), which checks, stores and tells it; the computer only
reads what `submit` answers (made, refused, stale, or not kept: try again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import engine
from app.pools import ComputerPool
from app.protocol import ComputerLevel

log = logging.getLogger("piquet.rooms")

COMPUTER_SEAT = 1
# The declaring steps (engine-api.md): after its first this deal, the computer speaks at
# `declare_delay`, not at its thinking pace.
DECLARING = frozenset({"elder_call", "younger_answer", "elder_lesser", "younger_call",
                       "younger_lesser"})
Policy = Callable[[dict[str, Any]], dict[str, Any]]
# Waits before a move not kept by the store is tried again (seconds, doubling to 5).
RETRY_FIRST, RETRY_MOST = 0.5, 5.0


@dataclass(frozen=True, slots=True)
class Pace:
    """When the computer moves, in seconds after the change it answers (the settings'
    PIQUET_COMPUTER_*; all 0 in tests): at least `delay`; before its exchange as elder,
    `exchange_delay`; before choosing the dealer and before a lead, `lead_delay`; before
    a lead after a trick it won, `trick_hold` (the person may end it sooner); once it has
    spoken in a deal, its further declaring steps at `declare_delay`; the strong level at
    its fixed `strong` pace (at least its worst decision)."""

    delay: float = 0.0
    exchange_delay: float = 0.0
    lead_delay: float = 0.0
    trick_hold: float = 0.0
    declare_delay: float | None = None
    strong: float = 0.0


class Master(Protocol):
    """What the computer seat needs of its room: the table as it is, and `submit`."""

    room_id: str
    state: engine.State
    version: int
    closed: bool
    match: int

    def person_present(self) -> bool:
        """A person has the table open (the computer waits for one to show the cut to)."""
        ...

    async def submit(self, seat: int, action: dict[str, Any], version: int) -> str:
        """The move made (`Outcome` of app/room.py: "applied", "stale", "unavailable"...)."""
        ...


class ComputerSeat:
    """Plays seat 1 at a computer table from that seat's view only (DESIGN.md).

    It answers whenever it is its turn and asks to see what scored against it;
    it never presses "Deal next hand": the person moves on when ready. It runs as
    a task so the person's action is answered at once; its moves come after.

    Its level decides in `pool` (app/pools.py's ComputerPool: thinking never holds the
    event loop), except basic, whose decision takes microseconds. Each move comes a fixed
    time after the change it answers -- the delay, or the level's pace when longer,
    or the exchange delay -- however long the thinking took, so the pace tells
    nothing about its cards (the pace must be at least the level's worst decision).
    """

    def __init__(self, room: Master, policy: Policy | None, pace: Pace, *,
                 level: ComputerLevel = "basic", pool: ComputerPool | None = None) -> None:
        self.room = room
        self._policy = policy
        self.level = level
        self.pace = pace
        # The level's own pace: strong's fixed one (good's worst fits the delay).
        self.level_pace = pace.strong if level == "strong" else 0.0
        self.pool = pool
        self._task: asyncio.Task[None] | None = None
        # What waits out `pace`: tests replace it to see the wait asked for, or to hold it.
        self.sleep: Callable[[float], Awaitable[None]] = self._wait
        # The part of the coming wait the person may cut short (`go_on`), and their word.
        self._hold = 0.0
        self._went_on = asyncio.Event()
        # Set when the table changes while a move is waited out (`poke`): the wait, made
        # for the state before, ends, and the new state gets its own full pace.
        self._changed = asyncio.Event()
        # `see` requests already made, so a view that keeps offering one cannot loop us.
        self._asked: set[tuple[int, int, Any]] = set()

    def replayed(self, match: int, deal_number: int, action: dict[str, Any]) -> None:
        """A move of this seat's, replayed from the store: the `see` requests it made
        are remembered as if it had made them here."""
        if action.get("type") == "see":
            self._asked.add((match, deal_number, action.get("combo")))

    @property
    def policy(self) -> Policy:
        if self._policy is None:
            from engine.computer import LEVELS

            self._policy = LEVELS[self.level].choose
        return self._policy

    def pause(self, view: dict[str, Any]) -> float:
        """How long to wait before acting on `view`, thinking included. It depends on the
        level, the step and what both seats have seen (a trick played, a call made), never
        on the cards (DESIGN.md): the strong level answers at its fixed pace (at least its
        worst decision); before choosing the dealer and before a lead it waits at least
        `lead_delay`, so the cut can be seen, and before a lead after a trick it won, at
        least `trick_hold`, so that trick can be seen (the person may end this hold
        sooner: `go_on`); as elder, at least `exchange_delay` before its exchange; and
        once it has said something this deal, its further declaring steps (the calls
        younger makes after the lead, one after another) come at `declare_delay`."""
        pace = self.pace
        base = max(pace.delay, self.level_pace)  # a humane pace; 0 in tests still yields
        wait = base
        self._hold = 0.0
        self._went_on.clear()
        if view["to_move"] != COMPUTER_SEAT:
            return wait
        step = view["step"]
        if step == "elder_exchange":
            wait = max(wait, pace.exchange_delay)
        elif step in ("lead", "choose_dealer"):
            wait = max(wait, pace.lead_delay)
            if step == "lead" and view["tricks"] and pace.trick_hold > wait:
                self._hold = pace.trick_hold - base  # never below its pace: thinking is hidden
                wait = pace.trick_hold
        elif step in DECLARING and pace.declare_delay is not None and _has_spoken(view):
            wait = min(wait, pace.declare_delay)
        return wait

    def go_on(self) -> None:
        """The person has seen the trick: a hold under way ends, down to the level's own
        pace (their word, not the cards, decides how soon). Changes nothing in the partie."""
        self._went_on.set()

    async def _wait(self, seconds: float) -> None:
        """`sleep` as shipped: `seconds`, but a hold (`pause`) ends at the person's word."""
        hold, self._hold = self._hold, 0.0
        if hold <= 0.0:
            await asyncio.sleep(seconds)
            return
        loop = asyncio.get_running_loop()
        least = loop.time() + max(0.0, seconds - hold)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._went_on.wait(), seconds)
            await asyncio.sleep(max(0.0, least - loop.time()))

    @property
    def thinks_apart(self) -> bool:
        """Good and strong think in a worker process, off the event loop."""
        return self._policy is None and self.pool is not None and self.level != "basic"

    async def _decide(self, view: dict[str, Any], due: float) -> dict[str, Any]:
        """The level's decision, in a worker process when it `thinks_apart` (first among
        the decisions waiting there if its move is due first: app/pools.py)."""
        if self.pool is not None and self.thinks_apart:
            action: dict[str, Any] = await self.pool.decide(self.level, view, due)
            return action
        return self.policy(view)

    def poke(self) -> None:
        """Something changed: play if there is something to play (if a move is being
        waited out, the table may have changed under it: `_wait_out`)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"computer {self.room.room_id}")
        else:
            self._changed.set()

    async def _wait_out(self, seconds: float, state: engine.State) -> None:
        """`sleep(seconds)`, ended early if the table moves on from `state` meanwhile (the
        person played while the computer waited to ask to see a combination): the move
        waited for is void, and what answers the new state waits its own pace from it,
        not the rest of the old wait first (which made some answers a whole pace late).
        A poke that changed nothing (a person came to the table) ends nothing."""
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        while self.room.state is state:  # (it may have moved on while the level thought)
            sleeping = asyncio.ensure_future(self.sleep(seconds))
            changed = asyncio.ensure_future(self._changed.wait())
            try:
                await asyncio.wait({sleeping, changed}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in (sleeping, changed):
                    waiting.cancel()
            if sleeping.done() and not sleeping.cancelled():
                sleeping.result()  # (a test's sleep that failed says so)
                return
            self._changed.clear()
            seconds = max(0.0, until - loop.time())

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _todo(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """The view to decide from, or None when the computer has nothing to do."""
        legal: list[dict[str, Any]] = view["legal"]
        if view["step"] == "choose_dealer" and not self.room.person_present():
            return None  # the cut is shown to the person before it chooses: wait for them
        if view["to_move"] == COMPUTER_SEAT and legal:
            return view
        if any(a["type"] == "carte_blanche" for a in legal):
            # Younger's carte blanche is announced out of turn, during elder's exchange.
            return {**view, "legal": [a for a in legal if a["type"] == "carte_blanche"]}
        match, deal = self.room.match, view["deal_number"]
        sees = [
            a
            for a in legal
            if a["type"] == "see" and (match, deal, a.get("combo")) not in self._asked
        ]
        if sees:
            # Out of turn it may only ask to see: the same view, with only those offered.
            return {**view, "legal": sees}
        return None

    def look(self) -> tuple[engine.State, int, dict[str, Any] | None]:
        """The room's state and version, and the view to decide from (None: nothing to
        do). The one view a move costs, without the log (the policy does not read it)."""
        state = self.room.state
        return state, self.room.version, self._todo(engine.view(state, COMPUTER_SEAT,
                                                                log=False))

    def may_play(self, todo: dict[str, Any], action: dict[str, Any]) -> bool:
        """Out of its turn the computer only asks to see, or announces carte blanche: a
        policy answering otherwise there is a bug, and the seat stops."""
        return todo["to_move"] == COMPUTER_SEAT or action.get("type") in ("see", "carte_blanche")

    async def _run(self) -> None:
        room = self.room
        loop = asyncio.get_running_loop()
        failures = 0
        while not room.closed:
            self._changed.clear()  # (a change from here on ends the wait for `state`)
            state, version, todo = self.look()
            if todo is None:
                return
            wait = self.pause(todo)
            started = loop.time()
            try:
                action = await self._decide(todo, started + wait)
            except Exception:
                # A bug in the policy: stop rather than loop; the person can start anew.
                log.exception("computer seat failed room=%s", room.room_id)
                return
            # Thinking apart is part of the wait, so the answer comes at the same pace
            # whatever was thought about (a decision in the loop takes microseconds).
            thought = loop.time() - started if self.thinks_apart else 0.0
            await self._wait_out(max(0.0, wait - thought), state)
            if room.state is not state:
                continue  # the table changed while it thought: decide afresh
            if not self.may_play(todo, action):
                return
            outcome = await room.submit(COMPUTER_SEAT, action, version)
            if outcome == "applied":
                failures = 0
                if action.get("type") == "see":
                    self._asked.add((room.match, todo["deal_number"], action.get("combo")))
            elif outcome == "unavailable":
                # Not kept, and known not to be: tried again (decided afresh) once the
                # store answers; the room says meanwhile that the table waits for it.
                failures += 1
                log.error("store failed room=%s computer (try %d)", room.room_id, failures)
                await self.sleep(min(RETRY_MOST, RETRY_FIRST * 2 ** min(failures - 1, 4)))
            elif outcome != "stale":
                return  # refused (a bug: the room logged it), let go of, or closed


def _has_spoken(view: dict[str, Any]) -> bool:
    """The computer has made a call, an answer or said "Nothing" this deal (public)."""
    elder = view["role"] == "elder"
    for d in view["declarations"]:
        if elder and (d["elder_call"] is not None or d["elder_nothing"]):
            return True
        if not elder and (d["answers"] or d["younger_call"] is not None
                          or d["younger_nothing"]):
            return True
    return False
