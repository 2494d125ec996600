"""The public suite of real LDP bugs (suite.py) and its scoring (runner.py): ``ldpaudit bench``."""
