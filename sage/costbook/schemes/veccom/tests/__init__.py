"""The vector commitments' own tests: `make test` collects every scheme folder's tests/ (docs/testing.md)."""
