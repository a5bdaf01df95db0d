"""The contract as JSON Schema files, for an order API in any language: ``FilmOrder`` (the
workflow's input), ``Progress`` (the ``progress`` query's answer) and ``FilmOutcome`` (the
signed callback's body), generated from the pydantic models; beside them ``names.json`` and
``callback.openapi.json`` from :mod:`workflows.names`. ``tests/test_contract.py`` fails
when the files in ``contract/`` drift from the models; regenerate with ``make schemas``
(``python -m workflows.schemas``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from workflows import names
from workflows.contract import FilmOrder, FilmOutcome, Progress

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "contract"
SCHEMA_BASE_ID = "https://filmworker.example/contract/"
MODELS: dict[str, type[BaseModel]] = {
    "film-order.schema.json": FilmOrder,
    "progress.schema.json": Progress,
    "film-outcome.schema.json": FilmOutcome,
}
"""Each schema file and its model. The API validates what it sends (FilmOrder) and what it
receives (Progress, FilmOutcome) in serialization mode, as JSON on the wire."""


def schema_of(name: str, model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``model`` as its JSON travels."""
    mode = "validation" if model is FilmOrder else "serialization"
    schema = model.model_json_schema(mode=mode)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": SCHEMA_BASE_ID + name, **schema}


def _text(document: dict[str, Any]) -> str:
    """A generated file's exact text (sorted keys, two-space indent, final newline)."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def rendered_schemas() -> dict[str, str]:
    """Each generated file's exact text: the schemas, ``names.json`` and the callback's OpenAPI
    description (:mod:`workflows.names`)."""
    return {**{name: _text(schema_of(name, model)) for name, model in MODELS.items()},
            names.NAMES_FILE: _text(names.names_document()),
            names.OPENAPI_FILE: _text(names.callback_openapi())}


def write_schemas(directory: Path = SCHEMA_DIR) -> list[Path]:
    """Write the schema files into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in rendered_schemas().items():
        (directory / name).write_text(text, encoding="utf-8")
        written.append(directory / name)
    return written


if __name__ == "__main__":
    for path in write_schemas(Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_DIR):
        print(f"wrote {path}")
