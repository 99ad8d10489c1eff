"""The lectures as a static website: what `nano-course site` builds, from the student release.

Built from the release's notebooks, never from the instructor's sources, so that no solution,
hidden test or reference cell can reach a page (the release is checked for them first), and
without their set-up cell, which runs the notebook and teaches nothing (`_reading_version`).
mystmd (Jupyter Book 2's engine, from PyPI's `mystmd`, which runs on Node.js) reads the notebooks
and resolves the MyST: `myst build --site` writes each page as its MyST AST, with the site's table
of contents and search index. mystmd's own themes are web apps it downloads from the internet at
build time, so the pages are rendered here from that AST instead (`render`), with pygments for
code, a line on each lecture page saying how to run it in JupyterLab, a search box over mystmd's
index (search.js), and a page for the recorded Celsius session, drawn by the release's own
`nano.trace` (trace_page.py). The result is plain files: open index.html, or serve the folder.
"""

import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.authoring import notebooks as lectures, release

ASSETS = Path(__file__).with_name("site_assets")  # index.md, template.yml, style.css, search.js
TRACE_PAGE = "celsius-trace"
TRACE_PAGE_FILE = f"{TRACE_PAGE}.html"
MYST_TIMEOUT = 300


def myst_command() -> Path:
    """mystmd's `myst`, from this environment (pip's mystmd) or PATH (npm's)."""
    here = Path(sys.executable).parent / "myst"
    found = here if here.is_file() else shutil.which("myst")
    if not found:
        raise RuntimeError("mystmd is not installed: pip install -e '.[instructor]' in the course "
                           "repository (it needs Node.js 18 or newer)")
    if not shutil.which("node"):
        raise RuntimeError("mystmd runs on Node.js, which is not on PATH: install Node.js 18 or newer")
    return Path(found)


def build(course: Path, out: Path, echo=print) -> Path:
    """Build the site of `course`'s release into `out` (made anew); return `out`."""
    released = course / "release" / release.ASSIGNMENT
    release.check_release(released)
    notebooks = sorted(released.glob("[0-9][0-9]-*.ipynb"))
    if not notebooks:
        raise RuntimeError(f"{released} holds no lecture notebooks: build the course again")
    myst = myst_command()
    with tempfile.TemporaryDirectory(prefix="nano-site-") as tmp:
        work = Path(tmp)
        for notebook in notebooks:
            _reading_version(notebook, work / notebook.name)
        shutil.copy(ASSETS / "index.md", work / "index.md")
        (work / "theme").mkdir()
        shutil.copy(ASSETS / "template.yml", work / "theme" / "template.yml")
        project = {"version": 1,
                   "project": {"title": "nano: build a coding agent",
                               "toc": [{"file": "index.md"}, *({"file": n.name} for n in notebooks)]},
                   "site": {"template": "./theme"}}
        (work / "myst.yml").write_text(json.dumps(project, indent=2), encoding="utf-8")  # JSON is YAML
        echo(f"mystmd: reading {len(notebooks)} notebooks of {released}")
        done = subprocess.run([str(myst), "build", "--site"], cwd=work, capture_output=True, text=True,
                              timeout=MYST_TIMEOUT, env={**os.environ, "NO_COLOR": "1"})
        site = work / "_build" / "site"
        if done.returncode != 0 or not (site / "config.json").is_file():
            raise RuntimeError(f"myst build --site failed (exit {done.returncode}):\n"
                               + (done.stdout + done.stderr)[-2000:])
        pages = _pages(site, {n.name: n for n in notebooks})
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for page in pages:
            (out / f"{page.slug}.html").write_text(page_html(page, pages), encoding="utf-8")
        search = json.loads((site / "myst.search.json").read_text(encoding="utf-8"))
        records = [{**r, "url": _href(r.get("url", "/"), pages)} for r in search["records"]]
    (out / TRACE_PAGE_FILE).write_text(trace_html(released, pages), encoding="utf-8")
    records.append({"hierarchy": {"lvl1": "The Celsius trace"}, "type": "lvl1", "url": TRACE_PAGE_FILE,
                    "content": "the recorded session: read_file, edit_file, the human's y"})
    (out / "search-index.js").write_text("window.NANO_SEARCH = " + json.dumps(records) + ";\n",
                                         encoding="utf-8")
    for asset in ("style.css", "search.js"):
        shutil.copy(ASSETS / asset, out / asset)
    echo(f"wrote {len(pages) + 1} pages")
    return out


