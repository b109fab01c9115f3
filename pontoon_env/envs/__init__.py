"""The learning interfaces over the game: Gymnasium (one learning seat), PettingZoo (every seat),
their registration and rendering. Everything here is a thin layer over :mod:`pontoon_env.game`
and :mod:`pontoon_env.encoding`."""
