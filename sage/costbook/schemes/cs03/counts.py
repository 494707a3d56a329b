"""CS03's cost formula: the exponentiations of each step, and the sizes, as functions of its options.

Two models of the same four steps (encrypt, prove, verify, decrypt): ``seed_counts``, what the seed
note (002) counts, and ``spec_counts``, what the Sage implementation in this package computes (the
chapter and the scheme contract check it against the counts tallied by running the code,
``model.run_steps``); ``model_counts`` picks one.  ``step_counts(**options)`` is the entry every
scheme's counts.py has: {label of each price call ``model.estimate`` makes: the Counts it prices}.
model.py prices these counts; nothing here prices.
"""
from __future__ import annotations

from ...prices.cost import Counts
from ...prices.keys import modexp_key
from . import seed
from .seed import Parameters

# ---------------------------------------------------------------------------
# The seed's model

def seed_counts(n_bits: int, k: int = 256) -> dict:
    """The seed's exponentiation counts per step, all modulo n^2 (|n^2| = 2L).

    'log(n)-bit' exponents have L bits, 'n^2-bit' ones 2L, the challenge k bits and
    the seed's masks '2k bits'; the 256-bit exponents of encrypt and prove are the
    seed's message length ('assume m is 256 bits').
    """
    L, k = int(n_bits), int(k)          # plain ints, also when called with Sage Integers
    e = lambda bits: modexp_key(2 * L, bits)
    return {
        "encrypt": Counts({e(L): 4, e(256): 1}),
        "prove": Counts({e(L): 2, e(256): 1}) + Counts({e(2 * k): 7}),
        "verify": Counts({e(k): 5}) + Counts({e(2 * k): 7}) + Counts({e(L): 1}),
        "decrypt": Counts({e(2 * L): 2}),
    }


def seed_sizes(n_bits: int, k: int = 256) -> dict:
    """|C| = 3 elements of Z_{n^2}; |tr| = '3 approx n-bit values, one 256-bit value' (bytes)."""
    return {"ciphertext": 3 * 2 * int(n_bits) // 8, "proof": 3 * int(n_bits) // 8 + int(k) // 8}


# ---------------------------------------------------------------------------
# The scheme's own model

def spec_counts(n_bits: int, k: int = 256, k_prime: int = 128, rho_bits: int = 256,
                N_bits: int | None = None, hash_bits: int = 256, crt: bool = False) -> dict:
    """Exponentiations of the implementation, per step, by ring and exponent length.

    Exponent lengths are the nominal bounds of their ranges (a random draw is shorter
    by a bit or two, which the tallied counts show): r < n/4 has L-2 bits; the masks
    |r'| <= n 2^{k+k'-2}, so 2r' has L+k+k'-1 bits; |s'| <= N 2^{k+k'-2}; |m'| <= rho 2^{k+k'};
    x_i < n^2/4 has 2L-2 bits, so 2(x2 + H x3) has 2L-1+|H| bits; 2t = n+1 has L bits.
    Every exponentiation in Gamma is priced as a variable-base ristretto255 multiplication, and the
    verifier's check that delta is in Gamma (``Gamma.in_group``) as the decoding of its 32 bytes.
    The seed's model has neither: it counts no operation in Gamma.
    """
    L, N = int(n_bits), int(N_bits or n_bits)
    k, k_prime, rho_bits, hash_bits = int(k), int(k_prime), int(rho_bits), int(hash_bits)
    for name, v in (("modulus bits", L), ("k", k), ("k'", k_prime), ("rho bits", rho_bits), ("N bits", N)):
        if int(v) <= 0:
            raise ValueError(f"{name} must be positive, got {v}")
    n2 = lambda bits: modexp_key(2 * L, bits)
    zN = lambda bits: modexp_key(N, bits)
    gamma = "ristretto255/mul"
    mask_n = L + k + k_prime - 1                 # 2r', 2r~
    counts = {
        # u = g^r, y1^r, y^ = y2 y3^H, v = y^^r   (h^m = 1 + mn is free)
        # (sums of one-key Counts, never one dict literal: two exponent lengths may coincide, e.g.
        # k + 1 = |H|, and a literal would silently keep only one of them)
        "encrypt": Counts({n2(L - 2): 3}) + Counts({n2(hash_bits): 1}),
        # com = g_^m h_^s; u', e', v'; delta' = gamma^m'; com' = g_^m' h_^s'
        "prove": Counts({n2(mask_n): 3, gamma: 1}) + Counts({zN(rho_bits): 1}) + Counts({zN(N - 2): 1})
                 + Counts({zN(rho_bits + k + k_prime): 1}) + Counts({zN(N + k + k_prime - 2): 1}),
        # delta in Gamma (decoded); y^; u^2c g^2r~, e^2c y1^2r~, v^2c y^^2r~; delta^c gamma^m~;
        # com^c g_^m~ h_^s~
        "verify": Counts({"ristretto255/decode": 1}) + Counts({n2(hash_bits): 1}) + Counts({n2(k + 1): 3})
                  + Counts({n2(mask_n): 3, gamma: 2})
                  + Counts({zN(k): 1})
                  + Counts({zN(rho_bits + k + k_prime): 1}) + Counts({zN(N + k + k_prime - 2): 1}),
    }
    if crt:
        # each of the three exponentiations mod n^2 becomes one mod p^2 and one mod q^2
        # (|p^2| = L bits) with the exponent reduced mod p(p-1): about L bits
        counts["decrypt"] = Counts({modexp_key(L, L): 6})
    else:
        # u^{2(x2 + H x3)}, u^{-x1}, (e u^{-x1})^{2t}
        counts["decrypt"] = Counts({n2(2 * L - 1 + hash_bits): 1}) + Counts({n2(2 * L - 2): 1}) + Counts({n2(L): 1})
    return counts


def spec_sizes(n_bits: int, k: int = 256, k_prime: int = 128, rho_bits: int = 256,
               N_bits: int | None = None) -> dict:
    """|C| and the Fiat–Shamir proof (com, c, r~, s~, m~) in bytes, from proof.response_bytes."""
    from .proof import response_bytes
    n_bits, N_bits = int(n_bits), int(N_bits or n_bits)
    parts = response_bytes(int(k), int(k_prime), n_bits, N_bits, int(rho_bits))
    return {"ciphertext": 3 * ((2 * n_bits + 7) // 8), "proof": sum(parts.values()), "proof_parts": parts}


def model_counts(model: str, n_bits: int, k: int = 256, k_prime: int = 128, rho_bits: int = 256,
                 crt: bool = False) -> dict:
    """{step: Counts} of the seed's or the spec model."""
    if model == "seed":
        return seed_counts(n_bits, k)
    if model == "spec":
        return spec_counts(n_bits, k, k_prime, rho_bits, crt=crt)
    raise ValueError(f"unknown CS03 model {model!r} ({' or '.join(seed.MODELS)})")


def step_counts(**options) -> dict:
    """{label: Counts} of each step ``model.estimate`` prices at `options` (the fields of
    ``seed.Parameters``, every one of which changes counts; checked there): labelled by the step's name."""
    p = Parameters(**options)
    return model_counts(p.model, p.n_bits, p.challenge_bits, p.k_prime, p.rho_bits, p.use_crt)
