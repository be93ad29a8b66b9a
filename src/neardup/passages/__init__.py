"""The passage stage: which passages of a text were copied (:mod:`~neardup.passages.align`),
reworded (:mod:`~neardup.passages.rewrites`) or cited (:mod:`~neardup.passages.citations`,
whose references must resolve to the text's own list: :mod:`~neardup.passages.references`),
with their offsets in both texts.
"""
