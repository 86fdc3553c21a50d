"""Throughput benchmarks for the Mau-Mau rules core and reference card-game engines."""
