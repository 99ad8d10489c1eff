"""axe-core, the engine behind browsers' own accessibility audits, run on a page open in Chromium.

`audit(page)` injects axe-core (as PyPI's axe-playwright-python ships it) into a Playwright page
and returns what breaks the bar this project holds every page it writes to: a WCAG 2.1 A or AA
rule (axe's tags wcag2a, wcag2aa, wcag21a, wcag21aa) broken with a serious or critical impact,
and, at any impact, the structure rules the lectures are held to (`STRUCTURE`: headings in order,
one h1, every image with alt text, links and headings that say something, tables with headers),
some of which axe files as best practice rather than WCAG. `tally` counts them by rule, and
`explain` says each one as a person fixing it needs it: the rule, how often, where.
"""

from collections import Counter

WCAG = frozenset({"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"})
SERIOUS = frozenset({"serious", "critical"})
STRUCTURE = frozenset({"heading-order", "page-has-heading-one", "empty-heading", "image-alt",
                       "link-name", "th-has-data-cells", "td-has-header", "empty-table-header",
                       "scope-attr-valid", "document-title", "html-has-lang"})


def audit(page) -> list[dict]:
    """axe-core's violations on `page` (as loaded now) that this project counts as failures."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
    return [v for v in found if counts(v)]


def counts(violation: dict) -> bool:
    """Whether an axe-core violation breaks our bar (see the module's docstring)."""
    return (bool(WCAG & set(violation.get("tags", ()))) and violation.get("impact") in SERIOUS
            or violation.get("id") in STRUCTURE)


def tally(violations: list[dict]) -> Counter:
    """Rule id -> the number of elements that break it."""
    return Counter({v["id"]: len(v["nodes"]) for v in violations})


def explain(violations: list[dict], limit: int = 3) -> str:
    """One line per rule broken: id, impact, count, the rule in words, the first few elements."""
    lines = []
    for v in violations:
        where = "; ".join(" ".join(map(str, n.get("target", ()))) + ": " + n.get("html", "")[:100]
                          for n in v["nodes"][:limit])
        lines.append(f"{v['id']} ({v.get('impact')}) x{len(v['nodes'])}: {v.get('help', '')}. {where}")
    return "\n".join(lines)
