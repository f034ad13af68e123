"""Deprecated: ``gamedyn.experiments.logistic_figures`` moved to
:mod:`gamedyn.paper.experiments.logistic_figures` (issue 17).

Importing ``gamedyn.experiments.logistic_figures`` still works for one release: it warns once (a
``DeprecationWarning`` naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.experiments.logistic_figures", {
    "CROSS": "gamedyn.paper.experiments.logistic_figures",
    "FIG1": "gamedyn.paper.experiments.logistic_figures",
    "FIG2": "gamedyn.paper.experiments.logistic_figures",
    "FIG3": "gamedyn.paper.experiments.logistic_figures",
    "FIG4": "gamedyn.paper.experiments.logistic_figures",
    "FIGURE_FILES": "gamedyn.paper.experiments.logistic_figures",
    "cross_paper_data": "gamedyn.paper.experiments.logistic_figures",
    "figure1_data": "gamedyn.paper.experiments.logistic_figures",
    "figure2_data": "gamedyn.paper.experiments.logistic_figures",
    "figure3_data": "gamedyn.paper.experiments.logistic_figures",
    "figure4_data": "gamedyn.paper.experiments.logistic_figures",
    "main": "gamedyn.paper.experiments.logistic_figures",
    "phase3_fit": "gamedyn.paper.experiments.logistic_figures",
    "plot_cross_paper": "gamedyn.paper.experiments.logistic_figures",
    "plot_figure1": "gamedyn.paper.experiments.logistic_figures",
    "plot_figure2": "gamedyn.paper.experiments.logistic_figures",
    "plot_figure3": "gamedyn.paper.experiments.logistic_figures",
    "plot_figure4": "gamedyn.paper.experiments.logistic_figures",
    "write_logistic_figures": "gamedyn.paper.experiments.logistic_figures",
}, also={
    "IncreasingSchedule": "gamedyn.logistic",
    "adaptive_sgd": "gamedyn.logistic",
    "check_count": "gamedyn.core.validation",
    "gd": "gamedyn.logistic",
    "log_loss": "gamedyn.logistic",
    "log_sum_exp": "gamedyn.core.numerics",
    "theorem_3_4": "gamedyn.logistic",
})

if __name__ == "__main__":  # pragma: no cover - python -m gamedyn.experiments.logistic_figures, as before
    import sys

    from gamedyn.paper.experiments.logistic_figures import main

    sys.exit(main())
