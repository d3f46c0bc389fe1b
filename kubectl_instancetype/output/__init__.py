"""Printers: kubectl-style tables, yaml, json, name; warnings and errors go through :mod:`.messages`."""
