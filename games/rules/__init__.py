"""The rules library: pure engines, standard library only (tests/games/test_conformance.py
checks every module of this package; the casual-play Django app is beside it, in casual/).

A game is a pure function of (deal, moves): every state is derived by replay.
See base.py for the protocol every engine follows and registry.py for the name -> engine
table.
"""
