"""costbook.prices.replay: a run replayed with its priced calls answered from a record leaves the
interpreter's work; a replay that goes another way than its record is an error, never a wrong time."""
import random

import pytest

from costbook.prices.counting import counting, tally
from costbook.prices.replay import Replay, ReplayDiverged


class Group:
    """A toy group whose multiplication is priced (tallied) and slow to compute, and whose product of
    'GT' elements goes through the same method as an addition but is not priced."""

    def __init__(self):
        self.computed = []

    def mul(self, k, x):
        tally("ristretto255/mul")
        self.computed.append(("mul", k, x))
        return (k * x) % 1009

    def op(self, x, y, gt=False):
        if not gt:
            tally("bn254/g1_add")
        self.computed.append(("op", x, y))
        return (x + y) % 1009

    def addmul(self, k, x, y):            # a priced call that makes priced calls: only the outer is recorded
        return self.op(self.mul(k, x), y)


def protocol(G, rng, detour=False):
    k = rng.randrange(1, 1000)
    a = G.mul(k, 7)
    b = G.op(a, 3)
    c = G.op(a, b, gt=True)                # unpriced: runs in the replay
    if detour:
        G.mul(2, 2)
    return G.addmul(k, b, c)


def test_the_replay_answers_priced_calls_from_the_record_and_runs_the_rest():
    G = Group()
    replay = Replay([(G, "mul"), (G, "op"), (G, "addmul")], seed="toy")
    assert replay.record(lambda r: protocol(G, r)) == 4          # mul, op, op (GT), addmul
    expected = protocol(Group(), replay.rng())
    G.computed.clear()
    out = []
    with counting() as c:
        replay.replay(lambda r: out.append(protocol(G, r)))
    assert out == [expected]                                     # the same values, from the record
    assert dict(c) == {}                                         # nothing priced ran
    assert [x[0] for x in G.computed] == ["op"]                  # only the unpriced GT product ran
    assert "mul" not in vars(G) and "op" not in vars(G)           # the methods are restored


def test_a_replay_that_diverges_from_its_record_is_an_error():
    G = Group()
    replay = Replay([(G, "mul"), (G, "op"), (G, "addmul")], seed="toy")
    replay.record(lambda r: protocol(G, r))
    with pytest.raises(ReplayDiverged, match="call 3 of the replay is mul"):
        replay.replay(lambda r: protocol(G, r, detour=True))
    with pytest.raises(ReplayDiverged, match="made 1 of the 4 recorded calls"):
        replay.replay(lambda r: G.mul(r.randrange(1, 1000), 7))
    assert "mul" not in vars(G)                                  # restored after an error too
    with pytest.raises(RuntimeError, match="nothing recorded"):
        Replay([(G, "mul")], seed="x").replay(lambda r: None)


def test_the_dbsm_replay_runs_no_priced_operation():
    """The traceable mixnet's run replayed: no priced operation is left in it (every tallying call goes
    through the group's priced_calls), and its verdicts are the recorded run's."""
    from costbook.schemes.mixnet import dbsm
    from costbook.schemes.mixnet.curves import groups
    G = groups("bn254")
    mo = dbsm.mix_outputs(G, 1, 2, random.Random("replay test"))
    replay = Replay(G.priced_calls(), seed="replay test run")
    with counting() as recorded:
        replay.record(lambda r: dbsm.query(G, mo, r))
    with counting() as replayed:
        results = []
        replay.replay(lambda r: results.append(dbsm.query(G, mo, r)))
    assert sum(recorded.values()) > 0 and dict(replayed) == {}
    real = dbsm.query(G, mo, replay.rng())
    assert results[0].verdict == real.verdict and results[0].checks == real.checks


def test_an_intercepted_instance_attribute_is_put_back():
    G = Group()
    own = G.mul                                   # a bound method stored on the instance
    G.mul = own
    replay = Replay([(G, "mul"), (G, "op"), (G, "addmul")], seed="toy")
    replay.record(lambda r: protocol(G, r))
    replay.replay(lambda r: protocol(G, r))
    assert vars(G)["mul"] is own and "op" not in vars(G)
