"""The view (docs/engine-api.md; RULES.md §1-4 on who may see what): everything one seat may
see and nothing else, JSON as it is, with the legal actions in a player's words."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import engine
from engine import DiscardRule, State, Step
from tests.engine.kit import ELDER, YOUNGER, deal, discard, random_action, say
from tests.engine.moves import CARD_STRINGS, elder_calls_nothing, exchange, lead, seen, tricks


def scripted_states() -> Iterator[State]:
    """Every state of a few stacked deals that cover the phases: carte blanche of either
    seat, fewer than five taken, leftovers turned up, calls, shows, tricks, the deal's end."""
    # Elder's carte blanche; younger discards first and leaves two, turned up.
    s = deal("AS 10S 9S 8S 7S AH 10H 9H 8H 7H AC 10C",
             "KS QS JS KH QH JH KC QC JC KD QD JD", "9C 8C 7C AD 10D 9D 8D 7D")
    for step in (lambda x: say(x, ELDER, "Carte blanche, taking three"),
                 lambda x: discard(x, YOUNGER, "KS QS", expose=True),
                 lambda x: discard(x, ELDER, "9S 8S 7S"),
                 lambda x: say(x, ELDER, "Point of five"),
                 lambda x: say(x, YOUNGER, "Equal"),
                 lambda x: say(x, YOUNGER, "Not good"),
                 lambda x: say(x, ELDER, "Quart to the ten"),
                 lambda x: say(x, YOUNGER, "Not good"),
                 lambda x: say(x, ELDER, "Three aces"),
                 lambda x: say(x, YOUNGER, "Not good"),
                 lambda x: lead(x, "7H"),
                 lambda x: say(x, YOUNGER, "Point of five"),
                 lambda x: say(x, YOUNGER, "Quint to the ace"),
                 lambda x: say(x, YOUNGER, "Done"),
                 lambda x: say(x, YOUNGER, "Four jacks"),
                 lambda x: say(x, YOUNGER, "Done"),
                 lambda x: engine.apply(x, ELDER, {"type": "see", "combo": 0}),
                 lambda x: tricks(x, "JH")):
        yield s
        s = step(s)
    yield from played_out(s)
    # Younger's carte blanche; elder takes two and sees three.
    s = deal("KH QH JH KS QS JS KC QC JC KD QD JD",
             "AS 10S 9S 8S 7S 10C 9C 8C 7C 9D 8D 7D", "AH 10H 9H 8H 7H AC AD 10D")
    yield s
    s = say(s, YOUNGER, "Carte blanche")
    yield s
    s = discard(s, ELDER, "KD QD")
    yield s
    s = discard(s, YOUNGER, "7D")
    yield s
    yield from played_out(elder_calls_nothing(s))


def played_out(s: State) -> Iterator[State]:
    rng = random.Random(0)
    while s.step is not Step.DEAL_OVER:
        yield s
        seat = s.to_move
        assert seat is not None
        s = engine.apply(s, seat, random_action(s, seat, rng))
    yield s


def random_states(parties: int = 3) -> Iterator[State]:
    for seed in range(parties):
        rng = random.Random(seed)
        s = engine.new_partie(seed=seed)
        while s.step is not Step.PARTIE_OVER:
            yield s
            seat = s.to_move if s.to_move is not None else rng.randrange(2)
            if not engine.legal(s, seat):
                seat = 1 - seat
            s = engine.apply(s, seat, random_action(s, seat, rng))
        yield s


def all_states() -> Iterator[State]:
    yield from scripted_states()
    yield from random_states()


def hidden_from(s: State, seat: int) -> set[str]:
    """What the rules keep from this seat: the other's hand and discards, the stock, except
    what was laid face up, played, turned up, or (elder) seen as the rest of his five."""
    other = 1 - seat
    secret = set(s.hands[other]) | set(s.discards[other]) | set(s.stock)
    public = {c for x in s.shown for c in x.cards} | set(s.exposed)
    public |= {c for c, _ in s.trick} | {c for t in s.tricks for c, _ in t.cards}
    if seat == s.elder:
        public |= set(s.seen_stock)
    return {str(c) for c in secret - public}


