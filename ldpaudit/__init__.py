"""ldpaudit: prove, derive and audit local differential privacy."""
__version__ = "0.1.0"
