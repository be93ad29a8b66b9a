"""The combined model's coefficients (written by benchmarks/fit_combined.py; do not edit)."""

FEATURES = [
    "resemblance_word5",
    "containment_word5",
    "resemblance_word1",
    "containment_word1",
    "resemblance_char4_plain",
    "containment_char4_plain",
    "tfidf_pair",
    "length_ratio",
    "shortness",
]
WEIGHTS = [-0.0668, -0.019, 3.0679, 8.2109, 4.2727, 6.1101, -4.0387, 1.964, 0.2493]
INTERCEPT = -9.7757
VERSION = 2
TRAINED_ON = (
    "benchmarks/fit_combined.py --docs 150 --seed 16: 3728 generated training pairs "
    "(1789 positive), 12 sets (ru, en × exact, light, inflect, rewrite, paste, "
    "sentence)"
)
