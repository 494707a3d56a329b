"""CS03: the scheme round-trips, every check rejects what it must, and the cost models hold."""
from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest

from costbook.prices import measurements
from costbook.groups import ristretto255 as Gamma
from costbook.timing.harness import Profile
from costbook.schemes.cs03 import fixtures, model
from costbook.groups.rsa import is_safe_prime, random_safe_prime, require_safe_prime
from costbook.schemes.cs03.proof import (InvalidProof, Parameters, Statement, check, check_parameters, encode_proof,
    prove, verifiable_encrypt, verify)
from costbook.schemes.cs03.scheme import (Ciphertext, DecryptionError, abs_mod, decrypt, encrypt, keygen,
    keygen_from_primes)

LABEL = b"test label"
#: the validation profile of the command-line test below (the gate times with VALIDATION_PROFILE)
CLI_PROFILE = Profile("cli test", samples=3, min_batch_seconds=0.02, warmup_seconds=0.0)


@pytest.fixture(scope="module")
def keys():
    return fixtures.load(3072)


@pytest.fixture(scope="module")
def honest(keys):
    sk, aux = keys
    rng = random.Random(7)
    m = Gamma.random_scalar(rng)
    C, w = encrypt(sk.pk, m, LABEL, rng)
    st = Statement(sk.pk, aux, C, LABEL, Gamma.GENERATOR * m)
    return m, C, w, st, prove(st, w, Parameters(), rng)


# --- safe primes and key generation -------------------------------------------------

def test_safe_prime_generator_and_checker_agree():
    rng = random.Random(1)
    for bits in (64, 128, 256):
        p = random_safe_prime(bits, rng)
        assert p.bit_length() == bits and p >> (bits - 2) == 3
        assert is_safe_prime(p)
    assert not is_safe_prime(13)          # prime, but 6 is not
    assert is_safe_prime(23)              # 11 is prime


