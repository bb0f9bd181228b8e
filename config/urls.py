from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import JavaScriptCatalog, set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from challenges import account_api
from challenges import api as challenges_api
from config import csp_reports, health, metrics
from config.errors import api_not_found
from config.renderers import ReadableYamlRenderer
from leaderboard import api as leaderboard_api

api = [
    path("players", challenges_api.PlayersView.as_view()),
    path("players/me", account_api.MeView.as_view()),
    path("players/me/export", account_api.ExportView.as_view()),
    path("players/me/code", account_api.DeviceCodeView.as_view()),
    path("session/code", account_api.DeviceCodeLoginView.as_view()),
    path("players/me/password", challenges_api.PasswordView.as_view()),
    path("players/me/token", challenges_api.TokenView.as_view()),
    path("players/me/attempts", challenges_api.MyAttemptsView.as_view()),
    path("session", challenges_api.LoginView.as_view()),
    path("challenges/<str:date>", challenges_api.ChallengeView.as_view()),
    path("challenges/<str:date>/attempt", challenges_api.AttemptStartView.as_view()),
    path("challenges/<str:date>/archive", leaderboard_api.ArchiveView.as_view()),
    path("challenges/<str:date>/positions", leaderboard_api.PositionsView.as_view()),
    path("attempts/<int:attempt_id>", challenges_api.AttemptView.as_view()),
    path("attempts/<int:attempt_id>/asks", challenges_api.AskView.as_view()),
    path("attempts/<int:attempt_id>/analysis", challenges_api.AnalysisView.as_view()),
    path("leaderboard/<str:date>", leaderboard_api.LeaderboardView.as_view()),
    path("leaderboard/<str:date>/me", leaderboard_api.LeaderboardMeView.as_view()),
    path("leaderboard/<str:date>/histogram", leaderboard_api.HistogramView.as_view()),
]

urlpatterns = [
    # Pages that name no icon (the admin's) make browsers ask for this one. Resolved per
    # request: production's hashed name exists only once collectstatic has run.
    path("favicon.ico", lambda request: redirect(static("frontend/favicon.svg"), permanent=True)),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    # For the bearer of METRICS_TOKEN only (Prometheus), else a 404 (config/metrics.py).
    path("metrics", metrics.serve, name="metrics"),
    path("csp-reports", csp_reports.csp_reports, name="csp-reports"),
    path(
        "api/schema",
        SpectacularAPIView.as_view(renderer_classes=[ReadableYamlRenderer, *SpectacularAPIView.renderer_classes]),
        name="schema",
    ),
    # The split view serves its start-up script at ?script: no inline script for the CSP.
    path(
        "api/docs",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="frontend/api_docs.html"),
        name="api-docs",
    ),
    path("admin/", admin.site.urls),
    path("api/", include(api)),
    # Without a CSRF token: the language picker is in every page, the public leaderboard
    # pages a CDN keeps (leaderboard/caching.py) included, which carry nobody's token. All it
    # can be made to do is choose a visitor's language (and redirect within this site).
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("casual.urls")),
    path("", include("leagues.urls")),
    path("", include("frontend.urls")),
    re_path(r"^api/", api_not_found),
]
