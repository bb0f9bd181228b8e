from django.urls import path
from django.views.i18n import JavaScriptCatalog

from . import api, views

urlpatterns = [
    path("leagues/", views.leagues, name="leagues"),
    path("leagues/<int:league_id>/", views.league, name="league"),
    path("leagues/join/<str:code>/", views.join, name="league-join"),
    # The default catalog (config/urls.py) holds django.conf only; the leagues' strings live here.
    path("leagues/jsi18n/", JavaScriptCatalog.as_view(packages=["leagues"]), name="leagues-jsi18n"),
    path("api/leagues", api.LeaguesView.as_view()),
    path("api/leagues/join", api.JoinView.as_view()),
    path("api/leagues/places/<str:date>", api.PlacesView.as_view()),
    path("api/leagues/<int:league_id>", api.LeagueView.as_view()),
    path("api/leagues/<int:league_id>/code", api.LeagueCodeView.as_view()),
    path("api/leagues/<int:league_id>/members/<str:member>", api.MemberView.as_view()),
    path("api/leagues/<int:league_id>/leaderboard/<str:date>", api.LeagueBoardView.as_view()),
    path("api/leagues/<int:league_id>/week/<str:week>", api.LeagueWeekView.as_view()),
]