def test_every_view_is_json_as_it_is() -> None:
    for s in all_states():
        for seat in (0, 1):
            v = engine.view(s, seat)
            assert json.loads(json.dumps(v)) == v  # only JSON types: no tuples, no objects


def this_deal(v: dict[str, Any]) -> dict[str, Any]:
    """The view less what is no secret now: the log of earlier deals, the cut before the
    first deal."""
    starts = [i for i, line in enumerate(v["log"]) if line["kind"] == "deal"]
    rest = {k: x for k, x in v.items() if k != "cut"}
    return {**rest, "log": v["log"][starts[-1]:] if starts else v["log"]}


def test_a_view_holds_nothing_of_the_opponents_hand_discards_or_unseen_stock() -> None:
    for s in all_states():
        for seat in (0, 1):
            leak = seen(this_deal(engine.view(s, seat))) & hidden_from(s, seat)
            assert not leak, (s.step, seat, leak)


def test_a_view_gives_its_own_hand_and_discards_and_counts_of_the_rest() -> None:
    for s in scripted_states():
        if s.dealer is None:
            continue
        for seat in (0, 1):
            v = engine.view(s, seat)
            assert v["hand"] == [str(c) for c in sorted(s.hands[seat])]
            assert v["discards"] == [str(c) for c in sorted(s.discards[seat])]
            assert v["opponent_hand_count"] == len(s.hands[1 - seat])
            assert v["stock_count"] == len(s.stock)
            assert (v["to_move"], v["step"], v["dealer"], v["elder"]) == \
                (s.to_move, s.step.word, s.dealer, s.elder)


def test_legal_actions_are_in_a_players_words_and_accepted_as_sent() -> None:
    words: set[str] = set()
    for s in scripted_states():
        for seat in (0, 1):
            entries = engine.view(s, seat)["legal"]
            for entry in entries:
                words.add(entry["label"])
                if entry["type"] != "discard":
                    engine.apply(s, seat, entry)  # the entry itself, label and all
            offered = [label for action, label in engine.legal(s, seat)
                       if not isinstance(action, DiscardRule)]
            assert [e["label"] for e in entries if e["type"] != "discard"] == offered
    assert {"Carte blanche, taking three", "Point of five", "Quart to the ten", "Good",
            "Not good", "Equal", "Quint to the ace", "Four jacks", "Done", "Nothing",
            "Jack of Hearts", "See the point of five, making 51", "See the quint",
            "Deal next hand"} <= words


def test_the_log_is_public_the_same_for_both_seats_in_the_words_said() -> None:
    texts: set[str] = set()
    for s in scripted_states():
        assert engine.view(s, ELDER)["log"] == engine.view(s, YOUNGER)["log"]
        texts |= {x["text"] for x in engine.view(s, ELDER)["log"]}
    # Younger beat the point at its second stage and the quart at its first: she tells
    # her point to the second stage, her quint by its length.
    assert {"Carte blanche, taking three", "Point of five", "Equal", "Making 45", "Not good",
            "A quart", "Three aces", "Point of five, making 51", "A quint", "Four jacks",
            "Carte blanche"} <= texts
    assert "Quint to the ace" not in texts


def test_a_state_keeps_only_this_deals_log_which_is_what_the_view_shows() -> None:
    """Earlier deals' lines are on no view, so a State does not keep them (memory)."""
    deals_seen = set()
    for s in random_states(parties=2):
        v = engine.view(s, 0)
        assert v["log"] == engine.deal_log(s) and len(s.log) == len(v["log"])
        if s.deal_number and s.step is not Step.CHOOSE_DEALER:
            # A deal's log opens with its "Deal n of m" line; nothing before it is kept.
            assert [line.kind for line in s.log].count("deal") == 1, s.log[:3]
            assert s.log[0].text.startswith(f"Deal {s.deal_number} of ")
            deals_seen.add(s.deal_number)
    assert {1, 2, 6} <= deals_seen


