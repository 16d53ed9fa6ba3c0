"""Evaluation and benchmarks: ``bookrag eval`` and ``bookrag bench``."""
