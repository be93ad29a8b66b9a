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
WEIGHTS = [0.4108, 3.2543, 3.0352, 5.3891, 3.3709, 5.2187, 2.4359, 0.6326, 0.4464]
INTERCEPT = -10.6403
TRAINED_ON = (
    "benchmarks/fit_combined.py --docs 150 --seed 16: 3486 generated training pairs "
    "(1799 positive), 12 sets (ru, en × exact, light, inflect, rewrite, paste, "
    "sentence)"
)
