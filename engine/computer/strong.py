"""The strong computer level: perfect-information Monte Carlo over what the seat knows.

- Play: it samples the opponent's hand consistent with everything the seat has seen
  and heard (its own cards, her calls and what they claim, cards shown, played and
  exposed, the suits she showed out of; what her calls and answers say she does not
  hold; her discards drawn low-first; sampler.py), solves the rest of the deal's
  play exactly for each sample (solver.py: alpha-beta, a transposition table,
  touching cards as one) and plays the card with the best total across samples,
  from the first trick on (4 samples with twelve cards in hand, 8 from eleven to nine,
  more near the end, no new sample once 40,000 solver nodes are spent).
- Exchange: it weighs the good level's best candidate discards against sampled
  stocks and opponent hands (her exchange simulated by the basic rule when she has
  not exchanged yet): declarations are decided between the two sampled hands exactly
  (point, sequences, sets, and repique), the play is estimated from both hands' high
  cards and long suits; it keeps the candidate with the best mean.
- Pique: the solver counts elder's pique (30 for the lead, or the trick, that makes
  his thirtieth point while younger has scored nothing; with the cards towards pique,
  the cards' 10 at his seventh trick too), so as elder it runs its tricks towards
  thirty and as younger it takes a trick to stop him.
- Partie: in the last deal of the partie the searched value is what the partie ends
  with (RULES.md §7): the win, the Rubicon, then the points (`_weights`); in every
  deal before, the points and 100 either way on the chance of winning the partie, read
  from the partie score and a spread that grows with the deals left (`partie_value`),
  in the play and in the exchange.
- Piquet au cent (RULES.md §8): no six deals and no Rubicon; the points and
  `GAME_POINTS` a game on what the deal does to the game (games.py): the chance of
  reaching 100 first, and of a double (the loser under 50), from the game's scores,
  towards the first to three games. Younger weighs standing pat with the rest.
- Carte rouge: the exchange's declarations score +20 for a final hand every card of
  which lies in a combination that scored, before the repique is reckoned, and the
  discards that keep every card in a combination are weighed too.
- Everything random comes from a generator seeded from the view, and the searches
  stop on counts (samples, nodes), not on time: the same view gives the same move.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

from engine.computer import basic, games, good
from engine.computer.choosing import Action, View, choose_by_step
from engine.computer.good import (
    _candidates,
    all_in_combinations,
    combination_cards,
    hand_value,
    play_tricks,
    sequences,
)
from engine.computer.knowledge import (
    CARD_OBJ,
    CARD_OF,
    CODE_OF,
    PIPS,
    Knowledge,
    bits,
    know,
    mask,
    rules_of,
    view_rng,
)
from engine.computer.race import Race
from engine.computer.sampler import sample_before_exchange, sample_hands
from engine.computer.solver import Solver
from engine.variants import DOUBLE_UNDER, GAME_TO, RUBICON, Rules

SOLVE_FROM = 12  # the play is searched to the end from this many cards in hand (all)
SAMPLES = {1: 1, 2: 24, 3: 24, 4: 24, 5: 20, 6: 16, 7: 12, 8: 10, 9: 8, 10: 8, 11: 8, 12: 4}
NODE_BUDGET = 40_000  # solver nodes per decision: no more samples after this
EXCHANGE_CANDIDATES = 16
EXCHANGE_SAMPLES = 24
SIMULATED_EXCHANGE = 1  # 0: the good level's exchange (for measuring one against the other)


def choose(view: View, press_next_deal: bool = False) -> Action:
    """The strong level's action for this seat's view (see the module docstring); what
    it does not search (declaring, asking to see, the next deal), good decides."""
    return choose_by_step(view, press_next_deal, _BY_STEP, good.choose)


# --------------------------------------------------------------------------- play


def _play(view: View, legal: list[Action]) -> Action:
    cards = [CARD_OF[e["card"]] for e in legal if e["type"] == "play"]
    if len(cards) == 1:
        return {"type": "play", "card": CODE_OF[cards[0]]}
    searched = play_totals(view, cards, margins=False)
    if searched is None:
        return good.choose(view)
    return {"type": "play", "card": CODE_OF[best_card(searched.totals)]}


class Searched(NamedTuple):
    """Each legal card's value summed over the sampled hands, as strong weighs it
    (`totals`, `_weights`) and in plain points (`points`: my points less hers to the end
    of the deal); `solved` samples."""

    totals: dict[int, float]
    points: dict[int, float]
    solved: int


def play_totals(view: View, cards: list[int], margins: bool = True) -> Searched | None:
    """The searched value of each of `cards` (the legal plays, in the view's order)
    over the sampled hands (`Searched`); None when the hand is too long to search
    (`SOLVE_FROM`). Under Piquet au cent the value is the race's (`race_for`), and the
    plain points are searched apart, only if `margins` (else they are left at 0)."""
    k = know(view)
    n = bin(k.hand).count("1")
    if n > SOLVE_FROM:
        return None
    rng = view_rng(view, "play")
    hands = sample_hands(k, SAMPLES.get(n, 8), rng)
    seat = view["seat"]
    t0 = view["tricks_won"][seat]
    trick = view["trick"]
    led = CARD_OF[trick["cards"][0][0]] if trick else None
    leader = 0 if led is None else 1
    race = race_for(view)
    weight = _weights(view, n)
    totals = dict.fromkeys(cards, 0.0)
    points = dict.fromkeys(cards, 0.0)
    nodes = 0
    solved = 0
    for h in hands:
        if race is not None:
            search = race(h)
            raced = search.moves(k.hand, h, leader, t0, led, 0)
            nodes += search.nodes
        if race is None or margins:
            solver = solver_for(view)
            values = solver.moves(k.hand, h, leader, t0, led, 0)
            nodes += solver.nodes
        for c in cards:
            r = _rep(c, k.hand, h)
            if race is None:
                points[c] += values[r]
                totals[c] += weight(values[r])
            else:
                totals[c] += raced[r]
                if margins:
                    points[c] += values[r]
        solved += 1
        if nodes > NODE_BUDGET:
            break
    return Searched(totals, points, solved)


def best_card(totals: dict[int, float]) -> int:
    """The card strong plays: the best total; among equals the lowest, then the first."""
    return max(totals, key=lambda c: (round(totals[c], 6), -(c & 7)))


def _rep(c: int, hand: int, other: int) -> int:
    """The highest card of `c`'s group of touching cards (the one the solver tried)."""
    rest = hand | other
    top = (c & 0x18) + 7
    best = c
    while c < top:
        c += 1
        if rest >> c & 1:
            if not hand >> c & 1:
                break
            best = c
    return best


def solver_for(view: View) -> Solver:
    """A solver for this seat's deal (seat 0 is this seat): the pique while it is still
    possible, and the rules' cards towards pique."""
    return Solver(_pique(view), rules_of(view).cards_towards_pique)


def race_for(view: View) -> Callable[[int], Race] | None:
    """Under Piquet au cent, a maker of this seat's race (race.py: seat 0 is this seat)
    for a hand she may hold, from the game's scores now: each end of the deal worth its
    points and GAME_POINTS a game on what it does to the game (`games`: a game won or
    lost there, a double if the loser is under 50; else the game's chances after the
    deal); else None. As elder before his first lead, what her calls still to come will
    score (from that hand) comes first: they reckon before his lead."""
    rules = rules_of(view)
    if rules.game != "au_cent":
        return None
    seat = view["seat"]
    told = view["games"]
    mine, hers = told["scores"][seat], told["scores"][1 - seat]
    elder = view["elder"] == seat
    won = told["won"]
    owed = _owed(view)
    deal = view["scores"]["deal"]
    known: dict[tuple[int, int, int, int | None], float] = {}

    def value(first: int, p0: int, p1: int, winner: int | None) -> float:
        key = (first, p0, p1, winner)
        v = known.get(key)
        if v is None:
            p1 += first
            if winner is None:
                game = games.equity(mine + p0, hers + p1, not elder, won, seat)
            else:
                double = (hers + p1 if winner == 0 else mine + p0) < DOUBLE_UNDER
                ends = (1.0, float(double), 0.0, 0.0) if winner == 0 \
                    else (0.0, 0.0, 1.0, float(double))
                game = games.worth(ends, won, seat)
            v = known[key] = p0 - p1 + GAME_POINTS * game
        return v

    pique = _pique(view)

    def make(her_hand: int) -> Race:
        first = sum(_calls(category, her_hand) for category in owed)
        if first and not deal[seat] and deal[1 - seat] + first >= 30:
            first += 60  # her repique
        return Race((GAME_TO - mine, GAME_TO - hers - first),
                    functools.partial(value, first), pique, rules.cards_towards_pique)

    return make


def _owed(view: View) -> tuple[str, ...]:
    """As elder before his first lead, the categories younger is still to call: she calls
    after the lead, and they reckon before it."""
    seat = view["seat"]
    if seat != view["elder"] or view["tricks"] or view["trick"]:
        return ()
    return tuple(d["category"] for d in view["declarations"]
                 if d["owed"] == "call" and d["to_speak"] == 1 - seat)


def _calls(category: str, hand: int) -> int:
    """What calling everything in `category` scores from `hand` (the best and the
    lesser calls)."""
    if category == "point":
        return _point(hand)[1]
    if category == "sequence":
        return sequences(hand)[1]
    return _sets(hand)[1]


def _pique(view: View) -> tuple[int, int] | None:
    """The solver's `pique` (solver.py): elder's seat there (0 is this seat) and his
    points in steps I-IV, while a pique is still possible: younger has scored nothing
    and is owed no category, and elder is under 30."""
    seat = view["seat"]
    elder = view["elder"]
    deal = view["scores"]["deal"]
    if deal[1 - elder] or deal[elder] >= 30 or any(
            d["outcome"] == "younger" for d in view["declarations"]):
        return None
    leads = len(view["tricks"]) + (1 if view["trick"] else 0)  # all his, while she has 0
    # (With the cards towards pique, his seventh trick scored the cards' 10.)
    cards = 10 if len(view["tricks"]) >= 7 and rules_of(view).cards_towards_pique else 0
    return (0 if seat == elder else 1), deal[elder] - leads - cards


def partie_score(mine: float, theirs: float) -> float:
    """What a partie ending at these totals is worth to me (RULES.md §7): the winner
    scores the difference and 100, or both totals and 100 if the loser is under 100;
    a tie, nothing (two more deals, or a draw)."""
    if mine > theirs:
        return mine - theirs + 100 + (2 * theirs if theirs < 100 else 0)
    if mine < theirs:
        return -(theirs - mine + 100 + (2 * mine if mine < 100 else 0))
    return 0.0


DEAL_SPREAD = 35.0  # about how far one deal's points may swing the margin (a deviation)
PARTIE_LEFT = 5  # the chance of winning weighs the margin with up to this many deals left
PARTIE_WEIGHT = 1  # 0: points only, in every deal (for measuring one against the other)


def partie_value(view: View, total: float) -> Callable[[float], float]:
    """What a margin `v` (my points less hers, from here to the end of the deal) is worth
    in the partie, `total` being about how many points both will score from here. In
    the last deal: the score the partie ends with (RULES.md §7; the win, the Rubicon,
    then the points), with `total` split between us by `v`. In every deal before: the
    points and 100 either way on the chance of winning, that chance read from the
    margin this deal ends with and a normal spread of the deals left (`DEAL_SPREAD` a
    deal, so the spread grows with their square root): a margin counts for more while
    the partie is close and the deals left are few, and for little more than its
    points when one side is far ahead. Under Piquet au cent: `game_value`."""
    if rules_of(view).game == "au_cent":
        return game_value(view, total)
    left = view["deals_in_partie"] - view["deal_number"]
    if left > PARTIE_LEFT or not PARTIE_WEIGHT:
        return float
    seat = view["seat"]
    mine, theirs = view["scores"]["partie"][seat], view["scores"]["partie"][1 - seat]
    if left >= 1:
        spread = DEAL_SPREAD * math.sqrt(2 * left)

        def chance(v: float) -> float:
            z = (mine - theirs + v) / spread
            return v + 100 * math.erf(z)

        return chance

    def ends(v: float) -> float:
        return partie_score(mine + (total + v) / 2, theirs + (total - v) / 2)

    return ends


GAME_POINTS = 100.0  # Piquet au cent: a game, in points (a double two)


def game_value(view: View, total: float) -> Callable[[float], float]:
    """Piquet au cent: what a margin `v` from here to the end of the deal is worth, `total`
    being about how many points both will score from here: its points, and GAME_POINTS
    a game on what it does to the game (`games.deal_value`, from the game's scores now:
    reaching 100 first, a double, the chances of the game after the deal, all towards
    the first to three games)."""
    seat = view["seat"]
    told = view["games"]
    mine, hers = told["scores"][seat], told["scores"][1 - seat]
    elder = view["elder"] == seat
    won = told["won"]

    def value(v: float) -> float:
        return v + GAME_POINTS * games.deal_value(mine, hers, (total + v) / 2,
                                                  (total - v) / 2, elder, won, seat)

    return value


def _weights(view: View, cards: int) -> Callable[[int], float]:
    """How the searched play value counts (`partie_value`). The search gives the
    difference of the two seats' play points from here; their sum is estimated (a lead
    point a card, about half the tricks won on her lead, the last trick, the cards)."""
    led_already = 1 if view["trick"] else 0  # her lead: in the scores and in the value
    value = partie_value(view, 1.5 * cards + 11 - led_already)
    if value is float:
        return float
    return lambda v: value(v + led_already)


# --------------------------------------------------------------------------- exchange


CARTE_ROUGE = 20
PIQUE_CHANCE = 15  # elder's fair chance of a pique from 24 points up (30 at six leads)
SEVENTH_CHANCE = 10  # ... from 13 up with a hand for seven tricks, the cards towards pique


def _decl(h0: int, h1: int, elder0: bool, pique_chance: bool = True,
          rules: Rules = RUBICON) -> tuple[int, int]:
    """Declaration points of two final hands (both call everything): point, sequences,
    sets, carte rouge under its rule, and repique; and, unless `pique_chance` is off (for
    a caller that plays the tricks out), elder's fair chance of a pique from 24 points up
    (with the cards towards pique, from 13 up too when his hand may take the first seven
    tricks: seven leads and the cards' 10)."""
    p = [_point(h0), _point(h1)]
    s = [sequences(h0), sequences(h1)]
    t = [_sets(h0), _sets(h1)]
    score = [0, 0]
    won = [[False] * 3, [False] * 3]  # the point, sequences, sets: scored for each seat
    if p[0][0] != p[1][0]:
        w = 0 if p[0][0] > p[1][0] else 1
        score[w] += p[w][0][0]
        won[w][0] = True
    if s[0][0] != s[1][0] and max(s[0][0], s[1][0]) > (0, 0):
        w = 0 if s[0][0] > s[1][0] else 1
        score[w] += s[w][1]
        won[w][1] = True
    if t[0][0] != t[1][0] and max(t[0][0], t[1][0]) > (0, 0):
        w = 0 if t[0][0] > t[1][0] else 1
        score[w] += t[w][1]
        won[w][2] = True
    if rules.carte_rouge:  # reckoned after the sets: it counts towards the repique
        for w, h in ((0, h0), (1, h1)):
            counted = 0
            for cards, scored in zip(combination_cards(h), won[w], strict=True):
                if scored:
                    counted |= cards
            if counted == h:
                score[w] += CARTE_ROUGE
    for w in (0, 1):
        if score[w] >= 30 and score[1 - w] == 0:
            score[w] += 60
        elif pique_chance and (w == 0) == elder0 and score[1 - w] == 0:
            if score[w] >= 24:
                score[w] += PIQUE_CHANCE
            elif rules.cards_towards_pique and score[w] >= 13 and play_tricks(
                    h0 if w == 0 else h1) >= 7:
                score[w] += SEVENTH_CHANCE
    return score[0], score[1]


def _point(h: int) -> tuple[tuple[int, int], int]:
    best = (0, 0)
    for s in range(4):
        suit = (h >> (8 * s)) & 0xFF
        if suit:
            best = max(best, (bin(suit).count("1"),
                              sum(PIPS[r] for r in range(8) if suit >> r & 1)))
    return best, best[0]


def _sets(h: int) -> tuple[tuple[int, int], int]:
    best = (0, 0)
    total = 0
    for r in range(3, 8):
        n = sum(1 for s in range(4) if h >> (8 * s + r) & 1)
        if n >= 3:
            best = max(best, (n, r))
            total += 14 if n == 4 else 3
    return best, total


def _outcome(mine: int, theirs: int, i_am_elder: bool, rules: Rules = RUBICON) -> float:
    """My expected points minus hers from two final hands."""
    d0, d1 = _decl(mine, theirs, i_am_elder, rules=rules)
    t0, t1 = play_tricks(mine), play_tricks(theirs)
    share = t0 / (t0 + t1) if t0 + t1 > 0 else 0.5
    my_tricks = 12 * share
    play = 2.2 * (my_tricks - 6) * 2
    if my_tricks > 7:
        play += 10
    elif my_tricks < 5:
        play -= 10
    return d0 - d1 + play + (1.0 if i_am_elder else 0.0)


def _exchange(view: View, legal: list[Action]) -> Action:
    if not SIMULATED_EXCHANGE:
        return good.choose(view)
    best = best_discard(exchange_values(view, legal))
    return {"type": "discard", "cards": [CODE_OF[c] for c in bits(best)], "expose": False}


class Weighed(NamedTuple):
    """A discard (a mask) and its total over the exchange's sampled worlds, as strong
    weighs it (`partie_value`) and in plain points (`_outcome`); `candidate`: one strong
    weighs itself (else one a caller asked about)."""

    discard: int
    total: float
    candidate: bool
    points: float = 0.0


ROUGE_CANDIDATES = 4


def exchange_candidates(k: Knowledge, legal: list[Action],
                        rules: Rules = RUBICON) -> list[tuple[int, int]]:
    """The discards strong weighs, as (count, mask), in the order it weighs them: its
    full allowance (and, as elder, one card fewer; as younger under Piquet au cent,
    none: standing pat), each the good level's best `EXCHANGE_CANDIDATES` by the kept
    cards' value; under carte rouge, also the best `ROUGE_CANDIDATES` throwing as few as
    it may, or just the cards in no combination, that keep only cards lying in one."""
    rule = next(e for e in legal if e["type"] == "discard")
    elder = k.i_am_elder
    ns = [rule["max"]] if not elder else sorted(
        {rule["max"], max(rule["min"], rule["max"] - 1)}, reverse=True)
    if rule["min"] == 0 and 0 not in ns:
        ns.append(0)
    cands: list[tuple[int, int]] = []
    for n in ns:
        cs = _candidates(k.hand, n)
        cs.sort(key=lambda d: -hand_value(k.hand & ~d, elder))
        cands.extend((n, d) for d in cs[:EXCHANGE_CANDIDATES])
    if rules.carte_rouge:
        # As few as it may throw, or just the cards in no combination: what it keeps all
        # scores, and a card drawn may fit (a card of the point's suit always does).
        point, runs, sets = combination_cards(k.hand)
        outside = bin(k.hand & ~(point | runs | sets)).count("1")
        known = set(cands)
        for n in sorted({rule["min"], min(max(outside, rule["min"]), rule["max"])}):
            cs = [d for d in _candidates(k.hand, n) if all_in_combinations(k.hand & ~d)
                  and (n, d) not in known]
            cs.sort(key=lambda d: -hand_value(k.hand & ~d, elder))
            cands.extend((n, d) for d in cs[:ROUGE_CANDIDATES])
    return cands


def exchange_values(view: View, legal: list[Action],
                    extra: tuple[int, ...] = ()) -> list[Weighed]:
    """Each candidate discard (`exchange_candidates`, in order), then any `extra` masks
    not among them, with its total over the sampled worlds (`EXCHANGE_SAMPLES` of them):
    my points less hers from the two final hands (`_outcome`), as `partie_value` counts
    them. The worlds are drawn from the view alone: the same view, the same values."""
    k = know(view)
    rules = rules_of(view)
    rng = view_rng(view, "exchange")
    cands = exchange_candidates(k, legal, rules)
    strong_own = len(cands)
    known = {d for _, d in cands}
    cands += [(bin(d).count("1"), d) for d in dict.fromkeys(extra) if d not in known]
    worlds = []
    for _ in range(EXCHANGE_SAMPLES):
        opp, stock = sample_before_exchange(k, rng)
        worlds.append((opp, stock))
    elder = k.i_am_elder
    opp_done = not elder  # younger exchanges after elder: elder's hand is final
    seen = [CARD_OF[c] for c in view["seen_stock"]]
    value = partie_value(view, 45.0)  # about what a deal scores, both seats together
    out: list[Weighed] = []
    for i, (n, d) in enumerate(cands):
        kept = k.hand & ~d
        total = 0.0
        points = 0.0
        for opp, stock in worlds:
            mine = kept | mask(stock[:n])
            theirs = opp
            if not opp_done:
                rest = seen + stock[n:] if n < 5 and seen else stock[n:]
                take = min(len(rest), 3 + (5 - n))
                theirs = _their_exchange(opp, rest[:take])
            margin = _outcome(mine, theirs, elder, rules)
            points += margin
            total += value(margin)
        out.append(Weighed(d, total, i < strong_own, points))
    return out


def best_discard(weighed: list[Weighed]) -> int:
    """The discard strong makes: of its own candidates, the best total, the first among
    equals."""
    best: tuple[float, int] | None = None
    for d, total, candidate, _ in weighed:
        if candidate and (best is None or total > best[0] + 1e-9):
            best = (total, d)
    assert best is not None
    return best[1]


def _their_exchange(hand: int, draw: list[int]) -> int:
    """Her exchange as the basic rule makes it: her full allowance, lowest from shortest."""
    order = basic.throw_order([CARD_OBJ[c] for c in bits(hand)])
    thrown = mask(CARD_OF[c.code] for c in order[:len(draw)])
    return (hand & ~thrown) | mask(draw)


_BY_STEP: dict[str, Callable[[View, list[Action]], Action]] = {
    "elder_exchange": _exchange,
    "younger_discard": _exchange,
    "younger_exchange": _exchange,
    "lead": _play,
    "follow": _play,
}
