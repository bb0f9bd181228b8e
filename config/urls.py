from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import JavaScriptCatalog, set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import csp_reports, health, metrics
from config.errors import api_not_found
from config.renderers import ReadableYamlRenderer

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
    # The apps' APIs, each its own urls.py: config imports no app (tests/test_layers.py).
    path("api/", include("challenges.urls")),
    path("api/", include("leaderboard.urls")),
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
