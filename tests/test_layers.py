"""The dependency direction between the rooms: media <- services <- activities <- app, and the
workflow side light (``workflows.film`` imports no media, service or activity code)."""

from __future__ import annotations

import ast
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
