"""Issue 17: the contracts (typing.Protocol), the learner names as classes, capabilities not type switches."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest
import scipy.sparse.linalg as spla

import gamedyn
from gamedyn import (
    FTL,
    FTRL,
    OFTL,
    OFTRL,
    OMD,
    Ball,
    BestResponse,
    Bilinear,
    Box,
    ConcaveConvex,
    CurrentLoss,
    Entropy,
    FirstRoundLoss,
    FollowTheRegularizedLeader,
    FTRLPlus,
    L1Ball,
    LastLoss,
    MirrorDescent,
    NoHint,
    QNorm,
    Reals,
    RegularizedBilinear,
    Simplex,
    SquaredEuclidean,
    Zero,
    play,
)
from gamedyn.core import protocols
from gamedyn.engine import rounds
from gamedyn import stop_when

ROOT = pathlib.Path(__file__).resolve().parent.parent
A = np.random.default_rng(3).uniform(-1, 1, size=(30, 6))
A[:, 0] = np.abs(A[:, 0]) + 0.5  # separable: e_1 has margin > 0
A /= np.linalg.norm(A, axis=1, keepdims=True)

LEARNERS = [FTL(), FTL(Ball(2.0)), OFTL(), OFTL(Simplex()), FTRL(Entropy(), 0.5), FTRLPlus(), FTRLPlus(Entropy(), 2.0),
            OFTRL(SquaredEuclidean(), 1.0), MirrorDescent(Entropy(), 1.0), BestResponse(Simplex()),
            OMD(Entropy(), 0.3), FollowTheRegularizedLeader(QNorm(1.5), 1.0)]


def test_the_protocols_are_exported_at_top_level_and_runtime_checkable():
    for name in ("Learner", "Player", "Regularizer", "Domain", "Hint", "Payoff", "Observer"):
        protocol = getattr(gamedyn, name)
        assert isinstance(object(), protocol) is False, name  # checkable at run time, and not vacuous


@pytest.mark.parametrize("learner", LEARNERS, ids=repr)
def test_every_built_in_learner_and_its_player_satisfy_their_protocols(learner):
    assert isinstance(learner, gamedyn.Learner)
    assert isinstance(learner.domain, gamedyn.Domain)
    assert isinstance(learner.regularizer, gamedyn.Regularizer)
    assert isinstance(learner.regularizer, protocols.RegularizerProtocol)
    assert isinstance(learner.hint, gamedyn.Hint)
    state = learner.init(A.shape[1] if isinstance(learner.domain, (Reals, Ball)) else A.shape[0])
    assert isinstance(learner.player(state), gamedyn.Player)


def test_built_in_parts_satisfy_their_protocols():
    for domain in (Reals(), Ball(1.0), Simplex(), L1Ball(2.0), Box([0.0], [1.0])):
        assert isinstance(domain, gamedyn.Domain)
    for hint in (NoHint(), LastLoss(), FirstRoundLoss(), CurrentLoss()):
        assert isinstance(hint, gamedyn.Hint)
    for payoff in (Bilinear(A), RegularizedBilinear(A),
                   ConcaveConvex(lambda w, p: 0.0, lambda w, p: w, lambda w, p: p, w_dimension=2, p_dimension=2)):
        assert isinstance(payoff, gamedyn.Payoff) and isinstance(payoff, protocols.PayoffProtocol)
    for regularizer in (Entropy(), SquaredEuclidean(), QNorm(1.5), Zero()):
        assert isinstance(regularizer, protocols.RegularizerProtocol)


def test_a_duck_typed_payoff_and_regularizer_pass_the_base_names_isinstance():
    class Duck:
        domain = Simplex()

        def argmin(self, linear, curvature, eta, centre):
            return centre

    assert isinstance(Duck(), gamedyn.Regularizer) and not isinstance(object(), gamedyn.Regularizer)


def test_every_learner_name_is_a_class_and_reprs_print_what_was_written():
    assert isinstance(FTRL(Entropy(), 1.0), FTRL) and isinstance(FTRL(Entropy(), 1.0), FollowTheRegularizedLeader)
    for name in (FTL, OFTL, FTRL, FTRLPlus, OFTRL):
        assert isinstance(name, type) and issubclass(name, FollowTheRegularizedLeader), name
    for name in (MirrorDescent, BestResponse):
        assert isinstance(name, type) and issubclass(name, OMD), name
    assert not isinstance(FTRL(Entropy(), 1.0), OFTRL) and not isinstance(OFTRL(Entropy(), 1.0), FTRL)
    expected = {
        "FTRL(Entropy(), eta=0.5)": FTRL(Entropy(), 0.5),
        "MirrorDescent(Entropy(), eta=1.0)": MirrorDescent(Entropy(), eta=1.0),
        "BestResponse(Simplex())": BestResponse(Simplex()),
        "FTL()": FTL(),
        "FTL(Ball(radius=2.0))": FTL(Ball(2.0)),
        "OFTL()": OFTL(),
        "FTRLPlus()": FTRLPlus(),
        "FTRLPlus(Entropy(), eta=2.0)": FTRLPlus(Entropy(), 2.0),
        "OFTRL(SquaredEuclidean(radius=None, domain=Reals()), eta=1.0)": OFTRL(SquaredEuclidean(), 1.0),
    }
    for text, learner in expected.items():
        assert repr(learner) == text
        assert repr(eval(text, vars(gamedyn) | {name: getattr(gamedyn, name) for name in gamedyn.__all__})) == text


def test_initial_points_keep_the_learner_class():
    result = play(Bilinear(A), OFTRL(SquaredEuclidean(), 0.5), FTRL(Entropy(), 0.5), 5,
                  initial_p=np.full(A.shape[0], 1.0 / A.shape[0]))
    assert result.rounds == 5
    assert isinstance(FTRL(Entropy(), 0.5).started_at(np.full(3, 1 / 3)), FTRL)


# ---------------------------------------------------------------- capabilities, not type switches

class MyBilinear(Bilinear):
    """A trivial subclass: keeps every declaration."""


class MyRegularized(RegularizedBilinear):
    pass


class MyEntropy(Entropy):
    pass


class MyLastLoss(LastLoss):
    pass


class MyFTRLPlus(FTRLPlus):
    pass


def test_a_trivial_subclass_keeps_every_declaration():
    assert rounds.bilinear_form_of(MyBilinear(A)) is not None
    assert rounds.bilinear_form_of(MyRegularized(A, 0.5)).w_curvature == 0.5
    assert FTRLPlus(MyEntropy(), 1.0).softmax_play(A.shape[0]).guess == "current"
    assert OFTRL(Entropy(), 1.0, hint=MyLastLoss()).softmax_play(A.shape[0]).guess == "last"
    assert MyFTRLPlus(MyEntropy(), 1.0).plays_in_domain is True


def test_a_subclass_that_changes_the_losses_or_the_guess_loses_the_declaration():
    class ScaledLoss(Bilinear):
        def loss_for_p(self, w, p_played=None):
            return super().loss_for_p(2 * w, p_played)

    class Custom(LastLoss):
        def predict(self, state, current_loss=None):
            return state

    assert rounds.bilinear_form_of(ScaledLoss(A)) is None
    assert OFTRL(Entropy(), 1.0, hint=Custom()).softmax_play(A.shape[0]) is None


def test_the_one_pass_round_is_taken_for_trivial_subclasses_and_gives_the_same_bits(monkeypatch):
    """Smooth perceptron's wiring (FTRL+ entropy second, OFTL first) in one pass, forced on a small A."""
    monkeypatch.setattr("gamedyn.arrays.one_pass.ONE_PASS_MIN_BYTES", 0)
    taken = []
    original = rounds.one_pass_round

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(rounds, "one_pass_round", spy)
    monkeypatch.setattr("gamedyn.engine.runner.one_pass_round", spy, raising=False)
    base = play(RegularizedBilinear(A), OFTL(), FTRLPlus(Entropy(), 1.0), 200, weights="linear")
    sub = play(MyRegularized(A), OFTL(), MyFTRLPlus(MyEntropy(), 1.0), 200, weights="linear")
    assert taken == [True, True]
    for field in ("w_average", "p_average", "w_regret", "p_regret", "duality_gap"):
        assert np.array_equal(getattr(base, field), getattr(sub, field)), field
    nag_base = play(RegularizedBilinear(A), FTRLPlus(), OFTRL(Entropy(), 1.0), 100, weights="linear", first="p")
    nag_sub = play(MyRegularized(A), MyFTRLPlus(), OFTRL(MyEntropy(), 1.0, hint=MyLastLoss()), 100,
                   weights="linear", first="p")
    assert taken[2:] == [True, True] and np.array_equal(nag_base.w_average, nag_sub.w_average)


