"""The contract as JSON Schema files, for an order API in any language: ``FilmOrder`` (the
workflow's input), ``Progress`` (the ``progress`` query's answer) and ``FilmOutcome`` (the
signed callback's body and the workflow's result), generated from the pydantic models; beside
them ``names.json`` and ``callback.openapi.json`` from :mod:`workflows.names` and the codec's
test vectors from :mod:`workflows.codec_vectors`. ``tests/test_contract.py`` fails when the
files in ``contract/`` drift from the code; regenerate with ``make schemas``
(``app/contract_files.py``, which hands in media's words of an outcome: :mod:`workflows.reasons`).

Every schema is clean under ajv's strict mode (``strictTypes``: a keyword of a type only beside
that type), as the TypeScript starter compiles them.

The order's schema also carries the rules the model checks in code, wherever JSON Schema can
say them (:func:`order_rules`): names that draw something, the media key layout, brand fields
only with style brand, one ref per id, a subject photo among the photos. What it cannot say is
listed in its description (:data:`RULES_LEFT_TO_THE_WORKER`); an order breaking one of those
validates here and ends ``failed`` ``invalid_order:<field>`` at the worker."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import DEFAULT_REF_TEMPLATE

from workflows import codec_vectors, keys, names
from workflows.contract import FilmOrder, FilmOutcome, Progress, Style
from workflows.reasons import MediaWords, film_url_schema, outcome_rules

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "contract"
SCHEMA_BASE_ID = "https://filmworker.example/contract/"
MODELS: dict[str, type[BaseModel]] = {
    "film-order.schema.json": FilmOrder,
    "progress.schema.json": Progress,
    "film-outcome.schema.json": FilmOutcome,
}
"""Each schema file and its model. The API validates what it sends (FilmOrder) and what it
receives (Progress, FilmOutcome) in serialization mode, as JSON on the wire."""


INVISIBLE_BMP = """
    0000-0020 007F-00A0 00AD 0300-036F 0483-0489 0591-05BD 05BF 05C1-05C2 05C4-05C5 05C7
    0600-0605 0610-061A 061C 064B-065F 0670 06D6-06DD 06DF-06E4 06E7-06E8 06EA-06ED 070F 0711
    0730-074A 07A6-07B0 07EB-07F3 07FD 0816-0819 081B-0823 0825-0827 0829-082D 0859-085B
    0890-0891 0898-089F 08CA-0902 093A 093C 0941-0948 094D 0951-0957 0962-0963 0981 09BC
    09C1-09C4 09CD 09E2-09E3 09FE 0A01-0A02 0A3C 0A41-0A42 0A47-0A48 0A4B-0A4D 0A51 0A70-0A71
    0A75 0A81-0A82 0ABC 0AC1-0AC5 0AC7-0AC8 0ACD 0AE2-0AE3 0AFA-0AFF 0B01 0B3C 0B3F 0B41-0B44
    0B4D 0B55-0B56 0B62-0B63 0B82 0BC0 0BCD 0C00 0C04 0C3C 0C3E-0C40 0C46-0C48 0C4A-0C4D
    0C55-0C56 0C62-0C63 0C81 0CBC 0CBF 0CC6 0CCC-0CCD 0CE2-0CE3 0D00-0D01 0D3B-0D3C 0D41-0D44
    0D4D 0D62-0D63 0D81 0DCA 0DD2-0DD4 0DD6 0E31 0E34-0E3A 0E47-0E4E 0EB1 0EB4-0EBC 0EC8-0ECD
    0F18-0F19 0F35 0F37 0F39 0F71-0F7E 0F80-0F84 0F86-0F87 0F8D-0F97 0F99-0FBC 0FC6 102D-1030
    1032-1037 1039-103A 103D-103E 1058-1059 105E-1060 1071-1074 1082 1085-1086 108D 109D
    135D-135F 1680 1712-1714 1732-1733 1752-1753 1772-1773 17B4-17B5 17B7-17BD 17C6 17C9-17D3
    17DD 180B-180F 1885-1886 18A9 1920-1922 1927-1928 1932 1939-193B 1A17-1A18 1A1B 1A56
    1A58-1A5E 1A60 1A62 1A65-1A6C 1A73-1A7C 1A7F 1AB0-1ACE 1B00-1B03 1B34 1B36-1B3A 1B3C 1B42
    1B6B-1B73 1B80-1B81 1BA2-1BA5 1BA8-1BA9 1BAB-1BAD 1BE6 1BE8-1BE9 1BED 1BEF-1BF1 1C2C-1C33
    1C36-1C37 1CD0-1CD2 1CD4-1CE0 1CE2-1CE8 1CED 1CF4 1CF8-1CF9 1DC0-1DFF 2000-200F 2028-202F
    205F-2064 2066-206F 20D0-20F0 2CEF-2CF1 2D7F 2DE0-2DFF 3000 302A-302D 3099-309A A66F-A672
    A674-A67D A69E-A69F A6F0-A6F1 A802 A806 A80B A825-A826 A82C A8C4-A8C5 A8E0-A8F1 A8FF
    A926-A92D A947-A951 A980-A982 A9B3 A9B6-A9B9 A9BC-A9BD A9E5 AA29-AA2E AA31-AA32 AA35-AA36
    AA43 AA4C AA7C AAB0 AAB2-AAB4 AAB7-AAB8 AABE-AABF AAC1 AAEC-AAED AAF6 ABE5 ABE8 ABED FB1E
    FE00-FE0F FE20-FE2F FEFF FFF9-FFFB
