"""The punch card on ristretto255: blind exponentiation, iterated n times.

The server's secret is $k \\in \\mathbb{Z}_\\ell$; a card with secret $s$ holds,
after $i$ punches and under the current mask $r$,

$$C = H_G(s)^{\\,k^i r} .$$

* **Server setup.**  $k \\leftarrow \\mathbb{Z}_\\ell$, publish $pk = g^k$; the set of spent
  secrets $D$ starts empty.
* **Card setup.**  $s \\leftarrow \\{0,1\\}^{256}$, $r \\leftarrow \\mathbb{Z}_\\ell$,
  $C = H_G(s)^r$.  Nothing is sent yet.
* **Punch.**  The client sends $C$; the server answers $C' = C^k$ with a Chaum–Pedersen
  proof that $\\log_C C' = \\log_g pk$ (``dleq``).  The client checks the proof, unmasks
  $U = C'^{1/r} = H_G(s)^{k^{i+1}}$ and re-masks $C = U^{r'}$ with a fresh $r'$.
* **Redeem.**  The client sends $(s, U)$ with $U = C^{1/r} = H_G(s)^{k^n}$; the server
  accepts iff $U = H_G(s)^{k^n}$ and $s \\notin D$, and adds $s$ to $D$.

$H_G(s)$ is SHA-512 of $s$ mapped to the group by the RFC 9496 one-way map (no domain
separation tag, as in ``RistrettoPoint::hash_from_bytes::<Sha512>``), and the challenge
hash is SHA-512 reduced mod $\\ell$.  Every line below transcribes ``cargo/src/crypto.rs``
of SabaEskandarian/PunchCard (HEAD 0dbad68), including its redundant work (``pk``
decoded on every punch, $C'$ decoded twice), because the counts must be those of the
program whose times the seed published; the comments mark what an optimised version
would skip.
"""
from __future__ import annotations

from ...prices.counting import tally
from ...groups import checks
from . import dleq
from .dleq import SYSTEM_RANDOM, Proof


def lookup_key(size: int) -> str:
    """The primitive key of one probe into a hash set of `size` secrets.

    Sizes are rounded up to a power of ten of at least 1000, the sizes the
    hashing backend measures: a probe's cost grows with the set only through
    cache misses, so a set of 20 keys is priced as one of 1000.
    """
    decade = 1000
    while decade < size:
        decade *= 10
    return f"hashset/lookup/{decade}"


