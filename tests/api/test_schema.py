"""The OpenAPI description."""

import pytest
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_schema_endpoint_describes_every_api_endpoint():
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    operations = {op["operationId"] for item in schema["paths"].values() for op in item.values()}
    assert operations >= {
        "submission_create",
        "submission_list",
        "submission_retrieve",
        "leaderboard_retrieve",
        "token_create",
        "token_retrieve",
    }
    upload = schema["paths"]["/api/phases/{phase}/submissions/"]["post"]
    assert "multipart/form-data" in upload["requestBody"]["content"]
    schemes = schema["components"]["securitySchemes"]
    assert (schemes["tokenAuth"]["in"], schemes["tokenAuth"]["name"]) == ("header", "Authorization")
    assert {"tokenAuth": []} in upload["security"]
