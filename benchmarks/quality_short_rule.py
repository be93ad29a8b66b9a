"""Choosing the length-adaptive rule's threshold on the *training* half of the generated sets.

For each threshold (0: off, 16, 24, 32, 48, 64 canonical tokens) and short shingling (word
1-grams, character 4-grams of the canonical text, word 2-grams) prints the ROC AUC of
containment and resemblance under the ``auto`` analyzer on benchmarks/quality_sets.py's sets
built from the training half (the leading table of docs/quality.md uses the other half).

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/quality_short_rule.py
"""

from __future__ import annotations

import argparse

from quality_sets import all_sets, mixed

from neardup.eval import methods, metrics
from neardup.fingerprints.pipeline import make_spec
from neardup.spec import ShingleSpec, Spec


def configs() -> dict[str, Spec]:
    base = make_spec("auto")
    out: dict[str, Spec] = {}
    for below in (0, 16, 24, 32, 48, 64):
        out[f"word1 <{below}"] = base.replace(shingles=ShingleSpec(short_below=below))
    for below in (32, 64):
        rule = ShingleSpec(short_below=below, short_unit="char", short_k=4)
        out[f"char4 <{below}"] = base.replace(shingles=rule)
    out["word2 <64"] = base.replace(shingles=ShingleSpec(short_below=64, short_k=2))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=60, help="source documents per language")
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    sets = all_sets("train", args.docs, args.seed)
    sets["mixed"] = mixed(sets)
    print(f"{'rule':12} {'measure':5} " + " ".join(n.replace(" ", "_") for n in sets))
    for name, spec in configs().items():
        for measure in ("containment", "resemblance"):
            row = [
                metrics.roc_auc(p.y, methods.score_pairs(measure, p.a, p.b, spec))
                for p in sets.values()
            ]
            print(f"{name:12} {measure[:4]:5} " + " ".join(f"{v:.3f}" for v in row), flush=True)


if __name__ == "__main__":
    main()
