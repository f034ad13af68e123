"""MkDocs hooks for the gamedyn site (``hooks:`` in mkdocs.yml).

* The API pages of :mod:`docsite.api_pages` are added to the build (and to the nav) as generated
  files: nothing is written into ``docs/``.
* KaTeX, the math renderer, is bundled into the site so that it works offline: the pinned
  release is fetched once from the npm registry with ``npm pack`` (its sha512 checked against
  the pin below), unpacked into a cache folder (``GAMEDYN_DOCS_CACHE``, default
  ``~/.cache/gamedyn-docs``), and its ``dist/`` files are copied into ``site/assets/katex/``.
* The site's own script and style (``docsite/assets``) are added the same way.
* The gallery's figures of both papers are drawn by the build itself: ``python -m gamedyn figures
  --quick`` run on the checkout, cached in the same folder under a digest of the package's source
  (an unchanged tree is not drawn twice), and added as ``gallery/*.png``. The build fails when
  ``docs/gallery.md`` leaves out a figure the command writes, or shows one it does not write.
"""

from __future__ import annotations

import base64
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

HERE = pathlib.Path(__file__).resolve().parent

KATEX_VERSION = "0.16.25"
KATEX_INTEGRITY = "sha512-woHRUZ/iF23GBP1dkDQMh1QBad9dmr8/PAwNA54VrSOVYgI12MAcE14TqnDdQOdzyEonGzMepYnqBMYdsoAr8Q=="
KATEX_FILES = ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js")


GALLERY_PAGE = "gallery.md"
GALLERY_FOLDER = "gallery"  # where the papers' figures lie in the site


def cache_folder() -> pathlib.Path:
    """``GAMEDYN_DOCS_CACHE``, default ``~/.cache/gamedyn-docs``: what the build fetches or draws once."""
    return pathlib.Path(os.environ.get("GAMEDYN_DOCS_CACHE", pathlib.Path.home() / ".cache" / "gamedyn-docs"))


def katex_folder() -> pathlib.Path:
    """The unpacked ``dist/`` of the pinned KaTeX, fetched with ``npm pack`` when not cached yet."""
    dist = cache_folder() / f"katex-{KATEX_VERSION}" / "dist"
    if all((dist / name).is_file() for name in KATEX_FILES) and (dist / "fonts").is_dir():
        return dist
    npm = shutil.which("npm")
    if npm is None:
        raise PluginError(f"the site bundles KaTeX {KATEX_VERSION} from the npm registry and needs npm to fetch it "
                          "once: apt-get install npm (or put an unpacked katex package's dist/ at " + str(dist) + ")")
    with tempfile.TemporaryDirectory() as scratch:
        run = subprocess.run([npm, "pack", f"katex@{KATEX_VERSION}", "--silent", "--pack-destination", scratch],
                             capture_output=True, text=True, check=False, cwd=scratch)
        tarballs = list(pathlib.Path(scratch).glob("katex-*.tgz"))
        if run.returncode != 0 or len(tarballs) != 1:
            raise PluginError(f"npm pack katex@{KATEX_VERSION} failed ({run.returncode}): {run.stderr.strip()[-500:]}")
        data = tarballs[0].read_bytes()
        digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
        if digest != KATEX_INTEGRITY:
            raise PluginError(f"katex-{KATEX_VERSION}.tgz has integrity {digest}, expected {KATEX_INTEGRITY}")
        unpacked = pathlib.Path(scratch) / "unpacked"
        with tarfile.open(tarballs[0]) as archive:
            members = [member for member in archive.getmembers()
                       if member.name.startswith("package/dist/") and member.isfile() and ".." not in member.name]
            archive.extractall(unpacked, members=members)
        target = dist.parent
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        shutil.move(str(unpacked / "package" / "dist"), str(dist))
    return dist


