"""Where a class works: a JupyterHub for one built course (hub.py), the lectures as a static
website (site.py)."""
