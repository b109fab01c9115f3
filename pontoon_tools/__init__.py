"""Experiment tooling on top of :mod:`pontoon_env` and :mod:`agents`: training, evaluation, plots,
EV tables, terminal play and documentation generators. Nothing in the environment package imports
from here."""
