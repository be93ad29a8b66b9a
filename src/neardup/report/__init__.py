"""What a user reads: matched passages in a terminal, as JSON and HTML
(:mod:`~neardup.report.fragments`), a check as a PDF (:mod:`~neardup.report.pdf`), a check's
kept record (:mod:`~neardup.report.check_record`) and plural forms of counts
(:mod:`~neardup.report.plurals`).
"""
