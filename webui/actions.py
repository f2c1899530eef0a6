"""The players' actions, shared by the HTML forms and the JSON API.

Each action takes the submitted fields as a flat mapping (a form or a JSON object),
refuses missing, unexpected or malformed fields with :class:`~webui.errors.InputError`,
and calls the :class:`~webui.session.Table`. It returns a one-line message for the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from engine import Placement, Tile
from engine.rules import rotations
from webui.errors import InputError
from webui.session import Table

Fields = Mapping[str, Any]
#: Fields that every form may carry besides its own.
ALWAYS_ALLOWED = frozenset({"csrf_token"})
MAX_PLAYERS = 4
MAX_NAME = 30


def check_fields(
    data: Fields, required: set[str], optional: set[str] | frozenset[str] = frozenset()
) -> None:
    if not isinstance(data, Mapping):
        raise InputError(f"expected an object of fields, not {type(data).__name__}")
    missing = sorted(required - set(data))
    if missing:
        raise InputError(f"missing field {', '.join(missing)}", missing[0])
    extra = sorted(set(data) - required - set(optional) - ALWAYS_ALLOWED)
    if extra:
        raise InputError(f"unexpected field {', '.join(extra)}", extra[0])


def text(data: Fields, name: str, default: str = "", max_len: int = 200) -> str:
    value = data.get(name, default)
    if value is None:
        value = default
    if not isinstance(value, str):
        raise InputError(f"{name} must be text, not {type(value).__name__}", name)
    value = value.strip()
    if len(value) > max_len:
        raise InputError(f"{name} is too long (at most {max_len} characters)", name)
    return value


def integer(data: Fields, name: str, low: int, high: int) -> int:
    value = data.get(name)
    if isinstance(value, bool):
        raise InputError(f"{name} must be a whole number, not {value!r}", name)
    if isinstance(value, str):
        if not re.fullmatch(r"\s*-?\d{1,6}\s*", value):
            raise InputError(f"{name} must be a whole number, not {value!r}", name)
        value = int(value)
    if not isinstance(value, int):
        raise InputError(f"{name} must be a whole number, not {value!r}", name)
    if not low <= value <= high:
        raise InputError(f"{name} must be between {low} and {high}, not {value}", name)
    return value


def flag(data: Fields, name: str) -> bool:
    value = data.get(name, False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("", "0", "off", "false", "no"):
        return False
    if isinstance(value, str) and value.lower() in ("1", "on", "true", "yes"):
        return True
    raise InputError(f"{name} must be on or off, not {value!r}", name)


def tile_field(data: Fields, name: str) -> Tile | None:
    raw = text(data, name, max_len=10)
    if not raw:
        return None
    return Tile.from_notation(raw)


def tiles_field(value: Any, name: str) -> list[Tile]:
    if isinstance(value, str):
        parts = value.replace(",", " ").split()
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = value
    else:
        raise InputError(f"{name} must list tiles like 'RRY5 BBG4', not {value!r}", name)
    return [Tile.from_notation(p) for p in parts]


def values_field(value: Any, name: str) -> list[int]:
    """Remaining tiles: values (``5 3``) or tile notations (``RRY5``)."""
    if isinstance(value, str):
        parts: list[Any] = value.replace(",", " ").split()
    elif isinstance(value, list):
        parts = value
    else:
        raise InputError(f"{name} must list tile values like '5 3', not {value!r}", name)
    out = []
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool) and 0 <= part <= 99:
            out.append(part)
        elif isinstance(part, str) and re.fullmatch(r"\d{1,2}", part):
            out.append(int(part))
        elif isinstance(part, str):
            out.append(Tile.from_notation(part).value)
        else:
            raise InputError(f"{name}: {part!r} is not a tile value", name)
    return out


# -- the actions ----------------------------------------------------------------------------


def new_game(table: Table, data: Fields) -> str:
    slots = {f"player{i}" for i in range(1, MAX_PLAYERS + 1)}
    hand_slots = {f"hand{i}" for i in range(1, MAX_PLAYERS + 1)}
    check_fields(data, set(), {"players", "teams", "first", "mode", "hands"} | slots | hand_slots)
    mode = text(data, "mode", "normal") or "normal"
    if mode not in ("normal", "solo"):
        raise InputError(f"mode must be normal or solo, not {mode!r}", "mode")
    if "players" in data:
        raw = data["players"]
        if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
            raise InputError("players must be a list of names", "players")
        names = [p.strip() for p in raw]
        hands_raw: list[Any] = []
        if "hands" in data:
            if not isinstance(data["hands"], list):
                raise InputError("hands must be a list (one list of tiles per player)", "hands")
            hands_raw = list(data["hands"])
    else:
        names = [text(data, f"player{i}", max_len=MAX_NAME) for i in range(1, MAX_PLAYERS + 1)]
        hands_raw = [data.get(f"hand{i}", "") for i in range(1, MAX_PLAYERS + 1)]
        keep = [i for i, n in enumerate(names) if n]
        names = [names[i] for i in keep]
        hands_raw = [hands_raw[i] for i in keep]
    for name in names:
        if not name or len(name) > MAX_NAME:
            raise InputError(f"a player name has 1 to {MAX_NAME} characters: {name!r}", "players")
    if not names:
        raise InputError("give at least one player name", "player1")
    if mode == "solo":  # the solo variant is played by player 1
        names, hands_raw = names[:1], []
    hands = None
    given = [h for h in hands_raw if h not in ("", None, [])]
    if given:
        if len(given) != len(names) or len(hands_raw) != len(names):
            raise InputError("enter every player's hand, or none", "hands")
        hands = [tiles_field(h, f"hand{i + 1}") for i, h in enumerate(hands_raw)]
    first = 0
    if data.get("first") not in (None, ""):
        first = integer(data, "first", 0, max(0, len(names) - 1))
    game_id = table.new_game(
        names, teams=flag(data, "teams"), first=first, hands=hands, mode=mode, source="manual"
    )
    what = "solo game" if mode == "solo" else "game"
    return f"new {what} {game_id}: {', '.join(names)}"


def _placement(table: Table, data: Fields) -> Placement:
    if "placement" in data:
        check_fields(data, {"placement"})
        return Placement.from_notation(text(data, "placement", max_len=20))
    check_fields(data, {"index", "tile", "rotation"})
    index = integer(data, "index", 0, 10_000)
    tile = Tile.from_notation(text(data, "tile", max_len=10))
    rotation = integer(data, "rotation", 0, 2)
    _, game = table._require()
    if not 0 <= index < len(game.variant.geometry):
        raise InputError(f"there is no cell {index} (0..{len(game.variant.geometry) - 1})", "index")
    options = rotations(game.variant.set_tile(tile), index, game.variant.geometry)
    if rotation >= len(options):
        raise InputError(f"{tile} has {len(options)} distinct rotation(s) on a cell", "rotation")
    return options[rotation]


def place(table: Table, data: Fields) -> str:
    outcome = table.place(_placement(table, data))
    if not outcome.legal:
        return f"illegal: {outcome.reason}"
    assert outcome.score is not None
    return f"{outcome.player}: {outcome.score.arithmetic()}"


def pass_turn(table: Table, data: Fields) -> str:
    check_fields(data, set())
    outcome = table.pass_turn()
    return f"{outcome.player} passes" if outcome.legal else f"refused: {outcome.reason}"


def exchange(table: Table, data: Fields) -> str:
    check_fields(data, set(), {"returned", "drawn"})
    outcome = table.exchange(tile_field(data, "returned"), tile_field(data, "drawn"))
    return f"{outcome.player} exchanges" if outcome.legal else f"refused: {outcome.reason}"


def draw(table: Table, data: Fields) -> str:
    check_fields(data, {"player", "tile"})
    tile = tile_field(data, "tile")
    if tile is None:
        raise InputError("say which tile was drawn", "tile")
    player = text(data, "player", max_len=MAX_NAME)
    outcome = table.draw(player, tile)
    return f"{outcome.player} draws {tile}"


def undo(table: Table, data: Fields) -> str:
    check_fields(data, set())
    table.undo()
    return table.notice


def take_back(table: Table, data: Fields) -> str:
    check_fields(data, set())
    table.take_back()
    return table.notice


def finish(table: Table, data: Fields) -> str:
    _, game = table._require()
    slots = {f"remaining{i}" for i in range(1, len(game.players) + 1)}
    check_fields(data, set(), {"remaining"} | slots)
    if "remaining" in data:
        raw = data["remaining"]
        if not isinstance(raw, Mapping):
            raise InputError("remaining must be an object: name -> tile values", "remaining")
        unknown = [k for k in raw if k not in game.players]
        if unknown:
            raise InputError(f"{unknown[0]!r} is not a player of this game", "remaining")
        remaining = {k: values_field(v, f"remaining.{k}") for k, v in raw.items()}
    else:
        remaining = {
            name: values_field(data.get(f"remaining{i}", ""), f"remaining{i}")
            for i, name in enumerate(game.players, start=1)
        }
        if game.hands_known:  # blank fields mean "as in the known hands"
            remaining = {
                k: v for i, (k, v) in enumerate(remaining.items(), 1) if data.get(f"remaining{i}")
            }
    table.finish(remaining)
    totals = ", ".join(f"{k} {v}" for k, v in (game.team_totals() or game.totals()).items())
    return f"game over: {totals}"


def fix(table: Table, data: Fields) -> str:
    check_fields(data, {"move", "placement"})
    _, game = table._require()
    move = integer(data, "move", 1, max(1, len(game.history)))
    placement = Placement.from_notation(text(data, "placement", max_len=20))
    table.fix(move - 1, placement)
    return table.notice


def pick(table: Table, data: Fields) -> str:
    check_fields(data, {"choice"})
    outcome = table.pick(integer(data, "choice", 0, 100))
    return f"chosen: {outcome.event}"


def dismiss(table: Table, data: Fields) -> str:
    check_fields(data, set())
    table.dismiss_uncertain()
    return "reading dismissed"


ACTIONS: dict[str, Callable[[Table, Fields], str]] = {
    "new": new_game,
    "place": place,
    "pass": pass_turn,
    "exchange": exchange,
    "draw": draw,
    "undo": undo,
    "takeback": take_back,
    "finish": finish,
    "fix": fix,
    "pick": pick,
    "dismiss": dismiss,
}