def source_digest() -> str:
    """A digest of every Python file of ``gamedyn/`` and ``recipes/`` (names and contents)."""
    root = HERE.parent
    digest = hashlib.sha256()
    for path in sorted([*(root / "gamedyn").rglob("*.py"), *(root / "recipes").rglob("*.py")]):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def paper_figures() -> pathlib.Path:
    """The folder of ``python -m gamedyn figures --quick`` for this source tree, drawn when not cached yet."""
    cache = cache_folder()
    folder = cache / f"figures-{source_digest()}"
    if (folder / "done").is_file():
        os.utime(folder)  # in use: kept by the clean-up below
        return folder
    cache.mkdir(parents=True, exist_ok=True)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="figures-drawing-", dir=cache))
    environment = {**os.environ, "MPLBACKEND": "Agg"}
    run = subprocess.run([sys.executable, "-m", "gamedyn", "figures", "--quick", "--out", str(scratch)],
                         cwd=HERE.parent, capture_output=True, text=True, env=environment, check=False)
    if run.returncode != 0 or not list(scratch.glob("*.png")):
        shutil.rmtree(scratch, ignore_errors=True)
        raise PluginError(f"the gallery's figures: python -m gamedyn figures --quick failed ({run.returncode}):\n"
                          f"{run.stdout[-2000:]}\n{run.stderr[-4000:]}")
    (scratch / "done").write_text(run.stdout)
    try:
        scratch.rename(folder)
    except OSError:  # another build drew the same tree meanwhile
        shutil.rmtree(scratch, ignore_errors=True)
    week_ago = time.time() - 7 * 24 * 3600
    for old in cache.glob("figures-*"):  # other trees' figures, unused for a week (another checkout may share the cache)
        if old != folder and old.stat().st_mtime < week_ago:
            shutil.rmtree(old, ignore_errors=True)
    return folder


def _static(config, folder: pathlib.Path, destination: str, names) -> list:
    return [File.generated(config, f"{destination}/{name}", abs_src_path=str(folder / name)) for name in names]


def _root_on_path() -> None:
    """The checkout's gamedyn and docsite, whatever the current folder (mkdocs restores sys.path after loading a hook)."""
    root = str(HERE.parent)
    if root not in sys.path:
        sys.path.insert(0, root)


_OVERLAY: list = []


def source_overlay() -> str:
    """A folder whose ``gamedyn/`` links to the checkout's modules and whose ``gamedyn/recipes`` links to
    ``recipes/``: the installed layout, for griffe's static reading (nothing is written into the checkout)."""
    root = HERE.parent
    folder = pathlib.Path(tempfile.mkdtemp(prefix="gamedyn-docs-source-"))
    package = folder / "gamedyn"
    package.mkdir()
    for entry in (root / "gamedyn").iterdir():
        if entry.name not in ("__pycache__", "recipes"):
            (package / entry.name).symlink_to(entry)
    (package / "recipes").symlink_to(root / "recipes")  # gamedyn/recipes is itself a link to ../recipes
    _OVERLAY.append(folder)
    return str(folder)


@event_priority(100)  # before mkdocstrings' own on_config creates the python handler with these paths
def on_config(config):
    _root_on_path()
    from docsite import api_pages

    python = config["plugins"]["mkdocstrings"].config["handlers"].setdefault("python", {})
    python["paths"] = [source_overlay()]

    entries = [{"Overview": f"{api_pages.FOLDER}/index.md"}]
    entries += [{name: api_pages.page_path(name)} for name in api_pages.public_modules()]
    config["nav"].append({"API": entries})
    return config


def on_post_build(config):
    while _OVERLAY:
        shutil.rmtree(_OVERLAY.pop(), ignore_errors=True)


def on_files(files, config):
    _root_on_path()
    from docsite import api_pages

    for path, text in api_pages.api_pages().items():
        files.append(File.generated(config, path, content=text))
    dist = katex_folder()
    fonts = sorted(str(path.relative_to(dist)) for path in (dist / "fonts").iterdir() if path.suffix in (".woff2", ".woff", ".ttf"))
    for file in _static(config, dist, "assets/katex", [*KATEX_FILES, *fonts]):
        files.append(file)
    figures = paper_figures()
    for file in _static(config, figures, GALLERY_FOLDER, sorted(path.name for path in figures.glob("*.png"))):
        files.append(file)
    own = HERE / "assets"
    for file in _static(config, own, "assets/gamedyn", sorted(path.name for path in own.iterdir())):
        files.append(file)
    return files


def on_page_markdown(markdown, page, config, files):
    """The gallery shows every figure of ``gamedyn figures`` and no other (the build fails otherwise)."""
    if page.file.src_uri != GALLERY_PAGE:
        return markdown
    drawn = {path.name for path in paper_figures().glob("*.png")}
    shown = set(re.findall(rf"\]\({GALLERY_FOLDER}/([^)\s]+\.png)\)", markdown))
    if drawn != shown:
        raise PluginError(f"docs/{GALLERY_PAGE} must show every figure of `gamedyn figures` and no other: "
                          f"missing {sorted(drawn - shown)}, not drawn {sorted(shown - drawn)}")
    return markdown
