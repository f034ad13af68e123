"""A checkout imports its own ``recipes/`` as ``gamedyn.recipes``, even with another checkout installed.

``pip install -e OTHER`` puts a finder on ``sys.meta_path`` (at interpreter start, via a ``.pth``
file) that maps ``gamedyn.recipes`` to OTHER's ``recipes/``. The checkout's own finder used to be
appended after it, so ``python -m pytest`` in one checkout (and the mutation gate's temporary copy)
ran that checkout's ``gamedyn`` with OTHER's recipes (issue 16).
"""

import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent

# What setuptools' editable finder does for ``gamedyn.recipes``, in a few lines: a meta path finder,
# appended at start-up, that answers for the mapped name with another folder.
_EDITABLE_LIKE = textwrap.dedent("""
    import importlib.util, pathlib, sys
    decoy = pathlib.Path(sys.argv[1])

    class EditableLike:
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name == "gamedyn.recipes":
                return importlib.util.spec_from_file_location(
                    name, decoy / "__init__.py", submodule_search_locations=[str(decoy)])
            return None

    sys.meta_path.append(EditableLike)
    import gamedyn, gamedyn.recipes
    print(gamedyn.__file__)
    print(gamedyn.recipes.__file__)
""")


def test_the_checkout_recipes_win_over_an_editable_install_of_another_checkout(tmp_path):
    decoy = tmp_path / "other-checkout" / "recipes"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("DECOY = True\n")
    done = subprocess.run([sys.executable, "-c", _EDITABLE_LIKE, str(decoy)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    package, recipes = (pathlib.Path(line).resolve() for line in done.stdout.split())
    assert package == ROOT / "gamedyn" / "__init__.py"
    # a checkout links gamedyn/recipes to recipes/; an unpacked sdist holds gamedyn/recipes as real files
    own = {ROOT / "recipes" / "__init__.py", ROOT / "gamedyn" / "recipes" / "__init__.py"}
    assert recipes in own, f"gamedyn.recipes came from {recipes}, not this checkout"
