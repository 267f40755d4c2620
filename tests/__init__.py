"""The test suite, laid out as the package is: theory, numerics, proofs_check, api, cli, outputs, study, hostile."""
