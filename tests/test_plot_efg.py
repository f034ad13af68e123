"""The committed picture of the EFG recipes' exploitability on Leduc (issue 33) is what the code draws: the curves
stored in the PNG (its Description text) are every EFG recipe's, recomputed here (no matplotlib needed)."""

from __future__ import annotations

import pathlib
import struct
import zlib

import pytest

from gamedyn.plot import EFG_FIGURE, efg_exploitability_curves
from gamedyn.recipes import of_family

ROOT = pathlib.Path(__file__).resolve().parent.parent
PICTURE = ROOT / "docs" / "tutorial" / "images" / EFG_FIGURE


def png_text(path) -> dict:
    """The tEXt / zTXt / iTXt chunks of a PNG as {keyword: text}."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, texts = 8, {}
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            texts[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            texts[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _, _, rest = rest.partition(b"\0")
            _, _, rest = rest.partition(b"\0")
            texts[key.decode("latin-1")] = (zlib.decompress(rest) if compressed else rest).decode("utf-8")
        position += 12 + length
    return texts


@pytest.mark.slow
def test_the_committed_picture_holds_the_curves_the_code_computes():
    stored = {}
    for item in png_text(PICTURE)["Description"].split(";"):
        name, _, values = item.partition("=")
        stored[name] = [float(value) for value in values.split(",")]
    assert set(stored) == set(of_family("efg")), "regenerate: python -c \"from gamedyn.plot import write_efg_figure; " \
                                                 "write_efg_figure('docs/tutorial/images')\""
    computed = efg_exploitability_curves()
    for name, values in computed.items():
        assert stored[name] == pytest.approx(values, rel=1e-5), name
