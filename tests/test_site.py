"""The documentation site: built strictly, served on 127.0.0.1, opened in headless Chromium.

The build needs the docs extra (``pip install ".[docs]"``: mkdocs, mkdocs-material, mkdocstrings)
and npm once (KaTeX is fetched from the npm registry and cached; see ``docsite/hooks.py``); the
browser checks need Debian's ``chromium`` and ``chromium-driver`` and selenium (in the docs extra).
Without them these tests are skipped with the reason; ``.ci/run`` installs them all.

On the tutorial, one recipe page, one API page and the gallery the browser checks that the math rendered (KaTeX
elements, no raw ``$`` or ``\\(`` left in the text, no KaTeX error), every image loaded, no console
error, and that a search for a word finds its page; it saves a screenshot of each page under the
test's temporary folder and prints the path.
"""

from __future__ import annotations

import functools
import http.server
import importlib
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1280,1400")
PAGES = {  # page -> a word only a few pages have, which the search must find on that page
    "tutorial/from-hedge-to-acceleration.html": "Piliouras",
    "recipes/smooth-perceptron.html": "cancellation",
    "api/gamedyn.certify.stops.html": "positive_margin",
    "gallery.html": "hawk",  # in parentheses (the search splits on punctuation); its papers' figures are drawn by the build (docsite/hooks.py)
}


def _missing_site_tools() -> str | None:
    for module, package in (("mkdocs", "mkdocs"), ("material", "mkdocs-material"), ("mkdocstrings", "mkdocstrings"),
                            ("mkdocstrings_handlers.python", "mkdocstrings-python")):
        if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
            return f"the site tooling is missing ({package}): pip install '.[docs]'"
    sys.path.insert(0, str(ROOT))
    try:
        from docsite import hooks
    finally:
        sys.path.remove(str(ROOT))
    cached = (pathlib.Path(os.environ.get("GAMEDYN_DOCS_CACHE", pathlib.Path.home() / ".cache" / "gamedyn-docs"))
              / f"katex-{hooks.KATEX_VERSION}" / "dist" / "katex.min.js")
    if not cached.is_file() and shutil.which("npm") is None:
        return f"npm is missing, and the site bundles KaTeX {hooks.KATEX_VERSION} fetched with npm once: apt-get install npm"
    return None


def _skip(reason: str):
    print(f"SKIPPED: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built with ``mkdocs build --strict`` into a temporary folder (its build time printed)."""
    missing = _missing_site_tools()
    if missing:
        _skip(missing)
    folder = tmp_path_factory.mktemp("site")
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                          "--site-dir", str(folder)], capture_output=True, text=True, env=environment, check=False)
    seconds = time.perf_counter() - start
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout[-3000:]}\n{run.stderr[-6000:]}"
    print(f"site built in {seconds:.1f} s into {folder}")
    return folder


@pytest.fixture(scope="module")
def server(site):
    """``http://127.0.0.1:PORT/`` serving the built site (a thread of this process, stopped afterwards)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(server, tmp_path_factory):
    """Headless Chromium driven by selenium through Debian's chromedriver, with a fresh profile."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        _skip("chromium or chromedriver is missing: apt-get install -y chromium chromium-driver")
    if importlib.util.find_spec("selenium") is None:
        _skip("selenium is missing: pip install '.[docs]'")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _wait(driver, script: str, seconds: float = 20.0):
    """Run ``script`` (a JS expression) until it is truthy; its last value."""
    deadline = time.monotonic() + seconds
    while True:
        value = driver.execute_script(f"return ({script});")
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


LEFTOVER_TEXT = """
const article = document.querySelector("article").cloneNode(true);
article.querySelectorAll("pre, code, .katex, .headerlink, script").forEach(node => node.remove());
return article.textContent;
"""


