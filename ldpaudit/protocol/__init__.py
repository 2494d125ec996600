"""Protocols of local randomizers: rounds, public parameters bound by the analyst, privacy
reports (per round, and composed when a user answers twice), and simulation on synthetic data."""

from ldpaudit.protocol.model import Protocol, Randomizer, Round
from ldpaudit.protocol.privacy import PrivacyReport, privacy_report
from ldpaudit.protocol.simulate import Custom, Gaussian, run, simulate, summarize

__all__ = ["Protocol", "Randomizer", "Round", "PrivacyReport", "privacy_report", "Custom", "Gaussian", "run",
           "simulate", "summarize"]
