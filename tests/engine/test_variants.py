"""RULES.md §8, the variants: each ruling as a worked example on a stacked deal, and the
rules value itself (engine.Rules)."""

from __future__ import annotations

import pytest

import engine
from engine import IllegalActionError, Rules, State, Step
from engine.variants import EVERY_RULES
from tests.engine.kit import ELDER, YOUNGER, discard, fill, labels, say, stack
from tests.engine.learnkit import under_way
from tests.engine.moves import bonuses, exchange, good, lead, scores, tricks
from tests.engine.test_partie import CAPOT, SIX_ALL, play_deal, sheet

AU_CENT = Rules(game="au_cent")


def deal(rules: Rules, elder: str, younger: str, stock: str = "",
         game: tuple[int, int] | None = None) -> State:
    """A partie under `rules` whose first deal is dealt these cards, seat 1 dealing (seat
    0 is elder). `game`: au cent, the game stands at these scores when it is dealt (as if
    earlier deals of it had scored them)."""
    s = engine.new_partie(seed=7, rules=rules, hands=[fill(elder, younger, stock)],
                          first_dealer=1)
    return under_way(s, game)


def lines(s: State) -> list[tuple[int | None, str, int]]:
    return [(x["seat"], x["text"], x["points"]) for x in engine.view(s, ELDER)["log"]]


def games(s: State) -> dict[str, object]:
    v = engine.view(s, ELDER)
    assert v["games"] == engine.view(s, YOUNGER)["games"] == engine.public_view(s)["games"]
    return dict(v["games"])


# ------------------------------------------------------------------ the rules value


def test_the_rules_round_trip_through_json_and_default_to_rubicon_piquet() -> None:
    assert Rules() == Rules(game="rubicon", cards_towards_pique=False, carte_rouge=False,
                            tie="two_more")
    assert Rules().to_json() == {"game": "rubicon", "cards_towards_pique": False,
                                 "carte_rouge": False, "tie": "two_more"}
    assert AU_CENT.to_json() == {"game": "au_cent", "cards_towards_pique": False,
                                 "carte_rouge": False}  # au cent has no tie rule
    for rules in EVERY_RULES:
        assert Rules.from_json(rules.to_json()) == rules
    assert len(set(EVERY_RULES)) == 12
    assert Rules.from_json({}) == Rules()
    assert Rules.from_json({"game": "au_cent"}) == AU_CENT


