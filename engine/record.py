"""The record of a partie as ONE seat saw it (issue 26; docs/record.md).

A record holds what that seat saw and nothing it did not: its hands, its own discards
and draws, everything said, shown and played, the scores. A watcher's record (seat None)
holds only what the whole table saw. It is plain JSON:

    {"format": "piquet-record", "version": 1, "seat": 0 | 1 | null,
     "names": [name0, name1], "meta": {...},
     "rules": <the rules of the partie, engine.Rules.to_json()>,
     "start": <the seat's view before the first action, its log included>,
     "deals": [{"number": n, "steps": [
         {"actor": 0 | 1, "action": <as this seat knows it>,
          "log": [<the public log lines the step added>],
          "view": <the seat's view after the step, without its log>}, ...]}, ...],
     "result": <the view's result once the partie is over, else null>}

The action is whole for the seat's own actions; the other seat's only as the table told
it: a discard by its count (`{"type": "discard", "count": 3}`), a call by what was said
of it then (`{"type": "call", "category": "point", "told": {"length": 5}}`), everything
else (answers, passes, cards played, carte blanche, asking to see) whole, being public.
A watcher's record gives both seats' actions the second way.

A step belongs to the deal its view is in: the action that deals a hand (choosing the
dealer, "Deal next hand") opens its deal. Each step carries the view after it, so a page
that renders views can replay the record step by step without the rules.

`RecordBuilder` is fed the partie as it goes (states, never the seed or the packs:
a record does not depend on how the cards were dealt); `record_of` replays a list of
actions through it. `dumps` / `loads` write and read the JSON, `loads` checking it
against `RECORD_SCHEMA` (JSON Schema, draft 2020-12) and the rules a schema cannot say
(every view is the record's seat's and under the record's rules; the other seat's
discards carry no cards), and raising `RecordError` quoting what is wrong. `rules_of`
reads the rules a record was played under (a record made before records or views
carried them was Rubicon Piquet's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.actions import Action, Answer, Call, Discard, parse_action
from engine.cards import sort_hand
from engine.rules import apply
from engine.state import State, Step
from engine.variants import GAMES, RUBICON, TIES, Rules
from engine.view import deal_log, public_view, view

FORMAT = "piquet-record"
VERSION = 1

_CARD = "^(A|K|Q|J|10|9|8|7)[SHCD]$"


class RecordError(ValueError):
    """A record that is not one: its message quotes what is wrong and where."""


# --------------------------------------------------------------------------- building


class RecordBuilder:
    """A record made as the partie goes: `start(state)` once, then `add(seat, action,
    state_after)` for every action applied, in order; `record()` at any time."""

    def __init__(self, seat: int | None, names: Sequence[str],
                 meta: Mapping[str, Any] | None = None) -> None:
        if seat not in (0, 1, None) or isinstance(seat, bool):
            raise ValueError(f"a record is for seat 0, 1 or None (a watcher), not {seat!r}")
        if len(names) != 2 or not all(isinstance(n, str) for n in names):
            raise ValueError(f"a record needs the two seats' names, not {names!r}")
        self.seat = seat
        self.names = list(names)
        self.meta = dict(meta or {})
        self._start: dict[str, Any] | None = None
        self._rules: Rules = RUBICON
        self._deals: list[dict[str, Any]] = []
        self._last: State | None = None

    def _view(self, state: State, log: bool) -> dict[str, Any]:
        if self.seat is None:
            return public_view(state, log=log)
        return view(state, self.seat, log=log)

    def start(self, state: State) -> None:
        """The partie as it stands before the first action recorded (usually the cut)."""
        if self._last is not None:
            raise ValueError("this record has already started")
        self._start = self._view(state, log=True)
        self._rules = state.rules
        self._last = state

    def add(self, seat: int, action: Action | Mapping[str, Any], state: State) -> None:
        """`seat` took `action` and the partie is now `state` (apply's result)."""
        before = self._last
        if before is None:
            raise ValueError("start(state) comes before the first add")
        a = parse_action(action)
        old = deal_log(before)
        new = deal_log(state)
        added = new[len(old):] if new[:len(old)] == old else new
        seen = self._view(state, log=False)
        step = {"actor": seat, "action": self._told(seat, a, before, seen),
                "log": added, "view": seen}
        if not self._deals or self._deals[-1]["number"] != state.deal_number or (
                self._deals[-1].get("void")):
            self._deals.append({"number": state.deal_number, "steps": []})
        self._deals[-1]["steps"].append(step)
        self._last = state

    def deal_again(self, state: State) -> None:
        """The table dealt the deal under way again (a server's store lost a move both
        seats had seen): the deal so far is marked void, and `state`, the new deal, starts
        a deal of the same number."""
        if self._last is None:
            raise ValueError("start(state) comes before deal_again")
        if self._deals and self._deals[-1]["number"] == state.deal_number:
            self._deals[-1]["void"] = True
        old = self._view(state, log=False)
        self._deals.append({"number": state.deal_number, "steps": [], "again": old})
        self._last = state

    def end(self, state: State) -> None:
        """The table ended the partie (abandoned by a seat that left: engine.abandon):
        no seat's step; the record's result is `state`'s."""
        if self._last is None:
            raise ValueError("start(state) comes before end")
        self._last = state

    def _told(self, seat: int, a: Action, before: State, after: dict[str, Any]) -> dict[str, Any]:
        """The action as this record's seat knows it (module docstring)."""
        if seat == self.seat:
            if isinstance(a, Call):  # its cards as apply reads them, high first
                return Call(a.category, sort_hand(a.cards)).to_json()
            return a.to_json()
        if isinstance(a, Discard):
            return {"type": "discard", "count": len(a.cards)}
        if isinstance(a, Answer):  # which equal call she named is hers until shown
            return {"type": "answer", "reply": a.reply}
        if isinstance(a, Call):
            category = a.category.word
            d = next(x for x in after["declarations"] if x["category"] == category)
            if before.step is Step.ELDER_CALL:
                told = d["elder_call"]
            elif before.step is Step.YOUNGER_CALL:
                told = d["younger_call"]
            else:  # a lesser call: told by its length (a set whole)
                told = d["lesser"][-1]
            return {"type": "call", "category": category, "told": dict(told)}
        return a.to_json()  # answers, passes, cards played, seeing: said to the table

    def record(self) -> dict[str, Any]:
        """The record so far (a copy: changing it changes nothing here)."""
        if self._start is None or self._last is None:
            raise ValueError("start(state) comes before record()")
        end = self._view(self._last, log=False)
        record = {"format": FORMAT, "version": VERSION, "seat": self.seat,
                  "names": self.names, "meta": self.meta, "rules": self._rules.to_json(),
                  "start": self._start, "deals": self._deals, "result": end["result"]}
        copied: dict[str, Any] = json.loads(json.dumps(record))
        return copied


def record_of(seat: int | None, names: Sequence[str], start: State,
              actions: Iterable[tuple[int, Action | Mapping[str, Any]]],
              meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record of a partie rebuilt from its start and its actions, (seat, action) in
    the order applied (what the server keeps): each is applied with `engine.apply`."""
    builder = RecordBuilder(seat, names, meta)
    builder.start(start)
    state = start
    for who, action in actions:
        state = apply(state, who, dict(action) if isinstance(action, Mapping) else action)
        builder.add(who, action, state)
    return builder.record()


def record_from_states(seat: int | None, names: Sequence[str], start: State,
                       steps: Iterable[tuple[int, Action | Mapping[str, Any], State]],
                       meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record of a partie from its start and (seat, action, state after) steps."""
    builder = RecordBuilder(seat, names, meta)
    builder.start(start)
    for who, action, state in steps:
        builder.add(who, action, state)
    return builder.record()


# --------------------------------------------------------------------------- the format

_CARDS = {"type": "array", "items": {"$ref": "#/$defs/card"}, "maxItems": 12}


def _action(kind: str, required: dict[str, Any], optional: dict[str, Any] | None = None,
            ) -> dict[str, Any]:
    return {"type": "object", "required": ["type", *required],
            "properties": {"type": {"const": kind}, **required, **(optional or {})},
            "additionalProperties": False}


RECORD_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "piquet-record.schema.json",
    "title": "The record of a Rubicon Piquet partie as one seat saw it",
    "description": "docs/record.md. Views are engine.view's (docs/engine-api.md).",
    "type": "object",
    "required": ["format", "version", "seat", "names", "meta", "start", "deals", "result"],
    "properties": {
        "format": {"const": FORMAT},
        "version": {"const": VERSION},
        "seat": {"enum": [0, 1, None]},
        "names": {"type": "array", "items": {"type": "string"}, "minItems": 2,
                  "maxItems": 2},
        "meta": {"type": "object"},
        # The rules the partie was played under (engine.Rules.to_json; RULES.md §8). A
        # record without them (made before records carried them) is Rubicon Piquet's.
        "rules": {"$ref": "#/$defs/rules"},
        "start": {"$ref": "#/$defs/view"},
        "deals": {"type": "array", "items": {"$ref": "#/$defs/deal"}},
        "result": {"type": ["object", "null"]},
        # A server's download adds these to a seat's record (docs/record.md): the review
        # of each finished deal (engine.review.review_deal), and once the partie is over,
        # the summary over its deals (engine.review.review_record's "summary").
        "reviews": {"type": "array", "items": {"type": "object"}},
        "summary": {"type": ["object", "null"]},
    },
    "additionalProperties": False,
    "$defs": {
        "card": {"type": "string", "pattern": _CARD},
        "rules": {
            "type": "object",
            "properties": {"game": {"enum": list(GAMES)},
                           "cards_towards_pique": {"type": "boolean"},
                           "carte_rouge": {"type": "boolean"},
                           "tie": {"enum": list(TIES)}},
            "additionalProperties": False,
        },
        "deal": {
            "type": "object", "required": ["number", "steps"],
            "properties": {"number": {"type": "integer", "minimum": 0},
                           "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}},
                           # A deal the table dealt again (a server's store lost a move):
                           # `void` on the deal abandoned; `again` on the one dealt anew,
                           # its first view.
                           "void": {"type": "boolean"},
                           "again": {"$ref": "#/$defs/view"}},
            "additionalProperties": False,
        },
        "step": {
            "type": "object", "required": ["actor", "action", "log", "view"],
            "properties": {"actor": {"enum": [0, 1]},
                           "action": {"$ref": "#/$defs/action"},
                           "log": {"type": "array", "items": {"$ref": "#/$defs/line"}},
                           "view": {"$ref": "#/$defs/view"}},
            "additionalProperties": False,
        },
        "line": {
            "type": "object", "required": ["seat", "role", "kind", "text", "points"],
            "properties": {"seat": {"enum": [0, 1, None]},
                           "role": {"enum": ["elder", "younger", None]},
                           "kind": {"type": "string"}, "text": {"type": "string"},
                           "points": {"type": "integer"}},
        },
        "view": {
            "description": "engine.view(state, seat) (engine.public_view for a watcher)",
            "type": "object",
            "required": ["seat", "role", "phase", "step", "to_move", "deal_number", "hand",
                         "discards", "seen_stock", "stock_count", "trick", "tricks",
                         "declarations", "combos", "shown", "scores", "seen", "legal"],
            "properties": {
                "seat": {"enum": [0, 1, None]},
                "phase": {"enum": ["cut", "exchange", "declare", "play", "deal_over",
                                   "partie_over"]},
                "step": {"type": "string"},
                "deal_number": {"type": "integer", "minimum": 0},
                "hand": _CARDS, "discards": _CARDS, "seen_stock": _CARDS,
                "scores": {"type": "object", "required": ["deal", "partie", "sheet"]},
                "legal": {"type": "array", "items": {"type": "object",
                                                     "required": ["type", "label"]}},
            },
        },
        "told": {
            "description": "a call as far as it was told: engine.Combo.told",
            "type": "object",
            "properties": {"length": {"type": "integer"}, "pips": {"type": "integer"},
                           "top": {"type": "string"}, "rank": {"type": "string"},
                           "count": {"type": "integer"}},
            "additionalProperties": False,
        },
        "action": {
            "description": "the seat's own actions whole (docs/engine-api.md); the other "
                           "seat's as told: a discard by its count, a call by `told`",
            "oneOf": [
                _action("choose_dealer", {"deal": {"type": "boolean"}}),
                _action("carte_blanche", {"announce": {"type": "boolean"}},
                        {"take": {"type": "integer", "minimum": 1, "maximum": 5}}),
                _action("discard", {"cards": _CARDS}, {"expose": {"type": "boolean"}}),
                _action("discard", {"count": {"type": "integer", "minimum": 1,
                                              "maximum": 8}}),
                _action("call", {"category": {"enum": ["point", "sequence", "set"]},
                                 "cards": _CARDS}),
                _action("call", {"category": {"enum": ["point", "sequence", "set"]},
                                 "told": {"$ref": "#/$defs/told"}}),
                _action("pass", {}),
                # Equal at a call's last stage names the tied call (its cards): in the
                # answering seat's own record only.
                _action("answer", {"reply": {"enum": ["good", "not_good", "equal"]}},
                        {"cards": _CARDS}),
                _action("play", {"card": {"$ref": "#/$defs/card"}}),
                _action("see", {"combo": {"type": "integer", "minimum": 0}}),
                _action("next_deal", {}),
            ],
        },
    },
}


def dumps(record: Mapping[str, Any]) -> str:
    """The record as JSON text (compact: a partie is a few hundred views)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> dict[str, Any]:
    """A record read from JSON text and checked (`check`); RecordError if it is none."""
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"a record must be JSON: {exc}") from None
    check(record)
    assert isinstance(record, dict)
    return record


def rules_of(record: Mapping[str, Any]) -> Rules:
    """The rules a record's partie was played under: its `rules`; for a record made
    before records carried them, its views' (once views told them), else Rubicon
    Piquet's. RecordError for rules that make no sense (a tie rule under au cent)."""
    told = record.get("rules")
    if told is None:
        start = record.get("start")
        told = start.get("rules") if isinstance(start, Mapping) else None
    if told is None:
        return RUBICON
    try:
        return Rules.from_json(told)
    except ValueError as exc:
        raise RecordError(f"$.rules: {exc}") from None


def check(record: Any) -> None:
    """Raise RecordError unless `record` is a record: it keeps RECORD_SCHEMA, and it is
    one seat's: every view is that seat's and under the record's rules, a watcher's hold
    no hand, the other seat's actions are only as told, the deals come in order."""
    _validate(RECORD_SCHEMA, record, "$", RECORD_SCHEMA)
    rules = rules_of(record).to_json()
    seat = record["seat"]
    views = [("$.start", record["start"])]
    last = -1
    for i, d in enumerate(record["deals"]):
        if d["number"] <= last and not (d["number"] == last and "again" in d):
            raise RecordError(f"$.deals[{i}].number: deal {d['number']} comes after deal "
                              f"{last}; the deals must come in order")
        last = d["number"]
        if "again" in d:
            views.append((f"$.deals[{i}].again", d["again"]))
        for j, step in enumerate(d["steps"]):
            where = f"$.deals[{i}].steps[{j}]"
            views.append((f"{where}.view", step["view"]))
            action = step["action"]
            own = step["actor"] == seat
            if own and ("count" in action or "told" in action):
                raise RecordError(f"{where}.action: the seat's own {action['type']} must "
                                  f"be whole, not as told: {_quote(action)}")
            if not own and action["type"] in ("discard", "call", "answer") and "cards" in action:
                raise RecordError(f"{where}.action: seat {step['actor']}'s {action['type']} "
                                  f"names cards this record's seat never saw: "
                                  f"{_quote(action)}")
    for where, v in views:
        if v["seat"] != seat:
            raise RecordError(f"{where}.seat: a view for seat {v['seat']!r} in a record for "
                              f"seat {seat!r}")
        if v.get("rules", rules) != rules:
            raise RecordError(f"{where}.rules: a view under {_quote(v['rules'])} in a record "
                              f"under {_quote(rules)}")
        if seat is None and (v["hand"] or v["discards"] or v["seen_stock"]):
            raise RecordError(f"{where}: a watcher's view holds cards of a hand: "
                              f"{_quote({k: v[k] for k in ('hand', 'discards')})}")


def _quote(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


_TYPES: dict[str, Any] = {
    "object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
    "integer": int, "number": (int, float),
}


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def _validate(schema: Mapping[str, Any], value: Any, path: str,
              root: Mapping[str, Any]) -> None:
    """Check `value` against `schema`: the part of JSON Schema RECORD_SCHEMA uses (type,
    const, enum, properties, required, additionalProperties, items, minItems, maxItems,
    minimum, maximum, pattern, $ref to #/$defs, oneOf)."""
    ref = schema.get("$ref")
    if ref is not None:
        schema = root["$defs"][ref.rsplit("/", 1)[1]]
    if "oneOf" in schema:
        _one_of(schema["oneOf"], value, path, root)
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            raise RecordError(f"{path}: expected {' or '.join(kinds)}, got {_quote(value)}")
    if "const" in schema and value != schema["const"]:
        raise RecordError(f"{path}: expected {_quote(schema['const'])}, got {_quote(value)}")
    if "enum" in schema and not any(value == x and type(value) is type(x)
                                    for x in schema["enum"]):
        raise RecordError(f"{path}: expected one of {_quote(schema['enum'])}, "
                          f"got {_quote(value)}")
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                raise RecordError(f"{path}: {key!r} is missing")
        props = schema.get("properties", {})
        for key, item in value.items():
            if key in props:
                _validate(props[key], item, f"{path}.{key}", root)
            elif schema.get("additionalProperties") is False:
                raise RecordError(f"{path}: unexpected field {key!r}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise RecordError(f"{path}: expected at least {schema['minItems']} items, "
                              f"got {len(value)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise RecordError(f"{path}: expected at most {schema['maxItems']} items, "
                              f"got {len(value)}")
        if "items" in schema:
            for i, item in enumerate(value):
                _validate(schema["items"], item, f"{path}[{i}]", root)
    if _is(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            raise RecordError(f"{path}: {value} is below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise RecordError(f"{path}: {value} is above {schema['maximum']}")
    if isinstance(value, str) and "pattern" in schema \
            and not re.search(schema["pattern"], value):
        raise RecordError(f"{path}: {_quote(value)} is not a {_what(schema)}")


def _what(schema: Mapping[str, Any]) -> str:
    return "card (e.g. 'QH', '10S')" if schema.get("pattern") == _CARD else \
        f"match for {schema['pattern']}"


def _one_of(branches: Sequence[Mapping[str, Any]], value: Any, path: str,
            root: Mapping[str, Any]) -> None:
    """Exactly one branch must hold; when none does, the error of the branch that got
    furthest (the one whose `type` matched) is the one quoted."""
    errors: list[RecordError] = []
    held = 0
    for branch in branches:
        try:
            _validate(branch, value, path, root)
            held += 1
        except RecordError as exc:
            errors.append(exc)
    if held == 1:
        return
    if held > 1:
        raise RecordError(f"{path}: {_quote(value)} is ambiguous")
    kind = value.get("type") if isinstance(value, dict) else None
    if kind is None or not any(b["properties"]["type"].get("const") == kind for b in branches):
        raise RecordError(f"{path}: not an action: {_quote(value)}")
    typed = [e for e, b in zip(errors, branches, strict=True)
             if b["properties"]["type"].get("const") == kind]
    raise max(typed, key=lambda e: str(e).count(".") + str(e).count("["))
