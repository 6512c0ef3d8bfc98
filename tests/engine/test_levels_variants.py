"""The computer's levels under the variants (RULES.md §8, issue 35): every pair of levels
plays legally, to the partie's end, under every combination of the rules; and the strong
level plays for the game in force: under Piquet au cent for reaching 100 first and for
the double, not for six deals and the Rubicon; with the cards towards pique for the
seventh trick's 10 towards thirty; with carte rouge for a hand whose every card scores.

`PIQUET_VARIANT_LEVEL_PARTIES` sizes the legality check (parties per pair of levels and
per combination of the rules; the issue's 200 under each variant are a run by hand:
`python -m engine.selfplay --parties 200 --a strong --b good --rules au_cent`). In that
check the strong level searches with few samples (`quick_strong`): what it may play
does not depend on how many hands it imagines, and the check stays quick.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import pytest

import engine
from engine import Rules, State, Step
from engine.computer import decide, games, good, strong
from engine.computer.knowledge import CARD_OF, know
from engine.computer.race import Race
from engine.computer.solver import Solver
from engine.selfplay import play_partie, run
from engine.variants import EVERY_RULES, RUBICON
from tests.engine.kit import fill
from tests.engine.learnkit import race_deal

PARTIES = int(os.environ.get("PIQUET_VARIANT_LEVEL_PARTIES", "1"))
PAIRS = [("basic", "basic"), ("basic", "good"), ("good", "good"), ("basic", "strong"),
         ("good", "strong"), ("strong", "strong")]
AU_CENT = Rules(game="au_cent")


@pytest.fixture
def quick_strong(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The strong level with one sample, searching the play from six cards in hand (the
    good level's rule before): every path of its search, a fraction of the time."""
    monkeypatch.setattr(strong, "SAMPLES", dict.fromkeys(range(1, 13), 1))
    monkeypatch.setattr(strong, "SOLVE_FROM", 6)
    monkeypatch.setattr(strong, "EXCHANGE_SAMPLES", 1)
    monkeypatch.setattr(strong, "EXCHANGE_CANDIDATES", 3)
    yield


@pytest.mark.parametrize("rules", EVERY_RULES, ids=lambda r: r.names())
def test_every_pair_of_levels_plays_legally_to_the_end_under_every_rules(
        rules: Rules, quick_strong: None) -> None:
    rng = random.Random(f"levels/{rules.names()}")
    for a, b in PAIRS:
        parties = PARTIES if "strong" in (a, b) else 2 * PARTIES
        summary = run(parties, rng.getrandbits(32), a, b, rules=rules)
        assert summary.errors == [], (a, b)
        assert summary.wins[0] + summary.wins[1] + summary.draws == parties  # each ended
        if rules.game == "au_cent":
            # first to three games: two at the least (a double and one more)
            assert sum(summary.games.values()) >= 2 * parties
        else:
            assert summary.deals >= 6 * parties


def test_a_partie_of_selfplay_is_played_under_the_rules_it_is_given() -> None:
    au = play_partie([decide_for("good"), decide_for("basic")], 5, AU_CENT)
    rubicon = play_partie([decide_for("good"), decide_for("basic")], 5)
    assert au.errors == rubicon.errors == []
    assert au.result is not None and max(au.result["totals"]) >= 3  # games, to three
    assert au.games and sum(2 if double else 1 for _, double in au.games) >= 3
    assert rubicon.result is not None and rubicon.games == [] and len(rubicon.deals) >= 6


def decide_for(name: str) -> Any:
    return lambda v: decide(name, v, True)


# --------------------------------------------------------------------------- au cent


def test_a_game_is_won_by_reaching_100_first_and_doubled_under_50() -> None:
    """games.py: the chances of each end of the game from its scores."""
    win, double, lose, lost_double = games.chances(95, 10, elder_next=True)
    assert win > 0.95 and double > 0.9 and lose < 0.05 and lost_double == 0
    # 50 and up, nobody can lose a double
    assert games.chances(50, 60, True)[1] == games.chances(50, 60, True)[3] == 0
    # elder is the likelier to get there first from level scores
    assert games.chances(90, 90, True)[0] > 0.5 > games.chances(90, 90, False)[0]
    # the deal under way: reaching 100 first wins the game, wherever the other stands
    assert games.deal_value(90, 95, 10, 4, True, (0, 0), 0) == 1.0
    assert games.deal_value(90, 40, 20, 5, True, (0, 0), 0) == 2.0  # a double: she is at 45
    assert games.deal_value(90, 40, 20, 20, True, (0, 0), 0) == 1.0  # she is at 50 by then
    assert games.deal_value(90, 95, 12, 10, True, (0, 0), 0) == -1.0  # she gets there first


