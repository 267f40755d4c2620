"""Helpers shared by the tests: model writers (BERT-like, families, GGUF, ONNX) and the hostile-input tables."""
