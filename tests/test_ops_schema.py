"""The OpenAPI schema: docs/openapi.yaml is what the code generates, valid,
without a warning; /api/schema serves it and /api/docs needs no third-party host.

After changing the API: `.venv/bin/python manage.py spectacular --file docs/openapi.yaml`
(or UPDATE_OPENAPI=1 with this test)."""

from __future__ import annotations

import os
import re

import pytest
import yaml
from django.core.management import call_command

from tests.conftest import ROOT

COMMITTED = ROOT / "docs" / "openapi.yaml"


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("schema") / "openapi.yaml"
    # --fail-on-warn: an endpoint the generator cannot describe fails here.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    return out.read_text()


def test_committed_schema_is_the_generated_one(generated):
    if os.environ.get("UPDATE_OPENAPI") == "1":
        COMMITTED.write_text(generated)
    assert COMMITTED.exists(), "docs/openapi.yaml is missing"
    assert COMMITTED.read_text() == generated, (
        "docs/openapi.yaml is out of date: run `.venv/bin/python manage.py spectacular --file docs/openapi.yaml`"
    )


def test_schema_describes_the_public_api(generated):
    schema = yaml.safe_load(generated)
    paths = schema["paths"]
    for path, method in [
        ("/api/players", "post"),
        ("/api/challenges/{date}", "get"),
        ("/api/challenges/{date}/attempt", "post"),
        ("/api/attempts/{attempt_id}", "get"),
        ("/api/attempts/{attempt_id}/asks", "post"),
        ("/api/leaderboard/{date}", "get"),
        ("/api/leaderboard/{date}/me", "get"),
    ]:
        operation = paths[path][method]
        success = next(code for code in operation["responses"] if code.startswith("2"))
        assert "$ref" in operation["responses"][success]["content"]["application/json"]["schema"], path
        for code, response in operation["responses"].items():
            if code.startswith("4"):
                assert response["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/Error"
    components = schema["components"]["schemas"]
    assert set(components["Error"]["required"]) == {"error", "detail"}
    assert {"rank", "move"} <= set(components["AskInRequest"]["required"])
    assert "events" in components["AttemptAfterAsk"]["properties"]
    assert "seed" not in components["Challenge"].get("required", [])
    assert "429" in paths["/api/players"]["post"]["responses"]
    assert "429" in paths["/api/attempts/{attempt_id}/asks"]["post"]["responses"]
    assert "409" in paths["/api/attempts/{attempt_id}/asks"]["post"]["responses"]
    assert schema["components"]["securitySchemes"]["playerToken"]["name"] == "Authorization"
    assert not any(p.startswith(("/admin", "/healthz", "/readyz")) for p in paths)


@pytest.mark.django_db
def test_schema_and_docs_are_served_from_the_site_itself(client):
    schema = client.get("/api/schema")
    assert schema.status_code == 200
    assert yaml.safe_load(schema.content)["info"]["title"]
    # Opened in a browser, it is shown as text, not downloaded; a client naming a type gets it.
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    shown = client.get("/api/schema", HTTP_ACCEPT=browser)
    assert shown["Content-Type"] == "text/yaml; charset=utf-8" and "attachment" not in shown.get(
        "Content-Disposition", ""
    )
    assert yaml.safe_load(shown.content) == yaml.safe_load(schema.content)
    assert client.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi")["Content-Type"].startswith(
        "application/vnd.oai.openapi"
    )
    assert client.get("/api/schema", HTTP_ACCEPT="application/json").json()["info"]["title"]
    docs = client.get("/api/docs")
    assert docs.status_code == 200
    html = docs.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any("swagger-ui-bundle" in a for a in assets)
    for asset in assets:
        assert asset.startswith("/"), f"{asset} is not served by the site"
    assert "cdn" not in html.lower()
