"""CS03: tamper every field the verifier receives (statement, public key, auxiliary parameters,
ciphertext, proof); each change to a different well-formed value must make the proof fail.

The field list is derived from the dataclasses, so a new field without a tamper entry fails
``test_every_field_has_a_tamper_entry``.
"""
from __future__ import annotations

import dataclasses
import functools
import random

import pytest

from costbook.groups import ristretto255 as Gamma
from costbook.schemes.cs03 import fixtures
from costbook.schemes.cs03.proof import Parameters, Proof, Statement, prove, verify
from costbook.schemes.cs03.scheme import abs_mod, encrypt

LABEL = b"tamper label"


def flip_bit(b: bytes) -> bytes:
    return bytes([b[0] ^ 1]) + b[1:]


def times4(modulus):
    """Multiply by the square 4: another unit (and quadratic residue) of the same ring."""
    return lambda x, st: x * 4 % modulus(st)


N2 = lambda st: st.pk.n2
NA = lambda st: st.aux.N

# path -> tamper(value, statement) -> a different value of the same kind
STATEMENT_TAMPERS = {
    "pk.n": lambda n, st: n + 2,                       # another odd modulus
    "pk.g": times4(N2), "pk.y1": times4(N2), "pk.y2": times4(N2), "pk.y3": times4(N2),
    "pk.hash_key": lambda b, st: flip_bit(b),
    "aux.N": lambda N, st: N + 2,
    "aux.g_": times4(NA), "aux.h_": times4(NA),
    "C.u": times4(N2), "C.e": times4(N2),
    "C.v": lambda v, st: abs_mod(v * 4, st.pk.n2),    # stays canonical, so only the proof can fail
    "label": lambda b, st: flip_bit(b),
    "delta": lambda d, st: d + Gamma.GENERATOR,
}
PROOF_TAMPERS = {
    "com": lambda x, st: x * 4 % st.aux.N,
    "c": lambda c, st: c + 1 if c + 1 < 2 ** Parameters().k else c - 1,   # stays in range
    "r_t": lambda x, st: x + 1, "s_t": lambda x, st: x + 1, "m_t": lambda x, st: x + 1,
}


def leaf_paths(obj, prefix=""):
    """Dotted paths of every leaf field of a (nested) dataclass."""
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if dataclasses.is_dataclass(v):
            yield from leaf_paths(v, prefix + f.name + ".")
        else:
            yield prefix + f.name


def replace_path(obj, path: str, value):
    head, _, rest = path.partition(".")
    if rest:
        value = replace_path(getattr(obj, head), rest, value)
    return dataclasses.replace(obj, **{head: value})


def get_path(obj, path: str):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.fixture(scope="module")
def honest():
    sk, aux = fixtures.load(3072)
    rng = random.Random(12)
    m = Gamma.random_scalar(rng)
    C, w = encrypt(sk.pk, m, LABEL, rng)
    st = Statement(sk.pk, aux, C, LABEL, Gamma.GENERATOR * m)
    pi = prove(st, w, Parameters(), rng)
    assert verify(st, pi)
    return st, pi


def test_every_field_has_a_tamper_entry(honest):
    st, pi = honest
    assert set(leaf_paths(st)) == set(STATEMENT_TAMPERS)
    assert {f.name for f in dataclasses.fields(Proof)} == set(PROOF_TAMPERS)


@pytest.mark.parametrize("path", sorted(STATEMENT_TAMPERS))
def test_tampered_statement_is_rejected(honest, path):
    st, pi = honest
    old = get_path(st, path)
    new = STATEMENT_TAMPERS[path](old, st)
    assert new != old
    assert verify(replace_path(st, path, new), pi) is False


@pytest.mark.parametrize("field", sorted(PROOF_TAMPERS))
def test_tampered_proof_is_rejected(honest, field):
    st, pi = honest
    old = getattr(pi, field)
    new = PROOF_TAMPERS[field](old, st)
    assert new != old
    assert verify(st, dataclasses.replace(pi, **{field: new})) is False


INTEGER_PATHS = [p for p in STATEMENT_TAMPERS if p.split(".")[-1] not in ("hash_key", "label", "delta")]


