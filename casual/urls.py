from django.urls import path

from config.catalogues import app_catalogue

from . import api, views

urlpatterns = [
    app_catalogue("casual"),  # the words of the games' scripts (casual-jsi18n)
    path("kitten/", views.casual_page, {"game": "kitten"}, name="kitten"),
    path("gofish/", views.casual_page, {"game": "gofish"}, name="gofish"),
    path("api/casual/<str:game>", api.CasualHomeView.as_view()),
    path("api/casual/<str:game>/games", api.CasualCreateView.as_view()),
    path("api/casual/<str:game>/games/<int:game_id>", api.CasualGameView.as_view()),
    path("api/casual/<str:game>/games/<int:game_id>/moves", api.CasualMoveView.as_view()),
    path("api/casual/<str:game>/games/<int:game_id>/finish", api.CasualFinishView.as_view()),
]
