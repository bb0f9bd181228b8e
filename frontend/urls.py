from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("daily/", views.daily, name="daily"),
    path("daily/archive/", views.archive, name="archive"),
    path("daily/<str:date>/", views.daily, name="daily-day"),
    path("leaderboard/", views.leaderboard_go, name="leaderboard-go"),
    path("leaderboard/<str:date>/", views.leaderboard, name="leaderboard"),
    path("me/", views.me, name="me"),
    path("players/<int:player_id>/", views.player, name="player"),
    path("replays/<int:attempt_id>/", views.replay, name="replay"),
    path("rules/", views.rules, name="rules"),
    path("rules/spec.md", views.rules_spec, name="rules-spec"),
]
