"""Experiments: data functions for tables and figures (plotting kept separate)."""
