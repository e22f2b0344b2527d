"""Replicability over several datasets (Dror et al. 2017): partial conjunctions, k-hat, identification, simulation."""
