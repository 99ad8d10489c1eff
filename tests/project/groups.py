"""Tests that must share one pytest-xdist worker, which `./run tests` runs the suite with
(`-n 4 --dist loadgroup`): those that read the class the slow tests share (graded once per
worker that asks for it, so once), and the browser tests (one folder of screenshots a run).

pytest-xdist 3.8 keeps a group together by renaming each of its tests `nodeid@group`, through an
attribute that pytest 9.2 no longer reads; `rename` does it through the one pytest reads, and
stops the run in one sentence if neither works, rather than let a group spread over the workers.
"""

import pytest


def mark(items, group: str, belongs) -> None:
    """Put every item for which `belongs(item)` is true in `group`."""
    for item in items:
        if belongs(item):
            item.add_marker(pytest.mark.xdist_group(group))


def rename(config, items) -> None:
    """In an xdist worker grouping by marks (--dist loadgroup), give each grouped item the
    `@group` suffix the scheduler reads its group from."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(names)
        if not names or item.nodeid.endswith(suffix):
            continue
        from _pytest.nodeid import NodeId  # pytest >= 9.2: the structured id nodeid is read from

        item._id = NodeId.parse(item.nodeid + suffix)
        if not item.nodeid.endswith(suffix):
            raise pytest.UsageError(f"cannot put {item.nodeid} in its pytest-xdist group on this pytest; "
                                    "run the tests without -n")