@pytest.mark.parametrize("page", list(PAGES))
def test_page_renders_in_chromium(page, server, browser, tmp_path):
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(server + page)
    _wait(browser, "document.readyState === 'complete'")
    math = browser.execute_script("return document.querySelectorAll('.arithmatex').length;")
    assert math > 0, f"{page}: no math on the page (pymdownx.arithmatex found no $...$)"
    _wait(browser, "document.querySelectorAll('.arithmatex .katex, .arithmatex .katex-error').length > 0")
    errors = browser.execute_script("return Array.from(document.querySelectorAll('.katex-error')).map(node => node.title);")
    assert errors == [], f"{page}: KaTeX could not parse {errors}"
    rendered = _wait(browser, "Array.from(document.querySelectorAll('.arithmatex')).every(node => node.querySelector('.katex'))")
    assert rendered, f"{page}: some math was not rendered by KaTeX"
    text = browser.execute_script(LEFTOVER_TEXT)
    for raw in ("$", "\\(", "\\[", ":math:", ":func:"):
        assert raw not in text, f"{page}: raw {raw!r} left in the text: ...{text[max(0, text.index(raw) - 80):text.index(raw) + 80]}..."
    _wait(browser, "Array.from(document.images).every(image => image.complete)")
    broken = browser.execute_script(
        "return Array.from(document.images).filter(image => !(image.complete && image.naturalWidth > 0)).map(image => image.src);")
    assert broken == [], f"{page}: images that did not load: {broken}"
    least = {"tutorial/": 3, "gallery": 14}  # the tutorial's pictures; the gallery's 6 teaching + 8 papers' figures
    for prefix, count in least.items():
        if page.startswith(prefix):
            assert browser.execute_script("return document.querySelectorAll('article img').length;") >= count
    screenshot = tmp_path / (page.replace("/", "_").replace(".html", ".png"))
    browser.save_screenshot(str(screenshot))
    print(f"screenshot: {screenshot}")
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], f"{page}: console errors {errors}"


@pytest.mark.parametrize("page", list(PAGES))
def test_search_finds_the_page(page, server, browser):
    word = PAGES[page]
    with urllib.request.urlopen(server + "search/search_index.json", timeout=30) as response:
        index = json.load(response)
    assert any(entry["location"].split("#")[0] == page for entry in index["docs"]), f"{page} is not in the search index"
    browser.get(server + "index.html")
    _wait(browser, "document.readyState === 'complete'")
    browser.execute_script("""
        const box = document.querySelector("input.md-search__input");
        box.focus(); box.value = arguments[0]; box.dispatchEvent(new Event("input", {bubbles: true}));
        box.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true}));""", word)
    found = _wait(browser, "Array.from(document.querySelectorAll('.md-search-result__link')).map(a => a.href)", 30)
    assert found, f"the search for {word!r} found nothing"
    pages = {urllib.parse.urlsplit(link)._replace(query="", fragment="").geturl() for link in found}
    assert server + page in pages, f"the search for {word!r} gave {sorted(pages)}"


def test_site_is_self_contained(site):
    """Offline: no page loads a script, a style or a font from another host, and KaTeX is in the site."""
    assert (site / "assets" / "katex" / "katex.min.js").is_file() and list((site / "assets" / "katex" / "fonts").glob("*.woff2"))
    external = re.compile(r"""<(?:script|link|img)\b[^>]*(?:src|href)=["'](?:https?:)?//""", re.IGNORECASE)
    for page in site.rglob("*.html"):
        found = external.search(page.read_text(encoding="utf-8"))
        assert found is None, f"{page.relative_to(site)} loads {found.group(0)!r} from another host"


def test_api_pages_list_every_public_name(site):
    """Every public name of every public module has its entry (an anchor named after it) on the API page of its home."""
    sys.path.insert(0, str(ROOT))
    try:
        from docsite import api_pages
    finally:
        sys.path.remove(str(ROOT))
    missing = []
    for module, names in api_pages.homes().items():
        text = (site / "api" / f"{module}.html").read_text(encoding="utf-8")
        for name, home in names.items():
            home_text = text if home == module else (site / "api" / f"{home}.html").read_text(encoding="utf-8")
            if home == f"{module}.{name}" or (module == "gamedyn" and home == f"gamedyn.{name}"):  # a layer package
                if f'href="{home}.html"' not in text:
                    missing.append(f"{module}.{name} (link)")
                continue
            if f'id="{home}.{name}"' not in home_text:
                missing.append(f"{module}.{name}")
            if home != module and f'href="{home}.html#{home}.{name}"' not in text:  # the re-export links to its home
                missing.append(f"{module}.{name} (link)")
    assert not missing, f"API pages without an entry for {missing}"
    assert len(api_pages.public_modules()) >= 20