def test_a_linear_operator_keeps_its_certificate():
    """The same certificate as the dense A, to 1e-12; a missing row-norm bound is a clear error."""
    dense = play(Bilinear(A), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 300)
    operator = spla.aslinearoperator(A)
    bound = float(np.max(np.linalg.norm(A, axis=1)))
    linear = play(Bilinear(operator, row_norm_bound=bound), OFTRL(SquaredEuclidean(radius=1.0), 0.5),
                  OFTRL(Entropy(), 0.5), 300)
    assert linear.certificate is not None
    assert abs(linear.certificate.lower - dense.certificate.lower) <= 1e-12
    assert abs(linear.certificate.upper - dense.certificate.upper) <= 1e-12
    assert linear.certificate.separable == dense.certificate.separable
    np.testing.assert_allclose(linear.certificate.p, dense.certificate.p, rtol=0, atol=1e-12)
    unstated = play(Bilinear(operator), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 300)
    assert unstated.certificate.lower == linear.certificate.lower and unstated.certificate.upper == linear.certificate.upper
    assert dense.certificate.separable is True and unstated.certificate.separable is None  # no norm: undecided
    with pytest.raises(ValueError, match="row_norm_bound"):
        play(Bilinear(operator), OFTRL(SquaredEuclidean(radius=1.0), 0.5), OFTRL(Entropy(), 0.5), 3,
             observers=[stop_when(gamedyn.certify.stops.infeasible(0.01))])


