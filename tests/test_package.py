"""The package: one source of the version, a changelog at that version, and the wheel and sdist a user gets
(LICENSE and py.typed shipped, the metadata pip shows)."""

from __future__ import annotations

import email.parser
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

import gamedyn

ROOT = pathlib.Path(__file__).resolve().parent.parent
try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli", reason="Python 3.10 reads pyproject.toml with tomli: pip install tomli")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_written_once():
    """pyproject reads gamedyn.__version__ (no second copy to forget), and no other file assigns a version."""
    project = _pyproject()
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gamedyn.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", gamedyn.__version__), gamedyn.__version__
    assignments = [str(path.relative_to(ROOT)) for folder in ("gamedyn", "recipes", "docsite")
                   for path in (ROOT / folder).rglob("*.py")
                   if re.search(r"^__version__\s*=", path.read_text(encoding="utf-8"), re.MULTILINE)]
    assert assignments == ["gamedyn/__init__.py"]


def test_the_changelog_starts_with_this_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## (\S+)", text, re.MULTILINE)
    assert first is not None and first.group(1) == gamedyn.__version__, (first and first.group(1), gamedyn.__version__)
    assert "TO BE FILLED" in text or "#### Renames" in text  # the restructuring's section is there


def test_the_metadata_a_user_sees():
    project = _pyproject()["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project["authors"] and project["keywords"] and "Typing :: Typed" in project["classifiers"]
    assert not any(classifier.startswith("License ::") for classifier in project["classifiers"])  # PEP 639: the expression only
    urls = project["urls"]  # repository-relative links (no invented hosting address), each a file of the checkout
    assert urls and all(not str(url).startswith(("http://", "https://")) for url in urls.values())
    assert all((ROOT / url).is_file() for url in urls.values()), urls
    assert (ROOT / "gamedyn" / "py.typed").is_file()
    docs = project["optional-dependencies"]["docs"]
    assert any(requirement.startswith("mkdocs>=") and "<" in requirement for requirement in docs)


def _setuptools_missing() -> str | None:
    try:
        import setuptools
    except ImportError:
        return "building the wheel needs setuptools >= 77: pip install 'setuptools>=77' (the test extra has it)"
    if int(setuptools.__version__.split(".")[0]) < 77:
        return f"setuptools {setuptools.__version__} cannot build PEP 639 metadata: pip install 'setuptools>=77'"
    return None


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A wheel and an sdist built from a copy of the checkout (nothing is written into it)."""
    missing = _setuptools_missing()
    if missing:
        print(f"SKIPPED: {missing}")
        pytest.skip(missing)
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "MANIFEST.in", "mkdocs.yml"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache", ".mypy_cache")
    for folder in ("gamedyn", "recipes", "docs", "docsite", "benchmarks", "tests", ".ci"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore, symlinks=True)
    dist = tmp_path_factory.mktemp("dist")
    script = ("import pathlib, sys; from setuptools import build_meta as backend; "  # build_meta rewrites sys.argv
              "dist, out = sys.argv[1:3]; names = [backend.build_wheel(dist), backend.build_sdist(dist)]; "
              "pathlib.Path(out).write_text(chr(10).join(names))")
    built = tmp_path_factory.mktemp("names") / "built.txt"
    run = subprocess.run([sys.executable, "-c", script, str(dist), str(built)], cwd=source, capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    wheel, sdist = (dist / name for name in built.read_text().split("\n"))
    return wheel, sdist


@pytest.mark.slow
def test_the_wheel_ships_license_and_typing_marker(built):
    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(name for name in names if name.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(metadata_name).decode())
        assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), names
        assert "gamedyn/py.typed" in names and "gamedyn/recipes/hedge.py" in names
    assert metadata["Name"] == "gamedyn" and metadata["Version"] == gamedyn.__version__
    assert metadata["License-Expression"] == "MIT" and metadata["License-File"] == "LICENSE"
    assert metadata["Author"] == "The gamedyn developers" or "The gamedyn developers" in (metadata["Author-email"] or "")
    assert "Typing :: Typed" in metadata.get_all("Classifier") and "perceptron" in metadata["Keywords"]
    assert 'extra == "docs"' in " ".join(metadata.get_all("Requires-Dist"))


@pytest.mark.slow
def test_the_sdist_ships_license(built):
    _, sdist = built
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    top = names[0].split("/")[0]
    # the recipes ship as the package gamedyn.recipes (the symbolic link gamedyn/recipes -> ../recipes is
    # stored as real files, so a wheel built from this sdist holds them: issue 17's layout)
    assert f"{top}/LICENSE" in names and f"{top}/gamedyn/py.typed" in names and f"{top}/gamedyn/recipes/hedge.py" in names


@pytest.mark.slow
def test_the_sdist_holds_what_its_tests_read(built):
    """The unpacked sdist runs its own tests (issue 31: 44 failed and 12 errors, for want of docs/ and recipes/):
    every tracked file the tests, the docs' code blocks and the site read is in it (MANIFEST.in)."""
    _, sdist = built
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    wanted = [name for name in tracked.stdout.split("\n") if name and name.split("/")[0] in
              ("docs", "docsite", "recipes", "benchmarks", "tests", "gamedyn", ".ci")
              or name in ("README.md", "CHANGELOG.md", "LICENSE", "mkdocs.yml", "pyproject.toml")]
    missing = [name for name in wanted if name not in names and not (ROOT / name).is_symlink()]
    assert missing == [], missing
