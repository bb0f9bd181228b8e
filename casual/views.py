from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from .rules import CASUAL_RULES


@ensure_csrf_cookie
def casual_page(request, game: str):
    """A casual game's page is a shell: the game lives on the server (api.py) and
    <game>/main.js plays out what it returns. Durations are data attributes (tests
    shorten them)."""
    context = CASUAL_RULES[game].page_context()
    return render(request, f"{game}/play.html", context)