# ---------------------------------------------------------------- no type switches in the runner's parts

CHECKED = ["gamedyn/engine/runner.py", "gamedyn/engine/rounds.py", "gamedyn/engine/observers.py",
           "gamedyn/engine/seats.py"]
CONCRETE = {"Bilinear", "RegularizedBilinear", "ConcaveConvex", "FollowTheRegularizedLeader", "OMD", "FTRL", "FTL",
            "OFTL", "OFTRL", "FTRLPlus", "MirrorDescent", "BestResponse", "Entropy", "SquaredEuclidean", "QNorm", "Zero",
            "LastLoss", "CurrentLoss", "NoHint", "FirstRoundLoss", "Simplex", "Ball", "Reals", "L1Ball", "Box",
            "CertificateTracker", "BatchedCertificateTracker"}


def _switches(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Call) and getattr(node.left.func, "id", "") == "type":
            yield node.lineno, "type(...) compared"
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance" and len(node.args) == 2:
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            if names & CONCRETE:
                yield node.lineno, f"isinstance on {names & CONCRETE}"
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "name":
            yield node.lineno, "a .name comparison"


@pytest.mark.parametrize("path", CHECKED)
def test_no_type_switch_in_the_runner_round_selection_or_certificate_attachment(path):
    tree = ast.parse((ROOT / path).read_text())
    assert list(_switches(tree)) == []


def test_the_certificate_attachment_has_no_type_switch():
    tree = ast.parse((ROOT / "gamedyn/engine/payoffs.py").read_text())
    methods = [node for klass in tree.body if isinstance(klass, ast.ClassDef) for node in klass.body
               if isinstance(node, ast.FunctionDef) and node.name in ("certificate", "bilinear_form")]
    assert len(methods) >= 4 and all(list(_switches(method)) == [] for method in methods)


def test_the_learners_players_have_no_type_switch():
    tree = ast.parse((ROOT / "gamedyn/core/learners.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in ("FTRLPlayer", "OMDPlayer"):
            assert list(_switches(node)) == [], node.name


def test_no_frozen_object_is_mutated_by_the_mirror_step_memo():
    """The mirror-prox memo lives in the learners' module, not on the (frozen) regularizer."""
    source = (ROOT / "gamedyn/core/learners.py").read_text()
    assert "object.__setattr__(regularizer" not in source
    regularizer = SquaredEuclidean(radius=1.0)
    before = dict(getattr(regularizer, "__dict__", {}))
    from gamedyn.recipes import mirror_prox_perceptron

    mirror_prox_perceptron(A, 20)
    assert dict(getattr(regularizer, "__dict__", {})) == before


def test_a_subclass_keeps_the_closed_forms_its_parent_declares():
    """Behaviour by declared capability, not by exact class (issue 31): a trivial subclass of Simplex keeps
    Entropy's closed form (the softmax, the one-pass rounds' declaration) and a Bilinear p-player's place; a
    subclass that overrides the set's methods loses the declaration and is refused with the fix; a subclass of
    StepSchedule is still called with the round."""
    import attrs

    from gamedyn import Bilinear, Entropy, FTRL, Simplex, StepSchedule, play

    @attrs.frozen
    class NamedSimplex(Simplex):
        label: str = "mixed strategies"

    @attrs.frozen
    class Shifted(Simplex):
        def project(self, z):
            return Simplex.project(np.asarray(z) + 0.1)

    entropy = Entropy(domain=NamedSimplex())
    linear = np.array([0.3, -1.0, 2.0])
    assert entropy.argmin_is_softmax and entropy.legendre
    np.testing.assert_array_equal(entropy.argmin(linear, 0.0, 0.7, np.full(3, 1 / 3)),
                                  Entropy().argmin(linear, 0.0, 0.7, np.full(3, 1 / 3)))
    A = np.array([[0.5, -0.2], [0.1, 0.4], [-0.3, 0.2]])
    plain = play(Bilinear(A), FTRL(SquaredEuclidean(radius=1.0), 0.5), FTRL(Entropy(), 0.5), 20)
    named = play(Bilinear(A, p_domain=NamedSimplex()), FTRL(SquaredEuclidean(radius=1.0), 0.5), FTRL(entropy, 0.5), 20)
    np.testing.assert_array_equal(plain.w_average, named.w_average)
    with pytest.raises(ValueError, match="Entropy's domain must be Simplex"):
        Entropy(domain=Shifted())

    class Halving(StepSchedule):
        pass

    halving = FTRL(Entropy(), Halving(lambda t: 0.5 ** t))
    schedule = FTRL(Entropy(), StepSchedule(lambda t: 0.5 ** t))
    payoff = Bilinear(A)
    first = play(payoff, FTRL(SquaredEuclidean(radius=1.0), 0.5), halving, 10)
    second = play(payoff, FTRL(SquaredEuclidean(radius=1.0), 0.5), schedule, 10)
    np.testing.assert_array_equal(first.p_average, second.p_average)
