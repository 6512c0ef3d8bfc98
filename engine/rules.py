"""The rules of Rubicon Piquet (RULES.md §1–7) and its variants (§8), the whole flow in
one place.

Each part of the game is a module that reads like its part of RULES.md:

    engine.dealing     the cut and the deal (§1)
    engine.exchange    carte blanche and the exchange (§2–3)
    engine.declaring   declaring and sinking (§4)
    engine.showing     showing what scored (§4, "Showing")
    engine.tricks      the tricks (§5)
    engine.reckoning   pique and repique, the cards, the partie and the Rubicon (§5–7)

`STEPS` below maps each step to what the seat to move may do there and what doing it
does; `flow_for(rules)` is the same table with what each variant changes in it (the
rules are a value, `engine.variants.Rules`, kept in the state). `apply(state, seat,
action)` is the one checked entry point: it works on a shallow copy and returns it, or
raises a PiquetError leaving `state` untouched.
`legal(state, seat)` lists what that seat may do now, with each action's words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from engine import au_cent, dealing, declaring, exchange, showing, tricks
from engine.actions import (
    Action,
    Answer,
    Call,
    CarteBlanche,
    Discard,
    NextDeal,
    Play,
    See,
    parse_action,
)
from engine.cards import Card, sort_hand
from engine.dealing import Cards, check_pack, deck_for
from engine.declaring import current_category
from engine.errors import IllegalActionError, MalformedActionError, OutOfTurnError
from engine.reckoning import PARTIE_DEALS, TIE_DEALS, end_deal, partie_result, rubicon
from engine.showing import LEFTOVERS
from engine.state import Result, State, Step
from engine.table import DiscardRule, Handler, Legal, describe, goto, log
from engine.tricks import PLAY_ENTRY as _PLAY_ENTRY
from engine.variants import RUBICON, Rules
from engine.words import Phrase, W, Words

_ABANDONED_AT = W("result.abandoned", "Abandoned at {a} to {b}")
_LEFT = {"code": W("left_table", "Left the table: the partie ends, abandoned")}
_NOT_NOW = W("refused.not_now", "That is not allowed now. You may: {allowed:semi}.")
_NOTHING_NOW = W("refused.nothing_now", "That is not allowed now: you have nothing to do.")
_NOT_YOUR_TURN = W("refused.not_your_turn", "It is not your turn.")
# Why a server deals a deal again (`deal_again`'s usual `why`).
STORE_LOST = W("deal_again.store_lost", "The table's store lost a move both seats had been "
               "shown. So that no move can be taken back, this deal was dealt again with a "
               "new pack.")

__all__ = [
    "LEFTOVERS",
    "NO_SEAT",
    "PARTIE_DEALS",
    "STEPS",
    "TIE_DEALS",
    "DiscardRule",
    "Flow",
    "Legal",
    "Rules",
    "abandon",
    "apply",
    "check_pack",
    "current_category",
    "deal_again",
    "deck_for",
    "flow_for",
    "legal",
    "legal_json",
    "new_partie",
    "partie_result",
    "replay",
    "replaying",
    "rubicon",
]

LegalFn = Callable[[State, int], list[Legal]]


def _nothing(s: State, seat: int) -> list[Legal]:
    return []


# The flow of a partie: for each step, what the seat to move may do (best first, see
# docs/engine-api.md) and what doing it does. A handler moves the state on to the next
# step itself; the order of the steps is RULES.md's.
STEPS: dict[Step, tuple[LegalFn, Handler | None]] = {
    Step.CHOOSE_DEALER: (dealing.legal_choose_dealer, dealing.on_choose_dealer),
    Step.ELDER_EXCHANGE: (exchange.legal_elder_exchange, exchange.on_elder_exchange),
    Step.YOUNGER_DISCARD: (exchange.legal_younger_exchange, exchange.on_younger_exchange),
    Step.YOUNGER_EXCHANGE: (exchange.legal_younger_exchange, exchange.on_younger_exchange),
    Step.ELDER_CALL: (declaring.legal_elder_call, declaring.on_elder_call),
    Step.YOUNGER_ANSWER: (declaring.legal_answer, declaring.on_answer),
    Step.ELDER_LESSER: (declaring.legal_lesser, declaring.on_lesser),
    Step.LEAD: (tricks.legal_lead, tricks.on_play),
    Step.YOUNGER_CALL: (declaring.legal_younger_call, declaring.on_younger_call),
    Step.YOUNGER_LESSER: (declaring.legal_lesser, declaring.on_lesser),
    Step.FOLLOW: (tricks.legal_follow, tricks.on_play),
    Step.DEAL_OVER: (_nothing, None),  # either seat: next_deal (below)
    Step.PARTIE_OVER: (_nothing, None),
}

# Actions not bound to whose turn it is: asking to see a combination (from elder's first
# lead), dealing the next hand, younger's carte blanche (until elder has exchanged).
ANYTIME: dict[type, Handler] = {
    See: showing.on_see,
    NextDeal: dealing.on_next_deal,
    CarteBlanche: exchange.on_carte_blanche,
}


def flow_for(rules: Rules) -> Flow:
    """The flow of a partie under `rules`: STEPS and ANYTIME with what each variant
    changes in them (RULES.md §8). Made once per rules value."""
    known = _FLOWS.get(rules)
    if known is not None:
        return known
    steps = dict(STEPS)
    anytime = dict(ANYTIME)
    au = rules.game == "au_cent"
    if rules.cards_towards_pique or au:
        # The cards scored at the seventh trick (cards towards pique); the deal's end at
        # the twelfth trick without a game won (au cent: no six deals, no Rubicon).
        play = tricks.play_handler(au_cent.end_deal if au else end_deal,
                                   seventh_trick=rules.cards_towards_pique)
        steps[Step.LEAD] = (tricks.legal_lead, play)
        steps[Step.FOLLOW] = (tricks.legal_follow, play)
    if au:
        # Younger may stand pat.
        for step in (Step.YOUNGER_DISCARD, Step.YOUNGER_EXCHANGE):
            steps[step] = (exchange.legal_younger_exchange_or_pat, steps[step][1])
        # Every action that scores may reach 100: the game ends there.
        steps = {step: (fns[0], None if fns[1] is None else au_cent.to_100(fns[1]))
                 for step, fns in steps.items()}
        anytime[CarteBlanche] = au_cent.to_100(anytime[CarteBlanche])
    flow = _FLOWS[rules] = Flow(rules, steps, anytime)
    return flow


class Flow:
    """A partie's flow: what each step allows and does, under its rules. The state holds
    it (`State.flow`), made from its rules: nothing in it ever changes."""

    __slots__ = ("anytime", "handler_at", "legal_at", "rules", "steps")

    def __init__(self, rules: Rules, steps: dict[Step, tuple[LegalFn, Handler | None]],
                 anytime: dict[type, Handler]) -> None:
        self.rules = rules
        self.steps = steps
        self.anytime = anytime
        # By step word: a str's hash is kept, an Enum member's is a Python call.
        self.legal_at: dict[str, LegalFn] = {step.word: fns[0] for step, fns in steps.items()}
        self.handler_at: dict[str, Handler | None] = {step.word: fns[1]
                                                     for step, fns in steps.items()}


_FLOWS: dict[Rules, Flow] = {}


def _flow(s: State) -> Flow:
    """The state's flow, for a state made without one."""
    flow = s.flow = flow_for(s.rules)
    return flow


