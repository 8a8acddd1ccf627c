"""Retrieval quality on real QA sets: Recall@1/5/10, MRR and answer recall for keyword, vector and hybrid search.

    python -m bench.retrieval --dataset fairytaleqa --data ../shared/data/qa/en/fairytaleqa [--split val]
    python -m bench.retrieval --dataset cmrc2018 --data ../shared/data/qa/zh/cmrc2018
    options: --targets 128,192,254 (chunk sizes to compare)  --limit-docs N  --limit-questions N  --json

Each story (FairytaleQA) or the whole passage set (CMRC 2018) is imported as a book through the real
pipeline (HTML in, Quire's chunker, the on-device embedder, the library's indexes) with one section
per gold unit. A retrieved chunk is a hit when its section is one of the question's gold sections.
The baseline, in the same run: LangChain's RecursiveCharacterTextSplitter (1000 characters, 200
overlap) over the same text, the same embedder, vector search only.
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core import Quire
from core.inside import DEFAULT_TARGET_TOKENS, fold, inside

KS = (1, 5, 10)


@dataclass
class Document:
    """One book to import: named sections, and questions with their gold section names."""

    name: str
    sections: list[tuple[str, str]]  # (section id, text)
    questions: list[tuple[str, set[str]]] = field(default_factory=list)
    answers: list[list[str]] = field(default_factory=list)  # per question: answers found word for word in the text

    def html(self) -> bytes:
        parts = [f"<html><head><title>{html.escape(self.name)}</title></head><body>"]
        for section_id, text in self.sections:
            parts.append(f"<h2>{html.escape(section_id)}</h2>")
            parts += [f"<p>{html.escape(p.strip())}</p>" for p in text.split("\n\n") if p.strip()]
        parts.append("</body></html>")
        return "\n".join(parts).encode("utf-8")


def load_fairytaleqa(data: Path, split: str) -> list[Document]:
    documents = []
    for story in sorted((data / "section-stories" / split).glob("*-story.csv")):
        name = story.name.removesuffix("-story.csv")
        with story.open(encoding="utf-8") as f:
            sections = [(row["section"], row["text"]) for row in csv.DictReader(f)]
        questions_file = data / "questions" / split / f"{name}-questions.csv"
        text = {sid: answer_form(body) for sid, body in sections}
        questions, answers = [], []
        with questions_file.open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                gold = {s.strip() for s in row["cor_section"].split(",")}
                questions.append((row["question"], gold))
                found = [row[f"answer{i}"] for i in range(1, 7) if (row.get(f"answer{i}") or "").strip()]
                verbatim = [a for a in found if answer_form(a) and any(answer_form(a) in text.get(g, "") for g in gold)]
                answers.append(verbatim if row.get("ex-or-im1") == "explicit" else [])
        documents.append(Document(name, sections, questions, answers))
    return documents


def load_cmrc2018(data: Path, split: str) -> list[Document]:
    path = next(iter(sorted(data.glob(f"*{split}*.json"))), None) or next(iter(sorted(data.glob("*.json"))))
    payload = json.loads(path.read_text(encoding="utf-8"))
    sections, questions, answers = [], [], []
    for article in payload["data"]:
        for paragraph in article["paragraphs"]:
            sections.append((paragraph["id"], paragraph["context"]))
            questions += [(qa["question"], {paragraph["id"]}) for qa in paragraph["qas"]]
            answers += [[a["text"] for a in qa["answers"] if a["text"].strip()] for qa in paragraph["qas"]]
    return [Document(path.stem, sections, questions, answers)]


def answer_form(text: str) -> str:
    """Folded, without spaces or punctuation: how an answer is looked for in a passage."""
    return re.sub(r"[\W_]+", "", fold(text))


def answer_recall(found: list[list[str]], answers: list[list[str]]) -> dict[str, float | int]:
    """The share of questions (those with a verbatim answer) whose answer is inside one of the top-k passages."""
    pairs = [(texts, wanted) for texts, wanted in zip(found, answers, strict=True) if wanted]
    result: dict[str, float | int] = {"answer_questions": len(pairs)}
    for k in (1, 5):
        hits = [any(answer_form(a) in answer_form(t) for t in texts[:k] for a in wanted) for texts, wanted in pairs]
        result[f"answer@{k}"] = float(np.mean(hits)) if hits else 0.0
    return result


LOADERS = {"fairytaleqa": load_fairytaleqa, "cmrc2018": load_cmrc2018}


def score(ranked: list[list[str]], gold: list[set[str]]) -> dict[str, float]:
    """Recall@k and MRR@10 of ranked section lists against gold section sets."""
    result: dict[str, float] = {}
    for k in KS:
        result[f"recall@{k}"] = float(np.mean([any(s in g for s in r[:k]) for r, g in zip(ranked, gold, strict=True)]))
    reciprocal = []
    for r, g in zip(ranked, gold, strict=True):
        rank = next((i for i, s in enumerate(r[:10], start=1) if s in g), None)
        reciprocal.append(1.0 / rank if rank else 0.0)
    result["mrr@10"] = float(np.mean(reciprocal))
    return result


def baseline_rankings(document: Document, embedder, questions: list[str]) -> list[list[str]]:
    """RecursiveCharacterTextSplitter(1000, 200) chunks of the same text, vector search with the same model."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    text, spans = "", []
    for section_id, body in document.sections:
        start = len(text)
        text += body.strip() + "\n\n"
        spans.append((start, len(text), section_id))
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200, add_start_index=True)
    chunks = splitter.create_documents([text])
    owners = []
    for chunk in chunks:
        a = chunk.metadata["start_index"]
        b = a + len(chunk.page_content)
        owners.append([sid for s, e, sid in spans if s < b and a < e])
    matrix = embedder.embed_documents([c.page_content for c in chunks])
    rankings = []
    for question in questions:
        scores = matrix @ embedder.embed_query(question)
        ranked: list[str] = []
        for i in np.argsort(-scores)[:10]:
            ranked.append(owners[i][0] if len(owners[i]) == 1 else "|".join(owners[i]))
        rankings.append(ranked)
    return rankings


