"""One module per sub-command; each is thin over ``theory``, ``numerics`` and ``proofs_check``."""
