"""Deprecated: ``gamedyn.experiments.game_figures`` moved to :mod:`gamedyn.paper.experiments.game_figures`
(issue 17).

Importing ``gamedyn.experiments.game_figures`` still works for one release: it warns once (a
``DeprecationWarning`` naming the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.experiments.game_figures", {
    "GAME_DATA": "gamedyn.paper.experiments.game_figures",
    "GAME_FIGURE_FILES": "gamedyn.paper.experiments.game_figures",
    "iterations_figure_data": "gamedyn.paper.experiments.game_figures",
    "margin_gap_data": "gamedyn.paper.experiments.game_figures",
    "plot_iterations": "gamedyn.paper.experiments.game_figures",
    "plot_margin_gap": "gamedyn.paper.experiments.game_figures",
    "plot_regrets": "gamedyn.paper.experiments.game_figures",
    "recipe_traces": "gamedyn.paper.experiments.game_figures",
    "regret_data": "gamedyn.paper.experiments.game_figures",
    "write_game_figures": "gamedyn.paper.experiments.game_figures",
})