def run(
    dataset: str, data: Path, split: str, targets: list[int], limit_docs: int | None, limit_questions: int | None
) -> dict:
    documents = LOADERS[dataset](data, split)[: limit_docs or None]
    if limit_questions:
        for document in documents:
            document.questions = document.questions[:limit_questions]
            document.answers = document.answers[:limit_questions]
    gold = [g for d in documents for _, g in d.questions]
    answers = [a for d in documents for a in (d.answers or [[] for _ in d.questions])]
    report: dict = {"dataset": dataset, "documents": len(documents), "questions": len(gold), "runs": {}}
    with tempfile.TemporaryDirectory() as folder:
        for target in targets:
            quire = Quire(Path(folder) / f"t{target}")
            inside(quire).indexer.target_tokens = target
            embedder = quire.models.embedder("all-MiniLM-L6-v2")
            rankings: dict[str, list[list[str]]] = {"keyword": [], "vector": [], "hybrid": []}
            texts: dict[str, list[list[str]]] = {mode: [] for mode in rankings}
            started = time.perf_counter()
            chunks = 0
            for document in documents:
                book = quire.import_bytes(document.html(), f"{document.name}.html").book
                inside(quire).indexer.run(book.id, embedder)
                chunks += len(quire.text.passage_texts(book.id))
                for question, _ in document.questions:
                    for mode in rankings:
                        passages = quire.search(book.id, question, mode=mode, k=10)
                        rankings[mode].append([p.section_title for p in passages])
                        texts[mode].append([p.text for p in passages[:5]])
            elapsed = time.perf_counter() - started
            report["runs"][str(target)] = {
                "chunks": chunks,
                "seconds": round(elapsed, 1),
                **{mode: {**score(r, gold), **answer_recall(texts[mode], answers)} for mode, r in rankings.items()},
            }
            quire.close()
        quire = Quire(Path(folder) / "baseline")
        embedder = quire.models.embedder("all-MiniLM-L6-v2")
        baseline = []
        for document in documents:
            baseline += baseline_rankings(document, embedder, [q for q, _ in document.questions])
        # a baseline chunk spanning two sections is a hit for either
        split_gold = [[set(s.split("|")) for s in r] for r in baseline]
        hits = [
            [next(iter(g & owners), "x") if g & owners else "x" for owners in r]
            for r, g in zip(split_gold, gold, strict=True)
        ]
        report["baseline"] = score(hits, gold)
        quire.close()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(LOADERS), required=True)
    parser.add_argument("--data", type=Path, required=True, help="a folder in the dataset's format")
    parser.add_argument("--split", help="fairytaleqa: val (default), train or test; cmrc2018: dev (default)")
    parser.add_argument("--targets", default=str(DEFAULT_TARGET_TOKENS), help="chunk sizes in tokens, comma-separated")
    parser.add_argument("--limit-docs", type=int)
    parser.add_argument("--limit-questions", type=int, help="per document")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    split = args.split or ("val" if args.dataset == "fairytaleqa" else "dev")
    report = run(
        args.dataset, args.data, split, [int(t) for t in args.targets.split(",")], args.limit_docs, args.limit_questions
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['dataset']}: {report['documents']} documents, {report['questions']} questions")
    header = f"{'run':24} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR':>6} {'A@1':>6} {'A@5':>6}"
    print(header)
    print("-" * len(header))
    for target, result in report["runs"].items():
        for mode in ("keyword", "vector", "hybrid"):
            m = result[mode]
            print(
                f"{mode + ' @' + target + ' tok':24} {m['recall@1']:6.3f} {m['recall@5']:6.3f} {m['recall@10']:6.3f} "
                f"{m['mrr@10']:6.3f} {m['answer@1']:6.3f} {m['answer@5']:6.3f}"
            )
        print(f"{'  (' + str(result['chunks']) + ' chunks, ' + str(result['seconds']) + ' s)':24}")
    first = next(iter(report["runs"].values()))["hybrid"]
    print(f"  (A@k: the answer text is inside one of the top k passages; {first['answer_questions']} questions "
          "with an answer found word for word)")  # fmt: skip
    b = report["baseline"]
    print(
        f"{'baseline 1000ch vector':24} {b['recall@1']:6.3f} {b['recall@5']:6.3f} {b['recall@10']:6.3f} {b['mrr@10']:6.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
