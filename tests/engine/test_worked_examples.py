"""The sources' worked examples (shared/seeds/), scored as RULES.md says."""

from __future__ import annotations

import engine
from engine import Step
from tests.engine.kit import ELDER, YOUNGER, deal, discard, hand, labels, say
from tests.engine.moves import bonuses, exchange, good, lead, said, scores


def test_seed_000_repique_of_94_point_5_quint_15_quatorze_of_aces_14_all_good() -> None:
    s = deal("AH KH QH JH 10H AS AC AD 7S 9S 8C 7D",
             "KS JS 8S 9H 8H 7H KC JC 9C KD JD 8D",
             "9D QS 10S QC 10C 7C QD 10D")
    s = exchange(s, "7D", "7H")
    s = good(s, "Point of five")
    s = say(good(s, "Quint to the ace"), ELDER, "Done")
    s = say(good(s, "Four aces"), ELDER, "Done")
    assert [said(s, c)[-1] for c in ("point", "sequence", "set")] == ["Younger: Good"] * 3
    assert s.step is Step.LEAD  # 34 before younger has scored: repique
    assert bonuses(s) == [(ELDER, "repique", 60)]
    assert scores(s) == (94, 0)


def test_seed_001_repique_of_92() -> None:
    """Britannica's elder scores 7 for point, 15, 4 and 3 for sequences and 3 for a trio:
    32 + 60 = 92. No twelve cards hold all of that (a point of seven and a quint, quart and
    tierce leave only two suits, so no trio), so this hand makes the same 32 as near as
    twelve cards can: point 7, sixième 16 and tierce 3, trios of aces and kings."""
    s = deal("AH KH QH JH 10H 9H 7H AS KS QS AC KC",
             "AD QD 10D 9D 8D JC 9C 7C JS 10S 8S 8H",
             "KD 9S 7S QC 10C 8C JD 7D")
    s = exchange(s, "KC", "8H")
    # Each first call is answered "Good"; the lesser ones follow it unanswered, until
    # "Done"; the repique is reckoned when his declarations are over.
    for words, points, first in (("Point of seven", 7, True), ("Sixième to the ace", 16, True),
                                 ("Tierce to the ace", 3, False), ("Done", 0, False),
                                 ("Three aces", 3, True), ("Three kings", 3, False),
                                 ("Done", 60, False)):
        before = scores(s)[ELDER]
        s = good(s, words) if first else say(s, ELDER, words)
        assert scores(s)[ELDER] - before == points
    assert bonuses(s) == [(ELDER, "repique", 60)]
    assert scores(s) == (92, 0)


def test_rubicon_results_319_119_104_286() -> None:
    for totals, points, rubiconed in (((120, 99), 319, True), ((120, 101), 119, False),
                                      ((105, 101), 104, False), ((97, 89), 286, True)):
        result = engine.rubicon(totals)
        assert (result.winner, result.points, result.rubiconed) == (0, points, rubiconed)


def test_seed_004_deal_24_to_14_after_declaring() -> None:
    # Elder: 7-8-9-J-K of spades, 7-9-10-J-A of hearts, AD, AC.
    # Younger: 7-8-9-10-J-Q of diamonds, 8-Q-K of hearts, 8-J of clubs, QS.
    s = deal("7S 8S 9S JS KS 7H 9H 10H JH AH AD AC",
             "7D 8D 9D 10D JD QD 8H QH KH 8C JC QS",
             "10S AS 7C KC 10C QC KD 9C")
    # Elder trades in 7-8-9-J of spades for 10-A of spades and 7-K of clubs (he takes four,
    # so sees the fifth); younger trades in 8-J of clubs and 8 of hearts for 10-Q of clubs
    # and the king of diamonds.
    s = discard(s, ELDER, "7S 8S 9S JS")
    assert engine.view(s, ELDER)["seen_stock"] == ["10C"]
    s = discard(s, YOUNGER, "8C JC 8H")
    assert hand(s, ELDER) == "AS KS 10S AH JH 10H 9H 7H AC KC 7C AD"
    assert hand(s, YOUNGER) == "QS KH QH QC 10C KD QD JD 10D 9D 8D 7D"
    # "Point of 5." "No good." / "Run of 3." "7!" / "Quad aces." "Obv good."
    s = say(say(s, ELDER, "Point of five"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Tierce to the jack"), YOUNGER, "Not good")
    s = say(say(say(s, ELDER, "Four aces"), YOUNGER, "Good"), ELDER, "Done")
    assert said(s, "set") == ["Elder: Four aces", "Younger: Good"]  # her four queens lose
    assert scores(s) == (14, 0)
    s = lead(s, "AH")
    assert labels(s, YOUNGER)[:2] == ["Point of seven", "Point of six"]
    s = say(say(s, YOUNGER, "Point of seven"), YOUNGER, "Septième to the king")
    s = say(s, YOUNGER, "Done")
    assert s.step is Step.FOLLOW
    declared = [(x["seat"], x["points"]) for x in engine.view(s, ELDER)["log"]
                if x["kind"] in ("call", "score") and x["points"]]
    assert declared == [(ELDER, 14), (YOUNGER, 7), (YOUNGER, 17)]  # 24 to 14
    assert scores(s) == (14 + 1, 24)  # and elder's lead point
    assert bonuses(s) == []