def test_a_double_counts_one_game_where_one_is_all_the_winner_needs() -> None:
    ends = (1.0, 1.0, 0.0, 0.0)
    assert games.worth(ends, (0, 0), 0) == 2.0
    assert games.worth(ends, (2, 0), 0) == 1.0  # two games won: one more wins the partie
    assert games.worth((0.0, 0.0, 1.0, 1.0), (2, 1), 0) == -2.0
    assert games.worth((0.0, 0.0, 1.0, 1.0), (0, 2), 0) == -1.0


def test_strong_values_the_game_not_the_six_deals_under_au_cent() -> None:
    """Ten points are worth far more when they win the game (and a double) than when the
    game has far to go; Rubicon's last deal is not read from the deal's number."""
    view = {"seat": 0, "elder": 0, "deal_number": 6, "deals_in_partie": None,
            "rules": AU_CENT.to_json(),
            "games": {"scores": [88, 30], "won": [0, 0]}}
    near = strong.partie_value(view, 30)
    far = strong.partie_value({**view, "games": {"scores": [10, 10], "won": [0, 0]}}, 30)
    # 108 first, a double (she is at 36 then), against 98 to her 50
    assert near(10) - near(-10) > strong.GAME_POINTS
    assert 20 <= far(10) - far(-10) < (near(10) - near(-10)) / 2


def _m(text: str) -> int:
    """Cards as a mask (knowledge.py)."""
    return sum(1 << CARD_OF[c] for c in text.split())


def _race_position() -> tuple[int, int]:
    """Two tricks left. Seat 0 leads with the ace of spades and the seven of hearts, she
    holds the king of spades and the eight of hearts."""
    return _m("AS 7H"), _m("KS 8H")


def test_the_race_counts_points_in_the_order_they_are_made() -> None:
    """Seat 0 needs 2 points to reach 100, she needs 1. Leading the seven of hearts
    first makes the better margin to the end of the deal (+1: she wins it, then the
    ace takes the last trick), but she reaches 100 with that trick; the ace first,
    then the seven's lead point, reaches 100 first."""
    me, her = _race_position()
    ace, seven = CARD_OF["AS"], CARD_OF["7H"]
    plain = Solver().moves(me, her, 0, 5, None, 0)
    assert plain[seven] > plain[ace]

    def value(p0: int, p1: int, winner: int | None) -> float:
        return p0 - p1 + {0: 100, 1: -100, None: 0}[winner]

    raced = Race((2, 1), value).moves(me, her, 0, 5, None, 0)
    assert raced[ace] == 102 and raced[seven] == -100


def test_strong_leads_to_reach_100_before_her_under_au_cent() -> None:
    """learnkit.race_deal: the game stands at 98 to 99, elder to lead: one more point
    each and she has won, so his lead must be a card she cannot take (and then his next
    lead reaches 100). Searching the points to the end of the deal, a lead she can
    take looks as good."""
    _, steps = race_deal()
    v = engine.view(steps[-1][2], 0)
    assert v["step"] == "lead"
    cards = [CARD_OF[e["card"]] for e in v["legal"]]
    searched = strong.play_totals(v, cards)
    assert searched is not None
    masters = good.sure_winners(know(v))
    action = strong.choose(v)
    assert masters >> CARD_OF[action["card"]] & 1, action
    best_master = max(searched.totals[c] for c in cards if masters >> c & 1)
    best_other = max(searched.totals[c] for c in cards if not masters >> c & 1)
    # a game's worth between them, over the sampled hands
    assert best_master - best_other > strong.GAME_POINTS * searched.solved


# --------------------------------------------------------------------------- the cards


def test_the_cards_at_the_seventh_trick_make_a_pique_in_the_solver() -> None:
    """Elder (seat 0) has 13 points before the play and holds seven masters: seven leads
    and the cards' 10 at his seventh trick make thirty, a pique, only with the cards
    towards pique."""
    elder = _m("AS KS QS JS AH KH QH 7C 8C 9C 7D 8D")
    younger = _m("10S 9S JH 10H AC KC QC JC AD KD QD JD")
    plain = Solver((0, 13)).moves(elder, younger, 0, 0, None, 0)
    seventh = Solver((0, 13), cards_at_seventh=True).moves(elder, younger, 0, 0, None, 0)
    ace = CARD_OF["AS"]
    assert seventh[ace] == plain[ace] + 30
    # Running the seven masters first is what makes it: a low club first gives it away.
    assert max(seventh, key=lambda c: seventh[c]) in (ace, CARD_OF["AH"])
    assert seventh[CARD_OF["9C"]] < seventh[ace] - 30  # (9 8 7 of clubs are one card)


def test_strong_reads_the_cards_already_won_at_the_seventh_trick() -> None:
    view = {"seat": 0, "elder": 0, "scores": {"deal": [27, 0]}, "declarations": [],
            "tricks": [{}] * 7, "trick": None,
            "rules": Rules(cards_towards_pique=True).to_json()}
    assert strong._pique(view) == (0, 10)  # 27 = 10 declared + 7 leads + the cards' 10
    assert strong._pique({**view, "rules": RUBICON.to_json()}) == (0, 20)


