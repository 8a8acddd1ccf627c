"""On-device embeddings with onnxruntime and Hugging Face tokenizers (no PyTorch)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from core.errors import EmbeddingError, ModelUnavailableError
from core.rag.embedder import Embedder, normalise


class OnnxEmbedder(Embedder):
    """A BERT-style sentence encoder in ONNX: mean or CLS pooling, then L2 normalisation."""

    def __init__(
        self,
        name: str,
        model_path: Path | bytes,  # bytes: a model read from a zipped package (Android imports them so)
        tokenizer_path: Path,
        *,
        dimension: int,
        max_tokens: int,
        tokenizer_name: str,
        pooling: str = "mean",
        query_prefix: str = "",
        passage_prefix: str = "",
        threads: int | None = None,
        batch_size: int = 1,
    ) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise ModelUnavailableError(
                f"on-device embeddings need onnxruntime and tokenizers, which this device lacks ({error.name}); "
                "use a remote embedding endpoint in Settings instead"
            ) from error
        where = "the packaged model" if isinstance(model_path, bytes) else str(model_path)  # never 23 MB of bytes
        if (not isinstance(model_path, bytes) and not Path(model_path).is_file()) or not Path(tokenizer_path).is_file():
            raise ModelUnavailableError(f"model files for {name} are missing: {where}, {tokenizer_path}")
        self.name = name
        self.dimension = dimension
        self.max_tokens = max_tokens
        self.pooling = pooling
        # One text per call: on 2 CPU cores (python -m bench.embed) batches of 1, 4, 8 and 32 passages
        # run 43, 40, 36 and 29 passages/s with peak RSS 352, 389, 495 and 1090 MB; padding and
        # onnxruntime's memory arena grow with the batch while the cores are already busy.
        self.batch_size = batch_size
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.tokenizer_name = tokenizer_name
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.counter = Tokenizer.from_file(str(tokenizer_path))
        self.counter.no_truncation()
        self.counter.no_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        try:
            source = model_path if isinstance(model_path, bytes) else str(model_path)
            self.session = onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own untyped errors for damaged files
            raise ModelUnavailableError(f"the model file of {name} is damaged: {error}") from error
        self.input_names = {i.name for i in self.session.get_inputs()}

    def count_tokens(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self.counter.encode_batch(texts, add_special_tokens=False)]

    def encode(self, texts: list[str]) -> dict[str, np.ndarray]:
        """The model inputs for a batch (token ids, attention mask, zero token types)."""
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return feeds

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        feeds = self.encode(texts)
        try:
            hidden = self.session.run(None, feeds)[0]
        except Exception as error:  # onnxruntime's errors have no public base class
            raise EmbeddingError(f"{self.name} failed on a batch of {len(texts)} texts: {error}") from error
        return normalise(pool(hidden, feeds["attention_mask"], self.pooling))


def pool(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    """Sentence vectors from token vectors: the mask-weighted mean, or the first (CLS) token."""
    if pooling == "cls":
        return hidden[:, 0, :]
    weights = mask[:, :, None].astype(np.float32)
    pooled: np.ndarray = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return pooled
