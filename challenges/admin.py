"""Admin: challenges, players and the trail of decisions, the admin's log-in limit. The
attempts' admin, with the replay inspector and the fair-play review queue, shows results
and decides on them: it is leaderboard's (leaderboard/admin.py).

Who sees cards: while a day's seed is secret only superusers see it (a staff account must
not be a way to learn today's deal)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.utils import timezone

from config.throttling import admin_login_refused, admin_login_succeeded, login_failed

from .models import DailyChallenge, Player, Review

# Django's log-in page has no heading of its own; ours names the page.
admin.site.login_template = "admin/peche_login.html"


class ThrottledAdminLoginForm(AdminAuthenticationForm):
    """The admin's log-in with a limit per client address and per address and username
    (config/throttling.py): Django's own has none, and a staff password guards today's
    cards. Only failures count (a successful log-in gives its try back). Past the limit
    even the right password is refused from that address, with a message saying so and
    how long to wait; never for a username from everywhere, so
    guessers cannot lock the staff out. Wrong passwords are counted per username, and a
    burst is logged with the addresses."""

    def clean(self):
        username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
        if username is not None and password:
            wait = admin_login_refused(self.request, username)
            if wait is not None:
                minutes = max(1, -(-wait // 60))
                raise ValidationError(
                    "Too many log-in attempts from this address. Try again in %(minutes)d minute%(s)s.",
                    code="throttled",
                    params={"minutes": minutes, "s": "" if minutes == 1 else "s"},
                )
        try:
            cleaned = super().clean()
        except ValidationError as refused:
            if username is not None and password and getattr(refused, "code", None) == "invalid_login":
                login_failed("admin_logins", self.request, username)
            raise
        if username is not None and password:
            admin_login_succeeded(self.request, username)  # only failures count toward the limit
        return cleaned


admin.site.login_form = ThrottledAdminLoginForm


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by the site's own services only."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def may_see_cards(request, challenge: DailyChallenge) -> bool:
    return request.user.is_superuser or challenge.is_revealed(timezone.now())


@admin.register(DailyChallenge)
class DailyChallengeAdmin(ReadOnlyAdmin):
    list_display = ("date", "game", "rules_version", "commitment", "closes_at", "reveals_at")
    list_filter = ("game",)

    def get_fields(self, request, obj=None):
        seed = "seed" if obj is not None and may_see_cards(request, obj) else "seed_secret"
        return ("date", "game", seed, "commitment", "rules_version", "closes_at", "reveals_at", "created_at")

    get_readonly_fields = get_fields

    @admin.display(description="seed")
    def seed_secret(self, obj):
        return "(secret until the day's grace ends; superusers only)"


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    fields = ("name", "user", "created_at")
    readonly_fields = fields


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    list_display = ("at", "action", "attempt", "by", "reason")
    list_filter = ("action",)
    search_fields = ("reason", "attempt__player__name")
