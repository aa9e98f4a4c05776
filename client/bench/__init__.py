"""Benchmarks of the network path: ``uno bench`` (netbench), the soak test
under abuse (soak) and the bots' reply gaps."""
