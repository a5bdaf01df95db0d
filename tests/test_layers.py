"""The dependency direction between the rooms: media <- services <- activities <- app, the
workflow side light (``workflows.film`` imports no media, service or activity code), the rooms
inside media/ in one direction, each reached only through what its ``__init__`` names, no
import cycle anywhere in the product, and no test module imported by another module of tests/."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "media": ("workflows", "activities", "services", "app", "temporalio"),
    "services": ("activities", "app", "workflows.film"),
    "activities": ("app", "workflows.film"),
    "workflows": ("media", "services", "activities", "app"),
}


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_nothing_from_the_rooms_above_it(package: str) -> None:
    wrong = {f"{path.relative_to(REPO)}: {module}"
             for path in (REPO / package).rglob("*.py")
             for module in imported_modules(path)
             if any(module == banned or module.startswith(f"{banned}.")
                    for banned in FORBIDDEN[package])}
    assert sorted(wrong) == []


# Which rooms of media/ each room may import (besides its own modules).
MEDIA_ROOMS: dict[str, set[str]] = {
    "base": set(),
    "design": set(),
    "analysis": {"base"},
    "intake": {"base", "analysis"},
    "cards": {"base", "design"},
    "plan": {"base", "analysis", "cards", "design"},
    "song": {"base", "plan", "design"},
    "frames": {"base", "analysis", "plan", "cards", "design"},
    "deliver": {"base", "analysis", "plan", "cards", "song", "frames", "design"},
}
PRODUCT = ("media", "services", "activities", "workflows", "app")


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _media_module(imported: str) -> tuple[str, str] | None:
    """(room, module) when ``imported`` names a module of a room of media/ (or a name in one)."""
    parts = imported.split(".")
    if len(parts) < 3 or parts[0] != "media" or parts[1] not in MEDIA_ROOMS:
        return None
    return parts[1], parts[2]


def _public_modules(room: str) -> set[str]:
    """The modules ``media/{room}/__init__.py`` names in ``__all__`` (read, not imported)."""
    tree = ast.parse((REPO / "media" / room / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def _imports_with_names(path: Path) -> set[str]:
    """Modules ``path`` imports, and ``module.name`` for each name taken from a module."""
    found = set(imported_modules(path))
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_every_room_of_media_is_named_in_the_rules() -> None:
    rooms = {p.name for p in (REPO / "media").iterdir() if (p / "__init__.py").exists()}
    assert rooms == set(MEDIA_ROOMS)
    assert not [p.name for p in (REPO / "media").glob("*.py") if p.name != "__init__.py"]


@pytest.mark.parametrize("room", sorted(MEDIA_ROOMS))
def test_a_media_room_imports_only_the_rooms_below_it_through_their_public_modules(
        room: str) -> None:
    wrong = set()
    for path in (REPO / "media" / room).glob("*.py"):
        for imported in _imports_with_names(path):
            target = _media_module(imported)
            if target is None or target[0] == room:
                continue
            other, module = target
            if other not in MEDIA_ROOMS[room]:
                wrong.add(f"{path.relative_to(REPO)}: {imported} (room {other} not allowed)")
            elif module not in _public_modules(other):
                wrong.add(f"{path.relative_to(REPO)}: {imported} (not public in {other})")
    assert sorted(wrong) == []


@pytest.mark.parametrize("package", ["services", "activities", "workflows", "app", "bench"])
def test_code_outside_media_uses_only_the_public_modules_of_its_rooms(package: str) -> None:
    wrong = {f"{path.relative_to(REPO)}: {imported}"
             for path in (REPO / package).rglob("*.py")
             for imported in _imports_with_names(path)
             if (target := _media_module(imported)) and target[1] not in _public_modules(target[0])}
    assert sorted(wrong) == []


def test_the_product_has_no_import_cycle() -> None:
    paths = [p for package in PRODUCT for p in (REPO / package).rglob("*.py")]
    names = {_module_name(p) for p in paths}
    graph = {_module_name(p): {m for m in _imports_with_names(p) if m in names}
             for p in paths}
    for module, imported in graph.items():  # a package's __init__ is not an edge of its own
        imported.discard(module)
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError naming the cycle


def test_no_module_under_tests_imports_a_test_module() -> None:
    """What test modules share lives in tests/helpers.py (or the servers beside it)."""
    wrong = {f"{path.relative_to(REPO)}: {imported}"
             for path in (REPO / "tests").rglob("*.py")
             for imported in _imports_with_names(path)
             if imported.split(".")[0] == "tests"
             and any(part.startswith("test_") for part in imported.split(".")[1:])}
    assert sorted(wrong) == []
