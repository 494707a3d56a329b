"""A minimal ctypes binding to the system libsodium: its ristretto255 functions.

Only what the book measures and cross-checks is bound, each under its C name.
The Python functions return their output instead of writing it through a
pointer: encodings are 32 bytes, scalars are ints (reduced mod ell and written
as 32 little-endian bytes), uniform inputs are 64 bytes.  libsodium >= 1.0.18 has ristretto255; Debian and Ubuntu ship it as
libsodium23 (``apt-get install libsodium23``).

libsodium signals failure with -1 and, for the scalar multiplications, uses
-1 also for a result that is the identity (whose encoding is 32 zero bytes),
so that a Diffie-Hellman caller cannot miss it.  Here the identity is returned
as bytes(32) and an invalid input raises ValueError, so the two are told apart.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

from . import BackendUnavailable
from ...groups import orders

BYTES = 32              # crypto_core_ristretto255_BYTES: an encoded element
SCALARBYTES = 32        # crypto_core_ristretto255_SCALARBYTES
HASHBYTES = 64          # crypto_core_ristretto255_HASHBYTES: input of from_hash

#: the order of ristretto255, to reduce scalars before passing them
ELL = orders.RISTRETTO255

INSTALL_HINT = "install it with `apt-get install libsodium23` (Debian/Ubuntu) or your system's libsodium package"


@functools.lru_cache(maxsize=None)
def lib() -> ctypes.CDLL:
    """The loaded, initialised libsodium, or BackendUnavailable saying how to get it."""
    name = ctypes.util.find_library("sodium")
    if name is None:
        raise BackendUnavailable(f"libsodium not found; {INSTALL_HINT}")
    try:
        so = ctypes.CDLL(name)
    except OSError as e:
        raise BackendUnavailable(f"libsodium ({name}) could not be loaded: {e}; {INSTALL_HINT}") from None
    if not hasattr(so, "crypto_core_ristretto255_from_hash"):
        raise BackendUnavailable(f"{name} has no ristretto255 functions (libsodium < 1.0.18?); {INSTALL_HINT}")
    u8p, c_int = ctypes.c_char_p, ctypes.c_int
    so.sodium_init.restype = c_int
    so.sodium_init.argtypes = []
    so.sodium_version_string.restype = ctypes.c_char_p
    so.sodium_version_string.argtypes = []
    for fn, nargs in [("crypto_scalarmult_ristretto255", 3), ("crypto_scalarmult_ristretto255_base", 2),
                      ("crypto_core_ristretto255_from_hash", 2), ("crypto_core_ristretto255_is_valid_point", 1),
                      ("crypto_core_ristretto255_add", 3)]:
        f = getattr(so, fn)
        f.restype = c_int
        f.argtypes = [u8p] * nargs      # (const) unsigned char *; outputs are create_string_buffer
    if so.sodium_init() < 0:            # 0: initialised now, 1: already; -1: failure
        raise BackendUnavailable("sodium_init() failed")
    return so


def sodium_init() -> int:
    """sodium_init(): 0 if it initialised the library now, 1 if it already was (``lib()`` calls it)."""
    return lib().sodium_init()


def sodium_version_string() -> str:
    return lib().sodium_version_string().decode()


def version() -> str:
    """The library's version, e.g. "1.0.18" (recorded in measurement files)."""
    return sodium_version_string()


def _bytes(name: str, value, length: int) -> bytes:
    data = bytes(value)
    if len(data) != length:
        raise ValueError(f"{name} must be {length} bytes, got {len(data)}")
    return data


def _scalar_bytes(k: int) -> bytes:
    return (int(k) % ELL).to_bytes(SCALARBYTES, "little")


def crypto_core_ristretto255_is_valid_point(p: bytes) -> bool:
    """crypto_core_ristretto255_is_valid_point: is p a canonical encoding (the identity included)?"""
    return lib().crypto_core_ristretto255_is_valid_point(_bytes("p", p, BYTES)) == 1


def crypto_scalarmult_ristretto255(k: int, p: bytes) -> bytes:
    """encode(k * decode(p)) by crypto_scalarmult_ristretto255; ValueError if p is not an encoding."""
    p = _bytes("p", p, BYTES)
    q = ctypes.create_string_buffer(BYTES)
    if lib().crypto_scalarmult_ristretto255(q, _scalar_bytes(k), p) != 0:
        if not crypto_core_ristretto255_is_valid_point(p):
            raise ValueError(f"libsodium: {p.hex()} is not a valid ristretto255 encoding")
        return bytes(BYTES)             # the result is the identity
    return q.raw


def crypto_scalarmult_ristretto255_base(k: int) -> bytes:
    """encode(k * GENERATOR) by crypto_scalarmult_ristretto255_base."""
    q = ctypes.create_string_buffer(BYTES)
    if lib().crypto_scalarmult_ristretto255_base(q, _scalar_bytes(k)) != 0:
        return bytes(BYTES)             # k = 0 mod ell: the identity
    return q.raw


def crypto_core_ristretto255_from_hash(h: bytes) -> bytes:
    """encode(from_uniform_bytes(h)) by crypto_core_ristretto255_from_hash, for 64 bytes h."""
    q = ctypes.create_string_buffer(BYTES)
    if lib().crypto_core_ristretto255_from_hash(q, _bytes("h", h, HASHBYTES)) != 0:
        raise ValueError("libsodium: crypto_core_ristretto255_from_hash failed")
    return q.raw


def crypto_core_ristretto255_add(p: bytes, q: bytes) -> bytes:
    """encode(decode(p) + decode(q)) by crypto_core_ristretto255_add; ValueError on an invalid input."""
    p, q = _bytes("p", p, BYTES), _bytes("q", q, BYTES)
    r = ctypes.create_string_buffer(BYTES)
    if lib().crypto_core_ristretto255_add(r, p, q) != 0:
        bad = p if not crypto_core_ristretto255_is_valid_point(p) else q
        raise ValueError(f"libsodium: {bad.hex()} is not a valid ristretto255 encoding")
    return r.raw