def new_partie(seed: int, *, rules: Rules = RUBICON,
               hands: Sequence[tuple[Cards, Cards, Cards]] = (),
               decks: Sequence[Sequence[Card | str]] = (), packet: int = 2,
               first_dealer: int | None = None,
               pack: Sequence[Card | str] | None = None) -> State:
    """A new partie under `rules` (RULES.md §8; `Rules()`: Rubicon Piquet as §1–7 say).
    The rest as engine.dealing.new_partie: the cut is made here (from `seed`) and its
    winner chooses who deals; `hands`/`decks` fix the first deals' cards; `first_dealer`
    skips the cut and deals at once (from `pack` if given)."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules are an engine.Rules, not {rules!r}")
    return dealing.new_partie(seed, rules=rules, flow=flow_for(rules), hands=hands,
                              decks=decks, packet=packet, first_dealer=first_dealer,
                              pack=pack)


def legal(s: State, seat: int) -> list[Legal]:
    """What `seat` may do now, each with the words a player would say."""
    known: list[Legal] | None = s.legal_memo.get(seat)
    if known is None:
        known = s.legal_memo[seat] = _legal(s, seat)
    return list(known)


def _known_legal(s: State, seat: int) -> list[Legal]:
    """`legal`, worked out once per state and seat (not to be changed by the caller)."""
    known: list[Legal] | None = s.legal_memo.get(seat)
    if known is None:
        known = s.legal_memo[seat] = _legal(s, seat)
    return known


_NEXT_DEAL: Legal = (NextDeal(), Words({"code": W("next_deal", "Deal next hand")}))
_DEAL_OVER = Step.DEAL_OVER  # (an Enum member read through its class is a Python call)


def _legal(s: State, seat: int) -> list[Legal]:
    if s.to_move == seat:
        out = (s.flow or _flow(s)).legal_at[s.step.word](s, seat)  # (a new list: ours)
    elif exchange.may_announce_carte_blanche(s, seat):
        out = exchange.legal_carte_blanche(s, seat)
    else:
        out = []
    if s.led:
        out.extend(showing.legal_see(s, seat))
    if s.step is _DEAL_OVER:
        out.append(_NEXT_DEAL)
    return out


def apply(state: State, seat: int, action: Action | dict[str, Any], *,
          pack: Sequence[Card | str] | None = None) -> State:
    """Apply `seat`'s action and return the new state; raise a PiquetError if refused.
    `pack`: the pack to deal from if the action deals (choosing the dealer, dealing the
    next hand); ignored otherwise, and kept by no state (ValueError if not a pack)."""
    dealt = None if pack is None else check_pack(pack)
    if seat not in (0, 1) or isinstance(seat, bool):
        raise MalformedActionError(f"there is no seat {seat!r}; seats are 0 and 1")
    a = parse_action(action)
    kind = type(a)
    if kind is Answer:
        assert isinstance(a, Answer)
        a = declaring.plain_equal(state, seat, a)
    elif kind is Call:
        assert isinstance(a, Call)
        cards = sort_hand(a.cards)
        if cards != a.cards:  # (cards compare by identity: quick)
            a = Call(a.category, cards)
    options = _known_legal(state, seat)
    # (`in` a list tests identity before ==: legal's own action objects pass at once.)
    flow = state.flow or _flow(state)
    anytime = flow.anytime.get(kind)
    if anytime is not None:
        if a not in [o for o, _ in options]:
            raise _refused(state, seat, a)
        s = state.copy()
        s.pack = dealt
        anytime(s, seat, a)
        s.pack = None
        return s
    if state.to_move != seat:
        who = "nobody" if state.to_move is None else f"seat {state.to_move}"
        raise OutOfTurnError(
            f"{describe(a)} refused: it is not your turn ({who} to move, {state.step.word})",
            {"code": _NOT_YOUR_TURN})
    if kind is Discard:
        assert isinstance(a, Discard)
        rules = [o for o, _ in options if isinstance(o, DiscardRule)]
        if not rules:
            raise _refused(state, seat, a)
        exchange.check_discard(state, seat, a, rules[0])
    elif kind is Play:
        assert isinstance(a, Play)
        if _PLAY_ENTRY[a.card.index] not in options:  # (the entries are made once per card)
            raise _refused(state, seat, a)
    elif a not in [o for o, _ in options]:
        raise _refused(state, seat, a)
    handler = flow.handler_at[state.step.word]
    assert handler is not None  # nobody is to move at a step without one
    s = state.copy()
    s.pack = dealt
    handler(s, seat, a)
    s.pack = None
    return s


def deal_again(state: State, pack: Sequence[Card | str], why: str) -> State:
    """The table, not a seat: the deal under way is void and dealt again from `pack` by
    the same dealer (after a deal, the next one is dealt). A server whose store lost a
    move the seats had seen does this, so that no move is taken back (engine.dealing).
    ValueError before the first deal and after the partie."""
    if state.step in (Step.CHOOSE_DEALER, Step.PARTIE_OVER) or state.deal_number < 1:
        raise ValueError(f"no deal to deal again at {state.step.word}")
    s = state.copy()
    s.pack = check_pack(pack)
    dealing.deal_again(s, why)
    s.pack = None
    return s


def abandon(state: State, seat: int) -> State:
    """The table, not a seat: the partie ends here, abandoned by `seat` (a player who left
    the table and did not come back). The other seat wins; `result.abandoned` names the
    seat that left, `result.totals` are the partie's as they stand (the deals finished;
    under Piquet au cent, the games won), and no points are settled. Stored as
    (NO_SEAT, {"type": "abandon", "seat": seat}). ValueError once the partie is over."""
    if seat not in (0, 1) or isinstance(seat, bool):
        raise ValueError(f"a partie is abandoned by seat 0 or 1, not {seat!r}")
    if state.step is Step.PARTIE_OVER:
        raise ValueError("the partie is over: there is nothing to abandon")
    s = state.copy()
    totals = au_cent.games_won(s) if s.rules.game == "au_cent" else (
        sum(row[0] for row in s.sheet), sum(row[1] for row in s.sheet))
    s.result = Result(1 - seat, totals, 0, False,
                      Words({"code": _ABANDONED_AT, "a": totals[0], "b": totals[1]}),
                      abandoned=seat)
    log(s, seat, "abandon", _LEFT)
    goto(s, Step.PARTIE_OVER, None)
    return s


def _refused(s: State, seat: int, a: Action) -> IllegalActionError:
    words = [label for _, label in legal(s, seat)]
    allowed = "; ".join(words[:12]) + (" …" if len(words) > 12 else "") if words else "nothing"
    said: Phrase = {"code": _NOT_NOW, "allowed": [w.say for w in words[:12]]} if words \
        else {"code": _NOTHING_NOW}
    return IllegalActionError(
        f"{describe(a)} is not allowed now ({s.step.word}); allowed: {allowed}", said)


# The seat of an entry the table itself made, not a seat: a deal dealt again (`deal_again`)
# by a server whose store lost a move, stored as (NO_SEAT, {"type": "deal_again"}, pack),
# and a partie abandoned by a seat that left (`abandon`), (NO_SEAT, {"type": "abandon",
# "seat": N}).
NO_SEAT = -1

Entry = (tuple[int, Action | dict[str, Any]]
         | tuple[int, Action | dict[str, Any], Sequence[Card | str] | None])


def replaying(seed: int, entries: Iterable[Entry], *, why: str = "",
              **options: Any) -> Iterator[tuple[int, Action | dict[str, Any], State]]:
    """Each entry of a partie replayed from its seed (and `new_partie` options), with the
    state after it: (seat, action) pairs, or (seat, action, pack) for an action that dealt
    from that pack; an entry of NO_SEAT is the table's own: a deal dealt again from its
    pack, logged with `why`, or the partie abandoned by a seat (`abandon`)."""
    s = new_partie(seed, **options)
    for entry in entries:
        s = _replay_entry(s, entry, why)
        yield entry[0], entry[1], s


def _replay_entry(s: State, entry: Entry, why: str) -> State:
    seat, action = entry[0], entry[1]
    pack = entry[2] if len(entry) > 2 else None
    if seat != NO_SEAT:
        return apply(s, seat, action, pack=pack)
    if isinstance(action, dict) and action.get("type") == "abandon":
        return abandon(s, int(action["seat"]))
    if pack is None:
        raise ValueError("a deal dealt again keeps its pack")
    return deal_again(s, pack, why)


def replay(seed: int, entries: Iterable[Entry], *, why: str = "", **options: Any) -> State:
    """The partie rebuilt from its seed and its entries (`replaying`): the state after the
    last."""
    s = new_partie(seed, **options)
    for entry in entries:  # (as `replaying`, without making a state nobody reads)
        s = _replay_entry(s, entry, why)
    return s


def legal_json(s: State, seat: int) -> list[dict[str, Any]]:
    """`legal` as the view gives it: each action's JSON plus its label (English) and its
    phrase (`say`: engine.words), but for a card to play, named by its card."""
    out: list[dict[str, Any]] = []
    for action, label in legal(s, seat):
        if type(action) is Play:  # most of a deal: written here, without to_json's dict
            out.append({"type": "play", "card": action.card.code, "label": label})
        elif isinstance(action, DiscardRule):
            out.append({"type": "discard", "min": action.min, "max": action.max,
                        "expose_choice": action.expose_choice, "label": label,
                        "say": label.say})
        else:
            out.append({**action.to_json(), "label": label, "say": label.say})
    return out
