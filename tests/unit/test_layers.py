"""autograder/'s parts import one way: each part imports only the parts below it.

The layers, from the bottom: the base (the top-level modules: the course's facts, the limits,
the lock, the records, the gradebook, reading a notebook), then sandbox, check, authoring,
grading, and on top deploy and cli. Imports inside functions count as much as those at the top
of a module: a lazy import back up is a cycle all the same. The modules of the base may import
each other, never in a circle. Below them all is `checks/`, the rules and the subject's harness
that students get with their workspace: it imports nothing of autograder, which they do not get.
"""

import ast
from pathlib import Path

import autograder

PACKAGE = Path(autograder.__file__).parent
LAYERS = ["base", "sandbox", "check", "authoring", "grading", "deploy", "cli"]


def part_of(module: str) -> str | None:
    """The layer of `autograder.x.y...` ("check"), or None for a module outside autograder."""
    bits = module.split(".")
    if bits[0] != "autograder" or len(bits) == 1:
        return None
    if (PACKAGE / bits[1]).is_dir() or bits[1] == "cli":
        return bits[1]
    return "base"


def imports(path: Path) -> set[str]:
    """Every autograder module that `path` imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names
                         if (PACKAGE.joinpath(*node.module.split(".")[1:], f"{alias.name}.py")).exists())
    return {name for name in found if name.startswith("autograder.")}


def module_name(path: Path) -> str:
    return ".".join(("autograder", *path.relative_to(PACKAGE).with_suffix("").parts))


def test_every_part_imports_only_the_parts_below_it():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = part_of(module_name(path))
        for name in sorted(imports(path)):
            target = part_of(name)
            if target is not None and LAYERS.index(target) > LAYERS.index(source):
                upward.append(f"{path.relative_to(PACKAGE.parent)} ({source}) imports {name} ({target})")
    assert not upward, "\n".join(upward)


def test_the_base_modules_import_each_other_in_no_circle():
    base = {module_name(p): p for p in PACKAGE.glob("*.py") if part_of(module_name(p)) == "base"}
    edges = {name: {i for i in imports(path) if i in base} for name, path in base.items()}
    seen, on_path = set(), []

    def visit(name):
        assert name not in on_path, " -> ".join([*on_path[on_path.index(name):], name])
        if name in seen:
            return
        on_path.append(name)
        for following in sorted(edges[name]):
            visit(following)
        on_path.pop()
        seen.add(name)

    for name in sorted(base):
        visit(name)


def test_the_check_finds_an_import_back_up():
    """The rule reads lazy imports: the check module that imported the grading part inside a
    function would be caught."""
    assert part_of("autograder.grading.records") == "grading"
    assert LAYERS.index(part_of("autograder.grading.grade")) > LAYERS.index(part_of("autograder.check.driver"))
    assert "autograder.check.behaviour" in imports(PACKAGE / "authoring" / "notebooks.py"), \
        "notebooks.py's imports inside functions are read"


def test_the_checks_students_get_import_nothing_of_autograder():
    checks = PACKAGE.parent / "checks"
    found = [f"{path.relative_to(checks.parent)} imports {name}"
             for path in sorted(checks.rglob("*.py")) for name in sorted(imports(path))]
    assert not found, "\n".join(found)