def scalar_power(k: int, n: int, q: int) -> int:
    """k^n mod q by recursive square-and-multiply (``scalar_exponentiate``), n >= 1.

    (The Rust function recurses forever for n = 0; here n = 0 is refused.)
    """
    if n < 1:
        raise ValueError(f"the number of punches must be at least 1, got {n}")
    if n == 1:
        return k % q
    if n % 2:
        return k * scalar_power(k, n - 1, q) % q
    half = scalar_power(k, n // 2, q)
    return half * half % q


class SpentSet(set):
    """The shop's set of redeemed card secrets (a ``HashSet<[u8; 32]>`` in the Rust code)."""

    def spend(self, secret: bytes) -> bool:
        """``HashSet::insert``: one probe; False (a double spend) if the secret is already in."""
        tally(lookup_key(len(self)))
        if secret in self:
            return False
        self.add(secret)
        return True

    def preload(self, n: int) -> None:
        """n dummy spent secrets (``cheat_setup_db``), for the runs with a large database."""
        self.update(i.to_bytes(32, "little") for i in range(n))


#: the most punches a redemption may claim (a card punched 2^32 times is not a card)
MAX_PUNCHES = 1 << 32


def well_formed_redemption(card: bytes, secret: bytes, punches: int, element_bytes: int) -> bool:
    """(U, s, n): an encoded element, a 32-byte secret, a number of punches in [1, MAX_PUNCHES]."""
    n = checks.integer(punches)
    return (checks.is_bytes(card, element_bytes) and checks.is_bytes(secret, 32)
            and n is not None and 1 <= n <= MAX_PUNCHES)


class Server:
    """The shop: secret k, public pk = g^k, the set of spent card secrets."""

    def __init__(self, G: dleq.Group, rng=SYSTEM_RANDOM):
        self.G, self.rng = G, rng
        self.k = G.random_scalar(rng)
        self.pk = G.encode(G.mul_base(self.k))          # sent to every client (32 bytes)
        self.spent = SpentSet()

    def punch(self, card: bytes) -> tuple:
        """C -> (C' = C^k, proof that log_C C' = log_g pk)."""
        G = self.G
        C = G.decode(card)                  # raises InvalidEncoding (a ValueError) outside the group
        if G.is_identity(C):
            raise ValueError("the identity is not a card: C^k would be the identity for every key")
        card_new = G.encode(G.mul(C, self.k))
        proof = dleq.prove(G, self.k, self.pk, C, card, card_new, self.rng)
        return card_new, proof

    def redeem(self, card: bytes, secret: bytes, punches: int) -> bool:
        """Accept (s, U) iff U = H_G(s)^{k^n} and s was never redeemed; then s is spent."""
        G = self.G
        if not well_formed_redemption(card, secret, punches, G.element_bytes):
            return False
        e = scalar_power(self.k, punches, G.order)                 # k^n: a few scalar products
        expected = G.encode(G.mul(G.hash_to_group(secret), e))
        if card != expected:
            return False
        return self.spent.spend(secret)

    def preload(self, n: int) -> None:
        self.spent.preload(n)


class Card:
    """The client's card: secret s, current masked card C, current mask r, punch count."""

    def __init__(self, G: dleq.Group, rng=SYSTEM_RANDOM):
        self.G, self.rng = G, rng
        self.secret = rng.randbytes(32)
        self.mask = G.random_scalar(rng)
        self.card = G.mul(G.hash_to_group(self.secret), self.mask)   # C = H_G(s)^r
        self.count = 0

    def first_message(self) -> bytes:
        """What setup returns: the masked card, sent with the first punch (32 bytes)."""
        return self.G.encode(self.card)

    def verify_remask(self, card_new: bytes, pk: bytes, proof: Proof) -> tuple:
        """Check the server's proof; if it holds, unmask and re-mask. Returns (next C, accepted)."""
        G = self.G
        # the Rust code decodes pk on every punch (it could be decoded once); anything that does not
        # decode, a non-canonical z, an identity key or new card: rejected
        got = dleq.received(G, pk, card_new, proof)
        if got is None:
            return G.encode(self.card), False
        PK, C_new, V, W, z = got
        c = G.challenge(dleq.transcript(pk, G.encode(self.card), card_new, proof.V, proof.W))
        ok = dleq.verify(G, PK, self.card, C_new, V, W, z, c)
        if ok:
            # C' is decoded a second time here (once would do), and unmask-then-remask costs
            # two multiplications where one, by r'/r, would do
            unmasked = G.mul(G.decode(card_new), G.inverse(self.mask))      # H_G(s)^{k^{i+1}}
            self.mask = G.random_scalar(self.rng)
            self.card = G.mul(unmasked, self.mask)
            self.count += 1
        return G.encode(self.card), ok

    def unmask_redeem(self) -> tuple:
        """(s, U = C^{1/r} = H_G(s)^{k^n}): 32 + 32 bytes."""
        G = self.G
        self.card = G.mul(self.card, G.inverse(self.mask))
        return self.secret, G.encode(self.card)


def run(G: dleq.Group, punches: int = 10, rng=SYSTEM_RANDOM, server: Server | None = None) -> dict:
    """One honest card, start to finish; returns the messages and the verdict."""
    server = server or Server(G, rng)
    card = Card(G, rng)
    C = card.first_message()
    for _ in range(punches):
        card_new, proof = server.punch(C)
        C, ok = card.verify_remask(card_new, server.pk, proof)
        assert ok, "an honest punch was rejected"
    secret, U = card.unmask_redeem()
    return {"server": server, "card": card, "secret": secret, "U": U,
            "accepted": server.redeem(U, secret, punches)}
