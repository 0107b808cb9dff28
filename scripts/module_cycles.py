#!/usr/bin/env python3
"""The module graph of a crate, from its `crate::` paths, and the cycles in it.

Each file under SRC is a module (`src/az/agent.rs` is `az::agent`, `src/az/mod.rs` is `az`).
Every `crate::a::b` or `super::a::b` path in a file (its tests, from `#[cfg(test)]` on, left
out), in a `use` line or inline in the code, is an edge to the longest module it names
(`crate::az::agent::AzAgent` is an edge to `az::agent`). A parent's edges to its own children
(`mod.rs` declaring and re-exporting them) are not counted. The script prints the edges, then
every cycle (a strongly connected set of two or more modules), and exits 1 when there is one.

    scripts/module_cycles.py agents/src
"""

import re
import sys
from pathlib import Path


def module_of(src: Path, file: Path) -> str:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return "::".join(parts)


def paths_in(text: str, module: str) -> list[str]:
    """The module paths named after `crate::` or `super::` (resolved from `module`), with
    `use crate::{a, b::c}` groups expanded."""
    text = text.split("#[cfg(test)]")[0]
    text = re.sub(r"//[^\n]*", "", text)
    found = []
    name = r"[A-Za-z_][A-Za-z0-9_]*"
    for m in re.finditer(rf"\b((?:crate|(?:super::)*super))::((?:{name}::)*)\{{([^;]*)\}};", text):
        found += [m.group(1) + "::" + m.group(2) + p.strip() for p in re.split(r"[,{}]", m.group(3)) if p.strip()]
    for m in re.finditer(rf"\b((?:crate|(?:super::)*super))::({name}(?:::{name})*)", text):
        found.append(m.group(1) + "::" + m.group(2))
    resolved = []
    for path in found:
        parts = path.split("::")
        base = [] if parts[0] == "crate" else module.split("::") if module else []
        while parts and parts[0] in ("crate", "super"):
            if parts.pop(0) == "super":
                base = base[:-1]
        resolved.append("::".join(base + parts))
    return resolved


def main(src: Path) -> int:
    files = sorted(src.rglob("*.rs"))
    modules = {module_of(src, f): f for f in files}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, file in modules.items():
        for path in paths_in(file.read_text(), module):
            parts = path.split("::")
            target = next(
                (
                    "::".join(parts[:k])
                    for k in range(len(parts), 0, -1)
                    if "::".join(parts[:k]) in modules
                ),
                "",
            )
            related = target.startswith(module + "::") or module.startswith(target + "::")
            if target and target != module and not (related and module in ("", target.rsplit("::", 1)[0])):
                edges[module].add(target)
    for module in sorted(edges):
        if edges[module]:
            print(f"{module or 'lib'} -> {', '.join(sorted(edges[module]))}")
    cycles = strongly_connected(edges)
    for cycle in cycles:
        print("cycle:", " <-> ".join(sorted(cycle)))
    if not cycles:
        print("no cycles")
    return 1 if cycles else 0


def strongly_connected(edges: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm; only the sets of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "agents/src")))
