"""axe-core, the engine behind browsers' own accessibility audits, run on a page open in Chromium.

`audit(page)` injects axe-core (as PyPI's axe-playwright-python ships it) into a Playwright page
and returns what breaks the bar this project holds every page it writes to: a WCAG 2.1 A or AA
rule (axe's tags wcag2a, wcag2aa, wcag21a, wcag21aa) broken with a serious or critical impact,
and, at any impact, the structure rules the lectures are held to (`STRUCTURE`: headings in order,
one h1, every image with alt text, links and headings that say something, tables with headers),
some of which axe files as best practice rather than WCAG. `tally` counts them by rule, and
`explain` says each one as a person fixing it needs it: the rule, how often, where. `reading`
checks what axe leaves to a person, on the lectures: heading levels that never skip one, links
whose words say where they go. `chromium` opens Debian's Chromium for tests outside
tests/browser/ (those that read the shared graded class).
"""

import contextlib
import re
from collections import Counter

WCAG = frozenset({"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"})
SERIOUS = frozenset({"serious", "critical"})
STRUCTURE = frozenset({"heading-order", "page-has-heading-one", "empty-heading", "image-alt",
                       "link-name", "th-has-data-cells", "td-has-header", "empty-table-header",
                       "scope-attr-valid", "document-title", "html-has-lang"})


def audit(page, within: str | None = None) -> list[dict]:
    """axe-core's violations on `page` (as loaded now; only in the elements CSS selector `within`
    matches, if given) that this project counts as failures."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, context=within, options={"resultTypes": ["violations"]}).response["violations"]
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


VAGUE = re.compile(r"^(here|click here|this|link|more|read more|this page|page|\W*)$", re.I)


def reading(page) -> list[str]:
    """What a reader of the page would stumble on that axe does not flag: a heading level skipped
    (an h2 followed by an h4), a link whose words do not say where it goes ("here", "link")."""
    found = []
    levels = page.eval_on_selector_all("main h1, main h2, main h3, main h4, main h5, main h6",
                                       "els => els.map(e => Number(e.tagName[1]))")
    for before, after in zip([0, *levels], levels):
        if after > before + 1:
            found.append(f"heading h{after} follows h{before or '(none)'}")
    for text in page.eval_on_selector_all("main a[href]:not(.anchor)", "els => els.map(e => e.textContent.trim())"):
        if VAGUE.match(text):
            found.append(f"a link says only {text!r}")
    return found


@contextlib.contextmanager
def chromium():
    """A Chromium page, 1400x1000 (skipped locally, failed under CI, when Chromium or Playwright is
    missing, as tests/browser/conftest.py does)."""
    from tests.browser.conftest import CHROMIUM_FLAGS, _missing, chromium_path

    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        _missing(f"Playwright is not installed ({exc})")
    path = chromium_path()
    if path is None:
        _missing("Chromium is not installed (no /usr/bin/chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 1000})
        finally:
            browser.close()
