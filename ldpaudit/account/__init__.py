"""Accounting beyond one report: privacy amplification by shuffling (:mod:`.shuffle`)."""
