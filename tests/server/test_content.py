"""Content-block helpers build wire dicts that validate against the official schemas."""

import base64
import datetime
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from _schema_check import SPEC_DIR
from mcpkit.protocol._errors import UsageError
from mcpkit.server import content

SPEC = SPEC_DIR
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


def _validator(revision: str) -> jsonschema.protocols.Validator:
    """A validator for ``ContentBlock`` of ``revision``; the schema file ships with the tests."""
    schema = json.loads((SPEC / revision / "schema.json").read_text(encoding="utf-8"))
    assert "ContentBlock" in schema["$defs"], f"{revision} has no ContentBlock definition"
    cls = jsonschema.validators.validator_for(schema)
    return cls({**schema, "$ref": "#/$defs/ContentBlock"})


VALIDATORS = {rev: _validator(rev) for rev in ("2025-11-25", "2026-07-28")}


def check(block: dict[str, Any]) -> dict[str, Any]:
    for validator in VALIDATORS.values():
        validator.validate(block)
    return block


def test_text() -> None:
    assert check(content.text("hi")) == {"type": "text", "text": "hi"}


def test_annotations_and_meta() -> None:
    ann = content.make_annotations(
        audience=["user"],
        priority=0.5,
        last_modified=datetime.datetime(2025, 1, 2, 3, 4, 5),
    )
    block = check(content.text("hi", annotations=ann, meta={"com.example/x": 1}))
    assert block["annotations"] == {
        "audience": ["user"],
        "priority": 0.5,
        "lastModified": "2025-01-02T03:04:05+00:00",
    }
    assert block["_meta"] == {"com.example/x": 1}


@pytest.mark.parametrize(
    "kwargs", [{"priority": 1.5}, {"priority": -0.1}, {"audience": ["bot"]}, {"audience": "user"}]
)
def test_bad_annotations(kwargs: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        content.make_annotations(**kwargs)


def test_image_from_bytes_and_path(tmp_path: Path) -> None:
    block = check(content.image(PNG, "image/png"))
    encoded = base64.b64encode(PNG).decode()
    assert block == {"type": "image", "data": encoded, "mimeType": "image/png"}
    path = tmp_path / "pic.JPG"
    path.write_bytes(b"jpeg")
    from_path = check(content.image(path))
    assert from_path["mimeType"] == "image/jpeg"
    assert base64.b64decode(from_path["data"]) == b"jpeg"
    assert content.image(str(path))["data"] == from_path["data"]


def test_bytes_need_a_mime_type() -> None:
    with pytest.raises(UsageError, match="mime_type"):
        content.image(PNG)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read"):
        content.audio(tmp_path / "nope.wav")


def test_audio_guesses_wav(tmp_path: Path) -> None:
    path = tmp_path / "a.wav"
    path.write_bytes(b"RIFF")
    assert check(content.audio(path))["mimeType"] == "audio/wav"
    assert check(content.audio(b"x", "audio/mpeg"))["mimeType"] == "audio/mpeg"


def test_resource_link() -> None:
    block = check(
        content.resource_link(
            "file:///a.txt", "a", title="A", description="d", mime_type="text/plain", size=3
        )
    )
    assert block == {
        "type": "resource_link",
        "uri": "file:///a.txt",
        "name": "a",
        "title": "A",
        "description": "d",
        "mimeType": "text/plain",
        "size": 3,
    }


def test_embedded_text_and_blob(tmp_path: Path) -> None:
    block = check(content.embedded_text("test://embedded-resource", "hello"))
    assert block == {
        "type": "resource",
        "resource": {"uri": "test://embedded-resource", "text": "hello", "mimeType": "text/plain"},
    }
    blob = check(content.embedded_blob("test://b", b"\x00\x01", "application/octet-stream"))
    assert base64.b64decode(blob["resource"]["blob"]) == b"\x00\x01"
    path = tmp_path / "doc.pdf"
    path.write_bytes(b"%PDF")
    assert content.embedded_blob("file:///doc.pdf", path)["resource"]["mimeType"] == (
        "application/pdf"
    )


def test_guess_mime_type_fallback() -> None:
    assert content.guess_mime_type("x.unknownext") == "application/octet-stream"
    assert content.guess_mime_type("x.PNG") == "image/png"
