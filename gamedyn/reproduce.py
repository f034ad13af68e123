"""Deprecated: ``gamedyn.reproduce`` moved to :mod:`gamedyn.paper.claims`, :mod:`gamedyn.paper.reproduce`
(issue 17).

Importing ``gamedyn.reproduce`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.reproduce", {
    "ACCELERATED_SLOPE_AT_MOST": "gamedyn.paper.reproduce",
    "CLAIMS": "gamedyn.paper.reproduce",
    "Claim": "gamedyn.paper.claims",
    "ClaimTimeout": "gamedyn.paper.reproduce",
    "Context": "gamedyn.paper.reproduce",
    "EQUIVALENCE_TOLERANCE": "gamedyn.paper.reproduce",
    "EXACT_FORMULA_TOLERANCE": "gamedyn.paper.reproduce",
    "GD_REPLAY_STEPS": "gamedyn.paper.reproduce",
    "HEADERS": "gamedyn.paper.reproduce",
    "LOGISTIC_TOLERANCE": "gamedyn.paper.reproduce",
    "Measurement": "gamedyn.paper.claims",
    "Outcome": "gamedyn.paper.claims",
    "PERCEPTRON_SLOPE_AT_LEAST": "gamedyn.paper.reproduce",
    "PROFILES": "gamedyn.paper.reproduce",
    "Profile": "gamedyn.paper.reproduce",
    "SGD_REPLAY_STEPS": "gamedyn.paper.reproduce",
    "build_claims": "gamedyn.paper.reproduce",
    "equivalence_claims": "gamedyn.paper.reproduce",
    "format_markdown": "gamedyn.paper.reproduce",
    "format_table": "gamedyn.paper.reproduce",
    "iteration_claims": "gamedyn.paper.reproduce",
    "logistic_available": "gamedyn.paper.reproduce",
    "logistic_claims": "gamedyn.paper.reproduce",
    "matplotlib_missing": "gamedyn.paper.reproduce",
    "rate_claims": "gamedyn.paper.reproduce",
    "run_claim": "gamedyn.paper.reproduce",
    "run_claims": "gamedyn.paper.reproduce",
    "schedule_by_the_formula": "gamedyn.paper.reproduce",
    "select_claims": "gamedyn.paper.reproduce",
    "table_rows": "gamedyn.paper.reproduce",
    "write_figures": "gamedyn.paper.reproduce",
    "write_report": "gamedyn.paper.reproduce",
})
