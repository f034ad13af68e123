"""``play`` with a recipe's run options (``stop=``, ``record=``, ``checkpoint=`` ...): the tests' shorthand for
``play(..., observers=run_observers(...))``, the very mapping every recipe applies to its run options."""

from gamedyn import play
from gamedyn.engine.observers import RUN_OPTIONS, run_observers


def play_with(payoff, w_learner, p_learner, T, **options):
    """:func:`gamedyn.play` with the protocol's keywords as given and the run options as observers."""
    run = {key: options.pop(key) for key in RUN_OPTIONS if key in options}
    return play(payoff, w_learner, p_learner, T, **options, observers=run_observers(**run))
