"""Deprecated: ``gamedyn.experiments.iterations`` moved to :mod:`gamedyn.paper.experiments.iterations` (issue
17).

Importing ``gamedyn.experiments.iterations`` still works for one release: it warns once (a
``DeprecationWarning`` naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.experiments.iterations", {
    "DEFAULT_MARGINS": "gamedyn.paper.experiments.iterations",
    "FULL_MARGINS": "gamedyn.paper.experiments.iterations",
    "HARD_PNORM": "gamedyn.paper.experiments.iterations",
    "IterationRow": "gamedyn.paper.experiments.iterations",
    "IterationTable": "gamedyn.paper.experiments.iterations",
    "QUICK_MARGINS": "gamedyn.paper.experiments.iterations",
    "iterations_to_separation": "gamedyn.paper.experiments.iterations",
}, also={
    "add_decoy": "gamedyn.io.datasets",
    "make_separable_lp": "gamedyn.io.datasets",
    "max_margin": "gamedyn.certify.margins",
    "max_margin_q": "gamedyn.certify.margins",
    "perceptron_hard_instance": "gamedyn.io.datasets",
    "positive_margin": "gamedyn.certify.stops",
    "signed_rows": "gamedyn.io.datasets",
})

if __name__ == "__main__":  # pragma: no cover - python -m gamedyn.experiments.iterations, as before
    from gamedyn.paper.experiments.iterations import iterations_to_separation

    print(iterations_to_separation().format())
