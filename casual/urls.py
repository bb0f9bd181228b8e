from django.urls import path
from django.views.i18n import JavaScriptCatalog

from . import api, views

urlpatterns = [
    path("kitten/", views.casual_page, {"game": "kitten"}, name="kitten"),
    path("gofish/", views.casual_page, {"game": "gofish"}, name="gofish"),
    # The default catalog (config/urls.py) holds django.conf only; the casual games' strings live here.
    path("casual/jsi18n/", JavaScriptCatalog.as_view(packages=["casual"]), name="casual-jsi18n"),
    path("api/casual/<str:game>", api.CasualHomeView.as_view()),
    path("api/casual/<str:game>/games", api.CasualCreateView.as_view()),
    path("api/casual/<str:game>/games/<int:game_id>", api.CasualGameView.as_view()),
    path("api/casual/<str:game>/games/<int:game_id>/moves", api.CasualMoveView.as_view()),
    path("api/casual/<str:game>/games/<int:game_id>/finish", api.CasualFinishView.as_view()),
]
