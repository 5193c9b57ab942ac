"""The annotation page's files (HTML, CSS, JavaScript), served by
``prescient.annotation.server`` and read with ``importlib.resources``."""
