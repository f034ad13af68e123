"""Deprecated: ``gamedyn.experiments.fenchel`` moved to :mod:`gamedyn.paper.experiments.fenchel` (issue 17).

Importing ``gamedyn.experiments.fenchel`` still works for one release: it warns once (a
``DeprecationWarning`` naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.experiments.fenchel", {
    "AG_HORIZONS": "gamedyn.paper.experiments.fenchel",
    "AG_SLOPE_AT_MOST": "gamedyn.paper.experiments.fenchel",
    "BOUND_TOLERANCE": "gamedyn.paper.experiments.fenchel",
    "CLOSED_FORM_TOLERANCE": "gamedyn.paper.experiments.fenchel",
    "FW_HORIZONS": "gamedyn.paper.experiments.fenchel",
    "FW_SLOPE_AT_MOST": "gamedyn.paper.experiments.fenchel",
    "HUBER_STARTS": "gamedyn.paper.experiments.fenchel",
    "STEEP_SLOPE": "gamedyn.paper.experiments.fenchel",
    "accelerated_gradient_table": "gamedyn.paper.experiments.fenchel",
    "accelerated_gradient_tight_table": "gamedyn.paper.experiments.fenchel",
    "distance_objective": "gamedyn.paper.experiments.fenchel",
    "fenchel_claims": "gamedyn.paper.experiments.fenchel",
    "fitted_slope": "gamedyn.paper.experiments.fenchel",
    "frank_wolfe_table": "gamedyn.paper.experiments.fenchel",
    "frank_wolfe_tight_table": "gamedyn.paper.experiments.fenchel",
    "huber_objective": "gamedyn.paper.experiments.fenchel",
    "logistic_minimizer": "gamedyn.paper.experiments.fenchel",
    "logistic_objective": "gamedyn.paper.experiments.fenchel",
    "quadratic_objective": "gamedyn.paper.experiments.fenchel",
    "sparse_simplex_objective": "gamedyn.paper.experiments.fenchel",
    "steep_vertex_objective": "gamedyn.paper.experiments.fenchel",
    "worst_case_quadratic": "gamedyn.paper.experiments.fenchel",
}, also={
    "Objective": "gamedyn.games.fenchel.game",
})
