"""The traceable mixnets' cost formula: the operation counts of what ``model.estimate`` prices.

* the artifact's code (the seed's timings): every timed line of its sample report, read off the
  code (``steps``, in ``symbol_counts``' keys), summed per party (``totals``, labelled ``TOTALS``);
  ``artifact.py`` calibrates and prices them;
* the protocols in Sage: the counts of each step of DB-SM and DB-RSM are stated in their protocol
  modules, next to the code whose run the tests compare them with (``dbsm.step_counts``,
  ``dbrsm.step_counts``, summed per party by ``party_counts``); used here as they are;
* the cpSNARK-Set baseline's O(n) part, one RSA-accumulator witness (``witness_counts``), and the
  DPKs' curve operations per item (``dpk_counts``, for the curve switch).

``step_counts(**options)`` is the entry every scheme's counts.py has: {label of each labelled price
call ``model.estimate`` makes with a file that prices counts: its Counts}.  It is not ``dbsm``'s or
``dbrsm``'s ``step_counts`` (one protocol's steps): those are named by their module.  model.py
prices these counts (a price file's gaps filled as ``model.as_priced`` says); nothing here prices.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...prices.cost import Counts
from ...prices.keys import modexp_key
from .seed import M_SEED, N_SEED, Parameters, positive

N2_BITS = 4099          # |N^2| of the threshold Paillier modulus, |N| = 2050 (safe primes, hard-coded)
N_BITS = 2050
NS_BITS = 2038          # single-key Paillier modulus N' (decryption by CRT mod P^2 and Q^2)
R_BITS = 1025          # the randomness r of a threshold-Paillier encryption, ceil(kappa / 2) bits
TABLE_BLOCK = 13        # the artifact's table exponentiation: 13-bit blocks of r, 79 of them
TABLE_KEY = f"modexp_fixed/{N2_BITS}/{R_BITS}/{TABLE_BLOCK}"
TABLE_STEPS = -(-R_BITS // TABLE_BLOCK)
ENC_PRODUCTS = 2        # besides the table: (1 + MN) (h^N)^r, and the product re-encryption adds
KAPPA = 80              # kappa_e = kappa_c: batching weights and challenges
CIPHERTEXT_BYTES = 515  # gmpy2.to_binary of a residue mod N^2: 513 bytes of magnitude and a 2-byte header
SCALAR_BITS = 254
COPY_KEY = "bytes/copy"


def concat_copies(pieces: int, piece_bytes: int) -> int:
    """Bytes copied building a string of `pieces` pieces of `piece_bytes` bytes by `res += piece`:
    bytes are immutable, so step k writes a new string of k pieces."""
    return piece_bytes * pieces * (pieces + 1) // 2


def shuffle_hash_copies(n: int) -> int:
    r"""Bytes copied by one Paillier shuffle challenge (the artifact's ``hash_gmpy2`` over the input
    and output ciphertext lists): the two lists' quadratic concatenations; the few short pieces
    around them and the SHA-256 pass over the result are linear in n and left out.

    The one hash that is not negligible: the artifact turns each list into bytes by repeated
    concatenation (``res += piece``), which copies the whole string built so far at every step:
    $s\,n(n+1)/2$ bytes per list of $n$ ciphertexts of $s$ bytes, quadratic in $n$.  The prover and
    every verifier of the proof do it once.  Its price per byte is a calibrated parameter like the
    others, shared by the four report lines that contain Paillier shuffles."""
    return 2 * concat_copies(n, CIPHERTEXT_BYTES)


def symbol_counts(curve: str = "bn254", **symbols) -> Counts:
    r"""Counts from the notes' symbols: E1v, E1v80, E1v180, E1f, E2v, E2f, ETv, ETf, P,
    X2_<bits>, X1_<bits>, XS_<bits> (mod the single-key modulus), PaiEnc (a threshold-Paillier
    encryption: its table exponentiation and two products), M2 (a product mod N^2), M1 (mod N),
    L2 (Paillier's L on a residue mod N^2), A1 (a product in G1), BC (bytes copied building a hash input).

    The book's primitive keys they map to:

    ======================  ==========================================================================
    ``bn254/g1_mul``        $E_{1v}$: variable-base exponentiation in $\mathbb{G}_1$, 254-bit exponent
    ``bn254/g1_mul/80``     $E_{1v}[80]$: the same with an 80-bit exponent (batching weights, challenges)
    ``bn254/g1_mul_fixed``  $E_{1f}$: base $g_1$, $h_1$ or $f_1$, from PBC's precomputed table
    ``bn254/g2_mul[_fixed]`` $E_{2v}$, $E_{2f}$;  ``bn254/gt_exp[_fixed]``: $E_{Tv}$, $E_{Tf}$
    ``bn254/pairing``       $P$
    ``modexp/4099/<b>``     $X_2[b]$: exponentiation mod $N^2$ of threshold Paillier ($|N| = 2050$)
    ``modexp/2050/<b>``     $X_1[b]$: mod $N$ (Fujisaki–Okamoto commitments of the Paillier shuffle)
    ``modexp/2038/<b>``     single-key Paillier: CRT decryption mod $P^2$, $Q^2$ (modulus $N'$ of 2038 bits)
    ``modexp_fixed/4099/1025/13`` $(h^N)^r$ of an encryption: a 1025-bit $r$ in 13-bit blocks, one product
                            mod $N^2$ per block with its entry of a precomputed table (79 blocks of 8192 entries)
    ``modmul/4099``         $M_2$: one product mod $N^2$ (homomorphic addition, combining shares)
    ``modmul/2050``, ``intdiv/4099/2050``  a product mod $N$ and Paillier's $L(u) = (u-1)/N$ (combining shares)
    ``bn254/g1_add``        $A_1$: one product of two $\mathbb{G}_1$ elements (Charm; homomorphic ElGamal)
    ``bytes/copy``          one byte copied while the Paillier shuffle proof builds its hash input
    ======================  ==========================================================================
    """
    keys = {"E1v": f"{curve}/g1_mul", "E1f": f"{curve}/g1_mul_fixed", "E2v": f"{curve}/g2_mul",
            "E2f": f"{curve}/g2_mul_fixed", "ETv": f"{curve}/gt_exp", "ETf": f"{curve}/gt_exp_fixed",
            "P": f"{curve}/pairing", "M2": f"modmul/{N2_BITS}", "M1": f"modmul/{N_BITS}",
            "L2": f"intdiv/{N2_BITS}/{N_BITS}", "A1": f"{curve}/g1_add", "BC": COPY_KEY}
    out = Counts()
    for sym, k in symbols.items():
        if not k:
            continue
        if sym in keys:
            out.add(keys[sym], k)
        elif sym.startswith("E1v"):
            out.add(f"{curve}/g1_mul/{int(sym[3:])}", k)
        elif sym == "PaiEnc":
            out.add(TABLE_KEY, k)
            out.add(f"modmul/{N2_BITS}", ENC_PRODUCTS * k)
        elif sym[:3] in ("X2_", "X1_", "XS_"):
            mod = {"X2_": N2_BITS, "X1_": N_BITS, "XS_": NS_BITS}[sym[:3]]
            out.add(modexp_key(mod, int(sym[3:])), k)
        else:
            raise ValueError(f"unknown operation symbol {sym!r}")
    return out


@dataclass(frozen=True)
class Step:
    section: str         # mix, dbsm, dbrsm
    party: str           # mixer (per mix-server) or verifier
    slug: str            # the report line's key: step/mixnet/<section>/<slug>/<party>/n<n>_m<m>
    label: str           # the report's wording
    counts: Counts
    fitted: bool = True  # False: left out of the calibration
    mixer: int = 0       # the mix-server whose report line this is

    def key(self, n: int = N_SEED, m: int = M_SEED) -> str:
        return f"step/mixnet/{self.section}/{self.slug}/{self.party}/n{n}_m{m}"


#: the security models: "malicious" runs every step; "hbc" (honest but curious, the paper's second
#: column) drops the steps that only make or check proofs for the other parties.  Steps whose timer
#: mixes the work with its proof (blinding + PoK, shares + batched proof) are kept whole, so the
#: HBC figures here are upper bounds (notes §4.6: the report cannot split them).
SECURITY_MODELS = ("malicious", "hbc")
PROOF_ONLY = frozenset({"check_sigs", "shuffle_prove", "shuffle_verify", "blind_verify", "decrypt_verify",
                        "z1_verify", "verify_openings"})


def steps(n: int = N_SEED, m: int = M_SEED, curve: str = "bn254", security: str = "malicious",
          byte_copying: bool = True) -> list:
    """Every timed step of one mix-server (mixer 0) and of the verifier, as the artifact runs them.

    `byte_copying=False` leaves out the Paillier shuffle hash's byte copying (``bytes/copy``), to
    price the cryptographic operations alone with prices measured for native libraries."""
    if security not in SECURITY_MODELS:
        raise ValueError(f"unknown security model {security!r}: choose one of {SECURITY_MODELS}")
    if security == "hbc":
        return [s for s in steps(n, m, curve, byte_copying=byte_copying) if s.slug not in PROOF_ONLY]
    positive(n, "n")
    if int(m) < 2:
        raise ValueError(f"m (the number of mix-servers) must be >= 2, got {m}")
    n, m = int(n), int(m)
    o = m - 1                                  # the other mix-servers, whose proofs each one checks
    c = lambda **kw: symbol_counts(curve, **kw)

    def S(section, party, slug, label, counts, fitted=True, mixer=0):
        return Step(section, party, slug, label, counts, fitted, mixer)

    # Proofs of shuffle (notes §4.1): Terelius-Wikstrom over ElGamal in G1, Wikstrom's over Paillier
    elg_p = dict(E1v80=n, E1v=4 * n, E1f=2 * n)
    elg_v = dict(E1v80=3 * n, E1v=5 * n, E1f=n)
    copies = shuffle_hash_copies(n) if byte_copying else 0      # the challenge, in prover and verifier
    pai_p = dict(E1v80=n, E1v180=n, X2_80=2 * n, X2_180=n, X1_80=n, X1_180=n, BC=copies)
    pai_v = dict(E1v80=n, E1v180=n, X2_80=n, X2_180=n, X1_180=n, BC=copies)
    times = lambda k, d: {s: k * v for s, v in d.items()}
    plus = lambda *ds: {s: sum(d.get(s, 0) for d in ds) for d in ds for s in d}
    share_pf = dict(X2_80=n - 1, X2_82=n - 1)              # batched threshold-Paillier share proof
    out = [
        # -- Mix protocol (notes §4.2) ------------------------------------------------------------
        S("mix", "mixer", "reencrypt", "re-encryption", c(PaiEnc=n)),
        S("mix", "mixer", "shuffle_prove", "creating proof of correct shuffle", c(**pai_p)),
        S("mix", "mixer", "shuffle_verify", "verifying others' proofs of shuffle", c(**times(o, pai_v))),
        S("mix", "mixer", "decrypt_shares", "threshold decryption (shares + batched proof)",
          c(X2_4099=n, X2_2130=1, **share_pf)),
        S("mix", "mixer", "decrypt_verify", "verifying others' decryption shares", c(**times(o, share_pf))),
        # combining: the product of the m shares (the first against 1), then L and a product mod N
        S("mix", "mixer", "decrypt_combine", "combining decryption shares", c(M2=o * n, L2=n, M1=n)),
        S("mix", "mixer", "share_decrypt", "decryption of individual message/randomness shares",
          c(XS_441=4 * n)),
        # -- DB-SM (notes §4.3) ------------------------------------------------------------------
        S("dbsm", "verifier", "sign", "creating BB signatures and encryptions", c(E1f=2 * n, E1v=n)),
        S("dbsm", "mixer", "check_sigs", "checking verifier's signatures and encryptions",
          c(E1v80=n, E1v=2 * n, E1f=n, P=2, ETf=1)),
        S("dbsm", "mixer", "reencrypt", "re-encrypting encrypted BB sigs", c(E1f=n, E1v=n)),
        S("dbsm", "mixer", "shuffle_prove", "creating proof of shuffle of encrypted BB sigs", c(**elg_p)),
        S("dbsm", "mixer", "shuffle_verify", "verifying others' proofs of shuffle", c(**times(o, elg_v))),
        S("dbsm", "mixer", "blind", "generate encrypted blinded BB sigs + PoK of blinding factors",
          c(E1v=6 * n, E1f=2 * n)),
        S("dbsm", "mixer", "blind_verify", "verifying others' PoK of blinding factors",
          c(**times(o, dict(E1v=5 * n, E1f=n)))),
        # mixer 1's line: mixer 0 multiplies the encryption of the identity (randomness 0), a shortcut
        S("dbsm", "mixer", "blind_product", "generate encrypted blinded BB signatures (homomorphic; mix-server 1)",
          c(A1=2 * n), mixer=1),
        S("dbsm", "mixer", "decrypt_shares", "obtain decryption shares", c(E1v=n + 1, E1v80=2 * (n - 1))),
        S("dbsm", "mixer", "decrypt_verify", "verifying others' decryption shares",
          c(**times(o, dict(E1v80=2 * (n - 1), E1v=2)))),
        S("dbsm", "mixer", "dpk_commit", "dpk_bbsig commit message", c(P=n, E2f=n, ETf=n, E1f=2 * n)),
        S("dbsm", "verifier", "dpk_verify", "verifying dpk_bbsig proof",
          c(P=n, E2v=n, E2f=n, ETf=n, E1v=n, E1f=2 * n)),
        # -- DB-RSM (notes §4.4) -----------------------------------------------------------------
        S("dbrsm", "verifier", "verify_openings", "verifying PoK of commitment openings", c(E1v=n, E1f=2 * n)),
        S("dbrsm", "verifier", "sign", "creating BBS+ signatures and encryptions",
          c(E1f=2 * n, E1v=2 * n, PaiEnc=2 * n)),
        S("dbrsm", "mixer", "check_sigs", "checking verifier's signatures and encryptions",
          c(E1v80=2 * n, E1v=2 * n, E1f=2 * n, PaiEnc=2 * n, P=2, ETf=1)),
        S("dbrsm", "mixer", "r_component", "homomorphically obtain the r component of BBS+ sig", c(M2=n)),
        S("dbrsm", "mixer", "reencrypt", "re-encrypting encrypted BBS+ sigs", c(E1f=n, E1v=n, PaiEnc=2 * n)),
        S("dbrsm", "mixer", "shuffle_prove", "creating proof of shuffle of encrypted BBS+ sigs",
          c(**plus(elg_p, times(2, pai_p)))),
        S("dbrsm", "mixer", "shuffle_verify", "verifying others' proofs of shuffle",
          c(**times(o, plus(elg_v, times(2, pai_v))))),
        S("dbrsm", "mixer", "blind", "generate encrypted blinding factors + PoKs",
          c(E1f=4 * n, E1v=2 * n, PaiEnc=2 * n, X2_2170=2 * n)),
        S("dbrsm", "mixer", "blind_verify", "verifying others' PoKs of blinding factors",
          c(**times(o, dict(E1v=3 * n, E1f=2 * n, X2_80=2 * n, X2_2170=2 * n)))),
        S("dbrsm", "mixer", "blind_product", "generate encrypted blinded BBS+ signatures (homomorphic)",
          c(A1=2 * n, M2=2 * n)),
        S("dbrsm", "mixer", "decrypt_shares", "obtain decryption shares",
          c(E1v=n + 1, E1v80=2 * (n - 1), X2_4099=2 * n, X2_2130=2, X2_80=2 * (n - 1), X2_82=2 * (n - 1))),
        S("dbrsm", "mixer", "decrypt_verify", "verifying others' decryption shares",
          c(**times(o, dict(E1v80=2 * (n - 1), E1v=2, X2_80=2 * (n - 1), X2_82=2 * (n - 1))))),
        # two Paillier combinations (c and r) and one ElGamal: m products of shares and a division each
        S("dbrsm", "mixer", "decrypt_combine", "combining decryption shares",
          c(M2=2 * o * n, L2=2 * n, M1=2 * n, A1=m * n)),
        S("dbrsm", "mixer", "z1_shares", "shares of z1 + PoK of openings", c(ETf=4 * n)),
        S("dbrsm", "mixer", "z1_verify", "verifying others' PoK of z1 shares",
          c(**times(o, dict(ETv=n, ETf=2 * n)))),
        S("dbrsm", "mixer", "generators", "computing generators", c(P=2 * n, E2f=n, ETf=3 * n)),
        S("dbrsm", "mixer", "dpk_commit", "dpk_bbsplussig commit message", c(ETv=4 * n, ETf=5 * n)),
        S("dbrsm", "verifier", "dpk_verify", "verifying dpk_bbsplussig proofs",
          c(P=2 * n, E2f=n, ETf=9 * n, ETv=6 * n)),
    ]
    return out


def totals(step_list: list) -> dict:
    """{(section, party): Counts} summed over the steps."""
    out = {}
    for s in step_list:
        out[(s.section, s.party)] = out.get((s.section, s.party), Counts()) + s.counts
    return out


#: (section, party) -> the report's total line key and what the seed calls it
TOTALS = {
    ("mix", "mixer"): "Mix, per mix-server",
    ("dbsm", "mixer"): "DB-SM, per mix-server (M_k)",
    ("dbsm", "verifier"): "DB-SM, verifier (Q)",
    ("dbrsm", "mixer"): "DB-RSM, per mix-server (M_k)",
    ("dbrsm", "verifier"): "DB-RSM, verifier (Q)",
}



# ---------------------------------------------------------------------------
# The Sage code's parties, the baseline's witness and the DPKs

#: the protocols' and parties' names in the chapter's tables of the Sage code's counts
PROTOCOL_NAMES = {"dbsm": "DB-SM", "dbrsm": "DB-RSM"}
PARTY_NAMES = {"mixer": "per mix-server", "querier": "querier", "total": "querier + m mix-servers"}
#: the baseline's O(n) part `estimate` prices (the chapter's table of it names it so)
WITNESS_LABEL = "One RSA-accumulator membership witness"


def sage_label(protocol: str, party: str) -> str:
    """A party of a query of the Sage code, priced from its counts: "DB-SM in Sage, per mix-server"."""
    return f"{PROTOCOL_NAMES[protocol]} in Sage, {PARTY_NAMES[party]}"




def witness_counts(n: int, prime_bits: int = 64, modulus_bits: int = 2048) -> Counts:
    """One membership witness among n elements: one exponentiation with a ((n-1) prime_bits)-bit exponent."""
    positive(n, "n")
    if n == 1:
        return Counts()
    return Counts({modexp_key(modulus_bits, (n - 1) * prime_bits): 1})


#: Per mix-server (prove) and for the verifier: the artifact's report lines that make up each DPK
#: (research notes §4.3 M8/Q2 and §4.4 M12-M13/Q2), whose counts are ``steps``.
DPK_OPS = {
    "dbsm": {"prove": ("dpk_commit",), "verify": ("dpk_verify",)},
    "dbrsm": {"prove": ("generators", "dpk_commit"), "verify": ("dpk_verify",)},
}


def dpk_counts(protocol: str, side: str, curve: str) -> Counts:
    """Per item: the curve operations of the DPK's report lines at n = 1, fixed-base ones priced as
    variable-base ones (no fixed-base tables here)."""
    if curve not in ("bn254", "bls12_381"):
        raise ValueError(f"curve must be bn254 or bls12_381, got {curve!r}")
    lines = {s.slug: s.counts for s in steps(1, M_SEED, curve) if s.section == protocol}
    out = Counts()
    for slug in DPK_OPS[protocol][side]:
        for key, k in lines[slug].items():
            out.add(key.removesuffix("_fixed"), k)
    return out


def step_counts(n: int = N_SEED, m: int = M_SEED, curve: str = "bn254", security: str = "malicious") -> dict:
    """{label: Counts} of each labelled price call of ``model.estimate`` with a file that prices counts
    (every option changes counts; the published source prices none): the witness, each party of the
    Sage code's two protocols, and the artifact's totals without their hash-input byte copying (the
    interpreter's, not the native libraries')."""
    from . import dbrsm, dbsm              # they load the curves (Sage): only when counting
    Parameters(n, m, curve, security)
    out = {WITNESS_LABEL: witness_counts(n)}
    for protocol, module in (("dbsm", dbsm), ("dbrsm", dbrsm)):
        out.update({sage_label(protocol, party): c for party, c in module.party_counts(int(n), int(m), curve).items()})
    out.update({TOTALS[sp]: c for sp, c in totals(steps(n, m, curve, security, byte_copying=False)).items()})
    return out
