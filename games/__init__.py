"""The games' rules: games.rules is a pure library (standard library only;
tests/games/test_conformance.py checks every module of it, with no exception). A game is a
pure function of (deal, moves). games.analysis, beside it and as pure, is the analysis
engine built on the rules (each ask of a Pêche game valued from the table alone).

The Django apps are built on it and the arrow runs one way: challenges (the daily game) and
casual (Kitten fishing, Go Fish) import games.rules; nothing in games.rules imports them,
Django or any other installed package.
"""
