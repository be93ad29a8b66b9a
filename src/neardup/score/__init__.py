"""Scoring a pair or a set of texts: the calibrated combined score
(:mod:`~neardup.score.combined`), TF-IDF cosine (:mod:`~neardup.score.tfidf`), the
similarity matrix (:mod:`~neardup.score.matrix`), and :func:`neardup.compare`, the one answer
for two texts (:mod:`~neardup.score.comparison`).
"""