def test_every_card_a_view_writes_has_its_name_in_card_names() -> None:
    """A view writes cards by code; CARD_NAMES (sent once, with the page) names all 32."""
    assert len(engine.CARD_NAMES) == 32
    assert engine.CARD_NAMES["QH"] == "Queen of Hearts"
    assert engine.CARD_NAMES["10S"] == "Ten of Spades"
    for text, name in engine.CARD_NAMES.items():
        assert engine.Card.parse(text).name == name and str(engine.Card.parse(text)) == text
    for s in scripted_states():
        for seat in (0, 1):
            v = engine.view(s, seat)
            assert "card_names" not in v
            strings = {c for c in seen({k: v[k] for k in v if k != "log"}) if c in CARD_STRINGS}
            assert strings <= set(engine.CARD_NAMES)


def test_a_seat_sees_the_rest_of_its_five_and_only_elder_does() -> None:
    s = deal("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
             "AH KH AC KC QC JC 10C 9C 8C 7C AD KD", "7D 8D 8S 7S QD JD 10D 9D")
    s = exchange(s, "7H", "7C")
    assert engine.view(s, ELDER)["seen_stock"] == ["8D", "8S", "7S", "QD"]
    assert engine.view(s, YOUNGER)["seen_stock"] == []


# A seat's own choices must not show through the other seat's view: the table may not
# answer or call for a seat in a way that tells the opponent what that seat holds.

def test_elder_cannot_tell_from_his_view_whether_younger_could_have_beaten_his_call() -> None:
    elder, stock_top = "AS KS QS JS 10S 7H 8H 9H 7C 8C 7D 8D", "JH 10H 9C 10C JC"
    could = deal(elder, "AD KD QD JD 10D 9D AH KH QH AC KC QC", stock_top + " 9S 8S 7S")
    could_not = deal(elder, "9S 8S 7S AH KH QH AC KC QC AD KD QD", stock_top + " JD 10D 9D")
    views = []
    for s in (could, could_not):
        s = exchange(s, "7H 8H 9H 7C 8C", "AH")
        views.append(engine.view(say(s, ELDER, "Point of five"), ELDER))
    assert views[0] == views[1]


def test_younger_cannot_tell_from_her_view_whether_elder_holds_what_he_may_sink() -> None:
    younger = "KS JS 9S AH 10H 8H KC QC 10C AD KD QD"
    tierce = deal("AS QS 10S 8S 7S KH QH JH AC 9C 7C 9D", younger, "8D 7D JD 10D 8C 9H JC 7H")
    no_run = deal("AS QS 10S 8S 7S KH QH 9H AC JC 7C 9D", younger, "8D 7D JD 10D 8C JH 9C 7H")
    views = []
    for s in (tierce, no_run):
        s = exchange(s, "9D", "10C")
        views.append(engine.view(say(s, ELDER, "Point of five"), YOUNGER))
    assert views[0] == views[1]


def test_a_carte_blanche_not_announced_leaves_no_trace_for_the_opponent() -> None:
    s = deal("KH QH JH KS QS JS KC QC JC KD QD JD",
             "AS 10S 9S 8S 7S 10C 9C 8C 7C 9D 8D 7D", "AH 10H 9H 8H 7H AC AD 10D")
    # She declines by not announcing it before elder has exchanged.
    declined = discard(s, ELDER, "KD QD JD")
    for state in (s, declined, discard(declined, YOUNGER, "7D")):
        assert not any("carte blanche" in line["text"].lower()
                       for line in engine.view(state, ELDER)["log"])


