"""Benchmarks: scripts that print numbers (and JSON with --json); never timed unit tests."""
