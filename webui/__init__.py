"""The score page: a Flask app that replaces the peg track (``spectrangle serve``)."""

from webui.app import create_app, shutdown
from webui.session import Table
from webui.store import Store

__all__ = ["Store", "Table", "create_app", "shutdown"]
