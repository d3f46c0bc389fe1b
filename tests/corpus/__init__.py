"""Generated, seeded test corpora (inputs only; the tests that run them live beside the commands they test)."""
