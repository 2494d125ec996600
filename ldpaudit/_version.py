"""The version, below every module that records it (certificates, reports), so that none of
them imports the public-API package ``ldpaudit`` above them. Keep equal to pyproject.toml's."""

__version__ = "0.1.0"
