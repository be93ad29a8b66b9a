"""The command-line interface (``neardup``)."""