def test_the_opponent_does_not_see_that_a_carte_blanche_is_being_decided() -> None:
    elder_blank = deal("AS 10S 9S 8S 7S AH 10H 9H 8H 7H AC 10C",
                       "KS QS JS KH QH JH KC QC JC KD QD JD", "9C 8C 7C AD 10D 9D 8D 7D")
    ordinary = deal("AS 10S 9S 8S 7S AH 10H 9H 8H 7H AC JC",
                    "KS QS JS KH QH JH KC QC 10C KD QD JD", "9C 8C 7C AD 10D 9D 8D 7D")
    deciding, not_deciding = (engine.view(s, YOUNGER) for s in (elder_blank, ordinary))
    # Her own hand differs by one card (JC / 10C); nothing else in her view may.
    assert deciding["hand"] != not_deciding["hand"]
    assert {**deciding, "hand": None} == {**not_deciding, "hand": None}


# --- a watcher's view: public information only ------------------------------------------


def hidden_from_everyone(s: State) -> set[str]:
    """Both hands and discards and the stock, but what was laid face up or played."""
    secret = set(s.hands[0]) | set(s.hands[1]) | set(s.discards[0]) | set(s.discards[1])
    secret |= set(s.stock)
    public = {c for x in s.shown for c in x.cards} | set(s.exposed)
    public |= {c for c, _ in s.trick} | {c for t in s.tricks for c, _ in t.cards}
    return {str(c) for c in secret - public}


def test_a_watchers_view_holds_no_hand_discard_or_stock() -> None:
    for s in all_states():
        v = engine.public_view(s)
        assert json.loads(json.dumps(v)) == v
        leak = seen(this_deal(v)) & hidden_from_everyone(s)
        assert not leak, (s.step, leak)
        assert v["hand"] == v["discards"] == v["seen_stock"] == v["legal"] == []
        assert v["seat"] is None and v["hand_counts"] == [len(s.hands[0]), len(s.hands[1])]


def test_a_watcher_sees_what_both_seats_see_alike() -> None:
    """Every field both seats' views share is the watcher's too (the combinations'
    words as the other seat heard them, unless shown)."""
    for s in all_states():
        w = engine.public_view(s)
        views = [engine.view(s, seat) for seat in (0, 1)]
        for key in w:
            if key in ("combos", "seat", "role", "hand", "discards", "seen_stock",
                       "opponent_hand_count", "hand_counts", "legal", "seen"):
                continue
            assert w[key] == views[0][key] == views[1][key], key
        for combo in w["combos"]:
            heard_by = views[1 - combo["seat"]]["combos"][combo["id"]]
            assert combo == heard_by


def test_two_deals_differing_only_in_hidden_cards_look_alike_to_a_watcher() -> None:
    """The same public play from two different hands gives identical watcher views."""
    a = deal("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
             "AH KH AC KC QC JC 10C 9C 8C 7C AD KD", "7D 8D 8S 7S QD JD 10D 9D")
    b = deal("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7D",
             "AH KH AC KC QC JC 10C 9C 8C 7C AD KD", "7H 8D 8S 7S QD JD 10D 9D")
    assert engine.public_view(a) == engine.public_view(b)
    assert engine.view(a, ELDER) != engine.view(b, ELDER)


def test_forgetting_what_views_worked_out_changes_no_view() -> None:
    """A server drops the views' working on a table left alone (State.forget_views): every
    view, public view and log after that is the one it would have been, at every step,
    including when the working is dropped at each step and when it is kept."""
    kept = list(all_states())
    for s in kept:
        views = [engine.view(s, seat) for seat in (0, 1)] + [engine.public_view(s)]
        s.forget_views()
        assert not s.view_memo and not s.carried
        again = [engine.view(s, seat) for seat in (0, 1)] + [engine.public_view(s)]
        assert again == views
        # Worked out afresh from a state whose working was dropped, then kept: the same.
        assert [engine.view(s, seat) for seat in (0, 1)] == views[:2]
