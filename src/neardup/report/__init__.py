"""What a user reads: matched passages in a terminal, as JSON and HTML
(:mod:`~neardup.report.fragments`), a check as a PDF (:mod:`~neardup.report.pdf`), a check's
kept record (:mod:`~neardup.report.check_record`). Their words, and plural forms of counts,
are in :mod:`neardup.messages`.
"""
