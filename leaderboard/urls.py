"""The API of the days' rankings and archives (under /api/, config/urls.py)."""

from django.urls import path

from . import api

urlpatterns = [
    path("challenges/<str:date>/archive", api.ArchiveView.as_view()),
    path("challenges/<str:date>/positions", api.PositionsView.as_view()),
    path("leaderboard/<str:date>", api.LeaderboardView.as_view()),
    path("leaderboard/<str:date>/me", api.LeaderboardMeView.as_view()),
    path("leaderboard/<str:date>/histogram", api.HistogramView.as_view()),
]
