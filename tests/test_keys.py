import pytest

from costbook.prices import keys


@pytest.mark.parametrize("key", ["modexp/6144/256", "ristretto255/mul", "bls12_381/pairing",
                                 "bn254/gt_exp", "bls12_381/hash_to_g2", "sha256/64B",
                                 "hashset/lookup/1000000", "rsa/4096/sign",
                                 "step/punchcard/ristretto255/server_punch"])
def test_known_keys(key):
    assert keys.check_key(key) == key and keys.describe(key)


@pytest.mark.parametrize("key", ["modexp/6144", "modexp/0/256", "bn254/hash_to_g2", "pairing",
                                 "sha256/64", "ristretto255/mul/extra", 42])
def test_unknown_keys_name_themselves(key):
    with pytest.raises(keys.UnknownPrimitiveKey, match="primitive key"):
        keys.check_key(key)


def test_sizes_and_descriptions():
    assert keys.sizes("modexp/6144/256") == {"mod": 6144, "exp": 256}
    assert "6144-bit modulus" in keys.describe("modexp/6144/256")
    assert keys.modexp_key(8192, 512) == "modexp/8192/512"
    with pytest.raises(ValueError, match="positive"):
        keys.modexp_key(0, 256)


def test_readable_patterns():
    shown = {keys.readable_pattern(f) for f in keys.FAMILIES}
    assert {"modexp/<mod>/<exp>", "{bls12_381|bn254}/pairing", "hashset/lookup/<size>",
            "step/<scheme>/<step>"} <= shown
