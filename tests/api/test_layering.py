"""The package's layering, read from the source: no command imports another command, the API builds no argparse
namespace and imports no command, and ``import sabounds`` lists the API in ``__all__``."""

import ast
from pathlib import Path

import sabounds

PACKAGE = Path(sabounds.__file__).parent


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (top level or inside functions), as dotted names."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def test_no_command_imports_another_command():
    commands = sorted((PACKAGE / "commands").glob("*.py"))
    assert len(commands) >= 10
    for path in commands:
        others = {f"sabounds.commands.{p.stem}" for p in commands if p != path and p.stem != "__init__"}
        assert not _imports(path) & others, f"{path.name} imports {sorted(_imports(path) & others)}"


def test_the_library_imports_no_command_and_builds_no_namespace():
    library = [p for p in PACKAGE.rglob("*.py") if "commands" not in p.parts and p.name not in ("cli.py", "arguments.py")]
    assert any(p.parent.name == "api" for p in library)
    for path in library:
        assert not any(m.startswith("sabounds.commands") for m in _imports(path)), path
    for path in (PACKAGE / "api").glob("*.py"):
        assert "Namespace" not in path.read_text(encoding="utf-8") and "argparse" not in _imports(path), path


def test_commands_are_thin():
    for path in (PACKAGE / "commands").glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 120, path.name


def test_the_public_api_is_listed_and_resolves():
    for name in ("analyze", "verify", "regimes", "conjecture", "bound", "derivation", "sweep", "report", "study",
                 "default_model", "InputError"):
        assert name in sabounds.__all__
        assert getattr(sabounds, name) is getattr(sabounds.api, name)
    assert issubclass(sabounds.InputError, ValueError)