def test_fixture_keys_are_well_formed(keys):
    sk, aux = keys
    pk = sk.pk
    assert is_safe_prime(sk.p) and is_safe_prime(sk.q) and sk.p * sk.q == pk.n
    assert pk.n.bit_length() == 3072
    n2 = pk.n2
    assert pow(pk.g, (sk.p - 1) // 2 * ((sk.q - 1) // 2), n2) == 1     # g has order dividing n'
    for x, y in ((sk.x1, pk.y1), (sk.x2, pk.y2), (sk.x3, pk.y3)):
        assert pow(pk.g, x, n2) == y
    assert aux.N.bit_length() == 3072


def test_bad_key_parameters_are_named():
    with pytest.raises(ValueError, match="not a safe prime"):
        require_safe_prime(13, "p")
    with pytest.raises(ValueError, match="is not prime"):
        require_safe_prime(15, "q")
    rng = random.Random(2)
    p, q = random_safe_prime(512, rng), random_safe_prime(512, rng)
    with pytest.raises(ValueError, match="at least 2048"):
        keygen_from_primes(p, q, rng)
    with pytest.raises(ValueError, match="distinct"):
        keygen_from_primes(p, p, rng)
    with pytest.raises(ValueError, match="at least 2048"):
        keygen(1024)


# --- encryption and decryption ------------------------------------------------------

def test_round_trip_with_and_without_crt(keys):
    sk, _ = keys
    rng = random.Random(3)
    for m in (0, 1, 2**255 + 17, sk.pk.n - 1):
        C, _ = encrypt(sk.pk, m, LABEL, rng)
        assert C.v == abs_mod(C.v, sk.pk.n2)
        assert decrypt(sk, C, LABEL) == m
        assert decrypt(sk, C, LABEL, crt=True) == m


def test_message_out_of_range(keys):
    sk, _ = keys
    for m in (-1, sk.pk.n):
        with pytest.raises(ValueError, match="message out of range"):
            encrypt(sk.pk, m, LABEL)


@pytest.mark.parametrize("crt", [False, True])
def test_decryption_rejects_every_modification(keys, honest, crt):
    sk, _ = keys
    _, C, _, _, _ = honest
    n2 = sk.pk.n2
    for field in ("u", "e", "v"):
        x = getattr(C, field)
        # multiply by a unit (a modified but well-formed component), keep v canonical
        y = x * 4 % n2
        if field == "v":
            y = abs_mod(y, n2)
        with pytest.raises(DecryptionError):
            decrypt(sk, dataclasses.replace(C, **{field: y}), LABEL, crt=crt)
    with pytest.raises(DecryptionError, match="label was modified"):
        decrypt(sk, C, LABEL + b"!", crt=crt)
    with pytest.raises(DecryptionError, match="canonical"):
        decrypt(sk, dataclasses.replace(C, v=n2 - C.v), LABEL, crt=crt)
    with pytest.raises(DecryptionError, match="unit"):
        decrypt(sk, dataclasses.replace(C, u=sk.p), LABEL, crt=crt)


def test_decryption_rejects_e_without_h_to_the_m(keys):
    """A ciphertext whose e is not y1^r h^m but passes the v check (made with the secret key)."""
    sk, _ = keys
    pk = sk.pk
    rng = random.Random(4)
    C, w = encrypt(pk, 5, LABEL, rng)
    # e' = e * g (not a power of h times y1^r); recompute a valid v for (u, e') with the secret key
    e2 = C.e * pk.g % pk.n2
    H = pk.hash(C.u, e2, LABEL)
    v2 = abs_mod(pow(pk.y2 * pow(pk.y3, H, pk.n2) % pk.n2, w.r, pk.n2), pk.n2)
    with pytest.raises(DecryptionError, match="1 \\+ mn"):
        decrypt(sk, Ciphertext(C.u, e2, v2), LABEL)


# --- the proof ---------------------------------------------------------------------

def test_honest_proof_verifies(honest):
    _, _, _, st, pi = honest
    assert verify(st, pi)
    check(st, pi)


@pytest.mark.parametrize("field", ["com", "c", "r_t", "s_t", "m_t"])
def test_verifier_rejects_each_modified_proof_field(honest, field):
    _, _, _, st, pi = honest
    bad = dataclasses.replace(pi, **{field: getattr(pi, field) + 1})
    assert not verify(st, bad)


def test_verifier_rejects_wrong_statements(keys, honest):
    sk, aux = keys
    m, C, _, st, pi = honest
    n2 = sk.pk.n2
    wrong = [
        dataclasses.replace(st, delta=Gamma.GENERATOR * (m + 1)),        # another discrete log
        dataclasses.replace(st, label=LABEL + b"!"),                       # another label
        dataclasses.replace(st, C=dataclasses.replace(C, u=C.u * 4 % n2)),
        dataclasses.replace(st, C=dataclasses.replace(C, e=C.e * 4 % n2)),
        dataclasses.replace(st, C=dataclasses.replace(C, v=abs_mod(C.v * 4, n2))),
        dataclasses.replace(st, aux=dataclasses.replace(aux, h_=aux.h_ * 4 % aux.N)),
    ]
    for s in wrong:
        assert not verify(s, pi)


def test_a_label_means_its_bytes_whatever_holds_them(keys, honest):
    """A bytearray or memoryview label is the bytes it holds, in encryption, decryption and the proof
    (a bytearray label used to verify as False); a str or an int label is refused, never read as bytes()
    would read it (an int as that many zero bytes)."""
    sk, aux = keys
    m, C, _, st, pi = honest
    for label in (bytearray(LABEL), memoryview(LABEL)):
        assert verify(dataclasses.replace(st, label=label), pi)
        assert decrypt(sk, C, label) == m
    st2, pi2 = verifiable_encrypt(sk.pk, aux, 5, bytearray(b"a label"), rng=random.Random(3))
    assert isinstance(st2.label, bytes) and verify(st2, pi2)
    assert verify(dataclasses.replace(st2, label=b"a label"), pi2)
    for label in ("test label", len(LABEL), None):
        assert not verify(dataclasses.replace(st, label=label), pi)
        with pytest.raises(TypeError, match="label must be bytes"):
            encrypt(sk.pk, 5, label, random.Random(1))


def test_verifier_rejects_an_out_of_range_response(honest):
    _, _, _, st, pi = honest
    with pytest.raises(InvalidProof, match="out of range"):
        check(st, dataclasses.replace(pi, m_t=st.pk.n // 4))
    with pytest.raises(InvalidProof, match="challenge"):
        check(st, dataclasses.replace(pi, c=2 ** Parameters().k))


def test_a_proof_for_another_message_fails(keys):
    """Encrypt m but claim delta = (m+1) gamma: the prover cannot make it verify."""
    sk, aux = keys
    rng = random.Random(5)
    C, w = encrypt(sk.pk, 10, LABEL, rng)
    st = Statement(sk.pk, aux, C, LABEL, Gamma.GENERATOR * 11)
    assert not verify(st, prove(st, w, Parameters(), rng))


def test_side_conditions(keys):
    sk, aux = keys
    with pytest.raises(ValueError, match="2\\^k <= rho"):
        check_parameters(sk.pk, aux, Parameters(k=256))
    with pytest.raises(ValueError, match="k and k' must be positive"):
        Parameters(k=0)
    check_parameters(sk.pk, aux, Parameters())


def test_proof_encoding_has_the_modelled_size(keys, honest):
    sk, aux = keys
    _, C, _, _, pi = honest
    p = Parameters()
    assert len(encode_proof(pi, sk.pk, aux, p)) == model.spec_sizes(3072, p.k, p.k_prime, Gamma.ell.bit_length())["proof"]
    assert len(C.to_bytes(sk.pk)) == model.spec_sizes(3072)["ciphertext"]


# --- the cost models ----------------------------------------------------------------

def test_seed_model_reproduces_every_printed_number():
    for ps, quantity, computed, printed, line, unit in model.reproduce_seed():
        assert computed == pytest.approx(printed, abs=1e-9), (ps, quantity, line)


def test_printed_sizes_are_on_their_seed_lines():
    """Against the seed note the scheme ships in its folder (so the check runs in any clone)."""
    from costbook import registry
    lines = (registry.folder("cs03") / "002_2157a55422b8ccfc.txt").read_text().splitlines()
    for ps, sizes in model.SEED_PRINTED_SIZES.items():
        for value, line in sizes.values():
            assert str(value) in re.findall(r"\d+", lines[line - 1]), (ps, value, line)
        bits = model.PARAMETER_SETS[ps].n_bits
        assert f"Z_n : {bits} bits" in lines[model.PARAMETER_SETS[ps].seed_line - 1]


def test_tallied_counts_match_the_spec_formula():
    """Running the code gives the formula's exponentiations, each within a few bits of its nominal length."""
    counts, _ = model.run_steps(3072)
    formula = model.spec_counts(3072, Parameters().k, Parameters().k_prime, Gamma.ell.bit_length())

    def by_ring(c):
        out = {}
        for key, n in c.items():
            if key.startswith("modexp/"):
                _, mod, exp = key.split("/")
                out.setdefault(int(mod), []).extend([int(exp)] * int(n))
            else:
                out.setdefault("gamma", []).extend([0] * int(n))
        return {r: sorted(v) for r, v in out.items()}

    for step in model.STEPS:
        got, want = by_ring(counts[step]), by_ring(formula[step])
        assert got.keys() == want.keys(), step
        for ring in got:
            assert len(got[ring]) == len(want[ring]), (step, ring)
            for g, w in zip(got[ring], want[ring]):
                assert w - 8 <= g <= w, (step, ring, got[ring], want[ring])


def test_crt_counts_match_the_formula():
    counts, _ = model.run_steps(3072, crt=True)
    assert sum(counts["decrypt"].values()) == sum(model.spec_counts(3072, crt=True)["decrypt"].values()) == 6
    assert all(k.startswith("modexp/3072/") for k in counts["decrypt"])


def test_estimate_json_against_published_and_reference():
    pub = measurements.load_source(f"published/{model.PUBLISHED}")
    r = model.estimate(pub, params="aggressive", model="seed")
    assert r["P_ms"] == pytest.approx(554.4) and r["V_ms"] == pytest.approx(197.4)
    spec = model.estimate(pub, params="conservative", model="spec")
    json.dumps(spec)
    # the spec model prices mod-N exponentiations by scaling across moduli: the note says so
    notes = [l.get("note", "") for l in spec["steps"]["prove"]["breakdown"]]
    assert any("scaled from moduli" in n for n in notes)
    # and Gamma with seed 000's curve25519-dalek price
    assert any(l["backend"] == "curve25519-dalek" for l in spec["steps"]["verify"]["breakdown"])
    ref = model.estimate(measurements.load_source("reference"), params="conservative", model="spec", crt="yes")
    assert ref["ms"]["decrypt"] < model.estimate(measurements.load_source("reference"), params="conservative",
                                                 model="spec")["ms"]["decrypt"]
    with pytest.raises(ValueError, match="no CRT"):
        model.estimate(pub, model="seed", crt="yes")
    with pytest.raises(ValueError, match="must be positive"):
        model.spec_counts(-1)


def test_combining_sources_refuses_ambiguous_backends():
    pub = measurements.load_source(f"published/{model.PUBLISHED}")
    with pytest.raises(measurements.MeasurementFileError, match="both have backend"):
        measurements.combine(pub, pub)


def test_cli_estimate_and_validate_cs03(capsys, monkeypatch):
    from costbook.calibration import validation
    from costbook.cli.commands import main
    # the command's wiring and a ratio far from any bound, timed with a short profile beside the other
    # tests: the same validation with VALIDATION_PROFILE and its 5% bound is the gate's
    # (tests/test_validation_bounds.py, alone on the machine)
    monkeypatch.setattr(validation, "VALIDATION_PROFILE", CLI_PROFILE)
    assert main(["estimate", "cs03", "--params", "conservative", "--source", "published", "--model", "seed", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["P_ms"] == pytest.approx(1241.9) and d["sizes_bytes"] == {"ciphertext": 3072, "proof": 1568}
    assert main(["estimate", "cs03", "--params", "aggressive", "--source", "reference", "--model", "spec",
                 "--crt", "yes", "--k-prime", "80", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["crt"] is True and d["k_prime"] == 80 and d["source"].startswith("reference")
    assert main(["estimate", "cs03", "--model", "nonsense"]) == 2
    assert "--model must be one of" in capsys.readouterr().err
    assert main(["estimate", "cs03", "--modulus-bits", "-5"]) == 2
    assert main(["validate", "cs03", "--params", "aggressive", "--processes", "1", "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    assert [r["params"] for r in v["runs"]] == ["aggressive"]
    assert [c["step"] for c in v["runs"][0]["checks"]] == list(model.STEPS)
    # a ratio, not an absolute time: every step's prediction explains most of its run time
    assert all(0.5 < c["measured_s"] / c["predicted_s"] < 2 for c in v["runs"][0]["checks"])


def test_price_models_is_what_the_steps_give():
    pub = measurements.load_source(f"published/{model.PUBLISHED}")
    both = model.price_models(pub)
    seed, spec, crt = both["aggressive"]
    assert seed["encrypt"].ms + seed["prove"].ms == pytest.approx(554.4)
    assert crt.ms < spec["decrypt"].ms


def test_spec_counts_keep_every_exponentiation_when_two_lengths_coincide():
    # with k = 255 the three (k+1)-bit exponents have the hash's 256 bits: all four must be counted
    for k in (254, 255, 256):
        counts = model.spec_counts(4096, k, 128, 256)
        assert {step: sum(c.values()) for step, c in counts.items()} == \
            {step: sum(c.values()) for step, c in model.spec_counts(4096, 200, 128, 256).items()}
    assert model.spec_counts(4096, 255, 128, 256)["verify"]["modexp/8192/256"] == 4
