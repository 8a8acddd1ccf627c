"""Offline answers on real QA sets: how often the first quoted sentence holds the gold answer.

    python -m bench.answers --dataset fairytaleqa --data ../shared/data/qa/en/fairytaleqa [--split val]
    python -m bench.answers --dataset cmrc2018 --data ../shared/data/qa/zh/cmrc2018
    options: --mode keyword|hybrid (hybrid indexes each book first)  --limit-docs N  --tune  --json

Each story (or the CMRC passage set) is imported through the real pipeline, one section per gold unit, and
every question is answered by ``answer_offline`` exactly as the app does with no AI provider (spoilers
allowed). Scored: the first quoted sentence holds the answer ("first"), any quoted sentence does ("any"),
and, as the ceiling the sentence ranker works under, one of the passages it read does ("passages").
FairytaleQA counts only the explicit questions whose answer appears word for word in a gold section (the
count is printed); CMRC 2018 answers are exact spans. Also scored: the share answered (the rest are shown as the
closest passages), how often the first quote holds the answer when it answers, and, with the reading place put
just before each question's answer section, how often the answer says it cannot answer yet. ``--tune`` (train
split only) grid-searches the ranker's weights on the passages found and lists the answer threshold's trade-off;
nothing here tunes on the split it reports (CMRC 2018 has one split: its Chinese threshold is chosen on it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.retrieval import LOADERS, Document, answer_form
from core import Quire
from core.inside import (
    CANDIDATES,
    MIN_ANSWER_ODDS,
    MIN_MIGHT_ODDS,
    ODDS_FEATURES,
    WEIGHTS,
    OfflineAnswer,
    Weights,
    answer_offline,
    inside,
    odds_features,
    quote_span,
    rank_sentences,
)


@dataclass
class Asked:
    question: str
    answers: list[str]


def load(dataset: str, data: Path, split: str) -> list[tuple[Document, list[Asked]]]:
    """The retrieval benchmark's books, each with its questions that have a verbatim answer."""
    loaded = []
    for document in LOADERS[dataset](data, split):
        pairs = zip(document.questions, document.answers, strict=True)
        loaded.append((document, [Asked(question, answers) for (question, _), answers in pairs if answers]))
    return loaded


def holds(text: str, answers: list[str]) -> bool:
    """Whether the text holds one of the answers (folded, spaces and punctuation ignored)."""
    folded = answer_form(text)
    return any(answer_form(a) in folded for a in answers)


def first_sentence(question: str, passages: list[str], weights: Weights) -> str:
    """What answer_offline quotes first, without the citation check (for the grid search)."""
    ranked = rank_sentences(question, passages, weights)
    if not ranked or ranked[0].overlap == 0:
        return ""
    a, b = quote_span(passages[ranked[0].passage], ranked[0], question)
    return passages[ranked[0].passage][a:b]


def _not_yet(quire: Quire, book: int, question: str, gold: set[str]) -> tuple[OfflineAnswer, list[str]] | None:
    """The question asked with the reading place just before its answer's section (spoiler protection on): what
    was read cannot answer it, and the passages it read. None when the answer is in the first section (nothing
    before it to read)."""
    places = {row.title: row.locator for row in quire.text.toc(book) if row.locator is not None}
    starts = [quire.text.ordinal_of(book, places[g]) for g in gold if g in places]
    if not starts or min(starts) <= 1:
        return None
    place = quire.text.segments(book, min(starts) - 1, 1)[0].locator
    quire.save_position(book, place, reading=False)
    quire.set_furthest(book, place)  # on purpose: a reading place only rises, and an earlier question read further
    read = quire.search(book, question, k=CANDIDATES, before=min(starts) - 1)
    return answer_offline(quire, book, question), [p.text for p in read]


