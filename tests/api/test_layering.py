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
    library = [
        p for p in PACKAGE.rglob("*.py") if "commands" not in p.parts and p.name not in ("cli.py", "arguments.py")
    ]
    assert any(p.parent.name == "api" for p in library)
    for path in library:
        assert not any(m.startswith("sabounds.commands") for m in _imports(path)), path
    for path in (PACKAGE / "api").glob("*.py"):
        assert "Namespace" not in path.read_text(encoding="utf-8") and "argparse" not in _imports(path), path


def test_commands_are_thin():
    for path in (PACKAGE / "commands").glob("*.py"):  # lines as ruff formats them: an option takes up to 7
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 140, path.name


def test_the_public_api_is_listed_and_resolves():
    for name in (
        "analyze",
        "verify",
        "regimes",
        "conjecture",
        "bound",
        "derivation",
        "sweep",
        "report",
        "study",
        "default_model",
        "InputError",
    ):
        assert name in sabounds.__all__
        assert getattr(sabounds, name) is getattr(sabounds.api, name)
    assert issubclass(sabounds.InputError, ValueError)


# Every package folder of the repository and the module name it installs under (pyproject.toml's package-dir).
ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {
    "sabounds": "sabounds",
    "theory": "sabounds.theory",
    "numerics": "sabounds.numerics",
    "proofs_check": "sabounds.proofs_check",
}
# What each internal layer may import of the others (top-level helpers such as sabounds.errors are always allowed).
MAY_IMPORT = {
    "theory": set(),
    "numerics": {"theory"},
    "proofs_check": {"theory", "numerics"},
    "render": {"theory", "numerics", "proofs_check", "training_study"},
    "training_study": {"numerics"},
    "outputs": {"numerics", "render", "training_study"},
    "full_report": {"theory", "numerics", "proofs_check", "render", "outputs"},
}
COMMANDS_MAY_IMPORT = {"api", "render", "outputs"}
GROUPS = {"theory", "numerics", "proofs_check", "api", "commands", "render", "outputs", "full_report", "training_study"}
# Module cycles inside one layer, there before the guard: to be removed, never added to.
KNOWN_CYCLES = [
    {"sabounds.theory.architecture", "sabounds.theory.extensions", "sabounds.theory.family_architectures"},
    {"sabounds.proofs_check.derivations", "sabounds.proofs_check.registry"},
    {"sabounds.numerics.checkpoints.storage_info", "sabounds.numerics.proxies.storage_rank"},
    {"sabounds.numerics.bound.family", "sabounds.numerics.bound.slots"},
]


def _modules() -> dict[str, Path]:
    found = {}
    for folder, name in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            found[".".join([name, *parts])] = path
    return found


def _run_time_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules ``path`` imports at run time (anywhere but under ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for child in node.body
        for n in ast.walk(child)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sabounds"):
            found |= {
                f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module for a in node.names
            }
    return found & set(modules)


def _group(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in GROUPS else "top"


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _run_time_imports(p, modules) - {m} for m, p in modules.items()}


def test_the_guard_reads_every_package_folder():
    groups = {_group(m) for m in _graph()}
    assert GROUPS | {"top"} == groups


def test_each_layer_imports_only_the_layers_below_it():
    for module, imported in _graph().items():
        group = _group(module)
        allowed = MAY_IMPORT.get(group)
        if allowed is None:
            continue
        wrong = sorted(t for t in imported if _group(t) not in allowed | {group, "top"})
        assert not wrong, f"{module} imports {wrong}"
        # below the API nothing imports the API, a command or the package's own __init__ (the old cycle)
        assert "sabounds" not in imported, module


def test_commands_import_only_the_api_render_outputs_and_command_line_helpers():
    for module, imported in _graph().items():
        if _group(module) == "commands":
            wrong = sorted(
                t for t in imported if _group(t) not in COMMANDS_MAY_IMPORT | {"top", "commands"} and t != module
            )
            assert not wrong, f"{module} imports {wrong}"


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_between_layers_and_no_new_one_within():
    graph = _graph()
    layers: dict[str, set[str]] = {}
    for module, imported in graph.items():
        layers.setdefault(_group(module), set()).update(_group(t) for t in imported if _group(t) != _group(module))
    assert not _cycles({k: v - {"top"} for k, v in layers.items() if k != "top"}), layers
    new = [c for c in _cycles(graph) if c not in KNOWN_CYCLES]
    assert not new, new


def test_the_api_cycle_through_full_report_is_gone():
    graph = _graph()
    assert not any(_group(t) == "api" for t in graph["sabounds.full_report.compute"])
    assert "sabounds" not in graph["sabounds.full_report.sections"]
