"""A large public document: GitHub's REST API (1,200+ operations, recursive and nullable
schemas, every parameter style), as shipped by the npm package @octokit/openapi and installed
by scripts/install-peers. Converted, served, and listed (every message schema-checked)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from jsonschema import Draft202012Validator

import _peers
from mcpkit.contrib.openapi import GET_AS_RESOURCES, convert, from_openapi, load_document
from mcpkit.testing import connect

DOCUMENT: Final = Path(_peers.PEERS_ROOT) / "openapi" / "api.github.com.json"
PROVIDER_NAME: Final = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@pytest.fixture(scope="module")
def github() -> Any:
    assert DOCUMENT.is_file(), f"{DOCUMENT} is missing: run scripts/install-peers"
    return load_document(DOCUMENT)


@pytest.mark.timeout(300)
async def test_github_api_converted_and_listed(github: Any) -> None:
    operations = sum(
        1
        for item in github.paths.values()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    )
    assert operations > 1000
    async with httpx.AsyncClient(base_url="http://127.0.0.1:9") as http:
        server = from_openapi(github, http)
        async with connect(server) as client:
            tools = await client.list_tools()
    assert len(tools) == operations
    names = [t.name for t in tools]
    assert len(set(names)) == len(names)
    assert all(PROVIDER_NAME.match(n) for n in names)
    by_name = {t.name: t for t in tools}
    get_repo = by_name["repos_get"]
    assert get_repo.input_schema["required"] == ["owner", "repo"]
    assert get_repo.annotations.read_only_hint is True
    assert get_repo.output_schema is not None and get_repo.output_schema["type"] == "object"
    assert by_name["repos_delete"].annotations.destructive_hint is True
    for tool in random.Random(17).sample(tools, 60):
        Draft202012Validator.check_schema(tool.input_schema)
        if tool.output_schema is not None:
            assert tool.output_schema["type"] == "object"
            Draft202012Validator.check_schema(tool.output_schema)
            json.dumps(tool.output_schema)  # finite: recursive schemas stay references


@pytest.mark.timeout(300)
def test_github_api_route_maps(github: Any) -> None:
    conversion = convert(github, route_maps=GET_AS_RESOURCES)
    kinds = {c.kind for c in conversion.components}
    assert kinds == {"tool", "resource", "resource_template"}
    templates = [c.name for c in conversion.by_kind("resource_template")]
    assert "openapi://repos/{owner}/{repo}" in templates
    assert all(
        c.operation.method != "GET" or c.kind != "tool" or c.operation.parameters
        for c in conversion.components
    )