# --------------------------------------------------------------------------- carte rouge


# Every card in a combination: six hearts for the point, two tierces in them, three aces
# and three tens. Against a hand that beats none of them, 18 points: with carte rouge,
# 20 more, reckoned after the sets, so they make thirty before she scores: a repique.
ROUGE = _m("7H 8H 9H JH QH KH AS AC AD 10S 10C 10D")
THIN = _m("7S 9S JS KS 8C JC KC 7D 9D JD KD 10H")


def test_carte_rouge_scores_in_the_exchange_weighing_and_reckons_before_the_repique() -> None:
    assert strong._decl(ROUGE, THIN, elder0=False) == (18, 0)
    assert strong._decl(ROUGE, THIN, False, rules=Rules(carte_rouge=True)) == (98, 0)
    # one card in no combination: no carte rouge
    short = ROUGE & ~_m("10D") | _m("8D")
    assert strong._decl(short, THIN, False, rules=Rules(carte_rouge=True)) \
        == strong._decl(short, THIN, False)


def _younger_exchange(rules: Rules) -> dict[str, Any]:
    """Younger (seat 1) to exchange, holding ROUGE."""
    s = engine.new_partie(seed=7, rules=rules, first_dealer=1,
                          hands=[fill("7S 9S JS KS 8C JC KC 7D 9D JD KD 10H",
                                      "7H 8H 9H JH QH KH AS AC AD 10S 10C 10D",
                                      "7C 9C 8D QC AH QS QD 8S")])
    s = engine.apply(s, 0, {"type": "discard", "cards": ["7S", "9S", "JS"], "expose": False})
    assert s.step is Step.YOUNGER_EXCHANGE
    return engine.view(s, 1)


def test_strong_weighs_the_discards_that_keep_every_card_in_a_combination() -> None:
    """Under carte rouge the discards whose kept cards all lie in a combination are
    weighed too, and weighed higher than without the rule (the same sampled stocks
    and hands: the rules are not in the seed): a stock card that fits makes +20."""
    plain_view = _younger_exchange(RUBICON)
    rouge_view = _younger_exchange(Rules(carte_rouge=True))
    k = know(rouge_view)
    legal = rouge_view["legal"]
    plain = strong.exchange_candidates(k, legal)
    rouge = strong.exchange_candidates(k, legal, Rules(carte_rouge=True))
    assert set(plain) < set(rouge)
    whole = {d for _, d in rouge if good.all_in_combinations(k.hand & ~d)}
    assert whole
    before = {w.discard: w.total for w in strong.exchange_values(plain_view, legal,
                                                                 extra=tuple(whole))}
    after = {w.discard: w.total for w in strong.exchange_values(rouge_view, legal)}
    assert all(after[d] >= before[d] for d in whole)
    assert any(after[d] > before[d] for d in whole)


def test_strong_keeps_a_carte_rouge_in_hand() -> None:
    """Younger holds a carte rouge. Without the rule the strong level takes its five;
    with it, it throws as few as it may (the seven of hearts: its hearts are the point,
    which any heart drawn joins); under au cent, where younger may stand pat, it
    stands pat."""
    def thrown(rules: Rules) -> list[str]:
        action = strong.choose(_younger_exchange(rules))
        assert action["type"] == "discard"
        return list(action["cards"])

    assert len(thrown(RUBICON)) == 5
    assert thrown(Rules(carte_rouge=True)) == ["7H"]
    assert len(thrown(AU_CENT)) == 5
    assert thrown(Rules(game="au_cent", carte_rouge=True)) == []


def _sink_position(rules: Rules) -> State:
    """test_levels' position where good sinks a tierce (she has won the point; elder, seat
    0, the sequences with a quint of hearts, and holds K Q J of clubs as a lesser
    tierce), under `rules`. Elder's twelve cards all lie in his sequences and his three
    jacks."""
    from tests.engine.moves import exchange
    from tests.engine.test_levels import _until

    s = engine.new_partie(seed=7, rules=rules, first_dealer=1, hands=[fill(
        "AH KH QH JH 10H KC QC JC 7S 8S 9S 10S", "AD KD QD 10D 9D 8D 7D AS KS 7C 7H 8H",
        "JD 9H 9C 8C 10C AC JS QS")])
    s = exchange(s, "10S", "8H")
    return _until(s, "elder_lesser", 0, "good")


def test_good_never_sinks_a_tierce_that_could_cost_a_carte_rouge() -> None:
    tierce = {"type": "call", "category": "sequence", "cards": ["KC", "QC", "JC"]}
    assert decide("good", engine.view(_sink_position(RUBICON), 0)) == {"type": "pass"}
    assert decide("good", engine.view(_sink_position(Rules(carte_rouge=True)), 0)) == tierce