@pytest.mark.parametrize(("obj", "words"), [
    ({"game": "au_cent", "tie": "one_more"}, "tie rule is for Rubicon Piquet only"),
    ({"game": "au_cent", "tie": "two_more"}, "tie rule is for Rubicon Piquet only"),
    ({"game": "piquet_normand"}, "rubicon or au_cent, not 'piquet_normand'"),
    ({"tie": "three_more"}, "two_more or one_more, not 'three_more'"),
    ({"carte_rouge": "yes"}, "carte_rouge is true or false, not 'yes'"),
    ({"cards_towards_pique": 1}, "cards_towards_pique is true or false, not 1"),
    ({"carte_rogue": True}, "no such rule: carte_rogue"),
    (["au_cent"], "the rules are an object"),
])
def test_a_combination_that_makes_no_sense_is_refused_in_words(obj: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Rules.from_json(obj)


def test_the_rules_in_force_are_in_every_view_and_in_the_state() -> None:
    rules = Rules(cards_towards_pique=True, tie="one_more")
    s = engine.new_partie(seed=3, rules=rules)
    assert s.rules == rules
    for v in (engine.view(s, 0), engine.view(s, 1), engine.public_view(s)):
        assert v["rules"] == rules.to_json()
        assert v["games"] is None  # Rubicon: no games
    assert engine.view(engine.new_partie(seed=3), 0)["rules"] == Rules().to_json()
    with pytest.raises(ValueError, match=r"engine\.Rules"):
        engine.new_partie(seed=3, rules={"game": "au_cent"})  # type: ignore[arg-type]
    # replay takes the rules as new_partie does.
    s = engine.new_partie(seed=3, rules=AU_CENT, first_dealer=0)
    assert engine.replay(3, [], rules=AU_CENT, first_dealer=0) == s


def test_the_flow_of_each_rules_is_the_steps_table_with_what_the_variant_changes() -> None:
    from engine import au_cent
    from engine import exchange as exchange_part
    from engine.rules import STEPS, flow_for

    plain = flow_for(Rules())
    assert plain.steps == STEPS and flow_for(Rules()) is plain
    pat = flow_for(AU_CENT).steps[Step.YOUNGER_EXCHANGE][0]
    assert pat is exchange_part.legal_younger_exchange_or_pat
    assert flow_for(AU_CENT).steps[Step.ELDER_CALL][1] is not STEPS[Step.ELDER_CALL][1]
    assert flow_for(Rules(cards_towards_pique=True)).steps[Step.FOLLOW][1] \
        is not STEPS[Step.FOLLOW][1]
    assert flow_for(Rules(carte_rouge=True)).steps == STEPS  # a score, not a step
    assert flow_for(Rules(tie="one_more")).steps == STEPS  # a number of deals
    assert flow_for(AU_CENT).anytime[engine.CarteBlanche] is not \
        flow_for(Rules()).anytime[engine.CarteBlanche]
    assert au_cent.to_100 is not None


# ------------------------------------------------------------------ Piquet au cent

# Seed 000's elder: point 5, quint 15, quatorze of aces 14, all good: a repique, 94. Then
# he leads his hearts and the ace of spades, winning each: six more, 100.
SEED_000 = ("AH KH QH JH 10H AS AC AD 7S 9S 8C 7D",
            "KS JS 8S 9H 8H 7H KC JC 9C KD JD 8D",
            "9D QS 10S QC 10C 7C QD 10D")


def to_94(s: State) -> State:
    s = exchange(s, "7D", "7H")
    s = good(s, "Point of five")
    s = say(good(s, "Quint to the ace"), s.elder, "Done")
    s = say(good(s, "Four aces"), s.elder, "Done")
    assert s.step is Step.LEAD
    return s


def lead_to_100(s: State) -> State:
    """Seed 000's elder leads from 94: the sixth lead makes 100 and ends the deal there."""
    s = tricks(s, "AH 8H KH 9H QH 8D JH JD 10H 9C")
    assert s.step is Step.LEAD and s.game_scores()[s.elder] == 99
    return lead(s, "AS")


def test_the_deal_ends_the_moment_a_seat_reaches_100_a_double_under_50() -> None:
    s = to_94(deal(AU_CENT, *SEED_000))
    assert scores(s) == (94, 0) and bonuses(s) == [(ELDER, "repique", 60)]
    s = lead_to_100(s)
    # The lead made 100: the deal is over at once, seven cards still in each hand.
    assert s.step is Step.DEAL_OVER and len(s.hands[YOUNGER]) == 7
    assert engine.view(s, ELDER)["scores"]["sheet"] == [[100, 0]]
    assert games(s) == {"number": 2, "scores": [0, 0], "won": [2, 0],
                        "finished": [{"winner": ELDER, "scores": [100, 0], "double": True,
                                      "deals": 1}],
                        "winner": None}
    assert (ELDER, "Reaches 100: wins game 1, 100 to 0, a double (under 50): it counts two",
            0) in lines(s)
    assert labels(s, YOUNGER)[-1] == "Deal next hand"
    assert not [x for x in labels(s, YOUNGER) if x.startswith(("Plays", "Leads"))]
    # The next deal is a new game from 0-0, dealt by the other seat: no new cut.
    s = say(s, YOUNGER, "Deal next hand")
    assert (s.deal_number, s.dealer, s.game_scores()) == (2, 0, (0, 0))
    assert lines(s)[0] == (0, "Deal 2: game 2, 0 to 0", 0)


def test_a_game_won_with_the_loser_at_50_or_more_counts_one() -> None:
    s = lead_to_100(to_94(deal(AU_CENT, *SEED_000, game=(0, 50))))
    assert games(s)["finished"] == [{"winner": ELDER, "scores": [100, 50], "double": False,
                                     "deals": 2}]
    assert games(s)["won"] == [1, 0]
    assert (ELDER, "Reaches 100: wins game 1, 100 to 50", 0) in lines(s)


def test_the_partie_goes_to_the_first_to_three_games_a_double_counting_two() -> None:
    # Three deals of seed 000's cards by role: each elder wins his game, a double. The
    # deal alternates across games, so seat 0, seat 1, seat 0: two games to two, then
    # four to two.
    pack = stack(*SEED_000)
    s = engine.new_partie(seed=7, rules=AU_CENT, decks=[pack] * 3, first_dealer=1)
    winners = []
    for number in (1, 2, 3):
        s = lead_to_100(to_94(s))
        winners.append(s.elder)
        if number < 3:
            assert s.step is Step.DEAL_OVER and engine.view(s, 0)["result"] is None
            s = say(s, 0, "Deal next hand")
    assert winners == [0, 1, 0]
    assert s.step is Step.PARTIE_OVER
    v = engine.view(s, 1)
    assert v["games"]["won"] == [4, 2] and v["games"]["winner"] == 0
    assert [g["double"] for g in v["games"]["finished"]] == [True, True, True]
    assert (v["result"]["winner"], v["result"]["totals"], v["result"]["text"]) == \
        (0, [4, 2], "4 games to 2")
    assert (0, "Wins the partie: 4 games to 2", 0) in lines(s)
    assert v["deals_in_partie"] is None  # no six-deal limit
    assert "Deal next hand" not in labels(s, 0) + labels(s, 1)


def test_reaching_100_with_a_first_call_ends_the_deal_before_any_lesser_call() -> None:
    s = deal(AU_CENT, *SEED_000, game=(80, 40))
    s = good(exchange(s, "7D", "7H"), "Point of five")
    assert s.step is Step.ELDER_CALL  # 85
    s = good(s, "Quint to the ace")  # 100 at step III
    assert s.step is Step.DEAL_OVER
    assert games(s)["finished"] == [{"winner": ELDER, "scores": [100, 40], "double": True,
                                     "deals": 2}]
    assert engine.view(s, ELDER)["scores"]["deal"] == [20, 0]


# Elder: a point of five and a quint in hearts, tierces in spades and diamonds, no set.
# Younger: a point of six in clubs (better), a tierce, trios of aces, kings and queens.
ELDER_QUINT = "AH KH QH JH 10H 7S 8S 9S 7D 8D 9D JC"
YOUNGER_SIX = "AC KC QC 10C 9C 7C AS KS AD KD QS QD"
STOCK_QUINT = "8C 9H JS 10S JD 10D 8H 7H"


def quint_then_her_point(game: tuple[int, int]) -> State:
    """Elder's quint scores (step III) while younger's better point (step II) waits for
    the lead; then he leads; she calls her point."""
    s = exchange(deal(AU_CENT, ELDER_QUINT, YOUNGER_SIX, STOCK_QUINT, game=game), "JC", "QD")
    s = say(say(s, ELDER, "Point of five"), YOUNGER, "Not good")
    s = good(s, "Quint to the ace")
    return s


def test_younger_reckons_first_with_her_point_though_elder_passed_100_before_it() -> None:
    s = quint_then_her_point((90, 95))
    # 105 for elder as said, but younger's point reckons before his quint: the deal goes on.
    assert s.step is Step.ELDER_LESSER and scores(s) == (15, 0)
    s = say(say(s, ELDER, "Done"), ELDER, "Nothing")  # no set
    s = lead(s, "AH")
    assert s.step is Step.YOUNGER_CALL
    s = say(s, YOUNGER, "Point of six")  # 101 at step II: hers is the game
    assert s.step is Step.DEAL_OVER
    assert games(s)["finished"] == [{"winner": YOUNGER, "scores": [90, 101],
                                     "double": False, "deals": 2}]
    assert engine.view(s, ELDER)["scores"]["deal"] == [0, 6]
    # What elder scored after her 100 in the reckoning is taken off, in words.
    assert [(seat, text, points) for seat, text, points in lines(s) if points < 0] == [
        (ELDER, "15 for the quint to the ace not scored: the game was won before it", -15),
        (ELDER, "The point for the lead not scored: the game was won before it", -1)]
    assert (YOUNGER, "Reaches 100: wins game 1, 101 to 90", 0) in lines(s)


def test_elder_passed_100_first_once_younger_has_told_a_point_that_falls_short() -> None:
    s = quint_then_her_point((90, 90))
    s = lead(say(say(s, ELDER, "Done"), ELDER, "Nothing"), "AH")
    s = say(s, YOUNGER, "Point of six")  # 96: his quint's 105 now stands first
    assert s.step is Step.DEAL_OVER
    assert games(s)["finished"] == [{"winner": ELDER, "scores": [105, 96], "double": False,
                                     "deals": 2}]
    # Her sets were never called; his lead, after his 100, is taken off.
    assert [text for _, text, points in lines(s) if points < 0] == [
        "The point for the lead not scored: the game was won before it"]


def test_a_100_said_before_younger_sinks_her_call_is_settled_by_her_nothing() -> None:
    s = exchange(deal(AU_CENT, ELDER_QUINT, YOUNGER_SIX, STOCK_QUINT, game=(90, 95)),
                 "JC", "QD")
    s = say(s, ELDER, "Nothing")  # he sinks his point: hers to call or sink after the lead
    s = say(good(s, "Quint to the ace"), ELDER, "Done")
    s = lead(say(s, ELDER, "Nothing"), "AH")
    assert s.step is Step.YOUNGER_CALL  # his 105 waits on her point
    s = say(s, YOUNGER, "Nothing")  # no score, and his quint now stands first
    assert s.step is Step.DEAL_OVER
    assert games(s)["finished"] == [{"winner": ELDER, "scores": [105, 95], "double": False,
                                     "deals": 2}]
    assert [text for _, text, points in lines(s) if points < 0] == [
        "The point for the lead not scored: the game was won before it"]


def test_a_carte_blanche_that_makes_100_ends_the_deal_at_the_exchange() -> None:
    s = deal(AU_CENT, "KH QH JH KS QS JS KC QC JC KD QD JD",
             "AS 10S 9S 8S 7S 10C 9C 8C 7C 9D 8D 7D", "AH 10H 9H 8H 7H AC AD 10D",
             game=(30, 92))
    s = say(s, YOUNGER, "Carte blanche")
    assert s.step is Step.DEAL_OVER
    assert games(s)["finished"] == [{"winner": YOUNGER, "scores": [30, 102], "double": True,
                                     "deals": 2}]


def test_younger_may_stand_pat_under_au_cent_and_not_under_rubicon() -> None:
    cards = ("AH KH QH JH 10H AS AC AD 7S 9S 8C 7D", "KS JS 8S 9H 8H 7H KC JC 9C KD JD 8D",
             "9D QS 10S QC 10C 7C QD 10D")
    s = discard(deal(AU_CENT, *cards), ELDER, "7D 8C")
    assert labels(s, YOUNGER) == ["Discard up to six, or stand pat"]
    before = s.hands[YOUNGER]
    s = discard(s, YOUNGER, "")
    assert s.hands[YOUNGER] == before and s.took == (2, 0) and len(s.stock) == 6
    assert (YOUNGER, "Stands pat", 0) in lines(s)
    assert s.step is Step.ELDER_CALL
    # Elder still discards one to five; under Rubicon younger must discard one.
    s = deal(AU_CENT, *cards)
    with pytest.raises(IllegalActionError):
        discard(s, ELDER, "")
    s = discard(deal(Rules(), *cards), ELDER, "7D")
    with pytest.raises(IllegalActionError):
        discard(s, YOUNGER, "")


def test_younger_stands_pat_after_elders_carte_blanche() -> None:
    s = deal(AU_CENT, "AS 10S 9S 8S 7S AH 10H 9H 8H 7H AC 10C",
             "KS QS JS KH QH JH KC QC JC KD QD JD", "9C 8C 7C AD 10D 9D 8D 7D")
    s = say(s, ELDER, "Carte blanche, taking three")
    assert s.step is Step.YOUNGER_DISCARD
    assert labels(s, YOUNGER) == ["Discard up to five, or stand pat"]
    s = discard(s, YOUNGER, "")
    assert s.step is Step.ELDER_EXCHANGE  # his hand shown; now he exchanges, once
    s = discard(s, ELDER, "7S 8S 9S")
    assert s.step is Step.ELDER_CALL and s.took == (3, 0)
    assert len(s.hands[ELDER]) == len(s.hands[YOUNGER]) == 12 and len(s.stock) == 5


# ------------------------------------------------------------------ cards towards pique

# Elder: a point of five and a quint in spades (20), the two top hearts; younger holds
# nothing she calls. He leads his seven winners: 27, and the seventh trick's 10 makes 37.
ELDER_SEVEN = "AS KS QS JS 10S AH KH 9C 8C 9D 8D 7D"
YOUNGER_NONE = "9S 8S 7S QH JH 10H AC KC QC AD KD QD"
STOCK_SEVEN = "7C 9H 8H 7H JC 10C JD 10D"


def seven_winners(rules: Rules) -> State:
    s = exchange(deal(rules, ELDER_SEVEN, YOUNGER_NONE, STOCK_SEVEN), "7D", "QD")
    s = say(good(good(s, "Point of five"), "Quint to the ace"), ELDER, "Done")
    return say(s, ELDER, "Nothing")  # no set: hers after the lead


def test_the_cards_at_the_seventh_trick_make_a_pique() -> None:
    s = seven_winners(Rules(cards_towards_pique=True))
    s = lead(s, "AS")
    s = say(s, YOUNGER, "Nothing")  # she sinks her sets
    s = tricks(s, "9S KS 8S QS 7S JS QH 10S JH AH 10H")
    assert scores(s) == (26, 0)  # six leads
    s = tricks(s, "KH 9H")  # the seventh trick
    assert bonuses(s) == [(ELDER, "cards", 10), (ELDER, "pique", 30)]
    assert scores(s) == (27 + 10 + 30, 0)
    assert (ELDER, "Wins the cards with the seventh trick: 10", 10) in lines(s)
    # Under Rubicon Piquet as plain, the same cards make no pique: the 10 comes at VI.
    plain = seven_winners(Rules())
    plain = tricks(say(lead(plain, "AS"), YOUNGER, "Nothing"),
                   "9S KS 8S QS 7S JS QH 10S JH AH 10H KH 9H")
    assert bonuses(plain) == [] and scores(plain) == (27, 0)


def test_capot_under_cards_towards_pique_is_the_10_and_30_more_at_the_last_trick() -> None:
    s = engine.new_partie(seed=5, rules=Rules(cards_towards_pique=True), decks=[CAPOT],
                          first_dealer=1)
    s = play_deal(s, capot=True)
    # Seven leads and the 10 at the seventh trick: 17, no pique; capot 30 more at the end.
    assert [(b[1], b[2]) for b in bonuses(s)] == [("cards", 10), ("capot", 30)]
    parts = engine.view(s, 0)["scores"]["sheet_parts"][0][ELDER]
    assert (parts["cards"], parts["capot"]) == (10, 30)
    plain = play_deal(engine.new_partie(seed=5, decks=[CAPOT], first_dealer=1), capot=True)
    assert sheet(s) == sheet(plain) == [[53, 0]]  # 40 for the capot in both
    assert (ELDER, "Capot! 30 more for winning every trick", 30) in lines(s)


# ------------------------------------------------------------------ carte rouge

# Elder: a sixième in hearts (point six), tierces in diamonds and clubs: 28, every card
# in a combination. He throws the KS and draws the 7C.
ELDER_ROUGE = "AH KH QH JH 10H 9H 9D 8D 7D 9C 8C KS"
YOUNGER_PLAIN = "AS QS JS 10S 9S AC KC QC AD KD QD 8S"
STOCK_ROUGE = "7C 7S JC 10C JD 10D 8H 7H"


def rouge(rules: Rules, sink_a_tierce: bool = False) -> State:
    s = exchange(deal(rules, ELDER_ROUGE, YOUNGER_PLAIN, STOCK_ROUGE), "KS", "8S")
    s = say(say(s, ELDER, "Point of six"), YOUNGER, "Good")
    s = say(say(s, ELDER, "Sixième to the ace"), YOUNGER, "Good")
    s = say(s, ELDER, "Tierce to the nine")
    if not sink_a_tierce:
        s = say(s, ELDER, "Tierce to the nine")
    s = say(say(s, ELDER, "Done"), ELDER, "Nothing")  # no set: hers after the lead
    s = say(lead(s, "AH"), YOUNGER, "Nothing")
    return s


def test_carte_rouge_scores_20_and_counts_towards_the_repique() -> None:
    s = rouge(Rules(carte_rouge=True))
    # 28, then carte rouge 20 (after the sets): 48 with younger at nothing, a repique.
    assert bonuses(s) == [(ELDER, "carte_rouge", 20), (ELDER, "repique", 60)]
    assert scores(s) == (28 + 20 + 60 + 1, 0)
    assert (ELDER, "Carte rouge! 20 more: all twelve cards scored in combinations", 20) \
        in lines(s)
    assert engine.view(s, YOUNGER)["scores"]["parts"][ELDER]["carte_rouge"] == 20
    plain = rouge(Rules())
    assert bonuses(plain) == [] and scores(plain) == (29, 0)


def test_no_carte_rouge_when_a_card_is_in_no_combination_that_scored() -> None:
    s = rouge(Rules(carte_rouge=True), sink_a_tierce=True)  # 7-8-9 of clubs not called
    assert bonuses(s) == [] and scores(s) == (26, 0)


def test_younger_carte_rouge_reckons_after_the_sets_so_elders_trios_block_her_repique() \
        -> None:
    # Younger: a sixième in hearts and tierces in diamonds and clubs (28) beat elder's
    # point and quint; elder's trios of aces, kings and queens (step IV) are good. Her
    # carte rouge comes after the sets: 42 at step IV, but elder has scored there too.
    s = deal(Rules(carte_rouge=True), "AS KS QS JS 10S AC KC QC AD KD QD 8S",
             "AH KH QH JH 10H 9H 9D 8D 7D 9C 8C JC", "8H 7C 10C JD 10D 9S 7S 7H")
    s = exchange(s, "8S", "JC")
    s = say(say(s, ELDER, "Point of five"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Quint to the ace"), YOUNGER, "Not good")
    s = say(say(good(s, "Three aces"), ELDER, "Three kings"), ELDER, "Three queens")
    s = lead(say(s, ELDER, "Done"), "AS")
    s = say(say(s, YOUNGER, "Point of six"), YOUNGER, "Sixième to the ace")
    s = say(say(say(s, YOUNGER, "Tierce to the nine"), YOUNGER, "Tierce to the nine"),
            YOUNGER, "Done")
    assert bonuses(s) == [(YOUNGER, "carte_rouge", 20)]  # no repique
    assert scores(s) == (9 + 1, 28 + 20)


# ------------------------------------------------------------------ one more deal


def test_level_after_six_one_more_deal_still_level_a_draw() -> None:
    s = engine.new_partie(seed=5, rules=Rules(tie="one_more"), decks=[SIX_ALL] * 8,
                          first_dealer=1)
    for _ in range(6):
        s = say(play_deal(s), 0, "Deal next hand") if s.deal_number < 6 else play_deal(s)
    assert engine.view(s, 0)["scores"]["partie"] == [42, 42]
    assert (None, "Level at 42: one more deal", 0) in lines(s)
    assert s.step is Step.DEAL_OVER and s.deals_in_partie == 7
    s = play_deal(say(s, 1, "Deal next hand"))
    assert s.dealer == 1  # the seat whose turn it is: seat 1 deals the odd deals
    assert s.step is Step.PARTIE_OVER and s.result is not None
    assert (s.result.winner, s.result.totals, s.result.points) == (None, (49, 49), 0)
    assert engine.partie_result(s.sheet, Rules(tie="one_more")) == s.result
    with pytest.raises(ValueError, match=r"eight when level after six\), not 7"):
        engine.partie_result(s.sheet)  # under two more deals, seven deals is no partie
    with pytest.raises(ValueError, match=r"seven when level after six\), not 8"):
        engine.partie_result([*s.sheet, (0, 0)], Rules(tie="one_more"))


def test_level_after_six_the_seventh_deal_decides() -> None:
    s = engine.new_partie(seed=5, rules=Rules(tie="one_more"),
                          decks=[SIX_ALL] * 6 + [CAPOT], first_dealer=1)
    for _ in range(6):
        s = say(play_deal(s), 0, "Deal next hand") if s.deal_number < 6 else play_deal(s)
    s = play_deal(say(s, 1, "Deal next hand"), capot=True)
    assert s.step is Step.PARTIE_OVER and s.result is not None
    assert s.result.winner == 0 and len(s.sheet) == 7  # seat 0 is elder in deal 7


def test_every_combination_of_rules_starts_the_same_cut_and_deal() -> None:
    """The rules change the flow, never the cards: the same seed cuts and deals alike."""
    first = engine.new_partie(seed=11, first_dealer=0)
    for rules in EVERY_RULES:
        s = engine.new_partie(seed=11, rules=rules, first_dealer=0)
        assert s.hands == first.hands and s.stock == first.stock
