"""Variants: a board, a tile set and the numbers of the rules, all loaded from data.

The data ships inside the package (``engine/data``); a new variant (the original
60-tile game, other team formats) is a new entry in ``variants.json`` plus its board
and tile file.

>>> v = load_variant("spectrangle36")
>>> len(v.tiles), v.hand_size, v.max_players
(36, 4, 4)
>>> v.set_tile(Tile.from_notation("RYB1")).clockwise_notation
'RBY'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from engine.board import Geometry
from engine.colours import Colour
from engine.errors import VariantError
from engine.tiles import Tile


@dataclass(frozen=True)
class SetTile:
    """A physical tile of a set: its id, edge colours read clockwise and value."""

    id: int
    clockwise: tuple[Colour, Colour, Colour]
    value: int

    @property
    def tile(self) -> Tile:
        return Tile(self.clockwise, self.value)

    @property
    def clockwise_notation(self) -> str:
        return "".join(c.letter for c in self.clockwise)


@dataclass(frozen=True)
class Variant:
    """A playable game: board geometry, tile set and the numbers of its rules."""

    name: str
    geometry: Geometry
    tiles: tuple[SetTile, ...]
    hand_size: int
    min_players: int
    max_players: int
    team_formats: tuple[tuple[int, ...], ...]
    solo_seconds: int

    def __post_init__(self) -> None:
        identities = [t.tile for t in self.tiles]
        if len(set(identities)) != len(identities):
            raise VariantError(f"{self.name}: two tiles share colours and value")
        object.__setattr__(self, "_by_tile", {t.tile: t for t in self.tiles})

    def set_tile(self, tile: Tile) -> SetTile:
        """The physical tile with this identity; :class:`VariantError` if there is none."""
        found: SetTile | None = self._by_tile.get(tile)  # type: ignore[attr-defined]
        if found is None:
            raise VariantError(f"no tile {tile} in the {self.name} set", tile)
        return found

    def has_tile(self, tile: Tile) -> bool:
        return tile in self._by_tile  # type: ignore[attr-defined]

    @property
    def all_tiles(self) -> frozenset[Tile]:
        return frozenset(self._by_tile)  # type: ignore[attr-defined]


def _variant_from_data(name: str, rules: Mapping[str, Any], data: Mapping[str, Any]) -> Variant:
    try:
        tiles = tuple(
            SetTile(
                int(t["id"]),
                tuple(Colour.from_letter(ch) for ch in t["clockwise"]),  # type: ignore[arg-type]
                int(t["value"]),
            )
            for t in data["tiles"]
        )
        return Variant(
            name=name,
            geometry=Geometry.from_data(data["cells"]),
            tiles=tiles,
            hand_size=int(rules["hand_size"]),
            min_players=int(rules["min_players"]),
            max_players=int(rules["max_players"]),
            team_formats=tuple(tuple(int(n) for n in f) for f in rules.get("team_formats", [])),
            solo_seconds=int(rules.get("solo_seconds", 0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, VariantError):
            raise
        raise VariantError(f"malformed variant {name!r}: {exc!r}", name) from None


def _read_json(filename: str) -> Any:
    return json.loads(resources.files("engine.data").joinpath(filename).read_text("utf-8"))


def variant_names() -> Sequence[str]:
    return tuple(_read_json("variants.json"))


@cache
def load_variant(name: str) -> Variant:
    """The variant called ``name`` (see :func:`variant_names`)."""
    table = _read_json("variants.json")
    if name not in table:
        raise VariantError(f"unknown variant {name!r} (known: {', '.join(table)})", name)
    rules = table[name]
    return _variant_from_data(name, rules, _read_json(rules["board_and_tiles"]))


SPECTRANGLE36 = load_variant("spectrangle36")
