"""The package layout reads as the pipeline: no import cycle, no import from a lower stage to a
higher one, and a top level that holds only the stage packages and a few shared modules.

Every import of every module under src/tersh counts, wherever it sits: module-level, inside a
function, under ``if TYPE_CHECKING``, and the literal names given to ``__import__``,
``importlib.import_module`` and ``sys.modules`` (an f-string name counts as every module whose
name starts with its literal prefix: ``f"tersh.commands.{name}"`` may load any command).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import tersh

PACKAGE = Path(tersh.__file__).parent

#: Stage order, lower to higher. A module may import its own stage and any lower one.
#: Stages that share a rank (hosts and tools, mcp and ui) stand side by side.
STAGES = {
    "_startup": 0,
    "command": 1,
    "compaction": 2,
    "recording": 3,
    "retrieval": 4,
    "execution": 5,
    "hosts": 6,
    "tools": 6,
    "mcp": 7,
    "ui": 7,
    "commands": 8,
}
#: Top-level modules shared by every stage (rank 0), and the entry points above every stage.
SHARED = {"settings", "errors", "fsutil", "result", "session", "tokens", "entry"}
#: Shared modules big enough to be packages of their own (still rank 0).
SHARED_PACKAGES = {"tokens"}
ENTRY_POINTS = {"cli", "__main__", "__init__"}
TOP_RANK = max(STAGES.values()) + 1

def module_name(path: Path) -> str:
    """``tersh.a.b`` for src/tersh/a/b.py, ``tersh.a`` for src/tersh/a/__init__.py."""
    parts = ["tersh", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _literal_names(node: ast.expr) -> tuple[str, bool] | None:
    """A module name given as a literal (name, False), or the literal prefix of an f-string
    (prefix, True); None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, False
    if isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        if isinstance(head, ast.Constant) and isinstance(head.value, str):
            return head.value, True
    return None


def _is_sys_modules(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "modules"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _dynamic_name(node: ast.AST) -> tuple[str, bool] | None:
    """The module a ``__import__``, ``importlib.import_module`` or ``sys.modules`` use names."""
    if isinstance(node, ast.Subscript) and _is_sys_modules(node.value):
        return _literal_names(node.slice)
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    named = (
        (isinstance(func, ast.Name) and func.id in {"__import__", "import_module"})
        or (isinstance(func, ast.Attribute) and func.attr == "import_module")
        or (isinstance(func, ast.Attribute) and func.attr == "get" and _is_sys_modules(func.value))
    )
    return _literal_names(node.args[0]) if named else None


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The absolute name a relative ``from`` import names."""
    if not level:
        return module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def imported_names(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """The modules of the package that ``name`` (at ``path``) imports, anywhere in its body."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _target(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(name, is_package, node.level, node.module)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                yield from _target(submodule if submodule in known else source, known)
        elif (dynamic := _dynamic_name(node)) is not None:
            target, is_prefix = dynamic
            if is_prefix:
                yield from (module for module in known if module.startswith(target))
            else:
                yield from _target(target, known)


def _target(target: str, known: set[str]) -> Iterator[str]:
    """``target``, or its nearest enclosing package, when it is a module of tersh."""
    parts = target.split(".")
    while parts and parts[0] == "tersh":
        candidate = ".".join(parts)
        if candidate in known:
            yield candidate
            return
        parts.pop()


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (itself left out)."""
    modules = all_modules()
    known = set(modules)
    return {name: set(imported_names(name, path, known)) - {name} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Every strongly connected component of more than one module (Tarjan): the modules that
    import each other, directly or through the others."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(start: str) -> None:  # iterative: the graph is deep enough to matter
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted((frozenset(component) for component in components), key=sorted)


def _cycle_through(component: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path from the component's first module back to itself (breadth first)."""
    first = min(component)
    previous: dict[str, str] = {}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & component):
                if successor == first:
                    path = [node]
                    while path[-1] != first:
                        path.append(previous[path[-1]])
                    return [*reversed(path), first]
                if successor not in previous:
                    previous[successor] = node
                    following.append(successor)
        frontier = following
    raise AssertionError(f"no cycle through {sorted(component)}")


def stage(module: str) -> int:
    """The rank of ``module`` in the stage order."""
    parts = module.split(".")
    if len(parts) == 1:
        return TOP_RANK  # tersh itself: the library API, which reaches every stage
    head = parts[1]
    if head in STAGES:
        return STAGES[head]
    if head in SHARED:
        return 0
    if head in ENTRY_POINTS:
        return TOP_RANK
    raise AssertionError(f"{module} belongs to no stage")


def test_no_import_cycle() -> None:
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(
        f"{' -> '.join(_cycle_through(component, graph))}  (all of {sorted(component)})"
        for component in found
    )


def test_no_import_from_a_lower_stage_to_a_higher_one() -> None:
    upward = [
        f"{importer} ({stage(importer)}) imports {target} ({stage(target)})"
        for importer, targets in sorted(import_graph().items())
        for target in sorted(targets)
        if stage(target) > stage(importer)
    ]
    assert not upward, "imports against the stage order:\n" + "\n".join(upward)


def test_the_top_level_holds_only_the_stage_packages_and_the_shared_modules() -> None:
    allowed_modules = {f"{name}.py" for name in SHARED | ENTRY_POINTS}
    found_modules = {path.name for path in PACKAGE.glob("*.py")}
    found_packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert found_modules <= allowed_modules, sorted(found_modules - allowed_modules)
    allowed_packages = set(STAGES) | SHARED_PACKAGES
    assert found_packages == allowed_packages, sorted(found_packages ^ allowed_packages)


def test_the_graph_sees_lazy_and_dynamic_imports() -> None:
    """The walker itself: imports inside functions and by name are edges too."""
    graph = import_graph()
    assert "tersh.commands.run" in graph["tersh.cli"]  # f"tersh.commands.{module}"
    assert any(module.startswith("tersh.compaction.rules.") for module in graph["tersh.compaction"])
    assert "tersh.execution.pipeline" in graph["tersh"]  # lazy, inside __getattr__
    toy = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"a"}}
    assert cycles(toy) == [frozenset("abc")]
    assert _cycle_through(frozenset("abc"), toy) == ["a", "b", "a"]
