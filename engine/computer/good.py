"""The good computer level: sound heuristics on everything the seat has seen.

It reads the view through `engine.computer.knowledge` (its hand, its discards, the
rest of its five, exposed leftovers, everything declared, answered and shown, every
card played, how many the opponent took, the suits she has shown out of), and:

- Exchange: weighs candidate discards (its full allowance, or less as elder when the
  cards it would throw are worth keeping) by a hand value over draws from the cards
  it has not seen: the point and its chance to win, sequences and sets (with the
  chance of filling them from the stock), guarded high cards and long suits for the
  play. It takes the candidate worth most; its draws are sampled with a generator
  seeded from the view.
- Declaring: as basic (calls everything it holds, answers honestly, asks to see),
  except that it sinks a lesser tierce (3 points) that is the whole of its suit,
  headed by a king or queen she may still beat, once she has scored or won a category
  anyway and before the partie's last deal (under Piquet au cent: while both seats
  are far from 100), and never when it could cost a carte rouge (`_lesser`): narrow
  on purpose.
- Play: on lead it runs sure winners (cards no unseen card of their suit can beat),
  longest suit first; when it has none it leads from its longest suit, forcing out
  the master with touching honours, else a low card, keeping guards in short suits.
  Following, it wins as cheaply as it can, and when it cannot it throws from the
  suit where a card is worth least (never a guard of a king or queen, never a card
  that is a winner or a long-suit card). Running its sure winners first is also how
  it counts towards thirty as elder. Against capot: while it has taken no trick, a
  throw keeps the cards that can still take one (`_capot_throw`: a suit's top card
  with as many guards as she may hold cards above it), hopeless suits thrown first.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from engine.computer import basic
from engine.computer.choosing import Action, View, choose_by_step
from engine.computer.knowledge import (
    CARD_OBJ,
    CARD_OF,
    CODE_OF,
    PIPS,
    SUIT_MASK,
    Knowledge,
    bits,
    know,
    mask,
    rules_of,
    suit_tricks,
    view_rng,
)
from engine.variants import GAME_TO


def choose(view: View, press_next_deal: bool = False) -> Action:
    """The good level's action for this seat's view (see the module docstring); what
    it has no way of its own for, basic decides."""
    return choose_by_step(view, press_next_deal, _BY_STEP, basic.choose)


# --------------------------------------------------------------------------- hand value

_POINT_WIN = {3: 0.05, 4: 0.2, 5: 0.5, 6: 0.85, 7: 0.97, 8: 1.0}
_SEQ_WIN = {3: 0.3, 4: 0.55, 5: 0.85, 6: 0.97, 7: 1.0, 8: 1.0}


def _runs(suit: int) -> list[tuple[int, int]]:
    """(length, top rank) of each run of 3+ in a suit byte."""
    out = []
    run = 0
    for r in range(7, -2, -1):
        if r >= 0 and suit >> r & 1:
            run += 1
        else:
            if run >= 3:
                out.append((run, r + run))
            run = 0
    return out


def sequences(hand: int) -> tuple[tuple[int, int], int]:
    """A hand's best sequence, (length, top rank) or (0, 0) for none, and what all its
    sequences score (a tierce 3, a quart 4, a quint and longer ten more)."""
    best = (0, 0)
    total = 0
    for s in range(4):
        for length, top in _runs((hand >> (8 * s)) & 0xFF):
            best = max(best, (length, top))
            total += length if length < 5 else length + 10
    return best, total


def play_tricks(hand: int) -> float:
    """About how many tricks a hand takes in the play, suit by suit (`suit_tricks`:
    masters, guarded honours, long cards)."""
    tricks = 0.0
    for s in range(4):
        tricks += suit_tricks((hand >> (8 * s)) & 0xFF)
    return tricks


def hand_value(hand: int, elder: bool) -> float:
    """What a 12-card hand is worth, roughly in points: declarations by their chance to
    win, and the play (tricks and the cards) by its high cards and long suits."""
    value = 0.0
    best_point = (0, 0)
    for s in range(4):
        suit = (hand >> (8 * s)) & 0xFF
        n = bin(suit).count("1")
        if n:
            pips = sum(PIPS[r] for r in range(8) if suit >> r & 1)
            best_point = max(best_point, (n, pips))
    best_seq, seq_total = sequences(hand)
    tricks = play_tricks(hand)
    n, _ = best_point
    value += n * _POINT_WIN.get(n, 0.0)
    if best_seq[0]:
        value += seq_total * _SEQ_WIN[best_seq[0]] * (0.8 + 0.03 * best_seq[1])
    for r in range(3, 8):
        held = sum(1 for s in range(4) if hand >> (8 * s + r) & 1)
        if held == 4:
            value += 14 * 0.95
        elif held == 3:
            value += 3 * (0.3 + 0.1 * (r - 3))
    # tricks: about two points each from leads and wins; the cards at seven
    value += 2.2 * tricks + (4 if tricks >= 6.5 else 0) + (1.5 if elder else 0)
    return value


def combination_cards(hand: int) -> tuple[int, int, int]:
    """The cards (masks) of a hand's combinations, by category: its best suit for the
    point (the first of equals), every sequence, every set (ten up). A carte rouge
    (RULES.md §8) is a hand every card of which lies in a combination that scored."""
    point = 0
    best = (0, 0)
    for s in range(4):
        suit = hand & SUIT_MASK[s]
        if suit:
            key = (bin(suit).count("1"), sum(PIPS[c] for c in bits(suit)))
            if key > best:
                best, point = key, suit
    runs = 0
    for s in range(4):
        for length, top in _runs((hand >> (8 * s)) & 0xFF):
            runs |= ((1 << length) - 1) << (8 * s + top - length + 1)
    sets = 0
    for r in range(3, 8):
        rank = hand & (0x01010101 << r)
        if bin(rank).count("1") >= 3:
            sets |= rank
    return point, runs, sets


def all_in_combinations(hand: int) -> bool:
    """Whether every card of `hand` lies in one of its combinations (`combination_cards`):
    a carte rouge, if they all score."""
    point, runs, sets = combination_cards(hand)
    return point | runs | sets == hand


def _candidates(hand: int, n: int) -> list[int]:
    """Sensible discards of `n` cards (masks): never a king or ace unless the suit is
    short and unguarded, keeping what makes sets."""
    cards = bits(hand)
    if n <= 0:
        return [0]
    keep_first = {c for c in cards if c & 7 == 7}  # aces stay
    pool = [c for c in cards if c not in keep_first]
    if len(pool) < n:
        pool = cards
    if len(pool) > 10:  # prune: the 10 cards basic would throw first
        order = basic.throw_order([CARD_OBJ[c] for c in pool])
        pool = [CARD_OF[x.code] for x in order[:10]]
    return [mask(c) for c in combinations(pool, n)]


def best_discard(view: View, draws: int = 12, limit: int = 60) -> tuple[list[str], bool]:
    """The discard worth most by `hand_value` over sampled draws; whether to expose."""
    k = know(view)
    rule = next(e for e in view["legal"] if e["type"] == "discard")
    elder = k.i_am_elder
    rng = view_rng(view, "exchange")
    unseen = bits(k.unknown | k.opp_known | k.opp_maybe)
    # The rest of elder's five is known to younger only as unknown; elder draws the top.
    ns = [rule["max"]] if not elder else sorted({rule["max"], max(rule["min"], rule["max"] - 1)},
                                                reverse=True)
    best: tuple[float, int] | None = None
    samples = [rng.sample(unseen, len(unseen)) for _ in range(draws)]
    for n in ns:
        cands = _candidates(k.hand, n)
        if len(cands) > limit:  # prefilter by the kept cards' own value
            cands.sort(key=lambda d: -hand_value(k.hand & ~d, elder))
            cands = cands[:limit]
        for d in cands:
            kept = k.hand & ~d
            total = 0.0
            for order in samples:
                total += hand_value(kept | mask(order[:n]), elder)
            score = total / draws
            if best is None or score > best[0] + 1e-9:
                best = (score, d)
    assert best is not None
    cards = [CODE_OF[c] for c in bits(best[1])]
    return cards, False


def _exchange(view: View, legal: list[Action]) -> Action:
    cards, expose = best_discard(view)
    return {"type": "discard", "cards": cards, "expose": expose}


# --------------------------------------------------------------------------- declaring


def _lesser(view: View, legal: list[Action]) -> Action:
    """A lesser call once it has won the category, as basic makes it, except that it
    sinks a lesser tierce (3 points) that is the whole of its suit, headed by a king or
    queen she may still beat: shown, it would tell her where that honour lies and that
    it has no guard beyond the tierce. Only where the 3 points do nothing else: she has
    scored or won a category this deal (so they neither block her thirty nor make one
    of its own), and not in the partie's last deal (where every point's place against
    the Rubicon counts). Narrow on purpose: against the other levels, which read shown
    cards, concealment is worth little, and each sinking costs 3."""
    action = basic.choose(view)
    if action["type"] != "call" or action["category"] != "sequence" or len(action["cards"]) != 3:
        return action
    seat = view["seat"]
    hers = "younger" if seat == view["elder"] else "elder"
    she_scores = view["scores"]["deal"][1 - seat] > 0 or any(
        d["outcome"] == hers for d in view["declarations"])
    if not she_scores or _every_point_counts(view):
        return action
    k = know(view)
    if rules_of(view).carte_rouge and _rouge_possible(view, k):
        return action  # sunk, the tierce would not score: no carte rouge
    top = max(CARD_OF[code] for code in action["cards"])
    s = top >> 3
    beatable = k.opp_possible & SUIT_MASK[s] & ~((1 << (top + 1)) - 1)
    if (top & 7) in (5, 6) and len(_suit(k.hand, s)) == 3 and beatable and any(
            e["type"] == "pass" for e in legal):
        return {"type": "pass"}  # "Done": the lesser calls left are worth 3 at most
    return action


def _every_point_counts(view: View) -> bool:
    """Where every point's place counts: the partie's last deal (Rubicon), or a game in
    which a seat is within 30 of 100 (Piquet au cent)."""
    if rules_of(view).game == "au_cent":
        scores: list[int] = view["games"]["scores"]
        return max(scores) >= GAME_TO - 30
    last: bool = view["deal_number"] >= view["deals_in_partie"]
    return last


def _rouge_possible(view: View, k: Knowledge) -> bool:
    """Whether the seat's twelve cards (its hand and what it has played) may all still
    lie in combinations that score for it: those of each category it has won or not
    yet lost (RULES.md §8, carte rouge)."""
    twelve = k.hand | (k.played & ~k.opp_played)
    mine = "elder" if k.i_am_elder else "younger"
    outcomes = {d["category"]: d["outcome"] for d in view["declarations"]}
    covered = 0
    for category, cards in zip(("point", "sequence", "set"), combination_cards(twelve),
                               strict=True):
        if outcomes.get(category, "pending") in ("pending", mine):
            covered |= cards
    return covered == twelve


# --------------------------------------------------------------------------- play


def _suit(hand: int, s: int) -> list[int]:
    return bits(hand & SUIT_MASK[s])


def sure_winners(k: Knowledge) -> int:
    """My cards no card she may hold can beat in their suit."""
    possible = k.opp_possible
    out = 0
    for c in bits(k.hand):
        s = c >> 3
        higher = possible & SUIT_MASK[s] & ~((1 << (c + 1)) - 1)
        if not higher:
            out |= 1 << c
    return out


def _lead(view: View, legal: list[Action]) -> Action:
    k = know(view)
    hand = k.hand
    winners = sure_winners(k)
    possible = k.opp_possible
    lengths = [bin(hand & SUIT_MASK[s]).count("1") for s in range(4)]
    if winners:
        # run the longest suit's masters first (they also make its small cards good)
        c = max(bits(winners), key=lambda c: (lengths[c >> 3], c & 7))
        return _play(c)
    # a suit she is void in gives a free trick too (caught above); else build a suit
    best_key: tuple[float, ...] | None = None
    best = -1
    for s in range(4):
        mine = _suit(hand, s)
        if not mine:
            continue
        theirs = bits(possible & SUIT_MASK[s])
        top = mine[-1]
        # touching honours that force out her master: K Q against the ace, etc.
        higher_out = [c for c in theirs if c > top]
        forcing = len(higher_out) == 1 and len(mine) >= 2 and mine[-2] == top - 1
        guard_risk = 1 if (len(mine) <= 2 and (top & 7) >= 5) else 0
        key = (1 if forcing else 0, -guard_risk, lengths[s], -len(theirs))
        if best_key is None or key > best_key:
            best_key = key
            best = top if forcing else mine[0]
    return _play(best)


def _follow(view: View, legal: list[Action]) -> Action:
    k = know(view)
    led = CARD_OF[view["trick"]["cards"][0][0]]
    s = led >> 3
    mine = _suit(k.hand, s)
    if mine:
        wins = [c for c in mine if c > led]
        if wins:
            return _play(wins[0])
        return _play(mine[0])
    if view["tricks_won"][k.seat] == 0:
        return _play(_capot_throw(k))
    return _play(_throw(k))


def _capot_throw(k: Knowledge) -> int:
    """Not following suit while she has won every trick: she might capot it (40, not
    10), so it keeps the cards that can still take a trick. A suit's top card takes one
    if it outlasts every card she may hold above it: it needs that many cards under it
    as guards. It throws first from a suit that cannot (the most short of guards), then
    the lowest card of the suit with the most cards to spare, and only then a guard."""
    possible = k.opp_possible
    best: tuple[tuple[int, int, int, int], int] | None = None
    for s in range(4):
        mine = _suit(k.hand, s)
        if not mine:
            continue
        higher = bin(possible & SUIT_MASK[s] & ~((1 << (mine[-1] + 1)) - 1)).count("1")
        spare = len(mine) - (higher + 1)
        # hopeless suits first (the furthest from a trick), then the most spare cards;
        # among guards, the suit whose top needs the most of hers to fall first
        key = (1 if spare < 0 else 0, -spare if spare < 0 else spare, higher, -(mine[0] & 7))
        if best is None or key > best[0]:
            best = (key, mine[0])
    assert best is not None
    return best[1]


def _throw(k: Knowledge) -> int:
    """The card worth least to keep, when not following suit."""
    winners = sure_winners(k)
    possible = k.opp_possible
    best: tuple[float, int] | None = None
    for c in bits(k.hand):
        s = c >> 3
        mine = _suit(k.hand, s)
        theirs = bits(possible & SUIT_MASK[s])
        value = 0.0
        if winners >> c & 1:
            value += 10
        higher_out = sum(1 for x in theirs if x > c)
        rank = c & 7
        # a guard: a king with one card under it, a queen with two, while the masters are out
        if higher_out and rank >= 5 and len(mine) <= higher_out + 1 and len(mine) >= 2:
            value += 6
        if higher_out and len(mine) - 1 <= higher_out and len(mine) >= 2 and c == mine[0]:
            value += 4  # the guard beneath an honour
        # long-suit cards become winners once she runs out
        if len(mine) > len(theirs):
            value += 3
        value += rank * 0.3 - len(mine) * 0.2
        if best is None or value < best[0]:
            best = (value, c)
    assert best is not None
    return best[1]


def _play(c: int) -> Action:
    return {"type": "play", "card": CODE_OF[c]}


_BY_STEP: dict[str, Callable[[View, list[Action]], Action]] = {
    "elder_exchange": _exchange,
    "younger_discard": _exchange,
    "younger_exchange": _exchange,
    "elder_lesser": _lesser,
    "younger_lesser": _lesser,
    "lead": _lead,
    "follow": _follow,
}
