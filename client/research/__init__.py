"""For researchers: the PettingZoo and Gymnasium environments, OpenSpiel, a
learning example, bot duels and the environment benchmark."""
