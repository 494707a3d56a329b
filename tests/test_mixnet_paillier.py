"""Threshold Paillier (the artifact's optthpaillier) and the Mix protocol on it, at small sizes."""
import dataclasses
import functools
import random

import pytest

from costbook.prices.counting import counting
from costbook.prices.cost import Counts
from costbook.prices.keys import modexp_key
from costbook.groups.rsa import random_safe_prime
from costbook.schemes.mixnet import paillier as pai


@functools.lru_cache(maxsize=None)
def primes(bits: int = 128) -> tuple:
    """Two distinct safe primes of `bits` bits, the same on every run (a 2*bits-bit N)."""
    rng = random.Random(f"costbook/tests/paillier/{bits}")
    p = random_safe_prime(bits, rng)
    q = random_safe_prime(bits, rng)
    assert p != q
    return p, q


@pytest.fixture(scope="module")
def key3():
    """A 256-bit N shared among m = 3 mix-servers."""
    p, q = primes()
    return pai.keygen(3, p, q, rng=random.Random("costbook/tests/paillier/key3"))


def counted(f, *args, **kw):
    with counting() as c:
        out = f(*args, **kw)
    return out, Counts(c)


def test_threshold_round_trip_and_homomorphism(key3):
    pk, ds = key3
    rng = random.Random(1)
    assert pk.N.bit_length() == 256 and pk.m == 3
    for M in (0, 1, 12345, pk.N - 1, rng.randrange(pk.N)):
        c, _ = pai.encrypt(pk, M, rng)
        assert pai.threshold_decrypt(pk, c, ds) == M
    c1, r1 = pai.encrypt(pk, 40, rng)
    c2, r2 = pai.encrypt(pk, pk.N - 2, rng)
    assert pai.threshold_decrypt(pk, pai.add(pk, c1, c2), ds) == 38                # mod N
    assert pai.add(pk, c1, c2) == pai.encrypt(pk, 38, r=r1 + r2)[0]
    c3, r3 = pai.reencrypt(pk, c1, rng)
    assert c3 != c1 and pai.threshold_decrypt(pk, c3, ds) == 40
    assert c3 == pai.encrypt(pk, 40, r=r1 + r3)[0]
    with pytest.raises(ValueError, match="all 3"):
        pai.combine(pk, [pai.share_decrypt(pk, c1, d) for d in ds[:2]])            # m-of-m
    with pytest.raises(ValueError, match="share is wrong"):
        pai.combine(pk, [pai.share_decrypt(pk, c1, d) for d in (ds[0] + 1, ds[1], ds[2])])


def test_honest_share_proofs_verify_and_bad_ones_do_not(key3):
    pk, ds = key3
    rng = random.Random(2)
    cts = [pai.encrypt(pk, M, rng)[0] for M in (3, 1, 4, 1)]
    shares = [[pai.share_decrypt(pk, c, d) for c in cts] for d in ds]
    proofs = [pai.prove_shares(pk, k, ds[k], cts, shares[k], rng) for k in range(3)]
    assert all(pai.verify_shares(pk, k, cts, shares[k], proofs[k]) for k in range(3))
    assert [pai.combine(pk, col) for col in zip(*shares)] == [3, 1, 4, 1]
    # a wrong share at any position, item 0 included (the artifact's loops skip item 0)
    for i in range(4):
        bad = list(shares[1])
        bad[i] = bad[i] * (1 + pk.N) % pk.N2                 # shifts the decrypted plaintext by 1/4
        assert not pai.verify_shares(pk, 1, cts, bad, proofs[1])
        assert not pai.verify_shares(pk, 1, cts, bad, pai.prove_shares(pk, 1, ds[1], cts, bad, rng))
    # a share made with another key share, proved with it
    other = [pai.share_decrypt(pk, c, ds[0]) for c in cts]
    assert not pai.verify_shares(pk, 1, cts, other, pai.prove_shares(pk, 1, ds[0], cts, other, rng))
    # tampered proofs, proofs for the wrong server or other ciphertexts
    pf = proofs[2]
    for bad in (pai.ShareProof(pf.c, pf.z + 1), pai.ShareProof(pf.c ^ 1, pf.z),
                pai.ShareProof(pf.c, pf.z + (1 << (pk.sizes.rho + 1))), pai.ShareProof(pf.c, -pf.z)):
        assert not pai.verify_shares(pk, 2, cts, shares[2], bad)
    assert not pai.verify_shares(pk, 1, cts, shares[2], pf)
    assert not pai.verify_shares(pk, 2, cts[::-1], shares[2], pf)


def test_keys_from_non_safe_primes_are_rejected():
    p, q = primes()
    with pytest.raises(ValueError, match=r"safe primes: p = \d+ is not prime"):
        pai.keygen(2, p + 4, q)
    with pytest.raises(ValueError, match=r"safe primes: q = 13 is prime but \(p-1\)/2 is not"):
        pai.keygen(2, p, 13)
    with pytest.raises(ValueError, match="p != q"):
        pai.keygen(2, p, p)
    with pytest.raises(ValueError, match="both primes"):
        pai.keygen(2, p)
    with pytest.raises(ValueError, match="integer"):
        pai.keygen(2, float(p), q)


