"""``make schemas``: writes the contract's generated files into ``contract/`` (the JSON Schemas,
``names.json``, ``callback.openapi.json``, ``codec-vectors.json``: :mod:`workflows.schemas`).

The light ``workflows`` package imports no media code, so the words of an outcome only media/
knows are read here and handed in (:class:`workflows.reasons.MediaWords`): ``film_url``'s keys
(the delivered aspects) and why a customer's file is left out (``media/base/errors.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

from media.base import errors, spec
from workflows.reasons import MediaWords
from workflows.schemas import SCHEMA_DIR, rendered_schemas, write_schemas


def media_words() -> MediaWords:
    """The delivered aspects and every refusal reason media/ raises for a customer's file."""
    refusals = sorted(value for name, value in vars(errors).items()
                      if name.isupper() and isinstance(value, str))
    return MediaWords(aspects=tuple(aspect.name for aspect in spec.ASPECTS),
                      refusals=tuple(refusals))


def contract_files() -> dict[str, str]:
    """Each generated file of ``contract/`` by name, with its exact text."""
    return rendered_schemas(media_words())


if __name__ == "__main__":
    for path in write_schemas(media_words(), Path(sys.argv[1]) if len(sys.argv) > 1
                              else SCHEMA_DIR):
        print(f"wrote {path}")