SETUP = "%load_ext autoreload"  # in a lecture's set-up cell, as startup.py recognises it


def _reading_version(notebook: Path, dest: Path) -> None:
    """The lecture `notebook` as a reader's page shows it, at `dest`: without its set-up cell
    (finding the workspace's root, autoreload), which runs the notebook and teaches nothing."""
    nb = lectures.load(notebook)
    nb.cells = [cell for cell in nb.cells if not (cell.cell_type == "code" and SETUP in cell.source)]
    dest.write_text(lectures.render(nb), encoding="utf-8")


@dataclass(frozen=True)
class Page:
    """One page of the site: its slug, title, AST, and the notebook it comes from (None: index)."""

    slug: str
    title: str
    mdast: dict
    notebook: str | None


def _pages(site: Path, notebooks: dict[str, Path]) -> list["Page"]:
    config = json.loads((site / "config.json").read_text(encoding="utf-8"))
    project = config["projects"][0]
    slugs = [project.get("index", "index")] + [p["slug"] for p in project["pages"]]
    pages = []
    for slug in slugs:
        data = json.loads((site / "content" / f"{slug}.json").read_text(encoding="utf-8"))
        source = Path(data.get("location", "")).name
        notebook = source if source in notebooks else None
        pages.append(Page("index" if notebook is None else slug, data["frontmatter"].get("title", slug),
                          data["mdast"], notebook))
    return pages


def _href(url: str, pages: list[Page]) -> str:
    """A site-internal url of mystmd's (/slug#anchor) as a file of ours; others as they are."""
    if url.endswith(".ipynb") and "/" not in url:
        match = [p for p in pages if p.notebook == url]
        return f"{match[0].slug}.html" if match else url
    if not url.startswith("/"):
        return url
    path, _, anchor = url[1:].partition("#")
    target = f"{path or 'index'}.html"
    return target + (f"#{anchor}" if anchor else "")


# ------------------------------------------------------------------------------------- pages

def page_html(page: Page, pages: list[Page]) -> str:
    body = render(page.mdast, pages)
    run = ""
    if page.notebook:
        lecture = page.notebook[:2]
        check = "00" if lecture == "01" else lecture
        run = (f"<p class='run-it'>Run this lecture in JupyterLab: in your workspace "
               f"(<code>nano-course student DIR</code>, or <code>./run course</code> in the course "
               f"repository) open <code>{html.escape(page.notebook)}</code>; check yourself with "
               f"<code>./ok {check}</code>.</p>")
    return shell(page.title, f"<h1>{html.escape(page.title)}</h1>\n{run}\n{body}", pages, page.slug)


def shell(title: str, main: str, pages: list[Page], current: str) -> str:
    """A whole page: the navigation (every page, the trace, search) beside `main`."""
    def item(slug: str, href: str, text: str) -> str:
        here = " class=current aria-current='page'" if slug == current else ""
        return f"<li><a href='{href}'{here}>{html.escape(text)}</a></li>"

    links = "".join(item(p.slug, f"{p.slug}.html", p.title) for p in pages)
    links += item(TRACE_PAGE, TRACE_PAGE_FILE, "The Celsius trace")
    return ("<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
            f"<title>{html.escape(title)} · nano</title>\n<link rel='stylesheet' href='style.css'>\n"
            "</head>\n<body>\n<a class='skip' href='#content'>Skip to the page's content</a>\n"
            "<nav aria-label='The lectures'>\n<a class='home' href='index.html'>nano</a>\n"
            "<input id='search' type='search' placeholder='Search the lectures' aria-label='Search the lectures'>\n"
            "<ol id='results' aria-live='polite' aria-label='Search results'></ol>\n"
            f"<ul class='toc'>{links}</ul>\n</nav>\n"
            f"<main id='content'>\n{main}\n</main>\n<script src='search-index.js'></script>\n"
            "<script src='search.js'></script>\n</body>\n</html>\n")


