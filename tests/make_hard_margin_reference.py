"""Make tests/data/hard_margin_parent.npz: every margin recipe's result before ``nu=`` existed.

Run from a checkout of the parent commit (b7dd74d, the layout step issue 19 started from):

    git archive b7dd74d | tar -x -C /tmp/parent && cd /tmp/parent && \
        python /path/to/tests/make_hard_margin_reference.py /path/to/tests/data/hard_margin_parent.npz

The same cases are rerun by tests/test_soft_margin_game.py with ``nu=None`` and compared bit for bit.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from result_fields import flatten


def cases():
    """(name, recipe name, data, T, keyword arguments): separable, non-separable, normalised and stopped runs."""
    from gamedyn.certify.stops import margin_within
    from gamedyn.io.datasets import make_separable, signed_rows

    separable = signed_rows(*make_separable(40, 6, 0.08, 5))
    rng = np.random.default_rng(19)
    X = rng.standard_normal((50, 5))
    y = np.sign(X @ rng.standard_normal(5) + 0.7 * rng.standard_normal(50))
    y[y == 0] = 1.0
    noisy = y[:, None] * X
    noisy = noisy / (1.01 * float(np.max(np.linalg.norm(noisy, axis=1))))
    out = []
    for data_name, A in (("separable", separable), ("noisy", noisy)):
        out += [
            (f"smooth-{data_name}", "smooth_perceptron", A, 30, {"record": True}),
            (f"accelerated-{data_name}", "accelerated_perceptron", A, 30, {"record": True}),
            (f"accelerated-ji-{data_name}", "accelerated_perceptron", A, 30, {"theta": "ji", "record": True}),
            (f"nag-{data_name}", "nag_margin", A, 30, {"record": True}),
            (f"mirror-prox-{data_name}", "mirror_prox_perceptron", A, 30, {"record": True}),
            (f"pnorm2-{data_name}", "pnorm_perceptron", A, 30, {"p": 2.0, "record": True}),
            (f"pnorm3-{data_name}", "pnorm_perceptron", A, 30, {"p": 3.0, "record": True}),
        ]
    out += [
        ("smooth-normalised", "smooth_perceptron", 3.0 * separable, 25, {"normalize": True}),
        ("nag-stopped", "nag_margin", separable, 400, {"stop": margin_within(0.05)}),
        ("mirror-prox-steps", "mirror_prox_perceptron", noisy, 25, {"eta_w": 0.3, "eta_p": 2.0}),
    ]
    return out


def results() -> dict:
    from gamedyn import recipes

    arrays = {}
    for name, recipe, A, T, options in cases():
        result = getattr(recipes, recipe)(A, T, **options)
        for key, value in flatten(result, name).items():
            arrays[key] = value
    return arrays


if __name__ == "__main__":
    np.savez_compressed(sys.argv[1], **results())
