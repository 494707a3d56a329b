r"""The Merkle-tree vector commitment of veccom-rust (src/merkle, @11264d2), in Python.

A binary tree over 2^D leaf slots, D = ceil(log2 n), stored as a heap: node (depth k, index i) at
slot 2^k + i, root at slot 1, children of slot a at 2a and 2a + 1.  With n_le = n as 8 bytes,
little-endian (so trees of different sizes never share hashes):

    leaf_i = SHA-256(0x00 || n_le || v_i)
    node   = SHA-256(0x01 || n_le || left || right)          (73 bytes: two compression blocks)

Slots with no real leaf below them hold the constant 0^32 and are never hashed.  The commitment
is the root (32 bytes); the proof of position i is its D sibling hashes from the leaf level up
(32 D bytes).  Verification recomputes the path.  A commitment update recomputes the path of the
changed leaf and returns the new path nodes (the *helper*); a proof for position p != c then
changes in one entry only, at height h = floor(log2(p XOR c)): recomputed with 1 + h hashes from
c's proof, or copied from the helper with none.

Every SHA-256 call is tallied as ``sha256/<input bytes>B``.  The Python around the hashes (inputs
assembled by concatenation, argument checks, slicing, loops) costs about as much again; that is a price
of this code, not of the scheme (veccom-rust pays the hashes only), and it is measured rather than
counted: ``recording`` and ``answering`` let a validation run the very same operation with each
hashlib call answered from a record of its digests, so that what is left is the interpreter's work.
"""
from __future__ import annotations

import itertools
from hashlib import sha256 as _hashlib_sha256     # one name to load, as the sha256/* benchmarks call it

from ...prices.counting import is_counting, tally
from ...groups import checks

EMPTY = bytes(32)


def _check_index(n: int, i: int, what: str = "index") -> int:
    if not 0 <= int(i) < n:
        raise ValueError(f"{what} {i} out of range for a vector of length {n}")
    return int(i)


def _check_length(data: bytes, depth: int, what: str) -> bytes:
    # a short proof or helper would otherwise be sliced silently into a malformed proof
    if data is None or len(data) != 32 * depth:
        got = "none" if data is None else len(data)
        raise ValueError(f"{what} must be {32 * depth} bytes (32 per level, {depth} levels), got {got}")
    return data


def _sha256(data: bytes) -> bytes:
    if is_counting():                   # the key is formatted only when someone counts
        tally(f"sha256/{len(data)}B")
    return _hashlib_sha256(data).digest()


def _leaf(n_le: bytes, v: bytes, sha256=_sha256) -> bytes:
    return sha256(b"\x00" + n_le + bytes(v))


def _node(n_le: bytes, left: bytes, right: bytes, sha256=_sha256) -> bytes:
    return sha256(b"\x01" + n_le + left + right)


def _climb(n_le: bytes, i: int, cur: bytes, proof: bytes, levels: int, sha256=_sha256):
    """Climb `levels` levels of leaf i's path from `cur` (the leaf's hash), each sibling read from
    `proof`: (the node reached, the nodes passed at heights 0..levels-1)."""
    path = []
    for h in range(levels):
        path.append(cur)
        sib = proof[32 * h: 32 * h + 32]
        cur = sha256(b"\x01" + n_le + (cur + sib if not (i >> h) & 1 else sib + cur))
    return cur, path


def _hash_leaves(nodes: list, base: int, n_le: bytes, values, sha256=_sha256) -> None:
    for i, v in enumerate(values):
        nodes[base + i] = _leaf(n_le, v, sha256)


def _hash_level(nodes: list, base: int, occupied: int, n_le: bytes, sha256=_sha256) -> None:
    """The first `occupied` nodes of the level starting at slot `base`, from their children."""
    for a in range(base, base + occupied):
        nodes[a] = _node(n_le, nodes[2 * a], nodes[2 * a + 1], sha256)


class Tree:
    def __init__(self, values, sha256=_sha256):
        n = len(values)
        if n < 2:
            raise ValueError(f"a Merkle vector commitment needs n >= 2 values, got {n}")
        self.n = n
        self.depth = (n - 1).bit_length()                  # ceil(log2 n)
        self.n_le = n_le = n.to_bytes(8, "little")
        self.nodes = nodes = [EMPTY] * (2 << self.depth)
        _hash_leaves(nodes, 1 << self.depth, n_le, values, sha256)
        occupied = n
        for level in range(self.depth - 1, -1, -1):         # hash only nodes with a real leaf below
            occupied = (occupied + 1) // 2
            _hash_level(nodes, 1 << level, occupied, n_le, sha256)

    @property
    def root(self) -> bytes:
        return self.nodes[1]

    def prove(self, i: int) -> bytes:
        """The D sibling hashes of leaf i, leaf level first (no hashing: copied from the tree)."""
        a = (1 << self.depth) + _check_index(self.n, i)
        out = []
        while a > 1:
            out.append(self.nodes[a ^ 1])
            a //= 2
        return b"".join(out)

    def update(self, i: int, v: bytes) -> None:
        """Rehash leaf i and its D ancestors in the stored tree."""
        a = (1 << self.depth) + _check_index(self.n, i)
        self.nodes[a] = _leaf(self.n_le, v)
        while a > 1:
            a //= 2
            self.nodes[a] = _node(self.n_le, self.nodes[2 * a], self.nodes[2 * a + 1])


