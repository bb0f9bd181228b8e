"""An app's own JavaScript catalogue. The default one (config/urls.py, /jsi18n/) holds
django.conf only: an app whose scripts say words of their own serves them at
``<app>/jsi18n/``, named ``<app>-jsi18n`` (its pages load it before their module)."""

from __future__ import annotations

from django.urls import URLPattern, path
from django.views.i18n import JavaScriptCatalog


def app_catalogue(app: str) -> URLPattern:
    return path(f"{app}/jsi18n/", JavaScriptCatalog.as_view(packages=[app]), name=f"{app}-jsi18n")
