"""The API's quick content negotiation answers exactly as DRF's own would (config/negotiation.py)."""

import pytest
from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from config.negotiation import JSONFirstNegotiation

ACCEPTS = [
    None,
    "",
    "*/*",
    "application/json",
    "application/*",
    " application/json ",
    "text/html",
    "application/json; indent=4",
    "text/html, */*;q=0.8",
    "*/*; q=0.5",
    "application/xml",
]


def answer(negotiation, request, renderers):
    try:
        renderer, media_type = negotiation.select_renderer(request, renderers)
    except NotAcceptable:
        return "406"
    except Http404:  # a ?format= no renderer has
        return "404"
    return type(renderer).__name__, media_type


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api"])
@pytest.mark.parametrize("renderers", [[JSONRenderer], [JSONRenderer, BrowsableAPIRenderer]])
def test_same_answer_as_drf(accept, query, renderers):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get("/api/x" + query, **headers))
    made = [cls() for cls in renderers]
    assert answer(JSONFirstNegotiation(), request, made) == answer(DefaultContentNegotiation(), request, made)


@pytest.mark.django_db
def test_the_api_answers_json_and_refuses_html(client):
    assert client.get("/api/challenges/today").headers["Content-Type"] == "application/json"
    assert client.get("/api/challenges/today", HTTP_ACCEPT="text/html").status_code == 406