def _path(tree_params, i: int, proof: bytes, v: bytes, sha256=_sha256):
    """Recompute the path from leaf i with value v: (root, path nodes at heights 0..D-1)."""
    n, depth = tree_params
    n_le = n.to_bytes(8, "little")
    _check_length(proof, depth, "a proof")
    return _climb(n_le, i, _leaf(n_le, v, sha256), proof, depth, sha256)


def params(n: int):
    if n < 2:
        raise ValueError(f"a Merkle vector commitment needs n >= 2, got {n}")
    return n, (n - 1).bit_length()


def verify(n: int, root: bytes, i: int, v: bytes, proof: bytes) -> bool:
    """False for anything that is not a size, a 32-byte root, a position, a value and a proof of the
    tree's depth (checked without hashing); else the path recomputed by ``_verify``."""
    if not _well_formed(n, root, i, v, proof):
        return False
    return _verify(n, root, i, v, proof, _sha256)


def _well_formed(n, root, i, v, proof) -> bool:
    n = checks.integer(n)
    if n is None or not 2 <= n < 1 << 64:           # n_le is 8 bytes
        return False
    return (checks.is_bytes(root, 32) and checks.index(i, n) is not None and checks.is_bytes(v)
            and checks.is_bytes(proof, 32 * params(n)[1]))


def _verify(n: int, root: bytes, i: int, v: bytes, proof: bytes, sha256) -> bool:
    # verify's signature is exactly the verifier's inputs (tests/test_tamper_veccom.py tampers each),
    # so the hashing helper a benchmark swaps goes in here
    _check_index(n, i)
    tree_params = params(n)
    return _path(tree_params, i, proof, v, sha256)[0] == root


def commit_update(n: int, i: int, proof_i: bytes, new: bytes, sha256=_sha256):
    """(new root, helper): the changed leaf's new path; the siblings on it do not change."""
    tree_params = params(n)
    root, path = _path(tree_params, _check_index(n, i), proof_i, new, sha256)
    return root, b"".join(path)


def proof_update(n: int, proof_p: bytes, p: int, c: int, proof_c: bytes, new_c: bytes,
                 helper: bytes | None = None, sha256=_sha256) -> bytes:
    """Update the proof of p after position c changed to new_c (p != c): one entry changes."""
    depth = params(n)[1]
    p, c = _check_index(n, p, "position p"), _check_index(n, c, "changed position c")
    if p == c:
        raise ValueError("the proof of the changed position is its own path: use commit_update's inputs")
    _check_length(proof_p, depth, "the proof to update")
    h = (p ^ c).bit_length() - 1                      # the height where the two paths meet, minus one
    if helper is not None:
        entry = _check_length(helper, depth, "the helper")[32 * h: 32 * h + 32]   # a copy, no hashing
    else:
        _check_length(proof_c, depth, "the changed position's proof")
        n_le = n.to_bytes(8, "little")
        entry = _climb(n_le, c, _leaf(n_le, new_c, sha256), proof_c, h, sha256)[0]
    return proof_p[:32 * h] + entry + proof_p[32 * h + 32:]


def proof_bytes(n: int) -> int:
    """32 ceil(log2 n)."""
    return 32 * params(n)[1]


# ---------------------------------------------------------------------------
# The interpreter's work, measured: an operation run again with hashlib's work answered from a record

def recording():
    """(a hashing helper that hashes as ``_sha256`` does and keeps each digest, the list it keeps)."""
    digests = []

    def sha256(data: bytes) -> bytes:
        digest = _hashlib_sha256(data).digest()
        digests.append(digest)
        return digest
    return sha256, digests


def answering(digests: list):
    """A stand-in for ``_sha256`` that answers each call with the next of `digests`, the record of one
    run of an operation: the same helper call and counting check, no hashlib.  It cycles, so one
    stand-in serves every repetition of that operation in a timing loop (the operation hashes the
    same inputs in the same order each time).  The operation run with it takes the time of the
    Python around its hashes; the hashes themselves are priced by the sha256 benchmarks."""
    answer = itertools.cycle(digests).__next__

    def sha256(data: bytes) -> bytes:
        if is_counting():               # _sha256's own check, so that the call has its shape
            tally(f"sha256/{len(data)}B")
        return answer()
    return sha256