def run(dataset: str, data: Path, split: str, mode: str, limit_docs: int | None, tune: bool) -> dict:
    loaded = load(dataset, data, split)[: limit_docs or None]
    counts = {"first": 0, "any": 0, "passages": 0, "questions": 0, "answered": 0, "answered_first": 0,
              "not_yet": 0, "abstained": 0, "might": 0, "might_first": 0, "not_yet_might": 0}  # fmt: skip
    shares: list[tuple[float, float, bool]] = []  # (confidence, odds, first quote holds); below, not-yet ones
    not_yet: list[tuple[float, float]] = []
    cached: list[tuple[Asked, list[str]]] = []  # (question, passage texts) for the grid search
    fitting: list[tuple[tuple[float, ...], float, float]] = []  # (odds features, first quote holds, weight)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        embedder = quire.models.embedder("all-MiniLM-L6-v2") if mode == "hybrid" else None
        for document, asked in loaded:
            book = quire.import_bytes(document.html(), f"{document.name}.html").book
            if embedder is not None:
                inside(quire).indexer.run(book.id, embedder)
            gold_of = dict(document.questions)
            for item in asked:
                answer = answer_offline(quire, book.id, item.question, spoilers=True)
                counts["questions"] += 1
                first = bool(answer.citations) and holds(answer.citations[0].quote, item.answers)
                counts["first"] += first
                counts["answered"] += answer.answered
                counts["answered_first"] += answer.answered and first
                counts["might"] += answer.notice == "MightAnswer"
                counts["might_first"] += answer.notice == "MightAnswer" and first
                shares.append((answer.confidence, answer.odds, first))
                passages = [p.text for p in quire.search(book.id, item.question, k=CANDIDATES)]
                if tune and answer.citations:
                    features = odds_features(
                        item.question, rank_sentences(item.question, passages), answer.citations[0].quote
                    )
                    fitting.append((features, float(first), 1.0))
                later = _not_yet(quire, book.id, item.question, gold_of[item.question])
                if later is not None:
                    counts["not_yet"] += 1
                    counts["abstained"] += not later[0].answered
                    counts["not_yet_might"] += later[0].notice == "MightAnswer"
                    not_yet.append((later[0].confidence, later[0].odds))
                    if tune and later[0].citations:
                        ranked = rank_sentences(item.question, later[1])
                        features = odds_features(item.question, ranked, later[0].citations[0].quote)
                        fitting.append((features, 0.0, NOT_YET_WEIGHT))  # it should be held back
                counts["any"] += any(holds(c.quote, item.answers) for c in answer.citations)
                counts["passages"] += any(holds(p, item.answers) for p in passages)
                if tune:
                    cached.append((item, passages))
        quire.close()
    total = max(1, counts["questions"])
    report: dict = {
        "dataset": dataset,
        "split": split,
        "mode": mode,
        "documents": len(loaded),
        "questions": counts["questions"],
        "first_sentence_holds_answer": round(counts["first"] / total, 3),
        "any_quote_holds_answer": round(counts["any"] / total, 3),
        "passages_hold_answer": round(counts["passages"] / total, 3),
        "answered": round(counts["answered"] / total, 3),
        "first_holds_when_answered": round(counts["answered_first"] / max(1, counts["answered"]), 3),
        "not_yet_answerable": counts["not_yet"],
        "abstained_when_not_yet_answerable": round(counts["abstained"] / max(1, counts["not_yet"]), 3),
        "might_answer": round(counts["might"] / total, 3),  # held back, saying the quotes may answer
        "first_holds_when_might_answer": round(counts["might_first"] / max(1, counts["might"]), 3),
        "might_answer_when_not_yet_answerable": round(counts["not_yet_might"] / max(1, counts["not_yet"]), 3),
        "weights": {
            "passage_prior": WEIGHTS.passage_prior,
            "min_words": WEIGHTS.min_words,
            "previous": WEIGHTS.previous,
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    if dataset == "fairytaleqa":  # the answers held back, by their odds: how often the first quote holds it anyway
        report["held_back_by_odds"] = _bands([(o, ok) for c, o, ok in shares if o < MIN_ANSWER_ODDS], not_yet)
    if tune:
        grid = []
        for prior, words, previous in itertools.product((0.0, 0.1, 0.15, 0.25), (2, 4, 6), (0.0, 0.2, 0.3, 0.5)):
            weights = Weights(passage_prior=prior, min_words=words, previous=previous)
            hit = sum(holds(first_sentence(item.question, texts, weights), item.answers) for item, texts in cached)
            grid.append(
                {"passage_prior": prior, "min_words": words, "previous": previous, "first": round(hit / total, 3)}
            )
        report["grid"] = sorted(grid, key=lambda g: -g["first"])
        if dataset == "fairytaleqa":  # English answers by their odds: fit them, and list the threshold's trade-off
            weights = fit_odds(fitting)
            report["answer_odds"] = dict(zip(ODDS_FEATURES, (round(w, 3) for w in weights), strict=True))
            fitted = [(1.0, _logistic(weights, f), bool(ok)) for f, ok, w in fitting if w == 1.0]
            held = [_logistic(weights, f) for f, _, w in fitting if w != 1.0]
            odds = (0.4, 0.45, 0.5, 0.55, 0.6)
            report["thresholds"] = [_trade_off(fitted, [(1.0, h) for h in held], 0.0, o, total) for o in odds]
        else:
            overlaps = (0.15, 0.2, 0.22, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
            report["thresholds"] = [_trade_off(shares, not_yet, t, 0.0, total) for t in overlaps]
    return report


NOT_YET_WEIGHT = 0.3  # how much a question asked before its answer was read counts in the odds' fit


def _bands(held: list[tuple[float, bool]], not_yet: list[tuple[float, float]]) -> list[dict]:
    """Per band of odds below the answer threshold: the share of all questions there, how often the first quote
    holds the answer, and the share of the not-yet-answerable questions there (those should stay held back)."""
    edges = (0.0, 0.1, 0.2, 0.3, 0.35, MIN_MIGHT_ODDS, 0.45, MIN_ANSWER_ODDS)
    total = max(1, len(held))
    rows = []
    for low, high in itertools.pairwise(edges):
        inside = [ok for odds, ok in held if low <= odds < high]
        later = sum(low <= odds < high for _, odds in not_yet)
        rows.append({"odds": f"{low:.2f}-{high:.2f}", "share_of_held": round(len(inside) / total, 3),
                     "first_holds": round(sum(inside) / max(1, len(inside)), 3), "not_yet": later})  # fmt: skip
    return rows


def fit_odds(rows: list[tuple[tuple[float, ...], float, float]], l2: float = 1.0) -> list[float]:
    """Logistic regression (Newton's method, L2 on standardised features) of whether the first quote holds the
    answer; the weights on the raw features, in the order of ``ODDS_FEATURES`` (the first is the bias)."""
    x = np.array([f for f, _, _ in rows])
    y = np.array([ok for _, ok, _ in rows])
    weight = np.array([w for _, _, w in rows])
    mean = np.average(x[:, 1:], axis=0, weights=weight)
    spread = np.sqrt(np.average((x[:, 1:] - mean) ** 2, axis=0, weights=weight)) + 1e-9
    z = np.hstack([x[:, :1], (x[:, 1:] - mean) / spread])
    w = np.zeros(z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-z @ w))
        hessian = z.T @ (z * (weight * p * (1 - p))[:, None]) + l2 * np.eye(len(w))
        w -= np.linalg.solve(hessian, z.T @ (weight * (p - y)) + l2 * w)
    raw = w[1:] / spread
    return [float(w[0] - raw @ mean), *map(float, raw)]


def _logistic(weights: list[float], features: tuple[float, ...]) -> float:
    return 1 / (1 + math.exp(-sum(w * x for w, x in zip(weights, features, strict=True))))


def _trade_off(
    shares: list[tuple[float, float, bool]], not_yet: list[tuple[float, float]], overlap: float, odds: float, total: int
) -> dict:
    """What a pair of thresholds gives: the share answered, how often the first quote holds the answer then, and
    the share of the not-yet-answerable questions held back."""
    answered = [ok for c, o, ok in shares if c >= overlap and o >= odds]
    held = sum(c < overlap or o < odds for c, o in not_yet)
    return {"min_overlap": overlap, "min_odds": odds, "answered": round(len(answered) / total, 3),
            "first_holds_when_answered": round(sum(answered) / max(1, len(answered)), 3),
            "abstained_when_not_yet_answerable": round(held / max(1, len(not_yet)), 3)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(LOADERS), required=True)
    parser.add_argument("--data", type=Path, required=True, help="a folder in the dataset's format")
    parser.add_argument("--split", help="fairytaleqa: val (default) or train; cmrc2018: dev (default)")
    parser.add_argument("--mode", choices=("keyword", "hybrid"), default="hybrid")
    parser.add_argument("--limit-docs", type=int)
    parser.add_argument("--tune", action="store_true", help="grid-search the ranker's weights (train split only)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    split = args.split or ("val" if args.dataset == "fairytaleqa" else "dev")
    if args.tune and args.dataset == "fairytaleqa" and split != "train":
        parser.error("tune on the train split only: the other splits are for reporting")
    report = run(args.dataset, args.data, split, args.mode, args.limit_docs, args.tune)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    print(f"{report['dataset']} {report['split']} ({report['mode']}): {report['documents']} documents, "
          f"{report['questions']} questions, {report['seconds']} s")  # fmt: skip
    print(f"  first quoted sentence holds the answer  {report['first_sentence_holds_answer']:.3f}")
    print(f"  any quoted sentence holds it            {report['any_quote_holds_answer']:.3f}")
    print(f"  the passages read hold it (ceiling)     {report['passages_hold_answer']:.3f}")
    print(f"  answered (the rest: closest passages)   {report['answered']:.3f}")
    print(f"  first quote holds it, when answered     {report['first_holds_when_answered']:.3f}")
    print(
        f"  abstained, {report['not_yet_answerable']} not yet answerable   {report['abstained_when_not_yet_answerable']:.3f}"
    )
    print(f"  held back as 'may answer'               {report['might_answer']:.3f}  (first quote holds it "
          f"{report['first_holds_when_might_answer']:.3f}; of the not yet answerable {report['might_answer_when_not_yet_answerable']:.3f})")  # fmt: skip
    if "answer_odds" in report:
        print("  ANSWER_ODDS fitted: " + json.dumps(report["answer_odds"]))
    for row in report.get("thresholds", []):
        print(f"  min overlap {row['min_overlap']:<5} min odds {row['min_odds']:<5} answered {row['answered']:.3f}  precision "
              f"{row['first_holds_when_answered']:.3f}  abstained {row['abstained_when_not_yet_answerable']:.3f}")  # fmt: skip
    for row in report.get("grid", [])[:8]:
        print(f"  prior {row['passage_prior']:<5} min_words {row['min_words']:<3} previous {row['previous']:<4} "
              f"first {row['first']:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
