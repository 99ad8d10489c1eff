"""The lectures as a website (`nano-course site`): built from the release, read in Chromium.

The site is built, as an instructor would, from a freshly built course. No page may show what
the release keeps back (a line of the reference solution, of a hidden test, or an answer of
lecture 01's questions), which is checked on each page's text, as test_release checks the
release. Then each page is opened in Chromium: it renders with no script error, every link to
another page or anchor of the site resolves, each lecture page says how to run it in JupyterLab,
and search finds a section. Every page meets WCAG 2.1 AA as axe-core checks it, in a wide window
and a phone's, with its headings in order and its links saying where they go. Screenshots of
lectures 01 and 05 and of the trace page go to build/screenshots/site/.
"""

import html
import re
from pathlib import Path

import pytest

from autograder import cli
from autograder.authoring import notebooks, release
from autograder.deploy import site
from tests.browser import axe
from tests.browser.conftest import CHROMIUM_FLAGS
from tests.browser.test_jupyterlab import expect
from tests.project.test_release import code_lines, solution_lines

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = release.ROOT
LECTURES = sorted(p.name for p in (ROOT / "lectures").glob("[0-9][0-9]-*.ipynb"))


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    course = tmp_path_factory.mktemp("site-course") / "course"
    release.build_course(course)
    out = tmp_path_factory.mktemp("site") / "site"
    assert cli.main(["site", "--course", str(course), "--out", str(out)]) == 0
    return out


def text_of(page: Path) -> str:
    """What a reader sees of a page: its text, tags stripped (pygments splits code into spans)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def kept_back() -> set[str]:
    """Lines the release keeps back: reference solutions, hidden tests, and the answers written in
    the instructor's solution cells (lecture 01's questions among them)."""
    secret, shown = set(), set()
    for name in LECTURES:
        for cell in notebooks.load(ROOT / "lectures" / name).cells:
            text = cell.source
            while release.BEGIN in text:  # answers are short (answer_q1 = 3): every line counts
                before, rest = text.split(release.BEGIN, 1)
                part, text = rest.split(release.END, 1)
                secret |= {line.strip() for line in part.splitlines() if not line.strip().startswith("#")}
                text = before + text
            while "### BEGIN HIDDEN TESTS" in text:
                before, rest = text.split("### BEGIN HIDDEN TESTS", 1)
                part, text = rest.split("### END HIDDEN TESTS", 1)
                secret |= code_lines(part)
                text = before + text
            shown |= {line.strip() for line in text.splitlines()}
    # A line the release shows anyway (a hint in the prose quotes one, as test_release allows) is no secret.
    return {line for line in (secret | solution_lines()) - shown if line}


def test_site_shows_nothing_the_release_keeps_back(built_site):
    pages = sorted(built_site.glob("*.html"))
    assert {p.name for p in pages} >= {"index.html", site.TRACE_PAGE_FILE} and len(pages) == len(LECTURES) + 2
    secrets = {line for line in kept_back() if len(line) >= 12}
    answers = [line for line in secrets if line.startswith("answer_")]
    assert len(secrets) > 50 and answers, "the instructor's notebooks hold hidden tests and answers"
    for page in pages:
        text = text_of(page)
        leaked = sorted(line for line in secrets if line in text)
        assert not leaked, f"{page.name} shows what the release keeps back: {leaked[:3]}"
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
    every = "".join(text_of(p) for p in pages)
    assert "def agent_loop" in every and "raise NotImplementedError" in every, "the stubs, as released"
    for setup in ("%load_ext autoreload", "ROOT = next(", "os.chdir(ROOT)"):
        assert setup not in every, f"a page opens with the notebook's set-up code ({setup})"


def test_each_page_renders_and_its_links_resolve(built_site, chromium_executable, screenshot_root):
    from playwright.sync_api import sync_playwright

    shots = screenshot_root / "site"
    shots.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable, headless=True,
                                             args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            ids: dict[str, set[str]] = {}
            links: dict[str, list[str]] = {}
            for path in sorted(built_site.glob("*.html")):
                page.goto(path.as_uri())
                expect(page.locator("main h1")).to_be_visible()
                expect(page.locator("nav .toc a")).to_have_count(len(LECTURES) + 2)
                ids[path.name] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
                links[path.name] = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
                notebook = next((n for n in LECTURES if site_page(n) == path.name), None)
                if notebook:
                    run = page.locator("p.run-it")
                    expect(run).to_contain_text("Run this lecture in JupyterLab")
                    expect(run).to_contain_text(notebook)
                    expect(page.locator(".code-cell .highlight").first).to_be_visible()
                if notebook and notebook[:2] in ("01", "05"):
                    page.screenshot(path=str(shots / f"lecture-{notebook[:2]}.png"))
            page.goto((built_site / site.TRACE_PAGE_FILE).as_uri())
            expect(page.locator("main")).to_contain_text("toolu_01B")
            page.screenshot(path=str(shots / "celsius-trace.png"))
            assert not errors, errors

            internal = 0
            for source, hrefs in links.items():
                for href in hrefs:
                    if re.match(r"^[a-z]+:", href):
                        continue  # the web: not reachable from here, and not the site's to resolve
                    target, _, anchor = href.partition("#")
                    target = target or source
                    assert target in ids, f"{source} links to {href}, which the site does not have"
                    assert not anchor or anchor in ids[target], f"{source} links to {href}: no such anchor"
                    internal += 1
            assert internal > 100

            page.goto((built_site / "index.html").as_uri())
            page.locator("#search").click()
            page.keyboard.type("max_turns")
            found = page.locator("#results a", has_text="agent loop")
            expect(found.first).to_be_visible()
            found.first.click()
            expect(page.locator("main h1")).to_contain_text("The agent loop")
        finally:
            browser.close()


def test_every_page_meets_wcag_aa_in_a_wide_and_a_narrow_window(built_site, chromium_executable):
    """axe-core finds no serious or critical WCAG 2.1 A/AA violation and nothing of `axe.STRUCTURE`
    on any page, at 1400 and at 375 pixels wide (where the code must wrap, not scroll); no
    heading skips a level and no link says only "here"; the code blocks and the navigation are
    reached by the keyboard, since nothing scrolls sideways."""
    from playwright.sync_api import sync_playwright

    pages = sorted(built_site.glob("*.html"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable, headless=True,
                                             args=CHROMIUM_FLAGS)
        try:
            for width in (1400, 375):
                page = browser.new_page(viewport={"width": width, "height": 900})
                for path in pages:
                    page.goto(path.as_uri())
                    found = axe.audit(page)
                    assert not found, f"{path.name} at {width} px:\n{axe.explain(found)}"
                    assert not axe.reading(page), f"{path.name}: {axe.reading(page)}"
                    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
                        f"{path.name} scrolls sideways at {width} px"
                page.close()
        finally:
            browser.close()


def site_page(notebook: str) -> str:
    """The page mystmd gives a notebook: its slug, the name without the number."""
    return notebook[3:].removesuffix(".ipynb") + ".html"