def test_bad_inputs_are_rejected(key3):
    pk, ds = key3
    p, q = primes()
    for m in (1, 0, 2.0, True):
        with pytest.raises(ValueError, match="m "):
            pai.keygen(m, p, q)
    for M in (-1, pk.N, 1.0, None):
        with pytest.raises(ValueError, match="plaintext"):
            pai.encrypt(pk, M)
    with pytest.raises(ValueError, match="ciphertext"):
        pai.share_decrypt(pk, pk.N, ds[0])
    c = pai.encrypt(pk, 1)[0]
    with pytest.raises(ValueError, match="index k"):
        pai.prove_shares(pk, 3, ds[0], [c], [c])
    # a verifier is a total function (issue 19): a malformed statement is rejected, not an error
    assert pai.verify_shares(pk, 0, [c], [c, c], pai.ShareProof(0, 0)) is False
    with pytest.raises(ValueError, match="sizes"):
        pai.share_decryption_counts(3, "4099")


def test_keygen_generates_its_own_primes():
    pk, ds = pai.keygen(2, bits=64, rng=random.Random("costbook/tests/paillier/gen"))
    assert pk.N.bit_length() == 128
    c, _ = pai.encrypt(pk, 77, random.Random(3))
    assert pai.threshold_decrypt(pk, c, ds) == 77


def test_tallies_of_paillier_operations_match_the_count_functions(key3):
    pk, ds = key3
    rng = random.Random(4)
    s = pk.sizes
    assert (s.kappa, s.r, s.rho) == (256, 128, s.share - 2 + 100) and s.n2 in (511, 512)
    cts, c_enc = counted(lambda: [pai.encrypt(pk, M, rng)[0] for M in range(5)])
    assert c_enc == pai.encryption_counts(5, pk) == {modexp_key(s.n2, 128): 5}
    _, c_re = counted(pai.reencrypt, pk, cts[0], rng)
    assert c_re == pai.encryption_counts(1, pk)
    shares, c_dec = counted(lambda: [pai.share_decrypt(pk, c, ds[1]) for c in cts])
    assert c_dec == pai.share_decryption_counts(5, pk) == {modexp_key(s.n2, s.share): 5}
    pf, c_prove = counted(pai.prove_shares, pk, 1, ds[1], cts, shares, rng)
    ok, c_verify = counted(pai.verify_shares, pk, 1, cts, shares, pf)
    assert ok and (c_prove, c_verify) == pai.share_proof_counts(5, pk)
    assert c_prove == {modexp_key(s.n2, 80): 7, modexp_key(s.n2, 82): 5, modexp_key(s.n2, s.rho): 1}
    # at the artifact's sizes (|N| = 2050, |N^2| = 4099): the 4d_k exponent has |N^2| bits
    prover, verifier = pai.share_proof_counts(10, 4099)
    assert pai.share_decryption_counts(10, 4099) == {"modexp/4099/4099": 10}
    assert verifier == {"modexp/4099/80": 13, "modexp/4099/82": 10, "modexp/4099/4197": 1}


# ---------------------------------------------------------------------------
# The Mix protocol

from costbook.schemes.mixnet import dbsm, mix                         # noqa: E402
from costbook.schemes.mixnet.curves import groups                     # noqa: E402


@pytest.fixture(scope="module")
def G():
    return groups("bn254")


def run(n, m, seed, cheat=None, curve="bn254"):
    rng = random.Random(f"costbook/tests/mix/{seed}")
    v = [rng.randrange(1 << 64) for _ in range(n)]
    p, q = primes()
    with counting() as c:
        st, res = mix.run_mix(v, m, p, q, curve=curve, rng=rng, cheat=cheat)
    return v, st, res, Counts(c)


@pytest.fixture(scope="module")
def honest_runs():
    return {(n, m): run(n, m, f"{n}/{m}") for n, m in [(4, 2), (5, 3), (6, 2)]}


def test_honest_mix_outputs_the_permuted_inputs_and_every_check_passes(honest_runs):
    for (n, m), (v, st, res, _) in honest_runs.items():
        assert res.accepted and res.not_implemented == ()
        assert all(ok == [True] * m for ok in res.checks.values())
        assert res.outputs == mix.expected_outputs(v, st.taus)
        assert sorted(res.outputs) == sorted(v) and res.outputs != v


