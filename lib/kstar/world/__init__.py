"""The synthetic factor world of paper 002 (App. A.3.3–A.3.4): the world, its networks, their readout and k^syn:
K04's wing."""
