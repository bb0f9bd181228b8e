"""The API of players, days and their games (under /api/, config/urls.py)."""

from django.urls import path

from . import account_api, api

urlpatterns = [
    path("players", api.PlayersView.as_view()),
    path("players/me", account_api.MeView.as_view()),
    path("players/me/export", account_api.ExportView.as_view()),
    path("players/me/code", account_api.DeviceCodeView.as_view()),
    path("session/code", account_api.DeviceCodeLoginView.as_view()),
    path("players/me/password", api.PasswordView.as_view()),
    path("players/me/token", api.TokenView.as_view()),
    path("players/me/attempts", api.MyAttemptsView.as_view()),
    path("session", api.LoginView.as_view()),
    path("challenges/<str:date>", api.ChallengeView.as_view()),
    path("challenges/<str:date>/attempt", api.AttemptStartView.as_view()),
    path("attempts/<int:attempt_id>", api.AttemptView.as_view()),
    path("attempts/<int:attempt_id>/asks", api.AskView.as_view()),
    path("attempts/<int:attempt_id>/analysis", api.AnalysisView.as_view()),
]
