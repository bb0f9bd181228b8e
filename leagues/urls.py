from django.urls import path

from config.catalogues import app_catalogue

from . import api, views

urlpatterns = [
    app_catalogue("leagues"),  # the words of the leagues' scripts (leagues-jsi18n)
    path("leagues/", views.leagues, name="leagues"),
    path("leagues/<int:league_id>/", views.league, name="league"),
    path("leagues/join/<str:code>/", views.join, name="league-join"),
    path("api/leagues", api.LeaguesView.as_view()),
    path("api/leagues/join", api.JoinView.as_view()),
    path("api/leagues/places/<str:date>", api.PlacesView.as_view()),
    path("api/leagues/<int:league_id>", api.LeagueView.as_view()),
    path("api/leagues/<int:league_id>/code", api.LeagueCodeView.as_view()),
    path("api/leagues/<int:league_id>/members/<str:member>", api.MemberView.as_view()),
    path("api/leagues/<int:league_id>/leaderboard/<str:date>", api.LeagueBoardView.as_view()),
    path("api/leagues/<int:league_id>/week/<str:week>", api.LeagueWeekView.as_view()),
]
