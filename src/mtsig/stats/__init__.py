"""Confidence intervals, paired tests, multiple comparisons (and optimizer-run statistics)."""
