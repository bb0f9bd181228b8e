"""Game name -> engine. Engines load on first use so one broken game cannot stop the others."""

from __future__ import annotations

import importlib

from .base import Engine, GameError

_MODULES = {"peche": "games.rules.peche", "kitten": "games.rules.kitten", "gofish": "games.rules.gofish"}
GAME_NAMES = tuple(_MODULES)


def engine(name: object) -> Engine:
    module = _MODULES.get(name) if isinstance(name, str) else None
    if module is None:
        raise GameError("unknown_game", f"no game named {name!r}")
    found: Engine = importlib.import_module(module).ENGINE
    return found
