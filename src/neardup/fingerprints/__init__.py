"""Stage 3 of the pipeline, fingerprint: canonical tokens cut into shingles
(:mod:`~neardup.fingerprints.shingles`), each hashed to a 64-bit fingerprint
(:mod:`~neardup.fingerprints.hashing`), many texts at once (:mod:`~neardup.fingerprints.batch`),
and the exact measures of two fingerprint sets (:mod:`~neardup.fingerprints.similarity`).
:mod:`~neardup.fingerprints.pipeline` binds a spec's analyzer, shingler and hash into one
object: text → tokens → shingles → fingerprints.
"""
