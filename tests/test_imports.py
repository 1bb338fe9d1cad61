"""The package's import graph: no module imports a module that imports it back, even inside a function
(``if TYPE_CHECKING`` blocks, which never run, aside), and no longer cycle among module-level imports."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules(src: Path = SRC) -> dict[str, Path]:
    out = {}
    for f in (src / "mtsig").rglob("*.py"):
        parts = list(f.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for b in node.body for n in ast.walk(b)}
    return skip


def _imports(name: str, path: Path, mods: dict[str, Path], top_only: bool) -> set[str]:
    """The package modules ``name`` imports (``from pkg import mod`` counts as importing ``pkg.mod``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    nodes = tree.body if top_only else ast.walk(tree)
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in nodes:
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                p = pkg.split(".")
                base = ".".join(p[: len(p) - node.level + 1] + ([base] if base else []))
            subs = [f"{base}.{a.name}" for a in node.names]
            out |= {s for s in subs if s in mods} or {base}
            if any(s not in mods for s in subs):
                out.add(base)
    return {m for m in out if m in mods and m != name}


def test_no_module_imports_a_module_that_imports_it_back():
    mods = _modules()
    graph = {m: _imports(m, f, mods, top_only=False) for m, f in mods.items()}
    loops = sorted((a, b) for a in graph for b in graph[a] if a < b and a in graph[b])
    assert loops == []


def test_no_cycle_among_module_level_imports():
    mods = _modules()
    graph = {m: _imports(m, f, mods, top_only=True) for m, f in mods.items()}
    state: dict[str, int] = {}
    found = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                found.append(stack[stack.index(n) :] + [n])
            elif n not in state:
                visit(n, [*stack, n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert found == []


def test_the_checker_sees_a_loop(tmp_path):
    """The checker is not blind: two modules importing each other inside functions are reported."""
    pkg = tmp_path / "mtsig"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from mtsig import b\n")
    (pkg / "b.py").write_text("def g():\n    from mtsig.a import f\n")
    mods = _modules(tmp_path)
    graph = {m: _imports(m, f, mods, top_only=False) for m, f in mods.items()}
    assert graph["mtsig.a"] == {"mtsig.b"} and graph["mtsig.b"] == {"mtsig.a"}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of a graph (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on, stack, out = set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def test_strongly_connected_components_finds_a_three_module_cycle():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(map(tuple, strongly_connected(g))) == [("a", "b", "c"), ("d",)]


def test_no_cycle_of_any_length_even_through_function_level_imports():
    """No strongly connected component of more than one module in the graph of every import (function-level
    ones included): ``results -> report.render -> stats.paired -> results`` was one."""
    mods = _modules()
    graph = {m: _imports(m, f, mods, top_only=False) for m, f in mods.items()}
    assert [c for c in strongly_connected(graph) if len(c) > 1] == []


def _all_imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """Every package module ``name`` imports, at any level, ``TYPE_CHECKING`` blocks included, and for each the
    packages its import runs first (importing ``a.b.c`` runs ``a/__init__`` and ``a.b/__init__``), except the
    importer's own packages (a package's ``__init__`` importing its submodules is how packages are built)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    direct = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            direct |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                p = pkg.split(".")
                base = ".".join(p[: len(p) - node.level + 1] + ([base] if base else []))
            subs = {f"{base}.{a.name}" for a in node.names}
            direct |= {s for s in subs if s in mods} | {base}
    own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    out = set()
    for m in direct:
        parts = m.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return {m for m in out if m in mods and m != name and m not in own and m != "mtsig"}


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_cycle_counting_packages_run_first_and_type_checking_imports():
    """Issue 46: importing a submodule runs its package's ``__init__`` first, so a domain package that imports
    ``report`` to register its formats, while ``report`` imports the domain's results, is a cycle at run time; so is
    one hidden under ``TYPE_CHECKING``. No strongly connected component of more than one module."""
    mods = _modules()
    graph = {m: _all_imports(m, f, mods) for m, f in mods.items()}
    big = [c for c in _components(graph) if len(c) > 1]
    assert big == []
