"""The modexp backends compute the same numbers, and the benchmark grid is complete."""

from costbook.prices import keys
from costbook.timing.backends import modexp


def test_backends_agree_with_python_pow():
    for mbits, ebits in [(2048, 256), (3072, 1536), (6144, 512)]:
        b, e, n = modexp.operands(mbits, ebits)
        assert n.bit_length() == mbits and n % 2 == 1 and e.bit_length() == ebits
        expected = pow(b, e, n)
        for backend in modexp.BACKENDS:
            assert modexp.powmod(backend, b, e, n) == expected, backend


def test_benchmark_grid_covers_every_size_and_backend():
    benches = modexp.benchmarks()
    grid = {(b.key, b.backend) for b in benches}
    for m in modexp.MODULUS_BITS:
        for e in (256, 512, m // 2, m):
            for backend in ("gmp", "gmp-sec", "sage", "pari"):
                assert (f"modexp/{m}/{e}", backend) in grid
    for b in benches:
        keys.check_key(b.key)
    # a prepared benchmark computes the right value
    b = next(x for x in benches if x.key == "modexp/2048/512" and x.backend == "pari")
    base, e, n = modexp.operands(2048, 512)
    assert int(b.prepare()()) == pow(base, e, n)
