"""Pure rules engines (standard library only; a test enforces it).

A game is a pure function of (deal, moves): every state is derived by replay.
See games/base.py for the protocol every engine follows and games/registry.py for
the name -> engine table.
"""