"""
"""The code points of the Basic Multilingual Plane that draw nothing on their own: controls
(Cc, which the worker strips), format, space and combining-mark characters (Cf, Zs, Zl, Zp, Mn,
Me: :data:`workflows.contract._INVISIBLE_CATEGORIES`), as Unicode 14.0 has them (Python 3.11's
``unicodedata``), frozen so the schema does not move with the interpreter. Hex, ``A-B`` for a
range."""
WHITE_SPACE = "0009-000D 0020 0085 00A0 1680 2000-200A 2028 2029 202F 205F 3000"
"""Unicode's White_Space property: what the model strips from the ends of a label."""
RULES_LEFT_TO_THE_WORKER = (
    "a media key names the order's own gift_id and the ref's own id "
    "(orders/{gift_id}/photos/{id}.{ext}, orders/{gift_id}/clips/{id}.{ext})",
    "text is cleaned before its limits apply (control characters removed, line breaks and tabs "
    "folded to a space in single-line fields), so the worker may accept a name the schema's "
    "length limit refuses",
    "a name, relationship or feeling word that draws nothing: the schema refuses one made only "
    "of invisible characters of the Basic Multilingual Plane (Unicode 14.0); the worker also "
    "refuses invisible characters beyond it (tag characters U+E0000-U+E007F, combining marks "
    "of historic scripts) and of later Unicode versions",
)
"""The order rules JSON Schema cannot express, named in the order schema's description."""


def _char_class(ranges: str) -> str:
    """``"0300-036F 0483"`` as the body of a regex character class, ``\\u`` escapes only (the
    same in ECMA-262, Python and Rust regexes)."""
    parts = []
    for item in ranges.split():
        low, _, high = item.partition("-")
        parts.append(f"\\u{low}-\\u{high}" if high else f"\\u{low}")
    return "".join(parts)


VISIBLE_PATTERN = f"[^{_char_class(INVISIBLE_BMP)}]"
"""Found in text that draws at least one character (``pattern`` searches, unanchored)."""
NOT_BLANK_PATTERN = f"[^{_char_class(WHITE_SPACE)}]"
"""Found in text that is not only white space."""