def test_mix_tallies_match_the_stated_step_counts(honest_runs):
    # every key, the light ones (G1 additions, Fiat–Shamir serialisations) included
    for (n, m), (_, st, _, c) in honest_runs.items():
        assert c == mix.party_counts(n, m, st.pk)["total"]
    _, st, _, c = run(2, 2, "bls", curve="bls12_381")                  # |q| = 255 there
    assert c == mix.party_counts(2, 2, st.pk, "bls12_381")["total"]
    # linear in n per mix-server; at the artifact's sizes the n-dependent part of one shuffle
    # proof matches the notes: 2n X2[80] + n X2[180] + n X1[80] + n X1[180] + n E1v[80] + n E1v[180]
    prover, verifier = (lambda a, b: ({k: b[0].get(k, 0) - a[0].get(k, 0) for k in b[0]},
                                      {k: b[1].get(k, 0) - a[1].get(k, 0) for k in b[1]}))(
        mix.shuffle_counts(10, 4099), mix.shuffle_counts(11, 4099))
    # (and per item one more term in A's product and in the equal-exponents G1 equation, one more a_j hashed)
    assert {k: v for k, v in prover.items() if v} == {
        "modexp/4099/80": 2, "modexp/4099/180": 1, "modexp/2050/80": 1, "modexp/2050/180": 1,
        "bn254/g1_mul/80": 1, "bn254/g1_mul/180": 1, "bn254/g1_add": 2, "bn254/g1_to_bytes": 1}
    assert {k: v for k, v in verifier.items() if v} == {
        "modexp/4099/80": 1, "modexp/4099/180": 1, "modexp/2050/180": 1,
        "bn254/g1_mul/80": 1, "bn254/g1_mul/180": 1, "bn254/g1_add": 2, "bn254/g1_to_bytes": 1}


@pytest.mark.parametrize("n,m", [(1, 2), (2, 2), (3, 2), (2, 3)])
def test_a_mix_run_tallies_every_light_operation_it_states(n, m):
    _, st, res, c = run(n, m, f"light/{n}/{m}")
    assert res.accepted and c == mix.party_counts(n, m, st.pk)["total"]
    light = {k: v for k, v in c.items() if dbsm.is_light(k)}
    # from the protocol, not the code: each of the m permutation commitments adds one h per item and
    # is proved once and checked m - 1 times by a Terelius–Wikström proof (5n, 10n + 2 additions,
    # 7n + 6 elements hashed); each of the m Paillier shuffles is proved once (2n + 5 additions) and
    # checked m - 1 times (2n + 6), each hashing the n a_j and 6 G1 elements of its two sigma proofs;
    # Paillier arithmetic has no light operations
    proofs = lambda prove, check: m * prove + m * (m - 1) * check
    assert light == {"bn254/g1_add": m * n + proofs(5 * n, 10 * n + 2) + proofs(2 * n + 5, 2 * n + 6),
                     "bn254/g1_to_bytes": proofs(7 * n + 6, 7 * n + 6) + proofs(n + 6, n + 6)}


@pytest.mark.parametrize("cheat,check", [
    ("permutation", "shuffle"), ("ciphertext", "shuffle"), ("decryption_share", "decryption")])
def test_a_cheating_mix_server_is_rejected(cheat, check):
    _, _, res, _ = run(4, 3, f"cheat/{cheat}", cheat)
    assert not res.accepted and res.outputs is None
    assert res.checks[check] == [False, True, True]
    assert all(ok == [True] * 3 for name, ok in res.checks.items() if name != check)


def test_shuffle_verifier_rejects_tampering(G, honest_runs):
    v, st, res, _ = honest_runs[4, 2]
    pk = st.pk
    c_in, c_out, pf = res.transcript["shuffles"][1]
    a = st.perm_comms[1][0]
    assert mix.verify_shuffle(G, pk, c_in, c_out, a, pf)
    assert not mix.verify_shuffle(G, pk, c_in, [c_out[1], c_out[0]] + c_out[2:], a, pf)   # other order
    assert not mix.verify_shuffle(G, pk, c_in, c_out, st.perm_comms[0][0], pf)           # other commitment
    re0 = pai.reencrypt(pk, c_out[0], random.Random(5))[0]
    assert not mix.verify_shuffle(G, pk, c_in, [re0] + c_out[1:], a, pf)                 # other randomness
    eq = pf.equal_exponents
    for bad in (dataclasses.replace(pf, b2=pf.b2 * (1 + pk.N) % pk.N2),
                dataclasses.replace(pf, b1=G.op(pf.b1, G.g1)),
                dataclasses.replace(pf, z=pf.z[:3] + (pf.z[3] * 4 % pk.N,)),
                dataclasses.replace(pf, equal_exponents=mix.SigmaProof(eq.c, eq.z[:-1] + (eq.z[-1] + 1,)))):
        assert not mix.verify_shuffle(G, pk, c_in, c_out, a, bad)


def test_bad_mix_inputs_are_named():
    p, q = primes()
    with pytest.raises(ValueError, match="m "):
        mix.run_mix([1, 2], 1, p, q)
    with pytest.raises(ValueError, match="n "):
        mix.step_counts(0, 2, 511)
    with pytest.raises(ValueError, match="cheat"):
        mix.run_mix([1, 2], 2, p, q, cheat="bribe")
    with pytest.raises(ValueError, match="plaintext"):
        mix.run_mix([1, -2], 2, p, q)
    with pytest.raises(ValueError, match="safe primes"):
        mix.run_mix([1, 2], 2, p, q + 2)
