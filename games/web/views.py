from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from challenges.auth import current_player


@ensure_csrf_cookie
def kitten(request):
    """The page is a shell: the game lives on the server (api.py) and kitten/main.js
    animates what it returns. Durations are data attributes (tests shorten them)."""
    return render(request, "kitten/play.html", {"has_player": current_player(request) is not None})
