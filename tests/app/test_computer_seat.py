"""The computer seat at the table: it announces carte blanche out of turn as younger,
and as elder it leaves a person holding carte blanche the time to announce it."""

from __future__ import annotations

from pathlib import Path

from tablekit import SeatSocket, new_room, serve

import engine
from engine.cards import is_carte_blanche


def seed_where(holder: int, dealer: int) -> int:
    """A seed whose first deal, `dealer` dealing, gives `holder` carte blanche."""
    for seed in range(1, 100_000):
        state = engine.new_partie(seed=seed)
        winner = state.cut_winner
        assert winner is not None
        state = engine.apply(state, winner, {"type": "choose_dealer", "deal": winner == dealer})
        if is_carte_blanche(state.hands[holder]):
            return seed
    raise AssertionError("no such seed")


def deal_first(person: SeatSocket, dealer: int) -> None:
    """The person, if she won the cut, chooses `dealer` (the computer always deals)."""
    view = person.view
    if view["step"] == "choose_dealer" and view["to_move"] == 0:
        person.act({"type": "choose_dealer", "deal": dealer == 0})
    while person.view["step"] == "choose_dealer":
        person.expect("state")
    assert person.view["dealer"] == dealer


def test_as_younger_the_computer_announces_carte_blanche_during_the_persons_exchange(
    templates_dir: Path,
) -> None:
    seed = seed_where(holder=1, dealer=1)
    with serve(templates_dir, new_seed=lambda: seed) as client:
        made = new_room(client, "computer")
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        deal_first(person, dealer=1)
        while not person.view["bonuses"]:
            person.expect("state")
        view = person.view
        assert view["bonuses"] == [{"seat": 1, "kind": "carte_blanche", "points": 10}]
        assert (view["step"], view["to_move"]) == ("elder_exchange", 0)  # still my exchange
        person.act({"type": "discard", "cards": view["hand"][:5]})
        while not person.view["shown"]:
            person.expect("state")
        shown = person.view["shown"][0]
        assert (shown["seat"], shown["what"], len(shown["cards"])) == (1, "Carte blanche", 12)


def test_as_elder_the_computer_waits_so_a_person_holding_carte_blanche_can_announce_it(
    templates_dir: Path,
) -> None:
    seed = seed_where(holder=0, dealer=0)
    with serve(templates_dir, new_seed=lambda: seed, computer_exchange_delay=1.0) as client:
        made = new_room(client, "computer")
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        deal_first(person, dealer=0)
        view = person.view
        assert (view["role"], view["step"], view["to_move"]) == ("younger", "elder_exchange", 1)
        offer = [a for a in view["legal"] if a["type"] == "carte_blanche"]
        assert offer == [{"type": "carte_blanche", "announce": True, "label": "Carte blanche"}]
        person.act({"type": "carte_blanche", "announce": True})
        frame = person.expect("state")
        assert frame["view"]["bonuses"] == [{"seat": 0, "kind": "carte_blanche", "points": 10}]
        assert frame["view"]["step"] == "elder_exchange"  # announced before elder exchanged
        while person.view["step"] == "elder_exchange":
            person.expect("state")
        assert person.view["shown"][0]["seat"] == 0  # proved once elder has exchanged