def test_sage_integers_are_integers_to_the_verifier(honest):
    """A Sage cell's arithmetic gives Sage Integers: the verifier reads them as the ints they are
    (accepting the honest proof, rejecting a tampered one at the check it targets), and still
    refuses what is not an integer."""
    from sage.all__sagemath_modules import Integer
    from costbook.schemes.cs03.proof import InvalidProof, check
    st, pi = honest
    sage_st = st
    for path in INTEGER_PATHS:
        sage_st = replace_path(sage_st, path, Integer(get_path(st, path)))
    sage_pi = dataclasses.replace(pi, **{f.name: Integer(getattr(pi, f.name)) for f in dataclasses.fields(Proof)})
    sage_params = Parameters(Integer(Parameters().k), Integer(Parameters().k_prime))
    assert type(sage_pi.r_t) is not int and type(sage_st.pk.n) is not int
    assert verify(sage_st, sage_pi, sage_params) is True
    with pytest.raises(InvalidProof, match="Fiat–Shamir"):
        check(sage_st, dataclasses.replace(sage_pi, m_t=sage_pi.m_t + 1), sage_params)
    with pytest.raises(InvalidProof, match="m~ out of range"):
        check(sage_st, dataclasses.replace(sage_pi, m_t=Integer(st.pk.n) // 4), sage_params)
    # a bound Parameters itself enforces, reached through a Sage Integer: a rejection, not an exception
    bad = Parameters()
    object.__setattr__(bad, "k", Integer(300))
    assert verify(sage_st, sage_pi, bad) is False
    for not_an_integer in (True, 1.0, "1", None, b"\x01"):
        assert verify(st, dataclasses.replace(pi, c=not_an_integer)) is False


# --- delta in Gamma: the prime-order group, not only the curve ---------------------------------------

@functools.lru_cache(maxsize=None)
def torsion_point(order: int):
    """A point of edwards25519 of the given order (1, 2, 4 or 8), as an Element: ell times a point of
    Curve25519 (order 8 ell), which has order dividing 8, doubled down to `order`."""
    E = Gamma.CURVE25519
    for u in range(2, 1000):
        try:
            Q = E.lift_x(Gamma.Fp(u))
        except ValueError:
            continue
        T = Gamma.ell * Q
        if not (4 * T).is_zero():                  # order exactly 8
            T = (8 // order) * T
            return Gamma.from_montgomery(T)
    raise AssertionError("no point of order 8 found")


def test_the_torsion_points_have_their_orders():
    for order in (1, 2, 4, 8):
        T = torsion_point(order)
        assert Gamma.is_element(T)                  # on the curve
        assert Gamma.in_group(T) is (order <= 4)    # E[4] is the identity's coset; a point of order 8 is in none
        assert Gamma.to_montgomery(T).order() == order     # as a point (Element's == compares cosets)


@pytest.mark.parametrize("order", [8])
def test_delta_plus_a_point_of_order_8_is_refused_even_with_a_proof_made_for_it(honest, order):
    """delta + T, T of order 8, is on the curve but in no coset of 2E / E[4]: no ristretto255 element.
    The honest prover's code proves for it; without the membership check the verifier's c (delta + T)
    is c delta for every even c (c T in E[4]), and one such proof in two was accepted.  Refused for
    every try, at the check that says so."""
    from costbook.schemes.cs03.proof import InvalidProof, check
    st, _ = honest
    sk, aux = fixtures.load(3072)
    T = torsion_point(order)
    rng = random.Random("delta + T8")
    for _ in range(6):                              # one of 64 runs of old code could miss
        m = Gamma.random_scalar(rng)
        C, w = encrypt(sk.pk, m, LABEL, rng)
        bad = Statement(sk.pk, aux, C, LABEL, Gamma.GENERATOR * m + T)
        pi = prove(bad, w, Parameters(), rng)
        assert verify(bad, pi) is False
        with pytest.raises(InvalidProof, match="delta is not an element of Gamma"):
            check(bad, pi)


@pytest.mark.parametrize("order", [2, 4])
def test_delta_plus_a_point_of_E4_is_the_same_element(honest, order):
    """A point of order 2 or 4 added to delta's representative leaves the element (its coset) as it
    is: the honest proof still verifies.  The check refuses points off the group, not other
    representatives of an element."""
    st, pi = honest
    same = dataclasses.replace(st, delta=st.delta + torsion_point(order))
    assert bytes(same.delta) == bytes(st.delta)
    assert verify(same, pi) is True