def trace_html(released: Path, pages: list[Page]) -> str:
    """The Celsius trace page: each entry drawn by the release's nano.trace, with its note."""
    drawn = subprocess.run([sys.executable, "-m", "autograder.deploy.trace_page"], cwd=released,
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(released)})
    if drawn.returncode != 0:
        raise RuntimeError(f"could not draw the Celsius trace: {drawn.stderr.strip()[-500:]}")
    intro = ("<p>The session lectures 01 and 05 are built around, as recorded in "
             "<code>fixtures/celsius_trace.json</code>: the request, three model replies and the human's "
             "<code>y</code>, in six entries of one messages list. Lecture 01 replays it by hand; "
             "lecture 05 makes your <code>agent_loop</code> produce it.</p>")
    return shell("The Celsius trace", f"<h1>The Celsius trace</h1>\n{intro}\n{drawn.stdout}", pages, TRACE_PAGE)


# ---------------------------------------------------------------------------------- the AST

TAGS = {"paragraph": "p", "emphasis": "em", "strong": "strong", "blockquote": "blockquote",
        "tableRow": "tr", "details": "details", "summary": "summary", "listItem": "li",
        "underline": "u", "subscript": "sub", "superscript": "sup", "delete": "del",
        "caption": "figcaption", "container": "figure", "admonitionTitle": "p class='title'"}


def render(node: dict, pages: list[Page]) -> str:
    """HTML for one node of mystmd's AST (mdast and MyST's extensions), children included."""
    kind = node.get("type")
    inner = "".join(render(child, pages) for child in node.get("children", []))
    if kind == "text":
        return html.escape(node.get("value", ""))
    if kind in TAGS:
        tag = TAGS[kind]
        return f"<{tag}>{inner}</{tag.split()[0]}>"
    if kind == "heading":
        depth = min(int(node.get("depth", 2)), 6)
        anchor = html.escape(node.get("html_id") or node.get("identifier") or "")
        return f"<h{depth} id='{anchor}'>{inner}<a class='anchor' href='#{anchor}'>#</a></h{depth}>\n"
    if kind == "inlineCode":
        return f"<code>{html.escape(node.get('value', ''))}</code>"
    if kind == "code":
        return _code(node.get("value", ""), node.get("lang") or "python")
    if kind in ("inlineMath", "math"):
        return f"<code class='math'>{html.escape(node.get('value', ''))}</code>"
    if kind == "link":
        return f"<a href='{html.escape(_href(node.get('url', ''), pages))}'>{inner}</a>"
    if kind == "crossReference":
        return f"<a href='#{html.escape(node.get('html_id') or node.get('identifier', ''))}'>{inner}</a>"
    if kind == "list":
        tag = "ol" if node.get("ordered") else "ul"
        start = f" start='{int(node['start'])}'" if node.get("ordered") and node.get("start") else ""
        return f"<{tag}{start}>{inner}</{tag}>\n"
    if kind == "table":
        return f"<table>{inner}</table>\n"
    if kind == "tableCell":
        tag = "th" if node.get("header") else "td"
        return f"<{tag}>{inner}</{tag}>"
    if kind in ("thematicBreak",):
        return "<hr>\n"
    if kind == "break":
        return "<br>"
    if kind == "image":
        return f"<img src='{html.escape(node.get('url', ''))}' alt='{html.escape(node.get('alt', ''))}'>"
    if kind == "admonition":
        return f"<aside class='admonition {html.escape(node.get('kind', 'note'))}'>{inner}</aside>\n"
    if kind == "html":
        return f"<pre>{html.escape(node.get('value', ''))}</pre>"
    if kind == "block":
        cell = "code-cell" if node.get("kind") == "notebook-code" else "text-cell"
        return f"<section class='{cell}' id='{html.escape(node.get('html_id', ''))}'>{inner}</section>\n"
    if kind == "outputs":
        return f"<div class='outputs'>{inner}</div>" if inner else ""
    if kind == "output":
        return _output(node)
    if kind in ("mystComment", "comment"):
        return ""
    return inner  # root, mystDirective, mystRole and the like: what they hold


def _code(source: str, lang: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang)
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    return highlight(source, lexer, HtmlFormatter(cssclass="highlight"))


def _output(node: dict) -> str:
    """A notebook output, as text (the release's notebooks carry none; a built site may)."""
    data = node.get("jupyter_data") or {}
    text = data.get("text") or (data.get("data") or {}).get("text/plain") or ""
    if isinstance(text, list):
        text = "".join(text)
    return f"<pre class='output'>{html.escape(str(text))}</pre>" if text else ""
