"""Audits of published amplification bounds: claims as data, verdicts with witnesses, reports."""
