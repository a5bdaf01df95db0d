"""Pure media code, in rooms by job (see each subpackage): no Temporal, files and arrays in,
files out. Which room may import which is kept by ``tests/test_layers.py``."""
