"""Experiments that reproduce the papers' tables, apart from the product: fingerprint
collisions and the birthday bound (:mod:`~neardup.research.collisions`).
"""
