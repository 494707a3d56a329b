"""The mergeable punch card on BLS12-381: two cards become one through the pairing.

A card is two ristretto-style cards sharing one secret $s$, one in each source group
of a pairing $e : \\mathbb{G}_1 \\times \\mathbb{G}_2 \\to \\mathbb{G}_T$, with
independent masks:

$$C_1 = H_1(s)^{\\,k^i r_1} \\in \\mathbb{G}_1, \\qquad C_2 = H_2(s)^{\\,k^i r_2} \\in \\mathbb{G}_2 .$$

The server punches both halves with the same key (``Server.punch``); to redeem, the client pairs
one card's $\\mathbb{G}_1$ half with the other's $\\mathbb{G}_2$ half (``merge``, ``Server.redeem``).
Bilinearity turns the product of the two cards' exponents into the sum of their punch
counts, which a plain Diffie–Hellman group cannot do.  The PunchCard code at commit 30f66ed
checks a single pairing (``redeem_check="single"``), the code before it two
(``redeem_check="two"``).  Only the two-pairing check counts punches correctly; see
``mix_and_match`` and the chapter.

Transcribed from ``cargo/src/crypto_pairing.rs`` (pairing-plus 0.18): every compressed
$\\mathbb{G}_1$/$\\mathbb{G}_2$ element is decoded with its subgroup check, the generator has no
precomputed table (fixed-base costs what variable-base costs), $\\mathbb{G}_T$ travels
uncompressed (576 bytes) and is decoded without a check.  Hashing follows RFC 9380
(``costbook.groups.hash_to_curve``) with the code's 4-byte domain tags; pairing-plus 0.18
predates the final expand_message layout, so the bytes differ from the Rust program's
while the work is the same.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...groups import checks
from . import dleq
from .dleq import SYSTEM_RANDOM, Proof
from .ristretto import MAX_PUNCHES, SpentSet

#: the domain tags of crypto_pairing.rs: hash to G1, hash to G2, G1 proof, G2 proof
DST_H1, DST_H2 = bytes([0, 0, 0, 0]), bytes([1, 0, 0, 0])
DST_C1, DST_C2 = bytes([3, 0, 0, 0]), bytes([4, 0, 0, 0])

REDEEM_CHECKS = ("single", "two")


class Pairing:
    """The pairing interface: two source groups (``dleq.Group``s), e, and G_T bytes."""
    G1: dleq.Group
    G2: dleq.Group
    gt_bytes: int = 576

    def pair(self, P, Q):
        raise NotImplementedError

    def encode_gt(self, T) -> bytes:
        raise NotImplementedError

    def decode_gt(self, data: bytes):
        raise NotImplementedError

    def gt_eq(self, S, T) -> bool:
        raise NotImplementedError


def fr_power(k: int, n: int, r: int) -> int:
    """k^n in F_r (``Fr::pow``): a handful of field products, not priced."""
    return pow(k, n, r)


class Server:
    """The shop: k, pk_1 = g_1^k, pk_2 = g_2^k, the set of spent secrets.

    Server setup: k <- Z_r; publish pk_1 = g_1^k and pk_2 = g_2^k."""

    def __init__(self, E: Pairing, rng=SYSTEM_RANDOM, redeem_check: str = "single"):
        if redeem_check not in REDEEM_CHECKS:
            raise ValueError(f"redeem_check must be one of {REDEEM_CHECKS}, got {redeem_check!r}")
        self.E, self.rng, self.redeem_check = E, rng, redeem_check
        self.k = E.G1.random_scalar(rng)
        self.pk1 = E.G1.encode(E.G1.mul_base(self.k))           # 48 bytes
        self.pk2 = E.G2.encode(E.G2.mul_base(self.k))           # 96 bytes
        self.spent = SpentSet()

    def _punch_half(self, G: dleq.Group, pk: bytes, card: bytes) -> tuple:
        C = G.decode(card)                                      # with its subgroup check
        if G.is_identity(C):
            raise ValueError("the identity is not a card: C^k would be the identity for every key")
        card_new = G.encode(G.mul(C, self.k))
        return card_new, dleq.prove(G, self.k, pk, C, card, card_new, self.rng)

    def punch(self, card1: bytes, card2: bytes) -> tuple:
        """(C_1, C_2) -> (C_1^k, C_2^k, proof in G_1, proof in G_2): 48+96+128+224 = 496 bytes.

        The ristretto punch, run once in G_1 and once in G_2 with the same k, each half with its
        own Chaum–Pedersen proof."""
        new1, proof1 = self._punch_half(self.E.G1, self.pk1, card1)
        new2, proof2 = self._punch_half(self.E.G2, self.pk2, card2)
        return new1, new2, proof1, proof2

    def _expected(self, s1: bytes, s2: bytes, e: int):
        """e(H_1(s1)^{k^n}, H_2(s2)): what an honest T for the pair (s1, s2) must be."""
        E = self.E
        return E.pair(E.G1.mul(E.G1.hash_to_group(s1), e), E.G2.hash_to_group(s2))

    def redeem(self, secret_a: bytes, secret_b: bytes, merged: tuple, punches: int) -> bool:
        """Accept a merged card worth `punches` punches; both secrets become spent.

        `merged` is (T,) for the single-pairing check, (T, T') for the two-pairing one.  The server
        accepts iff T = e(H_1(s_A)^{k^n}, H_2(s_B)) for n = `punches`, with the two-pairing check
        also T' = e(H_1(s_B)^{k^n}, H_2(s_A)), and neither secret was spent.
        """
        E = self.E
        n = checks.integer(punches)
        if not (checks.is_bytes(secret_a, 32) and checks.is_bytes(secret_b, 32) and n is not None
                and 1 <= n <= MAX_PUNCHES and checks.sequence(merged)
                and all(checks.is_bytes(t, E.gt_bytes) for t in merged)):
            return False
        e = fr_power(self.k, punches, E.G1.order)
        expected = [self._expected(secret_a, secret_b, e)]
        if self.redeem_check == "two":
            expected.append(self._expected(secret_b, secret_a, e))
        if len(merged) != len(expected):
            return False
        try:
            received = [E.decode_gt(t) for t in merged]         # no check on G_T beyond canonical F_p
        except ValueError:
            return False
        if not all(E.gt_eq(x, y) for x, y in zip(received, expected)):
            return False
        # HashSet::insert(s_A) && HashSet::insert(s_B): short-circuits, so if s_B was spent
        # already, the fresh s_A is burned anyway (as in the Rust code)
        return self.spent.spend(secret_a) and self.spent.spend(secret_b)

    def preload(self, n: int) -> None:
        """``pair_cheat_setup_db``: n dummy spent secrets."""
        self.spent.preload(n)


class Half:
    """One half of a mergeable card: secret s, masked card C = H_j(s)^{k^i r}, mask r."""

    def __init__(self, G: dleq.Group, secret: bytes, rng=SYSTEM_RANDOM):
        self.G, self.rng, self.secret = G, rng, secret
        self.mask = G.random_scalar(rng)
        self.card = G.mul(G.hash_to_group(secret), self.mask)
        self.count = 0

    def encode(self) -> bytes:
        return self.G.encode(self.card)

    def verify_remask(self, card_new: bytes, pk: bytes, proof: Proof) -> tuple:
        """Check the proof; if it holds, unmask and re-mask. Returns (next C, accepted)."""
        G = self.G
        got = dleq.received(G, pk, card_new, proof)      # decoded with the subgroup checks, z canonical
        if got is None:
            return self.encode(), False
        PK, C_new, V, W, z = got
        c = G.challenge(dleq.transcript(pk, self.encode(), card_new, proof.V, proof.W))
        ok = dleq.verify(G, PK, self.card, C_new, V, W, z, c)
        if ok:
            unmasked = G.mul(C_new, G.inverse(self.mask))
            self.mask = G.random_scalar(self.rng)
            self.card = G.mul(unmasked, self.mask)
            self.count += 1
        return self.encode(), ok

    def unmask(self):
        """H_j(s)^{k^i}."""
        return self.G.mul(self.card, self.G.inverse(self.mask))


class Card:
    """A mergeable card: a G_1 half and a G_2 half with the same secret.

    Card setup: s <- {0,1}^256; C_j = H_j(s)^{r_j} for j = 1, 2."""

    def __init__(self, E: Pairing, rng=SYSTEM_RANDOM):
        self.E = E
        self.secret = rng.randbytes(32)
        self.g1 = Half(E.G1, self.secret, rng)
        self.g2 = Half(E.G2, self.secret, rng)

    def first_message(self) -> tuple:
        """(C_1, C_2): 48 + 96 = 144 bytes, sent with the first punch."""
        return self.g1.encode(), self.g2.encode()

    def verify_remask(self, new1, new2, pk1, pk2, proof1, proof2) -> tuple:
        c1, ok1 = self.g1.verify_remask(new1, pk1, proof1)
        c2, ok2 = self.g2.verify_remask(new2, pk2, proof2)
        return c1, c2, ok1 and ok2

    @property
    def count(self) -> int:
        if self.g1.count != self.g2.count:
            raise ValueError("the halves of this card were punched a different number of times")
        return self.g1.count


def merge(a: Card, b: Card, redeem_check: str = "single") -> tuple:
    """The client's redemption message: (s_A, s_B, (T,)) or (s_A, s_B, (T, T')).

    T = e(A_1, B_2) = e(H_1(s_A), H_2(s_B))^{k^{a+b}} with the unmasked A_1 = H_1(s_A)^{k^a},
    B_2 = H_2(s_B)^{k^b} of card A punched a times and card B punched b times; with the two-pairing
    check also T' = e(B_1, A_2).  Each T is 576 bytes.
    """
    E = a.E
    merged = [E.encode_gt(E.pair(a.g1.unmask(), b.g2.unmask()))]
    if redeem_check == "two":
        merged.append(E.encode_gt(E.pair(b.g1.unmask(), a.g2.unmask())))
    return a.secret, b.secret, tuple(merged)


def punch_card(server: Server, card: Card, times: int) -> None:
    """Punch both halves of `card` `times` times (honestly)."""
    C1, C2 = card.g1.encode(), card.g2.encode()
    for _ in range(times):
        n1, n2, p1, p2 = server.punch(C1, C2)
        C1, C2, ok = card.verify_remask(n1, n2, server.pk1, server.pk2, p1, p2)
        assert ok, "an honest punch was rejected"


def run(E: Pairing, punches: int = 10, rng=SYSTEM_RANDOM, redeem_check: str = "single") -> dict:
    """The benchmark of lib.rs: two cards, punches/2 punches each, merged and redeemed."""
    if punches % 2:
        raise ValueError(f"the benchmark splits the punches over two cards: need an even number, got {punches}")
    server = Server(E, rng, redeem_check)
    a, b = Card(E, rng), Card(E, rng)
    punch_card(server, a, punches // 2)
    punch_card(server, b, punches // 2)
    sa, sb, merged = merge(a, b, redeem_check)
    return {"server": server, "cards": (a, b), "message": (sa, sb, merged),
            "accepted": server.redeem(sa, sb, merged, punches)}


# ---------------------------------------------------------------------------------------
# The mix-and-match forgery against the single-pairing check

@dataclass
class Forgery:
    server_punches: int          # how many punches the server performed
    claimed: int                 # how many punches the redemption claimed
    accepted: bool               # did the server accept it?


def mix_and_match(server: Server, punches: int, rng=SYSTEM_RANDOM) -> Forgery:
    """Redeem a `punches`-punch merged card after only punches/2 server punches.

    The server punches the two halves of a request independently and cannot see, under
    the masks, that they belong to one card.  So the client sends card A's G_1 half with
    card B's G_2 half every time: after m punches it holds A_1 = H_1(s_A)^{k^m} and
    B_2 = H_2(s_B)^{k^m}, and e(A_1, B_2) carries k^{2m}, which the single-pairing check
    accepts as a merge of 2m punches.  The halves it never sends (B_1, A_2) stay at k^0,
    which is why the second pairing, e(B_1, A_2) = e(H_1(s_B), H_2(s_A))^{k^n}, stops it.
    """
    if punches % 2:
        raise ValueError(f"the forgery claims an even number of punches, got {punches}")
    E = server.E
    a, b = Card(E, rng), Card(E, rng)
    half1, half2 = a.g1, b.g2                        # the only halves the server ever sees
    C1, C2 = half1.encode(), half2.encode()
    for _ in range(punches // 2):
        n1, n2, p1, p2 = server.punch(C1, C2)
        C1, ok1 = half1.verify_remask(n1, server.pk1, p1)
        C2, ok2 = half2.verify_remask(n2, server.pk2, p2)
        assert ok1 and ok2
    # A_1 and B_2 were punched punches/2 times each; B_1 and A_2 never.
    sa, sb, merged = merge(a, b, server.redeem_check)
    return Forgery(punches // 2, punches, server.redeem(sa, sb, merged, punches))