def schema_of(name: str, model: type[BaseModel], media: MediaWords) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``model`` as its JSON travels."""
    if model is FilmOrder:
        schema = order_rules(model.model_json_schema(mode="validation"))
    elif model is FilmOutcome:
        schema = outcome_schema(media)
    else:
        schema = model.model_json_schema(mode="serialization")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": SCHEMA_BASE_ID + name, **schema}


def outcome_schema(media: MediaWords, ref_template: str = DEFAULT_REF_TEMPLATE
                   ) -> dict[str, Any]:
    """``FilmOutcome`` as its JSON travels: a field without a value left out (never null),
    ``film_url``'s keys, and each state's reasons (:mod:`workflows.reasons`)."""
    schema = FilmOutcome.model_json_schema(mode="serialization", ref_template=ref_template)
    properties = schema["properties"]
    for name, field in properties.items():
        if name not in schema["required"]:
            properties[name] = _never_null(field)
    properties["film_url"] = film_url_schema(media)
    schema["allOf"] = outcome_rules(media)
    return schema


def _never_null(field: dict[str, Any]) -> dict[str, Any]:
    """An optional field's schema without its null branch and its null default: the field is
    left out when it has no value."""
    branches = [branch for branch in field.get("anyOf", []) if branch.get("type") != "null"]
    rest = {key: value for key, value in field.items() if key not in ("anyOf", "default")}
    return {**branches[0], **rest} if len(branches) == 1 else rest


def _text(document: dict[str, Any], *, sort_keys: bool = True) -> str:
    """A generated file's exact text (sorted keys, two-space indent, final newline)."""
    return json.dumps(document, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n"


def order_rules(schema: dict[str, Any]) -> dict[str, Any]:
    """``FilmOrder``'s generated schema with the rules its validators check in code, where JSON
    Schema can say them (patterns and conditionals), and the others named in its description."""
    defs, props = schema["$defs"], schema["properties"]
    defs["VisibleText"] = {"type": "string", "pattern": VISIBLE_PATTERN,
                           "description": "Text that draws at least one character."}
    for field in (props["recipient_name"], props["relationship"], props["feeling_words"]["items"]):
        field["$ref"] = "#/$defs/VisibleText"
    for field in ("name", "short_name", "tone", "sub_type"):
        _string_of(defs["Occasion"]["properties"][field])["pattern"] = NOT_BLANK_PATTERN
    gift = props["gift_id"]["pattern"].removeprefix("^").removesuffix("$")
    photo_ids = _photo_ids(defs["PhotoRef"]["properties"]["id"]["pattern"])
    clip_ids = list(defs["ClipRef"]["properties"]["id"]["enum"])
    for ref, folder, ids in (("PhotoRef", keys.PHOTOS, photo_ids),
                             ("ClipRef", keys.CLIPS, clip_ids)):
        defs[ref]["properties"]["key"]["pattern"] = _key_pattern(gift, folder, ids)
        props[folder]["allOf"] = [{"type": "array", "contains": _with_id(i), "minContains": 0,
                                   "maxContains": 1} for i in ids]  # one ref per id
    _string_of(props["subject_photo_id"])["enum"] = photo_ids
    schema["allOf"] = [
        {"if": {"type": "object", "required": ["brand"],
                "properties": {"brand": {"type": "object"}}},
         "then": {"type": "object", "required": ["style"],
                  "properties": {"style": {"const": Style.BRAND.value}}}},
        *({"if": {"type": "object", "required": ["subject_photo_id"],
                  "properties": {"subject_photo_id": {"const": i}}},
           "then": {"type": "object",
                    "properties": {"photos": {"type": "array", "contains": _with_id(i)}}}}
          for i in photo_ids),
    ]
    schema["description"] += (
        " Rules the worker checks that this schema cannot express: "
        + "; ".join(RULES_LEFT_TO_THE_WORKER) + ".")
    return schema


def _string_of(field: dict[str, Any]) -> dict[str, Any]:
    """The string branch of a field's schema (``anyOf`` string or null), or the field's."""
    return next((b for b in field.get("anyOf", []) if b.get("type") == "string"), field)


def _photo_ids(pattern: str) -> list[str]:
    """Every photo id the PhotoRef id pattern admits (``p00``..``p99``)."""
    return [f"p{n:02d}" for n in range(100) if re.fullmatch(pattern, f"p{n:02d}")]


def _with_id(ref_id: str) -> dict[str, Any]:
    """A media ref with this id (every ref has an id: its own schema requires one)."""
    return {"type": "object", "properties": {"id": {"const": ref_id}}}


def _key_pattern(gift: str, folder: str, ids: list[str]) -> str:
    """A media key of any gift, this folder, one of these ids (which gift, and which id, the
    worker checks against the order)."""
    placeholder = keys.media_key("GIFT", folder, "SLOT", "EXT")
    slots = "(?:" + "|".join(ids) + ")" if len(ids) < 10 else "p[0-9]{2}"
    return "^" + re.escape(placeholder).replace("GIFT", gift).replace("SLOT", slots) \
        .replace("EXT", keys.MEDIA_EXT_PATTERN) + "$"


def rendered_schemas(media: MediaWords) -> dict[str, str]:
    """Each generated file's exact text: the schemas, ``names.json``, the callback's OpenAPI
    description (:mod:`workflows.names`) and the codec's test vectors."""
    outcome = outcome_schema(media, ref_template=names.OPENAPI_REF_TEMPLATE)
    return {**{name: _text(schema_of(name, model, media)) for name, model in MODELS.items()},
            names.NAMES_FILE: _text(names.names_document(media)),
            names.OPENAPI_FILE: _text(names.callback_openapi(outcome)),
            codec_vectors.VECTORS_FILE: _text(codec_vectors.vectors_document(), sort_keys=False)}


def write_schemas(media: MediaWords, directory: Path = SCHEMA_DIR) -> list[Path]:
    """Write the generated files into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in rendered_schemas(media).items():
        (directory / name).write_text(text, encoding="utf-8")
        written.append(directory / name)
    return written
