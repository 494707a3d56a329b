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

Every SHA-256 call is tallied as ``sha256/<input bytes>B``.
"""
from __future__ import annotations

import hashlib

from ...counting import tally

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
    tally(f"sha256/{len(data)}B")
    return hashlib.sha256(data).digest()


class Tree:
    def __init__(self, values):
        n = len(values)
        if n < 2:
            raise ValueError(f"a Merkle vector commitment needs n >= 2 values, got {n}")
        self.n = n
        self.depth = (n - 1).bit_length()                  # ceil(log2 n)
        self.n_le = n.to_bytes(8, "little")
        self.nodes = [EMPTY] * (2 << self.depth)
        for i, v in enumerate(values):
            self.nodes[(1 << self.depth) + i] = self.leaf(v)
        occupied = n
        for level in range(self.depth - 1, -1, -1):         # hash only nodes with a real leaf below
            occupied = (occupied + 1) // 2
            base = 1 << level
            for i in range(occupied):
                a = base + i
                self.nodes[a] = self.node(self.nodes[2 * a], self.nodes[2 * a + 1])

    def leaf(self, v: bytes) -> bytes:
        return _sha256(b"\x00" + self.n_le + bytes(v))

    def node(self, left: bytes, right: bytes) -> bytes:
        return _sha256(b"\x01" + self.n_le + left + right)

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
        self.nodes[a] = self.leaf(v)
        while a > 1:
            a //= 2
            self.nodes[a] = self.node(self.nodes[2 * a], self.nodes[2 * a + 1])


def _path(tree_params, i: int, proof: bytes, v: bytes):
    """Recompute the path from leaf i with value v: (root, path nodes at heights 0..D-1)."""
    n, depth = tree_params
    n_le = n.to_bytes(8, "little")
    _check_length(proof, depth, "a proof")
    cur = _sha256(b"\x00" + n_le + bytes(v))
    path = []
    for h in range(depth):
        path.append(cur)
        sib = proof[32 * h: 32 * h + 32]
        cur = _sha256(b"\x01" + n_le + (cur + sib if not (i >> h) & 1 else sib + cur))
    return cur, path


def params(n: int):
    if n < 2:
        raise ValueError(f"a Merkle vector commitment needs n >= 2, got {n}")
    return n, (n - 1).bit_length()


def verify(n: int, root: bytes, i: int, v: bytes, proof: bytes) -> bool:
    _check_index(n, i)
    return _path(params(n), i, proof, v)[0] == root


def commit_update(n: int, i: int, proof_i: bytes, new: bytes):
    """(new root, helper): the changed leaf's new path; the siblings on it do not change."""
    root, path = _path(params(n), _check_index(n, i), proof_i, new)
    return root, b"".join(path)


def proof_update(n: int, proof_p: bytes, p: int, c: int, proof_c: bytes, new_c: bytes,
                 helper: bytes | None = None) -> bytes:
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
        entry = _sha256(b"\x00" + n_le + bytes(new_c))
        for k in range(h):
            sib = proof_c[32 * k: 32 * k + 32]
            entry = _sha256(b"\x01" + n_le + (entry + sib if not (c >> k) & 1 else sib + entry))
    return proof_p[:32 * h] + entry + proof_p[32 * h + 32:]


def proof_bytes(n: int) -> int:
    """32 ceil(log2 n)."""
    return 32 * params(n)[1]
