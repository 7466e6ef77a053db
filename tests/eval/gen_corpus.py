#!/usr/bin/env python3
"""Frozen evaluation set for trilogy's full-text search.

What this is
------------
Two synthetic but realistic project memories, each with questions whose correct
answers are known by construction:

* ``en`` -- "snapvault", a photo/video backup and sync service (uploader,
  thumbnail worker, auth service, Postgres schema, object storage, CI/infra,
  CLI, web dashboard, billing webhooks, device sync), written in English.
* ``zh`` -- "stockhub", a Chinese team's order and inventory platform (订单,
  库存, 支付回调, ERP 同步 agent, 仓储作业, 面单打印, 运维, 报表/管理后台,
  网关, 通知), written in Chinese prose mixed with the English identifiers,
  paths, commands and crate names Chinese developers actually write.

Each entry is one memory record as trilogy stores it: a session
(SESSIONS.md: date, area, done, optional open/next), a decision (DECISIONS.md:
date, area, choice, over, because) or a line of a PROJECT.md section.

How entries are built
---------------------
* Signal entries are written by hand below (``build_en`` / ``build_zh``): one
  or more entries per fact, including facts that change over time (a value set
  and later changed, a decision later replaced by another decision on the same
  topic, stated in words), verbatim and near-verbatim repeats of the same
  sentence on different dates, and project lines.
* Noise entries are produced from templates over each project's recurring
  vocabulary (files, functions, dependencies, tests, topics): dependency bumps,
  reruns of the suite, typo fixes, rebases, reviews, flaky reruns, reading
  sessions, planning, cleanups, plus routine decisions (pins, deprecations,
  feature flags, ownership).  Several routine sentences repeat verbatim many
  times.  Noise mentions the same components and topics as the signal entries
  (distractors) but, by construction, never states a fact a question asks
  about: templates that name a file never name a topic, and vice versa.
* Dates: random days in 2025-01-01..2026-11-30 from a fixed seed; an entry
  declared ``after`` another is dated later than it.  Keys are numbered in date
  order per type (``en-s-00001``, ``en-d-00001``, ``en-p-0001``).

How questions are built
-----------------------
Every question was written by hand next to the entries that hold its answer,
from those entries alone; no search engine, ranking or search output was
consulted while writing them.  Each question has a natural-language form (the
way an agent passes a whole question) and a keyword form.  ``answers`` is a
list of evidence groups; a group is satisfied by any of its keys.  When the
same fact is recorded in several entries (repeats, a session implementing a
decision, a project line) all of them are in the group.  The corpus was then
scanned programmatically (shared rare terms between each question and every
non-answer entry) and the flagged candidates reviewed by hand, adding any
entry that genuinely answers to the right group.

Split rule
----------
``split`` is "dev" when the first byte of sha1(id) is < 102 (about 40%),
otherwise "test".

Run ``python3 tests/eval/gen_corpus.py`` from the repository root; it rewrites
``tests/eval/corpus.jsonl`` and ``tests/eval/questions.jsonl`` byte for byte
(Python 3 standard library only, no dependence on time or environment).
"""

import datetime
import hashlib
import json
import os
import random

SEED = 20251120
START = datetime.date(2025, 1, 1)
END = datetime.date(2026, 11, 30)
SPAN = (END - START).days  # inclusive offsets 0..SPAN
HERE = os.path.dirname(os.path.abspath(__file__))

KINDS = ("fact", "when", "file", "why", "multi")
SECTIONS = {
    "en": ["What this is", "Run and test", "Where things live", "State", "Traps"],
    "zh": ["这是什么", "怎么跑和怎么测", "东西都在哪", "现状", "坑"],
}


def day(offset):
    return (START + datetime.timedelta(days=offset)).isoformat()


def offset_of(iso):
    return (datetime.date.fromisoformat(iso) - START).days


class Builder:
    """Collects the entries and questions of one workspace."""

    def __init__(self, ws, rng):
        self.ws = ws
        self.rng = rng
        self.entries = []      # dicts with a private "_label"
        self.labels = {}       # label -> list of entry dicts
        self.questions = []

    # ---- entries -------------------------------------------------------
    def _add(self, label, entry, after=None, date=None):
        entry["_label"] = label
        entry["_after"] = after
        entry["_date"] = date
        self.entries.append(entry)
        if label is not None:
            self.labels.setdefault(label, []).append(entry)
        return entry

    def s(self, label, area, done, open=None, next=None, after=None,
          copies=1, date=None):
        """A session; copies>1 repeats the same text on different dates."""
        for _ in range(copies):
            e = {"type": "session", "area": area, "done": done}
            if open:
                e["open"] = open
            if next:
                e["next"] = next
            self._add(label, e, after=after, date=date)

    def sv(self, label, area, variants, after=None):
        """Near-duplicate sessions: each variant text is one session."""
        for v in variants:
            self.s(label, area, v, after=after)

    def d(self, label, area, choice, over=None, because=None, after=None,
          date=None):
        e = {"type": "decision", "area": area, "choice": choice}
        if over:
            e["over"] = over
        if because:
            e["because"] = because
        self._add(label, e, after=after, date=date)

    def p(self, label, section, line):
        assert section in SECTIONS[self.ws], section
        self._add(label, {"type": "project", "section": section, "line": line})

    # ---- questions -----------------------------------------------------
    def q(self, kind, question, keywords, *groups):
        assert kind in KINDS, kind
        self.questions.append({
            "kind": kind, "question": question, "keywords": keywords,
            "groups": [g.split() for g in groups],
        })

    # ---- dates and keys --------------------------------------------------
    def assign_dates(self):
        referenced = {e["_after"] for e in self.entries if e["_after"]}
        rng = self.rng
        placed = {}
        for e in self.entries:
            if e["type"] == "project":
                continue
            if e["_date"]:
                off = offset_of(e["_date"])
            elif e["_after"]:
                base = max(offset_of(x["date"]) for x in self.labels[e["_after"]])
                off = min(SPAN, base + rng.randint(4, 110))
                if off <= base:
                    raise ValueError("no room after " + e["_after"])
            elif e["_label"] in referenced:
                off = rng.randint(0, int(SPAN * 0.6))
            else:
                off = rng.randint(0, SPAN)
            e["date"] = day(off)
            placed[id(e)] = off

    def assign_keys(self):
        ws = self.ws
        dated = [e for e in self.entries if e["type"] != "project"]
        order = list(range(len(dated)))
        self.rng.shuffle(order)
        tie = {id(dated[i]): n for n, i in enumerate(order)}
        dated.sort(key=lambda e: (e["date"], tie[id(e)]))
        ns = nd = 0
        for e in dated:
            if e["type"] == "session":
                ns += 1
                e["key"] = "%s-s-%05d" % (ws, ns)
            else:
                nd += 1
                e["key"] = "%s-d-%05d" % (ws, nd)
        proj = [e for e in self.entries if e["type"] == "project"]
        proj.sort(key=lambda e: SECTIONS[ws].index(e["section"]))
        for n, e in enumerate(proj, 1):
            e["key"] = "%s-p-%04d" % (ws, n)
        self.sorted_entries = proj + dated

    def resolve_questions(self):
        out = []
        for q in self.questions:
            groups = []
            for g in q["groups"]:
                keys = []
                for label in g:
                    if label not in self.labels:
                        raise KeyError("%s: unknown label %s in %r"
                                       % (self.ws, label, q["question"]))
                    keys.extend(e["key"] for e in self.labels[label])
                groups.append(sorted(set(keys)))
            out.append(dict(q, answers=groups))
        return out


def public(e, ws):
    out = {k: v for k, v in e.items() if not k.startswith("_")}
    out["ws"] = ws
    return out


def split_of(qid):
    return "dev" if hashlib.sha1(qid.encode("utf-8")).digest()[0] < 102 else "test"


# ===========================================================================
# en: snapvault -- signal entries and their questions
# ===========================================================================

def build_en(B):
    s, sv, d, p, q = B.s, B.sv, B.d, B.p, B.q

    # ---------------- project lines ----------------
    p("p-what1", "What this is", "snapvault backs up and syncs photos and videos for families: a Rust API and workers, a React dashboard, and a CLI that also runs on NAS boxes.")
    p("p-what2", "What this is", "Originals live in S3, thumbnails in Cloudflare R2, metadata in Postgres 16.")
    p("p-run1", "Run and test", "`docker compose up -d db nats minio`, then `cargo run -p api` (listens on :8080).")
    p("p-run2", "Run and test", "`cargo nextest run --workspace`; the Postgres tests need Docker and `DATABASE_URL` from `.env.test`.")
    p("p-run3", "Run and test", "Dashboard: `cd web && pnpm dev` on :5173, proxying `/v1` to :8080; `pnpm test:e2e` runs Playwright.")
    p("p-run4", "Run and test", "Golden thumbnail tests are `#[ignore]`d: `cargo test -p thumbs -- --ignored golden`.")
    p("p-where1", "Where things live", "`services/api` (HTTP API), `services/auth`, `services/billing`; shared code in `crates/`.")
    p("p-where2", "Where things live", "`workers/thumbs` is the thumbnail worker; `src/thumbs/` holds resize, HEIC and video poster code.")
    p("p-where3", "Where things live", "`migrations/`: forward-only SQL, numbered `NNNN_name.sql`.")
    p("p-where4", "Where things live", "`deploy/`: Kubernetes manifests watched by Argo CD.")
    p("p-where5", "Where things live", "`web/` is the React + Vite dashboard; `crates/cli` is the `snapvault` CLI.")
    p("p-trap1", "Traps", "Never run `sqlx migrate run` against prod by hand: Argo CD runs migrations as a pre-sync Job.")
    p("p-trap2", "Traps", "pgbouncer is in transaction mode: no session-level `SET`, no prepared statement cache (see `src/db/pool.rs`).")
    p("p-trap3", "Traps", "The ALB idle timeout is 30 s; anything that long-polls must answer before that.")

    q("fact", "How do I run the web dashboard locally?", "dashboard local dev pnpm", "p-run3")
    q("fact", "What port does the API listen on when run locally?", "api local port", "p-run1 p-run3")
    q("fact", "Can I run the database migrations against production by hand?", "migrations production by hand", "p-trap1")
    q("why", "Why can't we use a session-level SET on the database connection?", "session-level SET pgbouncer", "p-trap2")
    q("fact", "What is the idle timeout of the load balancer?", "ALB idle timeout", "p-trap3 sy-poll")
    q("file", "Which directory does Argo CD watch for the manifests?", "Argo CD manifests directory", "p-where4 inf-argo-d")
    q("fact", "Where are originals, thumbnails and metadata stored?", "originals thumbnails metadata storage", "p-what2")
    q("fact", "How are migration files named?", "migration files naming", "p-where3")

    # ---------------- uploader ----------------
    s("up-chunk", "uploader", "Raised the default multipart chunk size from 5 MiB to 16 MiB (`UPLOAD_CHUNK_MB=16`) in `src/upload/chunk.rs`; a 2 GB video now needs 128 parts instead of 410. `cargo test -p uploader` passes.")
    q("fact", "What is the default chunk size the uploader uses for multipart uploads?", "uploader multipart chunk size", "up-chunk")
    q("file", "Which file did we change when we raised the upload chunk size?", "upload chunk size file", "up-chunk")

    s("up-backoff1", "uploader", "Added exponential backoff to `retry_with_backoff` in `src/upload/retry.rs`: 2s base delay, doubling, at most 5 attempts. Verified with the flaky-S3 fixture; `cargo test -p uploader retry` passes.")
    d("up-backoff-d", "uploader", "Uploader retries start from a 5s base delay instead of 2s.",
      "keeping the 2s base, which kept us inside S3's throttling window during the March SlowDown storm (40% of retries failed again)",
      "S3 asks clients to back off for several seconds on 503 SlowDown; a 2s start just re-triggered the throttling", after="up-backoff1")
    s("up-backoff2", "uploader", "Changed the retry base delay in `src/upload/retry.rs` from 2s to 5s as decided, with ±20% jitter. Replayed the recorded 503 trace: no retry storm. `cargo test -p uploader` passes.", after="up-backoff-d")
    q("fact", "What base delay does the uploader's retry backoff use now?", "uploader retry backoff delay", "up-backoff-d up-backoff2")
    q("why", "Why did we make the upload retries wait longer before the first retry?", "upload retry delay SlowDown", "up-backoff-d")
    q("when", "When did we first add exponential backoff to the uploader?", "uploader exponential backoff added", "up-backoff1")
    q("multi", "How has the uploader's retry backoff changed over time?", "uploader retry backoff changes", "up-backoff1", "up-backoff-d up-backoff2")

    s("up-resume", "uploader", "Uploads now resume after the app is killed: a `ResumeToken` (upload id + last acked part) is persisted under `~/.cache/snapvault/resume/` and expires after 24 h. Verified by killing the CLI halfway through a 1.2 GB file and rerunning `snapvault push`.")
    q("fact", "How long does an upload resume token stay valid?", "upload resume token expiry", "up-resume")
    q("file", "Where on disk does the CLI keep its resume tokens?", "resume tokens directory", "up-resume")

    s("up-expired", "uploader", "Fixed 'upload session expired' on slow links: the server-side multipart session TTL (15 min) was counted from creation, not from the last part; it now slides with every acked part (`src/upload/session.rs`). Repro with `tc qdisc` at 256 kbit/s passes.")
    q("why", "Why were uploads on slow connections failing with 'upload session expired'?", "upload session expired slow connection", "up-expired")
    q("file", "Which file holds the multipart session TTL logic?", "multipart session TTL file", "up-expired")

    s("up-parallel", "cli", "`snapvault push --max-parallel` now defaults to 4 instead of 8: eight parallel parts saturated home uplinks and made the dashboard crawl for the same user. Measured on a 20 Mbit/s line.")
    q("fact", "What is the default value of --max-parallel for push?", "push max-parallel default", "up-parallel")
    q("why", "Why did we lower the number of parts uploaded in parallel?", "parallel upload parts lowered", "up-parallel")

    d("up-dedup-d", "uploader", "Deduplicate uploads by the BLAKE3 hash of the original bytes.",
      "SHA-256, about 3x slower on the ARM NAS boxes, with no benefit since the hash is not a security boundary",
      "the hash runs on the client for every upload, including low-power NAS devices")
    s("up-dedup", "uploader", "Client-side dedup landed: `src/upload/dedup.rs` hashes each file before upload and asks `/v1/photos/exists`; it skipped 31% of a 40k-photo test library. `cargo test -p uploader dedup` passes.", after="up-dedup-d")
    q("why", "Why did we pick BLAKE3 over SHA-256 for deduplication?", "dedup BLAKE3 SHA-256", "up-dedup-d")
    q("fact", "Which hash function do we use to dedupe uploads?", "upload dedup hash", "up-dedup-d")
    q("fact", "How much of the test library did client-side dedup skip?", "client-side dedup skipped", "up-dedup")
    q("file", "Where does the client-side deduplication code live?", "client-side dedup code", "up-dedup")

    s("up-quota", "uploader", "Uploads over quota now fail early with `QuotaExceeded { used, limit }` before any part is sent, instead of after the last part; the check lives in `src/upload/quota.rs`. `cargo test -p uploader quota` passes.")
    s("up-quota2", "uploader", "The quota check now counts unfinished multipart uploads toward `used`: two parallel pushes could each squeeze one file past the plan limit.", after="up-quota")
    q("file", "Where do we check the storage quota before an upload begins?", "quota check upload file", "up-quota")
    q("why", "Why do pending multipart uploads count toward a user's quota?", "pending multipart uploads quota", "up-quota2")
    q("multi", "What changes have we made to the upload quota check?", "upload quota check changes", "up-quota", "up-quota2")

    s("up-stream", "uploader", "The uploader no longer buffers whole files: parts are streamed from disk with `tokio::fs::File` and `ReaderStream`. Peak RSS for a 4 GB video went from 4.3 GB to 90 MB.")
    q("fact", "How much memory does the uploader need now to send a 4 GB video?", "uploader memory 4 GB video", "up-stream")
    q("when", "When did the uploader stop reading entire files into memory?", "uploader buffering whole files streamed", "up-stream")

    s("up-mime", "uploader", "The uploader now sniffs the MIME type from magic bytes (`infer` crate) instead of trusting the extension; `.JPG` files that were really HEIC were getting broken thumbnails.")
    q("why", "Why does the uploader detect file types from magic bytes?", "uploader file type magic bytes", "up-mime")

    s("up-crc", "uploader", "`PUT /v1/uploads/{id}/parts/{n}` returns 409 `part_checksum_mismatch` when the `x-amz-checksum-crc32c` header doesn't match the body; the CRC is computed on the client.")
    d("up-crc-d", "uploader", "Verify upload parts with CRC32C checksums.",
      "Content-MD5, which does not combine with S3's newer checksum mode and is slow on ARM without hardware help",
      "CRC32C is hardware-accelerated on x86 (SSE4.2) and ARMv8, so the client pays almost nothing")
    q("fact", "What error does the API return when an upload part's checksum doesn't match?", "part checksum mismatch error", "up-crc")
    q("why", "Why do we use CRC32C rather than MD5 to verify parts?", "CRC32C MD5 parts", "up-crc-d")
    q("multi", "How do uploads get deduplicated and integrity-checked?", "upload dedup checksum", "up-dedup up-dedup-d", "up-crc up-crc-d")

    s("up-live", "uploader", "Live Photos: the HEIC and the MOV that share a `ContentIdentifier` are uploaded as one asset; pairing happens in `src/upload/live_photo.rs`.")
    q("fact", "How do we pair the still and the video of a Live Photo?", "Live Photo pairing", "up-live")
    q("file", "Which file pairs Live Photo stills with their videos?", "Live Photo pairing file", "up-live")

    s("up-takeout", "cli", "Google Takeout import: `snapvault import takeout <zip>` takes `photoTakenTime` and GPS from the JSON sidecars, because Takeout drops the EXIF dates of some files; a 12k-photo sample imported with correct dates.", after="db-queue-d")
    q("fact", "Where does the Takeout import get the photo dates from?", "Takeout import dates sidecar", "up-takeout")
    q("when", "When did we add the Google Takeout importer?", "Google Takeout import", "up-takeout")

    # ---------------- thumbs ----------------
    d("th-vips-d", "thumbs", "The thumbnail worker uses libvips instead of the `image` crate.",
      "the pure-Rust `image` crate, which decodes the whole image and peaked at 1.8 GB on 100-megapixel panoramas",
      "worker pods have a 512 MiB memory limit and must still handle panoramas")
    s("th-vips", "thumbs", "Switched `workers/thumbs` from `image` to libvips; `vips_thumbnail` shrink-on-load keeps a 100 MP panorama under 140 MB RSS. Regenerated the golden images (`cargo test -p thumbs -- --ignored golden`).", after="th-vips-d")
    q("why", "Why did we move the thumbnail worker off the image crate?", "thumbnail worker image crate libvips", "th-vips-d th-vips")
    q("when", "When did the thumbnail worker switch to libvips?", "thumbnail worker libvips switch", "th-vips th-vips-d")

    s("th-golden", "thumbs", "Reran the golden thumbnail tests (`cargo test -p thumbs -- --ignored golden`) after the libvips bump; all 64 images match.", copies=4, after="th-vips")
    q("fact", "How do we run the golden image tests for thumbnails?", "golden thumbnail tests", "p-run4 th-vips th-golden")

    s("th-mem1", "thumbs", "Thumbnail pods were OOMKilled on a batch of 48 MP DNG files; raised the memory limit from 512 MiB to 768 MiB in `deploy/k8s/thumbs.yaml` as a stopgap.", after="th-vips")
    s("th-mem2", "thumbs", "Brought the thumbs memory limit back down to 512 MiB now that RAW files are decoded in a subprocess; the 48 MP DNG batch peaks at 210 MB.", after="th-raw")
    q("multi", "What changes did we make to the thumbnail worker's memory limit?", "thumbnail worker memory limit", "th-mem1", "th-mem2")
    q("file", "Which file sets the memory limit of the thumbnail pods?", "thumbs pods memory limit file", "th-mem1")
    q("why", "Why were the thumbnail worker pods getting OOMKilled?", "thumbnail pods OOMKilled", "th-mem1")

    s("th-raw", "thumbs", "RAW previews (DNG/CR3/NEF) are now decoded by `dcraw_emu` from LibRaw 0.21 in a subprocess with a 60 s timeout, so a malformed RAW can no longer take the worker down.", after="th-mem1")
    q("fact", "What tool decodes RAW files when we make thumbnails?", "RAW decode thumbnails tool", "th-raw")
    q("why", "Why are RAW files decoded in a separate process?", "RAW files subprocess", "th-raw")
    q("multi", "What have we done to reduce the thumbnail worker's memory use?", "thumbnail worker memory", "th-vips th-vips-d", "th-mem2 th-raw")

    d("th-sizes-d", "thumbs", "Generate three thumbnail sizes, 256, 1024 and 2048 px on the long edge, as WebP at quality 82.",
      "resizing on demand for whatever size a request asks, which made the first gallery load take 6-9 s",
      "the dashboard grid and the lightbox need predictable URLs the CDN can cache")
    q("fact", "Which thumbnail sizes do we generate?", "thumbnail sizes generated", "th-sizes-d")
    q("fact", "What WebP quality setting do our thumbnails use?", "thumbnail WebP quality", "th-sizes-d th-avif")
    q("why", "Why do we pre-generate fixed thumbnail sizes rather than resizing per request?", "fixed thumbnail sizes on demand", "th-sizes-d")

    s("th-avif", "thumbs", "Tried AVIF for the 2048 px rendition: 38% smaller than WebP q82 but 1.9 s to encode per image on the worker. Parked; staying on WebP.", after="th-sizes-d")
    q("fact", "Did we try AVIF for thumbnails, and what came of it?", "AVIF thumbnails", "th-avif")

    s("th-exif", "thumbs", "Fixed sideways thumbnails of iPhone portraits: `src/meta/exif.rs` ignored orientation 6 (rotate 90° CW) when the EXIF block came after the XMP packet. Added 8 fixtures, one per orientation value; `cargo test -p thumbs orientation` passes.")
    q("file", "In which file did we fix the EXIF orientation bug?", "EXIF orientation bug file", "th-exif")
    q("fact", "Which orientation value was being ignored on iPhone portraits?", "iPhone portrait orientation value", "th-exif")

    d("th-gps-d", "thumbs", "Strip GPS tags from thumbnails and shared copies; keep them in originals.",
      "stripping GPS from originals too, which broke the map view and users' own exports",
      "shared links must not leak home locations (issue #318), but owners want their location data")
    s("th-gps", "thumbs", "Shared-link downloads now pass through `strip_gps()` in `src/meta/exif.rs`; checked with exiftool that no GPS* tags survive in the 1024 and 2048 px renditions.", after="th-gps-d")
    q("why", "Why do we keep GPS data in originals but remove it from shared photos?", "GPS originals shared photos", "th-gps-d")
    q("fact", "Which issue made us strip location tags from shared photos?", "issue strip GPS shared", "th-gps-d")
    q("multi", "What did we do about location data in shared photos?", "location data GPS shared", "th-gps-d", "th-gps")

    s("th-heic", "thumbs", "HEIC support in the thumbnail worker through `libheif-rs` 1.0; it needs `libheif1` >= 1.17 in the worker image, added to `workers/thumbs/Dockerfile`. Tested with 120 iPhone 15 samples.")
    q("fact", "What version of libheif does the thumbnail worker need?", "libheif version thumbnail worker", "th-heic")
    q("file", "Where did we add libheif to the worker's image?", "libheif worker image Dockerfile", "th-heic")

    s("th-video", "thumbs", "Video poster frames are taken at 1.0 s instead of frame 0, which is often black (`ffmpeg -ss 1 -frames:v 1` in `src/thumbs/video.rs`); clips shorter than a second use their middle frame.")
    q("fact", "At what timestamp do we grab the poster frame for a video?", "video poster frame timestamp", "th-video")
    q("why", "Why don't we use the first frame as a video's thumbnail?", "video thumbnail first frame", "th-video")

    s("th-conc", "thumbs", "Lowered the default `THUMB_CONCURRENCY` from 8 to 3 per pod: at 8, libvips thread pools oversubscribed the 2-vCPU pods and p95 went to 14 s; now 2.1 s.")
    q("fact", "What is the default THUMB_CONCURRENCY now?", "THUMB_CONCURRENCY default", "th-conc")
    q("why", "Why did we reduce how many thumbnails each pod renders at once?", "thumbnail concurrency per pod", "th-conc")

    s("th-backfill", "thumbs", "Wrote `scripts/backfill_thumbs.py` to render 2048 px thumbnails for the 3.2 M photos uploaded before that size existed; 400 photos/min, resumable with `--since-id`.", after="th-sizes-d")
    s("th-backfill2", "thumbs", "The 2048 px thumbnail backfill finished: 3.2 M photos in 5.5 days; 1,412 failures (corrupt originals) listed in `backfill_failures.csv`.", after="th-backfill")
    q("file", "Which script regenerates the missing 2048 px thumbnails?", "script backfill 2048 thumbnails", "th-backfill")
    q("fact", "How fast does the thumbnail backfill script process photos?", "thumbnail backfill rate", "th-backfill")
    q("when", "When did the thumbnail backfill finish?", "thumbnail backfill finished", "th-backfill2")
    q("file", "Where are the photos that failed the backfill listed?", "backfill failures list", "th-backfill2")

    s("th-cache", "thumbs", "Thumbnails are served with `Cache-Control: public, max-age=31536000, immutable`; URLs carry the content hash, so a re-render gets a new URL.")
    q("fact", "What Cache-Control header do thumbnail responses carry?", "thumbnail Cache-Control header", "th-cache")

    s("th-color", "thumbs", "Thumbnails are converted to sRGB honouring the embedded ICC profile (`vips_icc_transform`); Display P3 photos from iPhones looked washed out before.")
    q("why", "Why did thumbnails of iPhone photos look washed out?", "iPhone thumbnails washed out", "th-color")

    s("th-dlq", "thumbs", "Thumbnail jobs that fail 3 times now go to the JetStream stream `THUMBS_DLQ`; `snapvault-admin thumbs requeue --dlq` replays them.", after="db-queue2")
    q("fact", "Where do thumbnail jobs end up after failing repeatedly?", "failed thumbnail jobs dead letter", "th-dlq")
    q("fact", "How do we replay thumbnail jobs from the dead-letter stream?", "replay thumbnail dead-letter", "th-dlq")

    # ---------------- auth ----------------
    d("au-jwt-d", "auth", "Access tokens are JWTs with a 15-minute lifetime, plus rotating refresh tokens valid for 30 days.",
      "long-lived 24 h access tokens, which could not be revoked when a phone was lost",
      "revoking a device must take effect within minutes without a token lookup on every request")
    s("au-jwt", "auth", "Access token TTL set to 15 min (`AUTH_JWT_TTL=900`) in `services/auth/src/token.rs`; refresh rotation with reuse detection: replaying an old refresh token revokes the whole family. `cargo test -p auth` passes.", after="au-jwt-d")
    q("fact", "How long is an access token valid?", "access token lifetime", "au-jwt-d au-jwt")
    q("why", "Why are our access tokens so short-lived?", "access tokens short-lived", "au-jwt-d")
    q("fact", "What happens if someone replays an old refresh token?", "replay old refresh token", "au-jwt")
    q("file", "Where is the access token TTL configured?", "access token TTL configured", "au-jwt")

    d("au-argon-d", "auth", "Hash passwords with Argon2id.",
      "bcrypt, which truncates passwords at 72 bytes and has no memory-hardness knob",
      "the security review SEC-14 required a memory-hard KDF")
    s("au-argon", "auth", "Password hashing moved from bcrypt cost 12 to Argon2id (m=19 MiB, t=2, p=1), the OWASP baseline; existing hashes are upgraded on the next successful login in `services/auth/src/password.rs`.", after="au-argon-d")
    q("why", "Why did we move password hashing away from bcrypt?", "password hashing bcrypt", "au-argon-d")
    q("fact", "Which Argon2 parameters do we hash passwords with?", "Argon2 parameters", "au-argon")
    q("when", "When did password hashing switch to Argon2id?", "password hashing Argon2id switch", "au-argon au-argon-d")

    s("au-totp", "auth", "TOTP 2FA: `services/auth/src/totp.rs` accepts codes from the previous and next 30 s window (±1 step); 10 single-use recovery codes are generated at enrollment and stored hashed.")
    q("fact", "How many recovery codes does a user get when enabling two-factor auth?", "2FA recovery codes", "au-totp")
    q("file", "Which file implements TOTP code verification?", "TOTP verification file", "au-totp")

    s("au-rate", "auth", "Login rate limit: 5 attempts per minute per IP+username via `tower-governor`, then 429 with `Retry-After`. Confirmed with an `oha` load test.")
    s("au-rate2", "auth", "Relaxed the login limit to 10/min per IP+username after a school customer's NAT put 300 users behind one address; the per-username limit stays at 5/min.", after="au-rate")
    q("fact", "What is the login rate limit per IP and username now?", "login rate limit", "au-rate2")
    q("why", "Why did we loosen the login rate limit?", "login rate limit relaxed", "au-rate2")
    q("multi", "How has login rate limiting changed?", "login rate limiting changes", "au-rate", "au-rate2")

    s("au-apple", "auth", "Sign in with Apple works end to end: `services/auth/src/oauth/apple.rs` checks the identity token against Apple's JWKS (cached 6 h); private relay emails are stored as-is.")
    s("au-apple2", "auth", "Apple's client secret JWT lasts at most 6 months; added `scripts/rotate_apple_secret.sh` and a calendar reminder.", after="au-apple")
    q("fact", "How long do we cache Apple's JWKS keys?", "Apple JWKS cache", "au-apple")
    q("file", "Which script rotates the Apple client secret?", "rotate Apple client secret script", "au-apple2")
    q("multi", "What work did we do on Sign in with Apple?", "Sign in with Apple", "au-apple", "au-apple2")

    d("au-pkce-d", "cli", "The CLI's Google login uses PKCE with a loopback redirect to 127.0.0.1.",
      "the device code flow, which Google does not allow for the photo scopes we request",
      "the CLI must log in without a client secret baked into the binary")
    q("why", "Why does the CLI log in to Google through a loopback redirect?", "CLI Google login loopback", "au-pkce-d")

    s("au-cookie", "auth", "The dashboard session cookie is now `__Host-sv_session` with `SameSite=Lax; Secure; HttpOnly`; the old `sv_session` is cleared on the first request.")
    q("fact", "What is the dashboard's session cookie called now?", "dashboard session cookie name", "au-cookie")

    s("au-reset", "auth", "Password reset links now expire after 30 minutes and are single-use (`password_resets.used_at`); they used to last 24 h.")
    q("fact", "How long are password reset links valid?", "password reset link expiry", "au-reset")

    s("au-devices", "auth", "The dashboard 'Devices' page lists refresh-token families with last-seen IP and user agent; 'Sign out' revokes a family through `DELETE /v1/sessions/{family_id}`.", after="au-jwt")
    q("fact", "Which endpoint revokes a device's session?", "revoke device session endpoint", "au-devices")

    d("au-eddsa-d", "auth", "Sign access tokens with Ed25519 (EdDSA) instead of HS256.",
      "HS256, which required every service that verifies tokens to hold the signing secret",
      "billing and the CDN edge need to verify tokens without being able to mint them", after="au-jwt")
    s("au-eddsa", "auth", "JWT signing moved from the HS256 shared secret to EdDSA keys with a `kid`; public keys at `/.well-known/jwks.json`, rotated every 90 days, the old key kept for 1 day after rotation.", after="au-eddsa-d")
    q("fact", "Which algorithm signs our JWTs now?", "JWT signing algorithm", "au-eddsa au-eddsa-d")
    q("fact", "How often is the JWT signing key rotated?", "JWT signing key rotation", "au-eddsa")
    q("why", "Why did we stop signing tokens with HS256?", "tokens HS256", "au-eddsa-d")
    q("multi", "What have we changed about JWT signing and lifetime?", "JWT signing lifetime", "au-jwt au-jwt-d", "au-eddsa au-eddsa-d")

    d("au-email-d", "auth", "Send transactional email through Postmark.",
      "Amazon SES, whose shared IPs got our password-reset mails flagged as spam at Outlook (22% in junk)",
      "password resets and 2FA recovery mail must reach the inbox")
    s("au-email", "auth", "`src/notify/email.rs` switched from SES to Postmark over SMTP with `lettre`, message stream `outbound`; Outlook test accounts now get the reset mail in the inbox.", after="au-email-d")
    q("why", "Why did we move transactional email from SES to Postmark?", "email SES Postmark", "au-email-d")
    q("file", "Which file sends the transactional emails?", "transactional email file", "au-email")

    # ---------------- db ----------------
    s("db-pool", "db", "Set `DATABASE_POOL_MAX=20` per API pod (sqlx default was 10); with 6 pods that is 120 connections under pgbouncer's limit of 200.")
    d("db-pgb-d", "db", "Run pgbouncer in transaction pooling mode in front of Postgres.",
      "session pooling, which pinned a server connection per idle client and ran out at 300",
      "API pods scale to 12 during backups and each holds 20 connections")
    q("fact", "What is DATABASE_POOL_MAX set to for the API pods?", "DATABASE_POOL_MAX API pods", "db-pool")
    q("why", "Why does pgbouncer use transaction pooling?", "pgbouncer transaction pooling", "db-pgb-d")

    s("db-prepared", "db", "sqlx prepared statements broke behind pgbouncer's transaction mode (`prepared statement \"sqlx_s_3\" does not exist`); set `statement_cache_capacity(0)` in `src/db/pool.rs`.", after="db-pgb-d")
    q("why", "Why were we seeing 'prepared statement does not exist' errors?", "prepared statement error pgbouncer", "db-prepared")
    q("file", "Where did we turn off sqlx's statement cache?", "sqlx statement cache off", "db-prepared p-trap2")

    s("db-idx", "db", "Added `photos_owner_taken_at_idx` on `photos (owner_id, taken_at DESC)` in `migrations/0031_photos_owner_taken_at.sql`, built `CONCURRENTLY`; the timeline query for a 90k-photo account went from 1.4 s to 18 ms.")
    q("file", "Which migration added the timeline index on photos?", "migration timeline index photos", "db-idx")
    q("fact", "How fast is the timeline query since the owner/taken_at index?", "timeline query index", "db-idx")
    q("when", "When did we add the photos_owner_taken_at_idx index?", "photos_owner_taken_at_idx migration", "db-idx")

    d("db-migr-d", "db", "Migrations are forward-only; we write no down migrations.",
      "reversible up/down pairs, which were never tested, and one of them (0017) dropped a column with data in it",
      "rollbacks are done by deploying a fix-forward migration; untested down scripts are a liability")
    q("why", "Why don't we write down migrations?", "down migrations", "db-migr-d")

    s("db-cover", "db", "`migrations/0023_add_album_cover.sql` adds a nullable `albums.cover_photo_id` with `ON DELETE SET NULL`; the dashboard falls back to the newest photo.")
    q("fact", "What happens to an album's cover when its cover photo is deleted?", "album cover photo deleted", "db-cover")
    q("file", "Which migration added album covers?", "migration album cover", "db-cover")

    d("db-trash-d", "db", "Deleted photos go to a trash (`photos.deleted_at`) and are purged after 30 days.",
      "hard deletes, which made 'I deleted the wrong album' tickets unrecoverable",
      "support was getting 40+ recovery requests a month")
    s("db-trash", "db", "Trash purge job runs nightly at 03:00 UTC (`jobs/purge_trash.rs`), deleting rows and S3 objects past retention in batches of 500.", after="db-trash-d")
    d("db-trash2-d", "billing", "Trash retention is 60 days on paid plans and stays 30 days on Free.",
      "one flat 30 days for everyone, as first decided",
      "Plus and Family customers asked for longer recovery, and their plan covers the storage", after="db-trash")
    q("file", "Which job purges the trash?", "trash purge job", "db-trash")
    q("fact", "At what time does the trash purge job run?", "trash purge schedule", "db-trash")
    q("why", "Why did we add a trash instead of deleting photos right away?", "trash deleting photos", "db-trash-d")
    q("fact", "How long do paid users' deleted photos stay in the trash?", "paid plans trash retention", "db-trash2-d")
    q("multi", "What retention rules apply to the photo trash?", "photo trash retention", "db-trash-d", "db-trash2-d")

    d("db-queue-d", "db", "Background jobs use a Postgres `jobs` table polled with `FOR UPDATE SKIP LOCKED`.",
      "Redis plus a queue library, a new stateful service to run for ~200 jobs/min",
      "we already operate Postgres and the volume is small")
    d("db-queue2-d", "db", "Move thumbnail jobs from the Postgres `jobs` table to NATS JetStream; every other job stays in Postgres. This replaces the jobs-table-for-everything decision.",
      "keeping everything in `jobs`, where thumbnail fan-out after bulk imports hit 9k jobs/min and polling used 30% of DB CPU",
      "bulk imports (Google Takeout) made thumbnail volume 40x higher than planned", after="up-takeout")
    s("db-queue2", "db", "Thumbnail jobs now flow through the JetStream stream `THUMBS` (`src/queue/nats.rs`); the `jobs` table still serves email and purge. DB CPU at peak import fell from 78% to 41%.", after="db-queue2-d")
    q("fact", "What queue do thumbnail jobs go through now?", "thumbnail jobs queue", "db-queue2-d db-queue2")
    q("why", "Why did we take thumbnail jobs out of the Postgres jobs table?", "thumbnail jobs Postgres jobs table", "db-queue2-d")
    q("why", "Why did we originally put background jobs in Postgres instead of Redis?", "background jobs Postgres Redis", "db-queue-d")
    q("multi", "What decisions have we made about the background job queue?", "background job queue decisions", "db-queue-d", "db-queue2-d")
    q("file", "Where is the NATS queue code?", "NATS queue code", "db-queue2")

    d("db-uuid-d", "db", "Primary keys are UUIDv7.",
      "bigserial, which leaked upload counts through sequential IDs in share URLs, and UUIDv4, whose random order bloated the photos index",
      "IDs appear in public URLs and inserts must stay index-friendly")
    q("why", "Why did we pick UUIDv7 for primary keys?", "UUIDv7 primary keys", "db-uuid-d")

    s("db-walg", "db", "Nightly `pg_dump` replaced by WAL-G continuous archiving to `s3://snapvault-pg-wal`; restore drill: point-in-time restore of the 180 GB database took 47 min.")
    q("fact", "How long did the point-in-time restore drill take?", "point-in-time restore drill", "db-walg")
    q("when", "When did we move database backups to WAL-G?", "backups WAL-G", "db-walg")

    s("db-vacuum", "db", "Tuned autovacuum on `photos`: `autovacuum_vacuum_scale_factor=0.02` for that table; dead tuples had reached 38% after bulk deletes.")
    q("fact", "What autovacuum scale factor did we set on the photos table?", "autovacuum scale factor photos", "db-vacuum")

    s("db-pg16", "db", "Upgraded Postgres 14 to 16 through logical replication to a new cluster; the cutover took 4 min of read-only.")
    q("when", "When did we upgrade Postgres to version 16?", "Postgres 16 upgrade", "db-pg16")
    q("fact", "How long was the read-only window during the Postgres upgrade?", "Postgres upgrade read-only window", "db-pg16")

    s("db-timeout", "db", "Set `statement_timeout` to 5s for the API role and 30 min for the `jobs` role (`ALTER ROLE`); a runaway timeline query had held locks for 11 min.")
    q("fact", "What statement timeout does the API's database role have?", "statement timeout API role", "db-timeout")
    q("why", "Why did we add a statement timeout to the database roles?", "statement timeout roles", "db-timeout")

    # ---------------- storage ----------------
    s("st-glacier", "storage", "Originals not read for 180 days now move to S3 Glacier Instant Retrieval through a lifecycle rule on `snapvault-originals`; projected saving about $2.1k/month.")
    q("fact", "After how many days do originals move to Glacier Instant Retrieval?", "originals Glacier Instant Retrieval days", "st-glacier")

    s("st-abort", "storage", "Added the S3 lifecycle rule `AbortIncompleteMultipartUpload` after 7 days; it found 2.3 TB of orphaned parts from abandoned uploads that we were paying storage for.")
    q("fact", "How much orphaned multipart data did the cleanup rule find?", "orphaned multipart parts", "st-abort")
    q("when", "When did we add the rule that aborts incomplete multipart uploads?", "AbortIncompleteMultipartUpload rule", "st-abort")

    s("st-presign", "storage", "Originals are downloaded through presigned GET URLs valid for 10 minutes (`presign_get` in `src/storage/s3.rs`); the API no longer proxies original bytes.")
    q("fact", "How long are presigned download URLs for originals valid?", "presigned download URL validity", "st-presign")
    q("file", "Where are the presigned GET URLs created?", "presigned GET URLs", "st-presign")

    d("st-r2-d", "storage", "Keep originals on AWS S3; serve thumbnails from Cloudflare R2.",
      "moving everything to R2, which meant re-copying 410 TB of originals with about $37k of egress",
      "thumbnail egress is 85% of the bandwidth bill and R2 charges no egress")
    s("st-r2", "storage", "Thumbnails are now written to both S3 and R2 (`THUMBS_BUCKET_R2=snapvault-thumbs`); the CDN origin switched to R2 behind the `thumbs_from_r2` feature flag.", after="st-r2-d")
    q("why", "Why are thumbnails served from R2 while originals stay on S3?", "thumbnails R2 originals S3", "st-r2-d")
    q("fact", "Which feature flag moves thumbnail serving to R2?", "feature flag thumbnails R2", "st-r2")
    q("multi", "What did we do about Cloudflare R2?", "Cloudflare R2", "st-r2-d", "st-r2 p-what2")
    q("multi", "What have we done to cut our S3 storage bill?", "S3 storage bill", "st-glacier", "st-abort", "st-r2-d")

    s("st-minio", "storage", "Local dev uses MinIO instead of LocalStack for S3 (`docker-compose.yml`); LocalStack's multipart emulation returned wrong ETags for parts over 5 GB.")
    q("why", "Why do we use MinIO rather than LocalStack for local development?", "MinIO LocalStack local development", "st-minio")

    s("st-kms", "storage", "The originals bucket enforces SSE-KMS with key `alias/snapvault-originals`; the bucket policy denies unencrypted PUTs.")
    q("fact", "Which KMS key encrypts the original photos?", "KMS key originals", "st-kms")

    s("sh-link", "dashboard", "Share links expire after 7 days by default (`SHARE_LINK_TTL_DAYS=7`, max 90); tokens are 22-char base62 from `OsRng`, generated in `src/share/link.rs`.")
    d("sh-pw-d", "dashboard", "Password-protected share links hash the password with Argon2id and allow 10 attempts per hour per link.",
      "storing the link password and comparing it in plain text",
      "people reuse personal passwords for share links")
    q("fact", "What is the default expiry of a share link?", "share link expiry default", "sh-link")
    q("file", "Where are share link tokens generated?", "share link tokens", "sh-link")
    q("why", "Why are share link passwords hashed?", "share link passwords hashed", "sh-pw-d")
    q("multi", "What have we done to protect shared links?", "shared links protection", "sh-link", "sh-pw-d", "th-gps-d th-gps")

    # ---------------- infra / ci ----------------
    s("ci-nextest", "infra", "CI switched from `cargo test` to `cargo nextest run --profile ci` (`.config/nextest.toml`, retries=2 for the `integration` group); wall time went from 19 min to 11 min.")
    q("fact", "How much did switching to nextest speed up CI?", "nextest CI speed", "ci-nextest")
    q("file", "Where is the nextest CI profile configured?", "nextest CI profile", "ci-nextest")

    d("ci-sccache-d", "infra", "Use sccache with the GitHub Actions cache backend for CI builds.",
      "`Swatinem/rust-cache`, which re-downloaded a 3.4 GB target dir and blew through the 10 GB cache quota",
      "three OS matrix jobs share the 10 GB Actions cache limit")
    q("why", "Why did we choose sccache for CI caching?", "sccache CI caching", "ci-sccache-d")
    q("multi", "What have we done to make CI faster?", "CI faster", "ci-nextest", "ci-sccache-d")

    sv("ci-msrv1", "infra", ["Bumped MSRV to 1.79 (`rust-version` in the workspace `Cargo.toml`) for inline `const` blocks.",
                             "MSRV is now 1.79 in every crate; `cargo +1.79 check --workspace` passes."])
    s("ci-msrv2", "infra", "Bumped MSRV from 1.79 to 1.82 for `std::iter::repeat_n` and `&raw const`; updated the `msrv` job in `.github/workflows/ci.yml`.", after="ci-msrv1")
    q("fact", "What is our minimum supported Rust version now?", "MSRV Rust version", "ci-msrv2")
    q("multi", "When and why did we bump the MSRV?", "MSRV bump", "ci-msrv1", "ci-msrv2")
    q("when", "When did the MSRV go to 1.82?", "MSRV 1.82", "ci-msrv2")

    s("ci-docker", "infra", "The API image is now built with `cargo-chef` on distroless `gcr.io/distroless/cc-debian12`; 1.1 GB down to 48 MB, pushed to `ghcr.io/snapvault/api`.")
    q("fact", "How big is the API's Docker image now?", "API Docker image size", "ci-docker")
    q("fact", "Which base image does the API container use?", "API container base image", "ci-docker")

    d("ci-release-d", "infra", "Releases are cut by pushing a `vX.Y.Z` tag; `.github/workflows/release.yml` builds them with `cargo-dist`.",
      "release-please, which kept opening PRs for every merged commit in the monorepo",
      "we ship the CLI about monthly and want a person to decide when")
    q("why", "Why don't we use release-please for releases?", "release-please releases", "ci-release-d")
    q("file", "Which workflow builds the releases?", "workflow builds releases", "ci-release-d")

    s("ci-flaky", "sync", "Fixed the long-flaky `sync::tests::long_poll_returns_on_change`: it slept 100 ms and raced the 25 s long-poll timer; it now uses `tokio::time::pause()`. 200 consecutive runs green.")
    q("fact", "How did we fix the flaky long-poll test?", "flaky long-poll test", "ci-flaky")

    s("ci-deny", "infra", "Added `cargo deny check` to CI (`deny.toml`): `openssl-sys` is banned in favour of rustls; allowed licenses are MIT, Apache-2.0, BSD-3-Clause, ISC and Unicode-3.0.")
    q("fact", "Which crate did we ban with cargo-deny?", "cargo-deny banned crate", "ci-deny")
    q("file", "Where is the allowed license list kept?", "allowed licenses list", "ci-deny")

    d("inf-argo-d", "infra", "Deploy with Argo CD from the `deploy/` directory.",
      "`kubectl apply` from CI, which left the cluster half-updated whenever a job failed midway",
      "the cluster state must be whatever is in git")
    q("why", "Why do we deploy with Argo CD?", "deploy Argo CD", "inf-argo-d")

    s("inf-alert", "infra", "Paging alert `UploadErrorRateHigh` fires when 5xx on `/v1/uploads/*` exceeds 2% for 10 minutes; its runbook is `docs/runbooks/uploads.md`.")
    q("file", "Where is the runbook for the upload error alert?", "upload error alert runbook", "inf-alert")
    q("fact", "What threshold triggers UploadErrorRateHigh?", "UploadErrorRateHigh threshold", "inf-alert")

    s("inf-cert", "infra", "Postmortem for the 2025-09-14 outage: the TLS cert on `uploads.snapvault.app` expired because cert-manager was stuck on a rate-limited ACME order; added a `CertExpiringSoon` alert at 14 days.", date="2025-09-16")
    q("why", "What caused the outage with the uploads TLS certificate?", "uploads TLS certificate outage", "inf-cert")
    q("fact", "How many days ahead does CertExpiringSoon fire?", "CertExpiringSoon alert", "inf-cert")

    s("inf-otel", "infra", "The API exports traces over OpenTelemetry OTLP to Grafana Tempo with 10% head sampling (`OTEL_TRACES_SAMPLER_ARG=0.1`); errors are always sampled.")
    q("fact", "What sampling rate do we use for traces?", "traces sampling rate", "inf-otel")

    s("inf-canary", "infra", "API deploys go out as an Argo Rollouts canary: 10% for 10 min watching `http_5xx_ratio`, then 50%, then 100%.", after="inf-argo-d")
    q("fact", "What canary steps does an API deploy go through?", "API deploy canary steps", "inf-canary")

    s("inf-spot", "thumbs", "Moved the thumbnail worker to spot instances (node pool `thumbs-spot`); its jobs are idempotent, so an interruption just requeues them. Cost down 63%.")
    q("why", "Why is it safe to run the thumbnail worker on spot instances?", "thumbnail worker spot instances", "inf-spot")
    q("fact", "What cost saving did we get from running the thumbnail worker on spot nodes?", "thumbnail worker spot cost", "inf-spot")

    d("inf-renovate-d", "infra", "Use Renovate for dependency updates, grouped weekly; automerge only patch updates of dev-dependencies.",
      "Dependabot, which opened a PR per crate per lockfile and flooded review",
      "the monorepo has three lockfiles (Cargo, pnpm, Docker)")
    q("why", "Why do we use Renovate and not Dependabot?", "Renovate Dependabot", "inf-renovate-d")

    # ---------------- cli ----------------
    s("cli-config", "cli", "The CLI config moved from `~/.snapvaultrc` to `~/.config/snapvault/config.toml` (XDG, via `directories`); the old file is migrated on first run and renamed to `.snapvaultrc.bak`.")
    q("file", "Where does the CLI read its configuration from?", "CLI configuration file", "cli-config")
    q("fact", "What happens to an old .snapvaultrc file?", "old .snapvaultrc", "cli-config")

    s("cli-watch", "cli", "`snapvault sync --watch` uses `notify` with a 2 s debounce; editors that write a temp file and rename it no longer cause double uploads.")
    s("cli-watch2", "cli", "Raised the `--watch` debounce from 2 s to 10 s for Lightroom exports, which write a file in several passes; it is configurable as `watch.debounce_secs`.", after="cli-watch")
    q("fact", "What is the debounce of sync --watch now?", "sync watch debounce", "cli-watch2")
    q("multi", "How has the watch mode debounce changed?", "watch debounce changes", "cli-watch", "cli-watch2")
    q("why", "Why did we increase the watch debounce?", "watch debounce increased", "cli-watch2")

    s("cli-dry", "cli", "`snapvault push --dry-run` prints what would be uploaded, with sizes and dedup hits, without opening an upload session; implemented in `crates/cli/src/commands/push.rs`.")
    q("file", "Which file implements push --dry-run?", "push dry-run file", "cli-dry")

    d("cli-exit-d", "cli", "CLI exit codes: 0 ok, 1 error, 2 usage, 3 partial success (some files failed), 4 login required.",
      "exit 1 for every failure",
      "NAS cron scripts need to tell 'retry later' from 'broken'")
    q("fact", "What exit code does the CLI return on partial success?", "CLI exit code partial success", "cli-exit-d")
    q("why", "Why does the CLI use distinct exit codes?", "CLI distinct exit codes", "cli-exit-d")

    s("cli-win", "cli", "Windows: paths over 260 chars failed with `os error 3`; canonicalized paths now get the `\\\\?\\` prefix in `crates/cli/src/fs.rs`. Tested on Windows 11 with a 310-char path.")
    q("file", "Where did we fix long path handling on Windows?", "Windows long paths", "cli-win")
    q("fact", "What error did long Windows paths produce?", "long Windows paths error", "cli-win")

    s("cli-progress", "cli", "Push progress switched to `indicatif` multi-bars, one per parallel part; bars are turned off automatically when stdout is not a TTY or `--quiet` is given.")
    q("fact", "In which situations is the push progress bar turned off?", "push progress bar disabled", "cli-progress")

    d("cli-keyring-d", "cli", "The CLI keeps refresh tokens in the OS keychain via `keyring`, falling back to a 0600 file only on headless Linux.",
      "always a plain-text file in the config dir",
      "a NAS backup of ~/.config leaked tokens (issue #402)")
    q("why", "Why did we move the CLI's saved login tokens into the system keychain?", "CLI tokens keychain", "cli-keyring-d")
    q("fact", "Where does the CLI keep tokens on a headless Linux box?", "CLI tokens headless Linux", "cli-keyring-d")

    s("cli-musl", "cli", "Published static `x86_64-unknown-linux-musl` and `aarch64-unknown-linux-musl` CLI builds for Synology and QNAP; glibc on DSM 7.1 is too old for the gnu build.")
    q("why", "Why do we ship musl builds of the CLI?", "CLI musl builds", "cli-musl")

    s("cli-ignore", "cli", "`.snapvaultignore` files (gitignore syntax, via the `ignore` crate) let users skip folders; `@eaDir` and `.DS_Store` are ignored by default.")
    q("fact", "Which folders and files does the CLI skip by default?", "CLI ignored by default", "cli-ignore")

    s("cli-compl", "cli", "`snapvault completions <shell>` prints bash, zsh, fish or PowerShell completions via `clap_complete`.")
    q("fact", "How do I get shell completions for the snapvault CLI?", "snapvault shell completions", "cli-compl")

    # ---------------- dashboard ----------------
    s("da-virt", "dashboard", "The library grid is virtualized with `@tanstack/react-virtual` in `web/src/pages/Library.tsx`; a 90k-photo library scrolls at 60 fps instead of freezing around 8k DOM nodes.")
    q("file", "Which file holds the library grid virtualization?", "library grid virtualization", "da-virt")
    q("fact", "Which library virtualizes the photo grid?", "photo grid virtualization", "da-virt")

    s("da-env", "dashboard", "The dashboard takes its API base from `VITE_API_BASE` at build time; staging builds set it in `web/.env.staging`. Removed the hardcoded `api.snapvault.app` fallback.")
    q("fact", "How does the dashboard learn the API base URL?", "dashboard API base URL", "da-env")
    q("file", "Where is the API base set for staging builds?", "staging API base", "da-env")

    s("da-pw", "dashboard", "Added Playwright end-to-end tests for login, drag-and-drop upload and album creation (`web/e2e/*.spec.ts`); they run in CI against `docker compose up api db` in 4 min.")
    q("when", "When did we add Playwright tests for the dashboard?", "Playwright tests dashboard", "da-pw")

    d("da-map-d", "dashboard", "Use MapLibre GL with OpenFreeMap tiles for the map view.",
      "the Google Maps JS API, about $7 per 1000 loads at our volume and a billing account per environment",
      "the map is a free-plan feature most users open")
    s("da-map", "dashboard", "Map view is live on MapLibre; clustering with `supercluster` below zoom 12. Photos without GPS are simply not shown.", after="da-map-d")
    q("why", "Why did we go with MapLibre instead of Google Maps?", "MapLibre Google Maps", "da-map-d")
    q("fact", "Below which zoom level does the map cluster photos?", "map clustering zoom", "da-map")

    s("da-dark", "dashboard", "Dark mode follows `prefers-color-scheme` with an override in `localStorage['sv-theme']`; thumbnails get a 1px border in dark mode so black images don't vanish.")
    q("file", "Where is the dashboard's theme override stored?", "dashboard theme override", "da-dark")

    s("da-bundle", "dashboard", "The dashboard JS bundle went from 1.9 MB to 610 kB gzipped by lazy-loading the map view and replacing moment with date-fns.", after="da-map")
    q("fact", "What did we replace moment with in the dashboard?", "dashboard moment replaced", "da-bundle")
    q("multi", "What have we decided and changed about the dashboard's map view?", "dashboard map view", "da-map-d", "da-map", "da-bundle")

    s("da-multipart", "dashboard", "Browser uploads now use the same multipart API as the CLI (`web/src/upload/multipart.ts`); the old single-PUT path, limited to 100 MB, is gone.")
    q("file", "Where is the browser's multipart upload code?", "browser multipart upload", "da-multipart")
    q("fact", "What size limit did the old single-PUT browser upload have?", "single-PUT browser upload limit", "da-multipart")

    s("da-i18n", "dashboard", "Dashboard i18n with `i18next`: German and Japanese added (`web/src/locales/de.json`, `ja.json`), 412 strings each.")
    q("fact", "Which languages did we add to the dashboard?", "dashboard languages added", "da-i18n")

    s("da-sentry", "dashboard", "Dashboard errors go to Sentry with source maps uploaded by the `web-release` CI job; `ResizeObserver loop` noise is filtered out.")
    q("fact", "Which browser error do we filter out of Sentry?", "Sentry filtered browser error", "da-sentry")

    d("da-query-d", "dashboard", "Use TanStack Query for server state in the dashboard; no Redux.",
      "Redux Toolkit, where 70% of the store was cached API responses with hand-written invalidation",
      "almost all dashboard state is server state")
    q("why", "Why did we drop Redux from the dashboard?", "dashboard Redux", "da-query-d")

    # ---------------- billing ----------------
    s("bi-sig", "billing", "Stripe webhooks are verified with `STRIPE_WEBHOOK_SECRET` and a 300 s timestamp tolerance in `services/billing/src/webhook.rs`; rejected events get 400 and are logged with the event id.")
    q("fact", "What timestamp tolerance do we allow on Stripe webhook signatures?", "Stripe webhook timestamp tolerance", "bi-sig")
    q("file", "Where are Stripe webhook signatures verified?", "Stripe webhook signature verification", "bi-sig")

    s("bi-rotate", "billing", "Rotated `STRIPE_WEBHOOK_SECRET` in staging and prod on the quarterly schedule; a test event verified in both.", copies=3, after="bi-sig")
    q("when", "When have we rotated the Stripe webhook secret?", "Stripe webhook secret rotated", "bi-rotate")

    d("bi-idem-d", "billing", "Record every processed Stripe event id in `stripe_events` (unique) and skip duplicates.",
      "relying on each handler being idempotent, which failed when `invoice.paid` arrived twice and extended a subscription by two months",
      "Stripe delivers at least once and retries for up to 3 days")
    q("why", "Why do we store the IDs of Stripe events?", "Stripe event IDs", "bi-idem-d")
    q("fact", "Which table deduplicates Stripe events?", "table Stripe events duplicates", "bi-idem-d")

    s("bi-fail", "billing", "On `invoice.payment_failed` we now email the owner and start a 14-day grace period before downgrading to Free (`billing.grace_until`); uploads stay enabled during grace.")
    s("bi-fail2", "billing", "Shortened the grace period after a failed payment to 7 days to match Stripe's smart retry schedule; from day 4 the account is read-only.", after="bi-fail")
    q("fact", "Which Stripe event starts the grace period?", "Stripe event grace period", "bi-fail")
    q("fact", "How many days of grace does an account get now when a payment fails?", "grace period failed payment", "bi-fail2")
    q("multi", "What have we changed in how failed payments are handled?", "failed payments handling", "bi-fail", "bi-fail2")

    d("bi-plans-d", "billing", "Plans: Free 15 GB, Plus 200 GB at $2.99/month, Family 2 TB at $9.99/month shared by up to 5 accounts.",
      "a single unlimited plan, which attracted a few users storing 40+ TB of video",
      "storage is our main cost and must scale with price")
    q("fact", "How much storage does the Plus plan include?", "Plus plan storage", "bi-plans-d")
    q("why", "Why don't we offer an unlimited storage plan?", "unlimited storage plan", "bi-plans-d")

    s("bi-family", "billing", "Family plan: the owner invites up to 4 members by email; the 2 TB is pooled and `quota.rs` sums usage across the family group.", after="bi-plans-d")
    q("fact", "How many members can the owner of a Family plan invite?", "Family plan members invite", "bi-family")
    q("multi", "What do we know about the Family plan?", "Family plan", "bi-plans-d", "bi-family")

    s("bi-prorate", "billing", "Plan upgrades prorate immediately (`proration_behavior=always_invoice`); downgrades take effect at the end of the period so nobody is refunded mid-cycle.")
    q("fact", "When does a plan downgrade take effect?", "plan downgrade effect", "bi-prorate")

    d("bi-tax-d", "billing", "Use Stripe Tax for VAT and GST.",
      "our own VAT table, which was wrong for three EU countries after the 2025 rate changes",
      "we sell in 40+ countries and cannot track rates ourselves")
    q("why", "Why do we use Stripe Tax?", "Stripe Tax", "bi-tax-d")

    s("bi-ack", "billing", "The webhook handler now acks Stripe within 50 ms and does the work in a `billing_events` job; Stripe was hitting its 10 s timeout during a DB failover and retrying.", after="bi-sig")
    q("why", "Why does the Stripe webhook handler acknowledge before processing?", "Stripe webhook acknowledge processing", "bi-ack")

    s("bi-apple", "billing", "iOS in-app purchases are verified through App Store Server API v2 notifications (`services/billing/src/appstore.rs`) and mapped to the same `subscriptions` rows as Stripe with `provider='apple'`.")
    q("file", "Where are App Store purchase notifications handled?", "App Store purchase notifications", "bi-apple")

    s("bi-refund", "billing", "`charge.refunded` now downgrades immediately only on a full refund; partial refunds (support goodwill) keep the plan.")
    q("fact", "Does a partial refund downgrade the user's plan?", "partial refund downgrade", "bi-refund")

    # ---------------- sync ----------------
    s("sy-poll", "sync", "The change feed long-poll times out after 25 s (`SYNC_LONGPOLL_SECS=25`), under the ALB's 30 s idle timeout.")
    q("why", "Why is the sync long-poll timeout 25 seconds?", "sync long-poll timeout", "sy-poll p-trap3")
    q("fact", "Which env var sets the change feed long-poll timeout?", "change feed long-poll env var", "sy-poll")

    s("sy-cursor", "sync", "Sync cursors are now opaque base64 of `(change_seq, shard)` in `src/sync/cursor.rs`; clients sending the old integer cursor get HTTP 410 and do a full resync.", after="sy-shard")
    q("fact", "What do clients with an old integer sync cursor get back?", "old integer sync cursor", "sy-cursor")
    q("file", "Where are sync cursors encoded?", "sync cursors encoded", "sy-cursor")

    d("sy-lww-d", "sync", "Metadata edit conflicts resolve last-writer-wins per field, using server receive time.",
      "vector clocks per photo, which needed client changes on iOS, Android and the CLI and showed conflict dialogs for trivial caption edits",
      "edits almost always come from one device; per-field LWW loses nothing in practice")
    s("sy-lww", "sync", "Per-field LWW implemented: `photo_meta` gets `caption_at`, `rating_at`, `tags_at`; merge in `src/sync/merge.rs`; the property test with 10k random interleavings passes.", after="sy-lww-d")
    q("why", "Why did we settle on last-writer-wins for metadata conflicts?", "last-writer-wins metadata conflicts", "sy-lww-d")
    q("file", "Where is the metadata merge logic for sync?", "sync metadata merge", "sy-lww")
    q("multi", "What did we decide and build for sync conflicts?", "sync conflicts", "sy-lww-d", "sy-lww")

    s("sy-tomb", "sync", "Tombstones in the change feed are kept 90 days; a device offline for longer does a full resync.")
    q("fact", "How long are deletion tombstones kept in the change feed?", "change feed tombstones", "sy-tomb")

    s("sy-shard", "sync", "The change feed is now sharded by `owner_id % 16`; the single `changes` table had reached 2.1 B rows.")
    q("fact", "How many shards does the change feed have?", "change feed shards", "sy-shard")
    q("why", "Why did we shard the changes table?", "shard changes table", "sy-shard")

    s("sy-ios", "sync", "iOS background sync runs as a `BGProcessingTask` with network required; interrupted uploads resume through the same resume tokens as the CLI.")
    q("fact", "Which iOS API runs background sync?", "iOS background sync", "sy-ios")

    s("sy-limit", "sync", "Change feed polling is limited to 1 request per 5 s per device; the Android app had a bug that polled every 200 ms after a network change.")
    q("why", "Why did we rate-limit change feed polling?", "change feed polling limit", "sy-limit")

    s("sy-push", "sync", "Silent pushes over APNs and FCM now announce changes; long-poll stays as the fallback. Feed requests down 70%.", after="sy-poll")
    q("fact", "By how much did silent pushes reduce change feed requests?", "silent pushes feed requests", "sy-push")
    q("multi", "How do clients find out about changes on the server?", "clients changes notification", "sy-poll", "sy-push")

    # ---------------- cross-cutting multi ----------------
    q("multi", "What did we change to make uploads survive bad connections?", "uploads bad connections", "up-resume", "up-expired", "up-backoff-d up-backoff2")
    q("multi", "Which decisions did we make about password and token security?", "password token security decisions", "au-argon-d", "au-jwt-d", "au-eddsa-d")
    q("multi", "What have we done about HEIC files?", "HEIC files", "th-heic", "up-mime")
    q("multi", "What did we do after the thumbnail volume from bulk imports grew?", "thumbnail bulk imports", "db-queue2-d db-queue2", "th-dlq")

    # ---------------- more "when" questions on recorded events ----------------
    q("when", "When did we raise the multipart chunk size to 16 MiB?", "multipart chunk size 16 MiB", "up-chunk")
    q("when", "When did uploads become resumable after the app gets killed?", "uploads resumable ResumeToken", "up-resume")
    q("when", "When did we fix the 'upload session expired' problem on slow links?", "upload session expired fix", "up-expired")
    q("when", "When did client-side dedup land?", "client-side dedup landed", "up-dedup")
    q("when", "When did we start verifying upload parts with CRC32C?", "upload parts CRC32C", "up-crc up-crc-d")
    q("when", "When did we fix the sideways iPhone portrait thumbnails?", "sideways iPhone portrait thumbnails", "th-exif")
    q("when", "When did the thumbnail worker get HEIC support?", "thumbnail worker HEIC support", "th-heic")
    q("when", "When were the thumbnail pods OOMKilled on the DNG batch?", "thumbnail pods OOMKilled DNG", "th-mem1")
    q("when", "When did we start decoding RAW files with dcraw_emu?", "RAW dcraw_emu", "th-raw")
    q("when", "When did we try AVIF for the large thumbnails?", "AVIF large thumbnails", "th-avif")
    q("when", "When did TOTP two-factor authentication ship?", "TOTP two-factor", "au-totp")
    q("when", "When did we relax the login rate limit for the school customer?", "login rate limit school", "au-rate2")
    q("when", "When did we move email sending to Postmark?", "email Postmark", "au-email au-email-d")
    q("when", "When did we decide to sign tokens with Ed25519?", "tokens Ed25519", "au-eddsa-d au-eddsa")
    q("when", "When did thumbnail jobs move to NATS JetStream?", "thumbnail jobs NATS JetStream", "db-queue2 db-queue2-d")
    q("when", "When did paid plans get a longer trash retention?", "paid plans trash retention", "db-trash2-d")
    q("when", "When did we set statement timeouts on the database roles?", "statement timeout roles", "db-timeout")
    q("when", "When did originals start moving to Glacier Instant Retrieval?", "originals Glacier Instant Retrieval", "st-glacier")
    q("when", "When did thumbnails start being served from R2?", "thumbnails served R2", "st-r2")
    q("when", "When did CI switch to cargo nextest?", "CI cargo nextest", "ci-nextest")
    q("when", "When did we add cargo deny to CI?", "cargo deny CI", "ci-deny")
    q("when", "When did the thumbnail worker move to spot instances?", "thumbnail worker spot instances", "inf-spot")
    q("when", "When did the CLI config move to ~/.config/snapvault?", "CLI config XDG", "cli-config")
    q("when", "When did we change the --watch debounce to 10 s?", "watch debounce 10 s", "cli-watch2")
    q("when", "When did we virtualize the dashboard's library grid?", "library grid virtualized", "da-virt")
    q("when", "When did we shorten the failed-payment grace period to 7 days?", "grace period 7 days", "bi-fail2")
    q("when", "When did we shard the change feed?", "change feed sharded", "sy-shard")
    q("when", "When was the postmortem for the expired uploads certificate written?", "postmortem expired certificate", "inf-cert")
    q("when", "When did silent push notifications for changes go live?", "silent push notifications changes", "sy-push")

    # ---------------- more "file" questions ----------------
    q("file", "Which file has the exponential backoff for upload retries?", "upload retries backoff file", "up-backoff1 up-backoff2")
    q("file", "Where did we change the thumbs memory limit back when the DNG batch crashed the pods?", "thumbs memory limit DNG", "th-mem1")
    q("file", "Which file does the video poster frame extraction?", "video poster frame file", "th-video p-where2")
    q("file", "Where is the code that strips GPS from shared downloads?", "strip GPS shared downloads", "th-gps")
    q("file", "Which file handles password hashing and upgrades old hashes?", "password hashing file", "au-argon")
    q("file", "Which file validates Apple identity tokens?", "Apple identity token validation", "au-apple")
    q("file", "Which column marks a photo as being in the trash?", "column photo trash", "db-trash-d")
    q("file", "Which migration file added the album cover column?", "album cover migration", "db-cover")
    q("file", "Where do WAL-G backups get archived?", "WAL-G archive location", "db-walg")
    q("file", "Where is the lifecycle rule for Glacier set up?", "lifecycle rule Glacier bucket", "st-glacier")
    q("file", "Which file in web/ handles dashboard uploads?", "web dashboard uploads file", "da-multipart")
    q("file", "Where are the German and Japanese translation files?", "German Japanese translation files", "da-i18n")
    q("file", "Where are the Playwright end-to-end specs?", "Playwright specs", "da-pw")
    q("file", "Where is the MSRV CI job defined?", "MSRV CI job", "ci-msrv2")
    q("file", "Where is the end of the grace period stored after a failed payment?", "grace period end stored", "bi-fail")
    q("file", "Where does the Family plan's pooled usage get summed?", "Family plan pooled usage", "bi-family")
    q("file", "Which registry is the API image pushed to?", "API image registry", "ci-docker")

    # ---------------- more "multi" questions ----------------
    q("multi", "What changes have we made to the thumbnail formats and sizes?", "thumbnail formats sizes", "th-sizes-d", "th-avif", "th-backfill th-backfill2")
    q("multi", "What did we do about the login flows for third-party accounts?", "third-party login Apple Google", "au-apple au-apple2", "au-pkce-d")
    q("multi", "What have we changed about how the database connections are pooled?", "database connections pooled", "db-pool", "db-pgb-d", "db-prepared")
    q("multi", "Which decisions cover where we store photos and thumbnails?", "store photos thumbnails decisions", "st-r2-d", "db-trash-d")
    q("multi", "What did we change to make the thumbnail worker pods cheaper or faster?", "thumbnail worker pods cheaper faster", "th-conc", "inf-spot")
    q("multi", "What have we done for NAS users of the CLI?", "NAS CLI", "cli-musl", "cli-exit-d", "cli-ignore")
    q("multi", "What did we decide about the dashboard's frontend stack and its map view?", "dashboard frontend stack map view", "da-query-d", "da-map-d")
    q("multi", "How are Stripe webhooks made reliable?", "Stripe webhooks reliable", "bi-idem-d", "bi-ack", "bi-sig")
    q("multi", "What changes did we make to the Postgres database server itself?", "Postgres server changes", "db-pg16", "db-walg", "db-vacuum")
    q("multi", "What have we done about expiring secrets and TLS certs?", "expiring secrets TLS certs", "inf-cert", "au-apple2", "bi-rotate")
    q("multi", "What did we do to improve the dashboard's performance?", "dashboard performance", "da-virt", "da-bundle")
    q("multi", "Which changes touched the EXIF handling in src/meta/exif.rs?", "src/meta/exif.rs EXIF", "th-exif", "th-gps")
    q("multi", "What happened with the Google Takeout imports?", "Google Takeout imports", "up-takeout", "db-queue2-d")
    q("multi", "How do we keep deploys safe?", "deploys safe", "inf-argo-d", "inf-canary")
    q("multi", "What paging alerts have we added?", "paging alerts", "inf-alert", "inf-cert")


# ===========================================================================
# zh: stockhub -- signal entries and their questions
# ===========================================================================

def build_zh(B):
    s, sv, d, p, q = B.s, B.sv, B.d, B.p, B.q

    # ---------------- project lines ----------------
    p("p-what1", "这是什么", "stockhub：给中小电商商家用的订单 + 库存中台，Rust 后端（axum + sqlx），Vue3 管理后台，外加装在商家机房里的 ERP 同步 agent。")
    p("p-what2", "这是什么", "生产环境在阿里云杭州：RDS MySQL 8.0、Redis 集群版、Kafka、ClickHouse。")
    p("p-run1", "怎么跑和怎么测", "`docker compose up -d mysql redis kafka` 起依赖，`cargo run -p order` 起订单服务（默认端口 8081）。")
    p("p-run2", "怎么跑和怎么测", "测试：`cargo nextest run --workspace`；要连库的测试读 `.env.test` 里的 `DATABASE_URL`。")
    p("p-run3", "怎么跑和怎么测", "管理后台：`cd admin-web && pnpm dev`，接口代理到本地网关 8080。")
    p("p-run4", "怎么跑和怎么测", "agent 本地调试：`cargo run -p stockhub-agent -- --config agent.dev.toml --once`，只跑一轮同步就退出。")
    p("p-where1", "东西都在哪", "`crates/` 下是各个服务：order、inventory、payment、wms、gateway、notify；`agent/` 是 ERP 同步 agent。")
    p("p-where2", "东西都在哪", "`print-agent/` 是装在仓库电脑上的打印代理，`admin-web/` 是管理后台前端。")
    p("p-where3", "东西都在哪", "`deploy/helm/stockhub` 是 helm chart，`deploy/prometheus/rules/` 放告警规则。")
    p("p-where4", "东西都在哪", "`migrations/` 按日期命名（`YYYYMMDD_xxx.sql`），只加不删。")
    p("p-trap1", "坑", "Redis Lua 脚本里的所有 key 必须带同一个 hash tag，否则集群版直接报 `CROSSSLOT`。")
    p("p-trap2", "坑", "金蝶 WebAPI 的会话 20 分钟就过期，agent 每轮同步前都要重新登录，别缓存 session。")
    p("p-trap3", "坑", "微信支付回调地址必须是 443 端口的 https，预发环境用 `pay-pre.stockhub.cn`。")

    q("fact", "本地怎么把订单服务跑起来？", "本地 订单服务 启动", "p-run1")
    q("fact", "agent 调试的时候怎么只跑一轮同步？", "agent 调试 一轮同步", "p-run4")
    q("why", "Redis 集群上跑 Lua 脚本为什么会报 CROSSSLOT？", "Lua CROSSSLOT hash tag", "p-trap1 inf-redis-d")
    q("why", "金蝶的登录会话为什么不能缓存起来复用？", "金蝶 会话 缓存", "p-trap2")
    q("fact", "数据库迁移文件是按什么规则命名的？", "迁移文件 命名", "p-where4 sku-barcode")
    q("file", "Prometheus 告警规则放在哪个目录？", "Prometheus 告警规则 目录", "p-where3 inf-alert")
    q("fact", "生产环境都用了阿里云的哪些服务？", "生产环境 阿里云 服务", "p-what2")
    q("fact", "微信支付的回调地址有什么要求吗？", "微信支付 回调地址 要求", "p-trap3")
    q("fact", "管理后台前端本地怎么跑？接口代理到哪里？", "管理后台 本地 pnpm dev", "p-run3")

    # ---------------- order ----------------
    s("or-timeout1", "order", "未支付订单超时自动取消上线：`crates/order/src/timeout.rs` 用 Redis 延迟队列实现，默认 30 分钟（`ORDER_TIMEOUT_MIN=30`），取消时释放预占库存。`cargo test -p order timeout` 通过。")
    d("or-timeout-d", "order", "未支付订单的超时时间从 30 分钟缩短到 15 分钟。",
      "继续用 30 分钟：大促时热门 SKU 被未付款订单长时间占着，可售库存少了将近两成",
      "运营要求大促、秒杀商品尽快回流库存", after="or-timeout1")
    s("or-timeout2", "order", "按决策把 `ORDER_TIMEOUT_MIN` 默认值改成 15；秒杀活动单独配置 5 分钟（`activity.timeout_min`）。预发压测通过。", after="or-timeout-d")
    q("fact", "现在未支付的订单多久会被自动取消？", "未支付订单 超时 取消", "or-timeout-d or-timeout2")
    q("why", "我们为什么把订单超时时间改短了？", "订单 超时时间 缩短", "or-timeout-d")
    q("multi", "订单超时取消的时间前后改过几次，分别是多少？", "ORDER_TIMEOUT_MIN 变更", "or-timeout1", "or-timeout-d or-timeout2")
    q("fact", "秒杀活动订单的超时时间是怎么配的？", "秒杀 超时 activity.timeout_min", "or-timeout2")
    q("file", "订单超时自动取消的逻辑写在哪个文件里？", "订单 超时 取消 文件", "or-timeout1")
    q("when", "订单超时自动取消是什么时候上线的？", "订单 超时自动取消 上线", "or-timeout1")

    s("or-idem", "order", "下单接口支持幂等了：客户端带 `X-Idempotency-Key`，服务端在 Redis 里保存 24 小时（key 前缀 `sh:idem:`），重复请求直接返回第一次的结果。App 弱网重试产生重复订单的问题解决了。")
    q("fact", "下单接口的幂等 key 在 Redis 里存多久？", "幂等 key Redis 保存", "or-idem")
    q("why", "为什么下单接口要加幂等 key？", "下单接口 幂等", "or-idem")
    q("when", "下单接口是什么时候支持幂等的？", "下单接口 幂等 X-Idempotency-Key", "or-idem")

    d("or-state-d", "order", "订单状态流转统一收口到 `OrderState` 状态机（`crates/order/src/state.rs`），禁止直接 UPDATE `orders.status`。",
      "各处直接改 status 字段：出现过「已发货」被支付回调改回「已支付」的脏数据",
      "支付回调、仓库回传、售后三方都会改订单状态，必须有唯一的合法转移表")
    q("why", "为什么不允许直接去改订单的 status 字段？", "订单 status 字段 状态机", "or-state-d")
    q("file", "订单状态机定义在哪个文件里？", "订单状态机 OrderState 文件", "or-state-d")

    s("or-split", "order", "拆单上线：同一订单里不同发货仓的商品拆成子订单（`parent_order_id` 关联），运费按子订单重新分摊，逻辑在 `crates/order/src/split.rs`。")
    q("file", "拆单的逻辑在哪个文件？", "拆单 文件", "or-split")
    q("fact", "拆单以后运费是怎么算的？", "拆单 运费 分摊", "or-split")
    q("when", "拆单功能是什么时候上的？", "拆单 上线", "or-split")

    d("or-no-d", "order", "订单号改用雪花算法生成的 18 位数字，前 6 位是下单日期 yyMMdd。",
      "直接用 MySQL 自增 id 当订单号：会暴露日单量，分库以后也不唯一",
      "马上要分库分表，客服也需要从订单号直接看出下单日期")
    q("why", "订单号为什么不用数据库自增 id 了？", "订单号 自增 id", "or-no-d")
    q("fact", "订单号一共多少位？前几位代表什么？", "订单号 位数 日期", "or-no-d")

    s("or-shard", "order", "`order_items` 按 `order_id % 16` 拆成 `order_items_00` ~ `order_items_15`，用 ShardingSphere-Proxy 路由；迁移脚本 `scripts/migrate_order_items.sh` 跑了 6 个小时，数据校验一致。")
    q("fact", "order_items 拆成了多少张表？", "order_items 分表 数量", "or-shard")
    q("when", "order_items 是什么时候分表的？", "order_items 分表", "or-shard")
    q("file", "order_items 分表用的迁移脚本是哪个？", "order_items 迁移脚本", "or-shard")

    s("or-addr", "order", "收货地址解析换成高德地理编码 API，解析失败的订单进人工审核队列；`AMAP_KEY` 放在 Nacos 的 `stockhub-order` 配置里。")
    q("fact", "收货地址解析现在用的是哪家的服务？", "收货地址 解析 服务", "or-addr")
    q("file", "高德的 AMAP_KEY 配置在哪里？", "AMAP_KEY 配置", "or-addr")

    s("or-coupon", "order", "优惠券核销加了 Redis 分布式锁（`sh:lock:coupon:{id}`，3 秒过期），修掉了一张券被两笔订单同时用掉的问题。")
    q("why", "优惠券核销为什么要加分布式锁？", "优惠券 核销 分布式锁", "or-coupon")
    q("fact", "优惠券核销锁的过期时间是多少？", "优惠券 锁 过期时间", "or-coupon")

    s("or-remark", "order", "订单备注长度限制从 200 字放宽到 500 字，`orders.remark` 改成 `VARCHAR(1000)`；之前淘宝同步过来的长备注会被截断。")
    q("why", "订单备注之前为什么会被截断？", "订单备注 截断", "or-remark")
    q("fact", "订单备注现在最长能写多少字？", "订单备注 长度", "or-remark")

    s("or-merge", "order", "合单发货：同一买家、同一收货地址、30 分钟内的已支付订单自动合并成一个包裹，`crates/order/src/merge.rs`，可在店铺设置里关掉。")
    q("fact", "什么样的订单会被自动合单发货？", "合单 发货 条件", "or-merge")
    q("file", "合单发货的代码在哪里？", "合单 发货 代码", "or-merge")

    s("or-taobao", "order", "淘宝订单同步从 `taobao.trades.sold.get` 轮询改成 奇门 消息推送（`TOPIC_TRADE`），订单延迟从平均 3 分钟降到 5 秒以内。")
    q("fact", "淘宝订单同步现在延迟多少？", "淘宝 订单同步 延迟", "or-taobao")
    q("when", "淘宝订单同步什么时候从轮询改成消息推送的？", "淘宝 订单同步 消息推送", "or-taobao")

    # ---------------- inventory ----------------
    d("inv-lua-d", "inventory", "库存扣减用 Redis Lua 脚本原子执行（`scripts/deduct.lua`），MySQL 异步落库。",
      "直接在 MySQL 里 `UPDATE ... SET stock = stock - ? WHERE stock >= ?`：大促时单行热点，锁等待超过 2 秒",
      "双十一热门 SKU 峰值 3000 QPS 扣同一行")
    s("inv-lua", "inventory", "库存扣减切到 Redis Lua：`scripts/deduct.lua` 一次检查并扣减多个 SKU，任何一个不够整单失败；压测 5000 QPS 没有超卖。`cargo test -p inventory deduct` 通过。", after="inv-lua-d")
    q("why", "库存扣减为什么改成用 Redis Lua 脚本了？", "库存扣减 Redis Lua", "inv-lua-d")
    q("file", "库存扣减的 Lua 脚本放在哪里？", "库存扣减 Lua 脚本", "inv-lua-d inv-lua")
    q("fact", "Lua 扣减上线前压测到了多少 QPS？", "Lua 扣减 压测 QPS", "inv-lua")
    q("when", "库存扣减是什么时候切到 Redis Lua 的？", "库存扣减 切换 Lua", "inv-lua inv-lua-d")

    s("inv-oversell", "inventory", "查清了 8 月那次超卖：退款回补库存和扣减并发时，回补用的是读-改-写，把扣减的结果覆盖了。改成 `HINCRBY`，并在 `crates/inventory/src/restore.rs` 里加了并发测试。", date="2025-09-03")
    q("why", "8 月份那次超卖是什么原因造成的？", "8 月 超卖 原因", "inv-oversell")
    q("file", "退款回补库存的代码在哪个文件？", "退款 回补库存 代码", "inv-oversell")
    q("multi", "库存扣减这块我们做过哪些改动？", "库存扣减 改动", "inv-lua-d inv-lua", "inv-oversell")

    s("inv-recon", "inventory", "新增库存对账任务：每 10 分钟比对一次 Redis 和 MySQL 的库存，差异超过 5 件发钉钉告警，任务在 `jobs/stock_reconcile.rs`。", after="inv-lua")
    q("fact", "Redis 和 MySQL 的库存对不上时是怎么发现和告警的？", "Redis MySQL 库存 对账 告警", "inv-recon")
    q("file", "库存对账任务的代码在哪里？", "库存对账 任务 代码", "inv-recon")

    s("inv-reserve", "inventory", "下单先预占库存（`reserve`），支付成功才真正扣减；预占记录在 `stock_reservations` 表，TTL 和订单超时保持一致。")
    q("file", "预占库存的记录存在哪张表里？", "预占库存 表", "inv-reserve")
    q("fact", "下单的时候库存是直接扣掉的吗？", "下单 库存 预占 扣减", "inv-reserve")

    s("inv-safety", "inventory", "安全库存改成按仓配置（`warehouse_sku.safety_stock`），低于安全库存的 SKU 前台显示「库存紧张」；以前是全局固定 10 件。")
    q("fact", "安全库存现在是怎么配置的？以前是多少？", "安全库存 配置", "inv-safety")

    d("inv-fefo-d", "inventory", "有保质期的商品出库按 FEFO（先到期先出）分配批次。",
      "按入库时间 FIFO：临期品压在仓里过期报损",
      "食品类目去年报损 12 万元，大部分是临期没出掉")
    q("why", "为什么有保质期的商品出库要按先到期先出来分配？", "保质期 出库 先到期先出", "inv-fefo-d")

    s("sku-barcode", "inventory", "SKU 支持多个条码了（`sku_barcodes` 表），迁移文件 `migrations/20250312_add_sku_barcode.sql`；扫任何一个条码都能命中同一个 SKU。", date="2025-03-12")
    q("file", "SKU 多条码是哪个迁移加的？", "SKU 多条码 迁移", "sku-barcode")
    q("fact", "一个 SKU 能不能对应多个条码？", "SKU 多个条码", "sku-barcode")

    s("inv-combo", "inventory", "组合商品（套装）库存改成按子商品实时计算：可售数 = min(子商品库存 / 组合数量)，不再单独维护套装库存。")
    q("fact", "组合商品的库存是怎么算出来的？", "组合商品 库存 计算", "inv-combo")

    s("inv-cache", "inventory", "商品详情页查库存加了本地缓存（`moka`，1 秒 TTL，最多 10 万个 key），Redis QPS 从 4 万降到 6 千。", after="inv-lua")
    q("fact", "商品详情页库存本地缓存的 TTL 是多少？", "库存 本地缓存 TTL moka", "inv-cache")
    q("fact", "加了本地缓存以后 Redis 的 QPS 降到多少？", "本地缓存 Redis QPS", "inv-cache")

    s("inv-transfer", "inventory", "调拨单上线：A 仓出库扫描后库存进入「在途」状态（`stock_in_transit`），B 仓入库扫描后才加到可售；`crates/inventory/src/transfer.rs`。")
    q("fact", "调拨中的库存在系统里是什么状态？", "调拨 在途 库存", "inv-transfer")
    q("file", "调拨单的代码在哪个文件？", "调拨单 代码 文件", "inv-transfer")

    # ---------------- payment ----------------
    s("pay-wx", "payment", "微信支付回调升级到 APIv3：`crates/payment/src/wechat/notify.rs` 用平台证书验签，AES-256-GCM 解密 `resource`；旧的 v2 XML 回调下线。沙箱回调测试通过。")
    q("file", "微信支付回调验签在哪个文件里做的？", "微信支付 回调 验签 文件", "pay-wx")
    q("fact", "微信支付 v3 回调里的 resource 是用什么解密的？", "微信支付 v3 resource 解密", "pay-wx")
    q("when", "微信支付回调是什么时候升级到 APIv3 的？", "微信支付 APIv3 升级", "pay-wx")

    s("pay-cert", "payment", "微信平台证书改成每 12 小时自动拉取刷新（`WECHAT_CERT_REFRESH_HOURS=12`）；之前证书轮换那天回调验签失败了 40 分钟。", after="pay-wx")
    q("why", "为什么要定时刷新微信平台证书？", "微信 平台证书 刷新", "pay-cert")
    q("fact", "微信平台证书多久刷新一次？", "微信 平台证书 刷新 间隔", "pay-cert")
    q("multi", "微信支付这块我们做过哪些改动？", "微信支付 改动", "pay-wx", "pay-cert")

    s("pay-ali", "payment", "支付宝异步通知验签改用 `ALIPAY_PUBLIC_KEY`（支付宝公钥，不是应用公钥）；之前配错了，预发环境验签全部失败。")
    q("fact", "支付宝异步通知验签应该用哪个公钥？", "支付宝 验签 公钥", "pay-ali")
    q("why", "预发环境支付宝验签为什么全部失败？", "预发 支付宝 验签 失败", "pay-ali")

    d("pay-idem-d", "payment", "支付回调按 `transaction_id` 加唯一约束，重复通知直接返回成功。",
      "靠业务代码判断订单状态：回调并发时同一笔支付记了两次流水",
      "微信和支付宝都会重复通知，最多在 24 小时内重试 15 次")
    q("why", "支付回调为什么要按 transaction_id 去重？", "支付回调 transaction_id 去重", "pay-idem-d")

    s("pay-recon1", "payment", "支付对账任务上线：每天凌晨 2 点下载微信、支付宝前一天的对账单，和 `payments` 表逐笔比对，差异写进 `recon_diff` 表，代码在 `jobs/reconcile.rs`。")
    s("pay-recon2", "payment", "对账任务从凌晨 2 点挪到上午 10 点：支付宝 T+1 对账单 9 点以后才保证生成，2 点拉到的经常是空文件。", after="pay-recon1")
    q("fact", "支付对账任务现在每天几点跑？", "支付对账 时间", "pay-recon2")
    q("why", "对账任务为什么挪到上午才跑？", "对账任务 上午", "pay-recon2")
    q("file", "支付对账发现的差异记在哪张表？", "支付对账 差异 表", "pay-recon1")
    q("multi", "支付对账任务的执行时间改过吗？", "支付对账 执行时间", "pay-recon1", "pay-recon2")
    q("file", "支付对账的代码是哪个文件？", "支付对账 代码", "pay-recon1")

    s("pay-refund", "payment", "退款接口支持部分退款：`POST /api/v1/refunds` 可以按商品行退，金额不能超过该行实付；微信退款结果走 `refund_notify` 回调。")
    q("fact", "退款接口能按商品行部分退款吗？", "退款 部分退款 商品行", "pay-refund")

    d("pay-cents-d", "payment", "所有金额字段一律用 `i64` 存「分」，禁止用 `f64`。",
      "用 `rust_decimal` 存「元」：序列化给前端时出过精度问题，而且和支付渠道的分对不齐",
      "微信、支付宝的接口都以分为单位")
    q("why", "金额为什么统一用分来存？", "金额 分 存储", "pay-cents-d")
    q("fact", "金额字段在代码里用什么类型？", "金额字段 类型", "pay-cents-d")

    s("pay-timeout", "payment", "微信下单（JSAPI）的 `time_expire` 跟订单超时对齐，用户超时后再付款会直接失败，不会出现订单已取消但钱扣了的情况。", after="or-timeout2")
    q("why", "为什么要把微信支付的 time_expire 和订单超时对齐？", "微信 time_expire 订单超时", "pay-timeout")

    s("pay-unionpay", "payment", "接入银联云闪付，回调在 `crates/payment/src/unionpay.rs`，证书用 `UNIONPAY_CERT_PATH` 指定的 pfx 文件。")
    q("file", "云闪付的回调代码在哪？证书怎么指定？", "云闪付 回调 证书", "pay-unionpay")

    # ---------------- erp-sync ----------------
    s("erp-kd", "erp-sync", "同步 agent 接上了金蝶云星空：`agent/src/erp/kingdee.rs` 调 WebAPI 拉销售出库单，登录用 `KINGDEE_ACCT_ID` 加应用 Secret。测试账套同步 500 单无误。")
    q("file", "金蝶对接的代码在哪个文件？", "金蝶 对接 代码", "erp-kd")
    q("fact", "agent 登录金蝶要配哪些参数？", "金蝶 登录 配置", "erp-kd")
    q("when", "agent 是什么时候接上金蝶云星空的？", "agent 金蝶云星空", "erp-kd")

    s("erp-int1", "erp-sync", "agent 默认每 5 分钟轮询一次 ERP（`SYNC_INTERVAL_SECS=300`），间隔可以在 `agent.toml` 里改。")
    s("erp-int2", "erp-sync", "把 agent 的轮询间隔 `SYNC_INTERVAL_SECS` 默认值从 300 改成 60，同时加了增量游标，只拉 `FModifyDate` 大于上次游标的单据；金蝶接口调用量反而降了 70%。", after="erp-int1")
    q("fact", "同步 agent 现在多久轮询一次 ERP？", "同步 agent 轮询 间隔", "erp-int2")
    q("multi", "SYNC_INTERVAL_SECS 的默认值前后是怎么变的？", "SYNC_INTERVAL_SECS 默认值", "erp-int1", "erp-int2")
    q("why", "轮询改成 60 秒以后，金蝶接口调用量为什么反而降了？", "轮询 60 秒 调用量", "erp-int2")

    s("erp-ckpt", "erp-sync", "agent 支持断点续传：游标存在 `data/checkpoint.json`，每批数据写完先 fsync 再更新游标，断电重启后不会重复推送。")
    q("file", "agent 的同步游标保存在哪里？", "agent 同步游标 保存", "erp-ckpt")
    q("why", "agent 为什么要 fsync 之后才挪游标？", "agent fsync 游标", "erp-ckpt")

    d("erp-u8-d", "erp-sync", "用友 U8 通过直连 SQL Server 视图只读取数，不走 U8 的 EAI 接口。",
      "EAI XML 接口：客户的 U8 V13.0 上 EAI 经常超时，一次最多 100 条",
      "客户不愿意升级 U8，而且我们只需要只读")
    q("why", "用友 U8 为什么直连数据库而不走 EAI 接口？", "用友 U8 EAI 直连", "erp-u8-d")

    s("erp-update", "erp-sync", "agent 支持自更新：启动时检查 `https://dl.stockhub.cn/agent/latest.json`，下载后校验 SHA-256 和 minisign 签名再替换二进制；Windows 上用 rename-on-reboot。")
    q("fact", "agent 自动更新的时候怎么校验下载下来的二进制？", "agent 自更新 校验", "erp-update")

    s("erp-winsvc", "erp-sync", "agent 在 Windows Server 2012 R2 上以服务方式运行（`windows-service` crate），安装命令 `stockhub-agent.exe install`，日志写到 `C:\\ProgramData\\stockhub\\logs`。")
    q("file", "agent 在 Windows 上的日志写到哪里了？", "agent Windows 日志", "erp-winsvc")
    q("fact", "怎么把 agent 装成 Windows 服务？", "agent Windows 服务 安装", "erp-winsvc")
    q("multi", "同步 agent 在 Windows 上做了哪些适配？", "agent Windows 适配", "erp-winsvc", "erp-update")

    s("erp-gbk", "erp-sync", "修了金蝶返回 GBK 编码备注导致 JSON 解析失败的问题：用 `encoding_rs` 按 `Content-Type` 里的 charset 解码。")
    q("why", "金蝶同步为什么会出现 JSON 解析失败？", "金蝶 JSON 解析失败", "erp-gbk")
    q("multi", "我们对接金蝶的时候踩过哪些坑？", "金蝶 对接 坑", "erp-gbk", "p-trap2")

    d("erp-tls-d", "erp-sync", "agent 默认用 rustls，同时保留 native-tls 作为可选 feature `legacy-tls`。",
      "只用 rustls：部分客户内网的 ERP 只支持 TLS 1.0",
      "客户机房里的老 IIS 升级不了")
    q("why", "agent 为什么还保留着 native-tls？", "agent native-tls legacy-tls", "erp-tls-d")

    s("erp-wdt", "erp-sync", "接入旺店通 ERP：`agent/src/erp/wangdiantong.rs`，接口签名是 MD5(secret + 参数 + secret)，每次最多拉 100 条，分页用 `page_no`。")
    q("file", "旺店通的对接代码在哪里？", "旺店通 对接", "erp-wdt")
    q("fact", "旺店通接口一次最多能拉多少条？", "旺店通 接口 条数", "erp-wdt")

    s("erp-heartbeat", "erp-sync", "agent 每 60 秒上报一次心跳到 `/api/v1/agents/heartbeat`，超过 5 分钟没心跳管理后台显示离线并发钉钉告警。")
    q("fact", "agent 多久没心跳会被判定离线？", "agent 心跳 离线", "erp-heartbeat")

    # ---------------- wms ----------------
    s("wms-wave", "wms", "波次拣货上线：`crates/wms/src/wave.rs` 每 15 分钟或满 200 单生成一个波次，按库位路径排序生成拣货单。")
    s("wms-wave2", "wms", "波次阈值从 200 单改成 120 单：拣货车一次最多装 120 个格口。", after="wms-wave")
    q("fact", "波次多久生成一次？", "波次 生成 间隔", "wms-wave")
    q("file", "波次生成的逻辑在哪个文件？", "波次 生成 文件", "wms-wave")
    q("multi", "波次的单量阈值改过吗？前后是多少？", "波次 单量 阈值", "wms-wave", "wms-wave2")
    q("why", "为什么把波次改成 120 单一波？", "波次 120 单", "wms-wave2")

    s("wms-pda", "wms", "PDA（斑马 TC26）扫码结果改成 WebSocket 推送，扫码到出结果从 800ms 降到 120ms。")
    q("fact", "PDA 扫码出结果现在要多久？", "PDA 扫码 延迟", "wms-pda")
    q("when", "PDA 扫码是什么时候改成 WebSocket 推送的？", "PDA WebSocket 推送", "wms-pda")

    d("wms-loc-d", "wms", "库位编码统一成「区-排-列-层」，例如 `A-03-12-2`。",
      "各仓自己定编码：跨仓调拨时库位对不上",
      "要支持多仓统一的拣货路径算法")
    q("fact", "库位编码的格式是什么样的？", "库位编码 格式", "wms-loc-d")
    q("why", "库位编码为什么要统一？", "库位编码 统一", "wms-loc-d")

    s("wms-count", "wms", "盘点支持动态盘点：盘点期间库位不锁，差异按快照时间点在盘点结束时计算；逻辑在 `crates/wms/src/stocktake.rs`。")
    q("file", "盘点的代码在哪个文件？", "盘点 代码 文件", "wms-count")
    q("fact", "动态盘点期间库位会锁住吗？", "动态盘点 库位 锁", "wms-count")

    s("wms-weigh", "wms", "出库复核加了称重：包裹实际重量和 SKU 理论重量相差超过 5% 就拦截；之前漏发投诉一个月 30 多起。")
    q("why", "出库复核为什么要加称重？", "出库复核 称重", "wms-weigh")
    q("fact", "称重偏差超过多少会被拦截？", "称重 偏差 拦截", "wms-weigh")

    s("wms-putaway", "wms", "上架推荐：入库时按 同 SKU 已有库位 > 同品类空库位 > 最近空库位 的顺序推荐，`crates/wms/src/putaway.rs`。")
    q("fact", "入库上架时库位是按什么顺序推荐的？", "上架 推荐 库位 顺序", "wms-putaway")
    q("file", "上架推荐的代码在哪？", "上架推荐 代码", "wms-putaway")

    s("wms-return", "wms", "退货入库要先质检：质检结果分 良品 / 次品 / 报废，只有良品回到可售库存，次品进 `defective` 库区。")
    q("fact", "退货质检以后次品去哪了？", "退货 质检 次品", "wms-return")

    # ---------------- print ----------------
    s("pr-cainiao", "print", "面单打印接入菜鸟云打印组件：`print-agent` 通过 WebSocket 连本机 `ws://127.0.0.1:13528`，模板是 `templates/waybill_100x150.json`。")
    q("fact", "菜鸟打印组件监听的是哪个端口？", "菜鸟 打印组件 端口", "pr-cainiao")
    q("file", "面单模板是哪个文件？", "面单 模板 文件", "pr-cainiao")
    q("when", "面单打印是什么时候接入菜鸟云打印的？", "面单 菜鸟云打印 接入", "pr-cainiao")

    s("pr-tsc", "print", "TSC TTP-244 Pro 热敏打印机打面单整体偏移 3mm，原因是 DPI 按 300 算了，实际是 203；在 `print-agent/src/printer/tsc.rs` 里改成按型号取 DPI。")
    q("why", "TSC 打印机打出来的面单为什么会偏移？", "TSC 打印机 面单 偏移", "pr-tsc")
    q("file", "TSC 打印机的 DPI 是在哪个文件里处理的？", "TSC DPI 文件", "pr-tsc")

    s("pr-batch", "print", "批量打印从串行改成每批 50 张并发提交，打 1000 张面单从 11 分钟降到两分半。")
    q("fact", "现在批量打 1000 张面单要多长时间？", "批量打印 1000 张 面单", "pr-batch")

    d("pr-pdf-d", "print", "京东、顺丰的面单统一先渲染成 PDF 再打印。",
      "各快递公司各自的打印指令（ZPL / TSPL / EPL）：要维护三套模板",
      "仓库打印机型号太多，PDF 在所有驱动上表现一致")
    q("why", "为什么面单都要先转成 PDF 再打？", "面单 PDF 打印", "pr-pdf-d")
    q("multi", "打印面单这块我们做过哪些改进？", "打印 面单 改进", "pr-tsc", "pr-batch", "pr-pdf-d")

    s("pr-reprint", "print", "补打面单要填原因（卡纸 / 模糊 / 丢失），记到 `waybill_reprints` 表；同一单补打超过 3 次需要组长审批。")
    q("fact", "同一单补打面单超过几次要组长审批？", "补打 面单 审批", "pr-reprint")
    q("file", "补打面单的记录存在哪张表？", "补打 面单 记录 表", "pr-reprint")

    s("pr-offline", "print", "打印代理断网时把打印任务缓存在本地 SQLite（`print-agent/data/queue.db`），恢复后按顺序补打，最多缓存 2000 张。")
    q("fact", "打印代理断网了打印任务怎么处理？", "打印代理 断网 任务", "pr-offline")

    # ---------------- logistics (order area) ----------------
    s("lo-k100", "order", "物流轨迹接入快递100 订阅推送：发货后调 `poll` 接口订阅，轨迹回调到 `/api/v1/logistics/callback`，签名用 `KUAIDI100_SALT`；代码在 `crates/logistics/src/kuaidi100.rs`。")
    q("file", "快递100 的对接代码在哪个文件？", "快递100 对接 代码", "lo-k100")
    q("fact", "快递100 轨迹回调的签名用的是什么？", "快递100 回调 签名", "lo-k100")

    s("lo-confirm", "order", "签收后 7 天自动确认收货（`AUTO_CONFIRM_DAYS=7`），之前是 10 天。")
    q("fact", "签收以后几天会自动确认收货？", "签收 自动确认收货 天数", "lo-confirm")

    s("lo-sf", "order", "顺丰下单改走丰桥 API，月结卡号放在 `SF_MONTHLY_CARD`；电子面单号在下单时同步返回，不用再轮询。")
    q("fact", "顺丰月结卡号放在哪个环境变量里？", "顺丰 月结卡号", "lo-sf")

    # ---------------- infra ----------------
    s("inf-ci", "infra", "`.gitlab-ci.yml` 拆成 check / test / build / deploy 四个 stage，Rust 编译缓存用 sccache 存到 OSS，流水线从 28 分钟降到 12 分钟。")
    q("fact", "CI 流水线现在跑一次要多久？", "CI 流水线 时长", "inf-ci")
    q("file", "CI 的 stage 是在哪个文件里定义的？", "CI stage 定义", "inf-ci")
    q("fact", "CI 的 Rust 编译缓存放在哪里？", "CI 编译缓存 sccache", "inf-ci")

    d("inf-acr-d", "infra", "镜像推到阿里云 ACR 企业版（`registry.cn-hangzhou.aliyuncs.com/stockhub`）。",
      "Docker Hub：国内拉取经常超时，还有限速",
      "生产在阿里云杭州，ACR 同地域拉取走内网")
    q("why", "镜像为什么不放在 Docker Hub 上？", "镜像 Docker Hub", "inf-acr-d")
    q("file", "我们的 Docker 镜像推到哪个仓库？", "Docker 镜像 仓库", "inf-acr-d")

    s("inf-helm", "infra", "部署改用 Helm chart `deploy/helm/stockhub`，每个服务一个 values 文件（`values-order.yaml` 等），灰度用 `canary.weight` 控制。")
    q("file", "Helm chart 放在哪个目录？每个服务的配置在哪？", "Helm chart values", "inf-helm p-where3")

    d("inf-canary-d", "infra", "生产发布先灰度 10% 流量，观察 30 分钟再全量。",
      "直接全量滚动：上次库存服务的 bug 全量后 5 分钟才发现，影响了 2000 多单",
      "订单链路出错的代价太大")
    q("why", "为什么生产发布要先灰度？", "生产发布 灰度", "inf-canary-d")
    q("fact", "灰度发布要观察多长时间？放多少流量？", "灰度 观察 流量", "inf-canary-d")

    s("inf-mysql8", "infra", "RDS MySQL 从 5.7 升到 8.0：先建只读实例同步再切换；`GROUP BY` 不再隐式排序，报表里有两处 SQL 补了 `ORDER BY`。")
    q("when", "MySQL 是什么时候升到 8.0 的？", "MySQL 8.0 升级", "inf-mysql8")
    q("fact", "升级到 MySQL 8 以后哪些 SQL 要改？", "MySQL 8 SQL 修改", "inf-mysql8")

    s("inf-sqlx", "infra", "CI 里打开 `SQLX_OFFLINE=true`，`.sqlx/` 目录提交进仓库，编译不再需要连数据库。")
    q("why", "CI 编译现在为什么不需要连数据库了？", "CI 编译 数据库 SQLX_OFFLINE", "inf-sqlx")

    d("inf-redis-d", "infra", "Redis 用阿里云集群版；key 统一加 `sh:` 前缀，并用 hash tag `{sku}` 保证 Lua 脚本的多个 key 落在同一个槽。",
      "主从版：单分片 32G 内存已经到顶",
      "库存相关 key 已经超过 4000 万个")
    q("why", "Redis 的 key 为什么要带 hash tag？", "Redis key hash tag", "inf-redis-d p-trap1")
    q("fact", "Redis key 统一用什么前缀？", "Redis key 前缀", "inf-redis-d")
    q("why", "Redis 为什么从主从版换成集群版？", "Redis 主从版 集群版", "inf-redis-d")

    s("inf-nacos", "infra", "配置迁到 Nacos：`config/app.toml` 只留本地开发默认值，线上从 Nacos namespace `prod` 的 `stockhub-{service}` 读取，限流阈值支持热更新。")
    q("file", "线上环境的配置是从哪里读的？", "线上 配置 Nacos", "inf-nacos")
    q("when", "配置是什么时候迁到 Nacos 的？", "配置 迁移 Nacos", "inf-nacos")

    s("inf-alert", "infra", "加了订单创建失败率告警：5 分钟内失败率超过 1% 就触发，推到钉钉「stockhub-告警」群；规则在 `deploy/prometheus/rules/order.yml`。")
    q("file", "订单失败率的告警规则在哪个文件？", "订单 失败率 告警规则", "inf-alert")
    q("fact", "订单失败率告警的阈值是多少？", "订单失败率 告警 阈值", "inf-alert")

    d("inf-sls-d", "infra", "日志以 JSON 格式输出到 stdout，由 Logtail 采集到阿里云 SLS。",
      "自建 ELK：ES 集群每月维护成本高，磁盘 3 天就满",
      "运维只有一个人")
    q("why", "我们为什么不用自建的 ELK 收日志？", "自建 ELK 日志", "inf-sls-d")

    s("inf-d11", "infra", "双十一复盘：零点峰值订单服务连接池打满（`max_connections=100`），大量 `PoolTimedOut`；已经把 `DB_POOL_MAX` 从 20 调到 50，并给库存查询加了本地缓存。", date="2025-11-13")
    q("why", "双十一零点订单服务为什么报 PoolTimedOut？", "双十一 PoolTimedOut", "inf-d11")
    q("fact", "DB_POOL_MAX 现在设的是多少？", "DB_POOL_MAX 连接池", "inf-d11")
    q("when", "双十一的复盘是哪天做的？", "双十一 复盘", "inf-d11")

    d("inf-tenant-d", "infra", "多租户用共享库 + `tenant_id` 列，所有查询都经过 `TenantScope` 注入条件。",
      "一个租户一个库：已经有 300 多家中小商家，库太多迁移没法做",
      "大部分租户订单量很小")
    q("why", "多租户为什么不做成一个租户一个库？", "多租户 一租户一库", "inf-tenant-d")
    q("fact", "多租户的查询是怎么隔离的？", "多租户 查询 隔离 TenantScope", "inf-tenant-d")

    s("rust1", "infra", "`rust-toolchain.toml` 固定到 1.80.1，CI 和本地保持一致。")
    s("rust2", "infra", "`rust-toolchain.toml` 从 1.80.1 升到 1.85.0，用上了 async closure；clippy 新报的 12 个警告都修了。", after="rust1")
    q("fact", "我们现在用的 Rust 工具链是哪个版本？", "Rust 工具链 版本", "rust2")
    q("multi", "rust-toolchain 的版本是怎么一步步升上来的？", "rust-toolchain 版本 升级", "rust1", "rust2")
    q("file", "Rust 工具链版本是在哪个文件里固定的？", "工具链 版本 固定 文件", "rust1 rust2")

    d("mq-kafka-d", "infra", "订单事件走 Kafka（topic `order-events`，按 `order_id` 分区）。",
      "RocketMQ：团队里没人运维过，阿里云上两者价格差不多",
      "下游数仓、风控都已经在消费 Kafka")
    q("why", "订单事件为什么用 Kafka 而不是 RocketMQ？", "订单事件 Kafka RocketMQ", "mq-kafka-d")

    s("mq-lag", "inventory", "库存服务消费 `order-events` 的 lag 最高到 12 万：单分区串行处理太慢；分区数从 6 加到 24，consumer group `stockhub-inventory` 并发 24，lag 稳定在 1000 以内。", after="mq-kafka-d")
    q("fact", "order-events 现在有多少个分区？", "order-events 分区", "mq-lag")
    q("why", "库存服务消费 order-events 为什么会积压？", "order-events 积压 lag", "mq-lag")

    s("mq-dlq", "inventory", "消费失败超过 5 次的消息转到 `order-events-dlq`，用 `stockhub-cli mq replay --topic order-events-dlq` 可以重放。", after="mq-kafka-d")
    q("fact", "消费失败的订单事件最后去了哪里？怎么重放？", "消费失败 死信 重放", "mq-dlq")
    q("multi", "order-events 消费相关做过哪些改动？", "order-events 消费 改动", "mq-lag", "mq-dlq")

    d("sch-d", "infra", "定时任务统一用 xxl-job 调度，Rust 服务实现执行器接口。",
      "各服务里用 `tokio-cron-scheduler` 自己跑：多副本部署时同一个任务跑了 3 遍",
      "对账、库存对账这类任务必须单实例执行，还要能手动触发")
    q("why", "定时任务为什么不在服务里用 tokio-cron-scheduler 跑了？", "定时任务 tokio-cron-scheduler", "sch-d")
    q("fact", "定时任务现在用什么来调度？", "定时任务 调度", "sch-d")

    s("inf-backup", "infra", "RDS 备份策略：每天全量 + binlog 保留 7 天；恢复演练把 280G 的库恢复到任意时间点用了 52 分钟。")
    q("fact", "数据库恢复演练用了多长时间？", "数据库 恢复演练", "inf-backup")
    q("fact", "binlog 保留几天？", "binlog 保留", "inf-backup")

    s("inf-slowsql", "infra", "慢查询阈值从 1 秒降到 200ms，慢日志每天早上 9 点汇总发钉钉；发现 `orders` 按 `buyer_phone` 查没走索引，补了索引。")
    q("fact", "慢查询阈值现在是多少？", "慢查询 阈值", "inf-slowsql")
    q("fact", "慢日志汇总里发现了哪个没走索引的查询？", "慢日志 索引 buyer_phone", "inf-slowsql")

    # ---------------- gateway ----------------
    s("gw-rate1", "gateway", "网关按 appkey 限流：`governor` 令牌桶，默认 100 QPS，代码在 `crates/gateway/src/ratelimit.rs`。")
    s("gw-rate2", "gateway", "限流改成 appkey + 接口 两级：查询接口 200 QPS，下单接口 20 QPS；之前某个 ISV 批量查库存把下单也挤掉了。阈值从 Nacos 热加载。", after="gw-rate1")
    q("fact", "下单接口现在限流多少 QPS？", "下单接口 限流 QPS", "gw-rate2")
    q("why", "限流为什么要按接口分开？", "限流 按接口", "gw-rate2")
    q("file", "网关限流的代码在哪个文件？", "网关 限流 代码", "gw-rate1")
    q("multi", "网关的限流规则是怎么演变过来的？", "网关 限流规则 演变", "gw-rate1", "gw-rate2")

    s("gw-jwt", "gateway", "网关 JWT 验签从 HS256 换成 RS256，公钥从 auth 服务的 `/.well-known/jwks.json` 拉取，缓存 10 分钟。")
    q("fact", "网关的 JWT 公钥缓存多久？", "网关 JWT 公钥 缓存", "gw-jwt")
    q("fact", "网关现在用什么算法验 JWT？", "网关 JWT 算法", "gw-jwt")
    q("when", "网关的 JWT 是什么时候从 HS256 换成 RS256 的？", "JWT HS256 RS256", "gw-jwt")

    d("gw-sign-d", "gateway", "开放平台接口签名用 HMAC-SHA256，参数按字典序拼接，时间戳 5 分钟内有效。",
      "MD5 签名：安全审计通不过",
      "要配合客户的等保三级审计")
    q("why", "开放平台的签名为什么不用 MD5？", "开放平台 签名 MD5", "gw-sign-d")
    q("fact", "开放平台签名里的时间戳多久有效？", "开放平台 签名 时间戳", "gw-sign-d")

    d("gw-rbac-d", "gateway", "管理后台权限用 casbin 做 RBAC，策略存在 MySQL 的 `casbin_rule` 表。",
      "自己写角色表 + 硬编码权限点：每加一个菜单都要发版",
      "客户要求按仓库、按店铺分配数据权限")
    q("why", "后台权限为什么选了 casbin？", "后台权限 casbin", "gw-rbac-d")
    q("file", "casbin 的策略存在哪里？", "casbin 策略", "gw-rbac-d")

    s("gw-cors", "gateway", "管理后台跨域：网关 CORS 白名单改成从 `GATEWAY_CORS_ORIGINS` 读，逗号分隔；预发加上了 `https://admin-pre.stockhub.cn`。")
    q("fact", "网关的 CORS 白名单怎么配置？", "网关 CORS 白名单", "gw-cors")

    s("gw-timeout", "gateway", "网关到下游的超时从 30 秒改成按接口配置：查询 3 秒、下单 8 秒、导出 60 秒；之前一个慢导出能把网关 worker 占满。")
    q("fact", "网关调下单接口的超时是多少？", "网关 下单 超时", "gw-timeout")
    q("why", "网关超时为什么要按接口来配？", "网关 超时 按接口", "gw-timeout")

    s("gw-trace", "gateway", "网关给每个请求生成 `X-Request-Id`（没有就生成 UUIDv7），透传到下游并写进日志，排查问题可以在 SLS 里一把搜出整条链路。")
    q("fact", "怎么在日志里把一个请求的整条链路找出来？", "请求 链路 X-Request-Id", "gw-trace")

    # ---------------- notify ----------------
    s("no-sms", "notify", "短信主通道从阿里云切到腾讯云，阿里云做备用；发送失败 3 次自动切换，代码在 `crates/notify/src/sms.rs`。", after="no-sms-d")
    d("no-sms-d", "notify", "短信用腾讯云做主通道，阿里云做备用。",
      "只用阿里云：签名审核被驳回的那一周验证码全都发不出去",
      "验证码是登录必经环节，必须双通道")
    q("file", "短信发送的代码在哪个文件？", "短信 发送 代码", "no-sms")
    q("fact", "短信现在的主通道是哪家？", "短信 主通道", "no-sms no-sms-d")
    q("why", "短信为什么要做双通道？", "短信 双通道", "no-sms-d")
    q("multi", "短信通道我们做过哪些调整？", "短信 通道 调整", "no-sms-d", "no-sms")

    s("no-ding", "notify", "钉钉机器人改成加签（`DINGTALK_SECRET`）；之前只配了关键词，机器人被人拿去刷过一次屏。")
    q("why", "钉钉机器人为什么要改成加签？", "钉钉机器人 加签", "no-ding")

    s("no-wecom", "notify", "仓库异常通知改发企业微信群（仓库同事不用钉钉），webhook 地址按仓配置在 `warehouse.notify_webhook`。")
    q("file", "仓库异常通知的 webhook 配在哪里？", "仓库 异常通知 webhook", "no-wecom")
    q("why", "仓库的异常通知为什么发企业微信而不发钉钉？", "仓库 异常通知 企业微信", "no-wecom")

    s("no-mini", "notify", "小程序订阅消息：发货通知的模板 ID 放在 `WX_TPL_SHIPPED`，用户没授权时静默跳过，不报错。")
    q("fact", "发货通知的模板 ID 放在哪个环境变量？", "发货通知 模板 ID", "no-mini")

    s("no-limit", "notify", "验证码短信限频：同一手机号 60 秒 1 条、每天最多 10 条；超出返回 `SMS_RATE_LIMITED`。")
    q("fact", "同一个手机号一天最多能收几条验证码短信？", "验证码 短信 限频", "no-limit")

    # ---------------- admin (管理后台 + 报表) ----------------
    d("rep-ch-d", "admin", "报表从 MySQL 只读库迁到 ClickHouse，用 Canal 同步 binlog。",
      "继续在 MySQL 只读库上跑：日报 SQL 跑 40 分钟，还拖慢主从同步",
      "订单明细已经超过 3 亿行")
    q("why", "报表为什么要迁到 ClickHouse？", "报表 ClickHouse", "rep-ch-d")
    q("fact", "ClickHouse 里的数据是怎么从 MySQL 同步过去的？", "ClickHouse MySQL 同步", "rep-ch-d")

    s("rep-daily", "admin", "日销售报表 `report/sql/daily_sales.sql` 改成按 `toStartOfDay(pay_time, 'Asia/Shanghai')` 分组；之前按 UTC 分组，0~8 点的订单被算到前一天。", after="rep-ch-d")
    q("why", "日销售报表为什么会把早上的订单算到前一天去？", "日销售报表 前一天 时区", "rep-daily")
    q("file", "日销售报表的 SQL 在哪个文件？", "日销售报表 SQL", "rep-daily")

    s("rep-xlsx", "admin", "报表导出 Excel 换成 `rust_xlsxwriter`（`constant_memory` 模式），10 万行导出从 95 秒降到 8 秒，内存从 1.2G 降到 180M。")
    q("fact", "10 万行的报表导出现在要多久？", "10 万行 导出 时间", "rep-xlsx")
    q("fact", "导出 Excel 用的是哪个 crate？", "导出 Excel crate", "rep-xlsx")

    s("rep-async", "admin", "超过 5 万行的导出改成异步任务：生成后传到 OSS，再发钉钉消息给下载链接，链接 24 小时有效。")
    q("fact", "大报表导出的下载链接多久失效？", "导出 下载链接 失效", "rep-async")
    q("multi", "报表导出做过哪些优化？", "报表导出 优化", "rep-xlsx", "rep-async")

    d("rep-gmv-d", "admin", "GMV 口径统一为已支付订单金额（含运费，不扣退款）。",
      "财务口径的扣退款金额：运营和财务的日报对不上",
      "跟天猫后台的口径保持一致，方便运营对比")
    q("fact", "我们算 GMV 的时候包含运费吗？扣不扣退款？", "GMV 口径 运费 退款", "rep-gmv-d")
    q("why", "GMV 为什么用不扣退款的口径？", "GMV 口径 退款", "rep-gmv-d")

    s("ad-vite", "admin", "管理后台从 Vue CLI 迁到 Vite（`admin-web/vite.config.ts`），本地冷启动从 40 秒降到 3 秒。")
    q("fact", "管理后台本地冷启动现在要多久？", "管理后台 冷启动", "ad-vite")
    q("when", "管理后台是什么时候从 Vue CLI 迁到 Vite 的？", "管理后台 Vue CLI Vite", "ad-vite")

    s("ad-list", "admin", "订单列表页 `admin-web/src/views/order/List.vue` 改成虚拟滚动 + 服务端分页，默认每页 50 条。")
    q("file", "订单列表页是哪个文件？", "订单列表页 文件", "ad-list")
    q("fact", "订单列表默认每页显示多少条？", "订单列表 每页 条数", "ad-list")

    s("ad-perm", "admin", "按钮级权限：`v-permission` 指令读取 casbin 下发的权限点，没权限的按钮直接不渲染。", after="gw-rbac-d")
    q("fact", "管理后台的按钮级权限是怎么做的？", "按钮级权限 v-permission", "ad-perm")
    q("multi", "后台权限控制相关的方案有哪些？", "后台 权限控制 方案", "gw-rbac-d", "ad-perm")

    s("ad-import", "admin", "商品批量导入支持 Excel 模板 `templates/sku_import.xlsx`，单次最多 5000 行，校验出错的行导出成带批注的文件给用户。")
    q("fact", "商品批量导入一次最多导多少行？", "商品 批量导入 行数", "ad-import")
    q("file", "商品批量导入用的 Excel 模板是哪个？", "商品导入 Excel 模板", "ad-import")

    s("ad-screen", "admin", "大促数据大屏：`admin-web/src/views/dashboard/BigScreen.vue`，每 5 秒从 ClickHouse 物化视图 `mv_gmv_minute` 拉一次。", after="rep-ch-d")
    q("file", "大促数据大屏的页面是哪个文件？", "大促 数据大屏 页面", "ad-screen")
    q("fact", "数据大屏多久刷新一次？数据从哪来？", "数据大屏 刷新 物化视图", "ad-screen")

    # ---------------- cross-cutting multi ----------------
    q("multi", "关于签名和验签，我们都定过哪些方案？", "签名 验签 方案", "gw-sign-d", "pay-wx", "gw-jwt")
    q("multi", "双十一前后我们为了扛住流量做了哪些事？", "双十一 流量 优化", "inf-d11", "inv-lua-d inv-lua")
    q("multi", "我们用 Redis 做了哪些分布式锁或幂等的处理？", "Redis 分布式锁 幂等", "or-idem", "or-coupon")
    q("multi", "订单超时和支付超时是怎么配合的？", "订单超时 支付超时", "or-timeout1 or-timeout-d or-timeout2", "pay-timeout")
    q("multi", "钉钉告警都接了哪些场景？", "钉钉 告警 场景", "inv-recon", "inf-alert", "erp-heartbeat")
    q("multi", "我们接入了哪些 ERP？", "接入 ERP", "erp-kd", "erp-u8-d", "erp-wdt")
    q("multi", "运维人手不够这件事影响了我们哪些技术选型？", "运维 人手 技术选型", "inf-sls-d", "mq-kafka-d")
    q("multi", "物流和快递公司的对接做了哪些？", "物流 快递 对接", "lo-k100", "lo-sf", "pr-pdf-d")

    # ---------------- 更多「什么时候」 ----------------
    q("when", "订单超时改成 15 分钟是哪天定下来的？", "订单超时 15 分钟 决定", "or-timeout-d")
    q("when", "订单状态机收口是什么时候决定的？", "订单状态机 OrderState 决定", "or-state-d")
    q("when", "订单号是什么时候改成雪花算法的？", "订单号 雪花算法", "or-no-d")
    q("when", "优惠券重复核销的问题是什么时候修的？", "优惠券 重复核销 修复", "or-coupon")
    q("when", "8 月超卖的原因是哪天查清楚的？", "超卖 原因 查清", "inv-oversell")
    q("when", "Redis 和 MySQL 的库存对账任务是什么时候加的？", "库存对账 任务 新增", "inv-recon")
    q("when", "SKU 多条码是什么时候支持的？", "SKU 多条码 支持", "sku-barcode")
    q("when", "微信平台证书自动刷新是什么时候加的？", "微信 平台证书 自动刷新", "pay-cert")
    q("when", "对账任务挪到上午 10 点是什么时候的事？", "对账任务 上午 10 点", "pay-recon2")
    q("when", "我们是什么时候决定金额统一用分存的？", "金额 分 决定", "pay-cents-d")
    q("when", "agent 的轮询间隔是什么时候改成 60 秒的？", "agent 轮询 60 秒", "erp-int2")
    q("when", "金蝶 GBK 编码导致解析失败的问题是什么时候修好的？", "金蝶 GBK 解析失败", "erp-gbk")
    q("when", "旺店通是什么时候接进来的？", "旺店通 接入", "erp-wdt")
    q("when", "波次阈值改成 120 单是什么时候？", "波次 阈值 120", "wms-wave2")
    q("when", "出库复核称重是什么时候上线的？", "出库复核 称重 上线", "wms-weigh")
    q("when", "TSC 打印机面单偏移是什么时候修的？", "TSC 面单偏移 修复", "pr-tsc")
    q("when", "批量打印改成并发提交是什么时候？", "批量打印 并发", "pr-batch")
    q("when", "我们什么时候开始用 Helm 部署的？", "Helm 部署", "inf-helm")
    q("when", "CI 流水线是什么时候拆成四个 stage 的？", "CI 流水线 stage", "inf-ci")
    q("when", "Rust 工具链什么时候升到 1.85 的？", "Rust 工具链 1.85", "rust2")
    q("when", "order-events 的分区是什么时候从 6 个加到 24 个的？", "order-events 分区 扩容", "mq-lag")
    q("when", "网关限流是什么时候改成按接口两级的？", "网关 限流 两级", "gw-rate2")
    q("when", "短信主通道是什么时候切到腾讯云的？", "短信 主通道 腾讯云", "no-sms no-sms-d")
    q("when", "钉钉机器人什么时候改成加签的？", "钉钉机器人 加签", "no-ding")
    q("when", "报表是什么时候决定迁到 ClickHouse 的？", "报表 ClickHouse 迁移", "rep-ch-d")
    q("when", "日销售报表的时区问题是什么时候修的？", "日销售报表 时区", "rep-daily")
    q("when", "报表导出什么时候换成 rust_xlsxwriter 的？", "报表导出 rust_xlsxwriter", "rep-xlsx")

    # ---------------- 更多「在哪」 ----------------
    q("file", "秒杀活动的超时配置项叫什么？放在哪？", "秒杀 超时 配置项", "or-timeout2")
    q("file", "幂等 key 在 Redis 里用什么前缀存的？", "幂等 key 前缀", "or-idem inf-redis-d")
    q("file", "安全库存的配置存在哪个字段上？", "安全库存 字段", "inv-safety")
    q("file", "调拨在途的库存记在哪里？", "调拨 在途 库存 记录", "inv-transfer")
    q("file", "微信平台证书刷新间隔是哪个配置？", "微信 证书 刷新 配置", "pay-cert")
    q("file", "agent 自更新去哪里检查最新版本？", "agent 自更新 最新版本", "erp-update")
    q("file", "agent 的轮询间隔在哪里改？", "agent 轮询间隔 配置", "erp-int1 erp-int2")
    q("file", "退货的次品放到哪个库区？", "次品 库区", "wms-return")
    q("file", "打印代理断网时的任务缓存在哪个文件？", "打印代理 断网 缓存", "pr-offline")
    q("file", "物流轨迹的回调地址是哪个接口？", "物流轨迹 回调 接口", "lo-k100")
    q("file", "agent 心跳上报到哪个接口？", "agent 心跳 接口", "erp-heartbeat")
    q("file", "CORS 白名单的环境变量叫什么？", "CORS 白名单 环境变量", "gw-cors")
    q("file", "消费失败的消息转到哪个 topic？", "消费失败 topic", "mq-dlq")

    # ---------------- 更多「为什么」 ----------------
    q("why", "为什么要让淘宝订单改走消息推送？", "淘宝订单 消息推送", "or-taobao")
    q("why", "下单时为什么要先预占库存？", "下单 预占库存", "inv-reserve")
    q("why", "商品详情页为什么要给库存加本地缓存？", "商品详情页 库存 本地缓存", "inv-cache")
    q("why", "打印代理为什么要在本地缓存打印任务？", "打印代理 本地缓存 任务", "pr-offline")
    q("why", "补打面单为什么要填原因？", "补打面单 原因", "pr-reprint")

    # ---------------- 更多「多条」 ----------------
    q("multi", "我们对 Redis 做过哪些架构上的决定和调整？", "Redis 架构 调整", "inf-redis-d", "inv-lua-d", "inv-cache")
    q("multi", "和钉钉相关的通知我们做了哪些事？", "钉钉 通知", "no-ding", "rep-async", "inf-alert")
    q("multi", "仓库作业里跟扫码有关的改动有哪些？", "仓库 扫码 改动", "wms-pda", "sku-barcode")
    q("multi", "出库环节做过哪些防错措施？", "出库 防错", "wms-weigh", "inv-fefo-d")
    q("multi", "退款和库存回补之间出过什么问题，怎么改的？", "退款 库存回补", "inv-oversell", "pay-refund")
    q("multi", "MySQL 数据库层面做过哪些升级和优化？", "MySQL 数据库 升级 优化", "inf-mysql8", "inf-slowsql", "inf-d11")
    q("multi", "agent 怎么保证同步数据不丢不重？", "agent 同步 不丢不重", "erp-ckpt", "erp-int2")
    q("multi", "支付渠道我们都接了哪些？", "支付渠道 接入", "pay-wx", "pay-ali", "pay-unionpay")
    q("multi", "管理后台前端做过哪些性能优化？", "管理后台 前端 性能", "ad-vite", "ad-list")
    q("multi", "CI 和构建相关的改进有哪些？", "CI 构建 改进", "inf-ci", "inf-sqlx", "rust2")
    q("multi", "网关这一层做过哪些改动？", "网关 改动", "gw-jwt", "gw-timeout", "gw-cors")
    q("multi", "发货通知和签收确认分别是怎么处理的？", "发货通知 签收 确认收货", "no-mini", "lo-confirm")
    q("multi", "我们在发布流程上定过哪些规矩？", "发布流程 规矩", "inf-canary-d", "inf-helm")
    q("multi", "订单相关的数据表做过哪些结构调整？", "订单 数据表 结构调整", "or-shard", "or-remark", "or-split")
    q("multi", "库存在途、预占这些中间状态是怎么设计的？", "库存 中间状态 预占 在途", "inv-reserve", "inv-transfer")
    q("multi", "定时任务和对账任务的调度做过哪些调整？", "定时任务 对账 调度", "sch-d", "pay-recon2")
    q("multi", "快递公司对接用到了哪些配置项？", "快递 对接 配置项", "lo-k100", "lo-sf")
    q("multi", "数据大屏和 GMV 口径是怎么定的？", "数据大屏 GMV", "ad-screen", "rep-gmv-d")


# ===========================================================================
# Noise: routine sessions and decisions over each project's vocabulary.
# Rule: a template that names a file names no topic, and vice versa, so noise
# never ties a topic to a file or a value (it only mentions them in passing).
# ===========================================================================

NOISE = {
    "en": {
        "files": {
            "uploader": ["services/api/src/routes/uploads.rs", "crates/upload-proto/src/lib.rs", "src/upload/mod.rs", "src/upload/part.rs"],
            "thumbs": ["workers/thumbs/src/main.rs", "src/thumbs/resize.rs", "workers/thumbs/src/job.rs", "src/thumbs/mod.rs"],
            "auth": ["services/auth/src/routes.rs", "services/auth/src/oauth/google.rs", "services/auth/src/main.rs", "services/auth/src/error.rs"],
            "db": ["src/db/photos.rs", "src/db/albums.rs", "src/db/mod.rs", "migrations/0029_tags.sql", "src/db/users.rs"],
            "storage": ["src/storage/r2.rs", "src/storage/mod.rs", "src/storage/keys.rs"],
            "infra": [".github/workflows/ci.yml", "deploy/k8s/api.yaml", "Dockerfile", "deploy/k8s/ingress.yaml", "Makefile"],
            "cli": ["crates/cli/src/main.rs", "crates/cli/src/commands/sync.rs", "crates/cli/src/config.rs", "crates/cli/src/output.rs"],
            "dashboard": ["web/src/pages/Album.tsx", "web/src/components/Lightbox.tsx", "web/src/api/client.ts", "web/vite.config.ts", "web/src/components/Sidebar.tsx"],
            "billing": ["services/billing/src/plans.rs", "services/billing/src/invoice.rs", "services/billing/src/main.rs"],
            "sync": ["src/sync/feed.rs", "src/sync/longpoll.rs", "src/sync/mod.rs"],
        },
        "topics": {
            "uploader": ["chunked uploads", "upload retries", "resume tokens", "upload sessions", "client-side dedup", "quota checks", "part checksums", "Live Photo pairing", "parallel part uploads"],
            "thumbs": ["thumbnail rendering", "libvips tuning", "EXIF parsing", "HEIC decoding", "video posters", "the thumbnail backfill", "RAW previews", "thumbnail caching"],
            "auth": ["refresh token rotation", "2FA enrollment", "login rate limiting", "Sign in with Apple", "password resets", "JWT verification", "the Devices page"],
            "db": ["the photos schema", "connection pooling", "timeline queries", "the trash", "the jobs table", "migration numbering", "autovacuum"],
            "storage": ["lifecycle rules", "presigned URLs", "the R2 rollout", "share links", "bucket policies", "MinIO in dev"],
            "infra": ["CI caching", "the release workflow", "canary deploys", "alert rules", "tracing", "the Docker image"],
            "cli": ["the push command", "watch mode", "the Takeout importer", "CLI config", "Windows support", "shell completions"],
            "dashboard": ["the library grid", "the map view", "dark mode", "the album page", "the lightbox", "i18n", "bundle size"],
            "billing": ["Stripe webhooks", "plan changes", "the Family plan", "invoices", "App Store purchases", "refunds", "tax"],
            "sync": ["the change feed", "sync cursors", "metadata conflicts", "long-polling", "silent pushes", "iOS background sync"],
        },
        "fns": {
            "uploader": ["ChunkPlan::new", "complete_multipart", "ResumeToken::load", "check_quota", "hash_file", "retry_with_backoff", "PartUploader::send"],
            "thumbs": ["render_sizes", "ThumbJob::run", "read_orientation", "poster_frame", "encode_webp"],
            "auth": ["issue_access_token", "rotate_refresh", "verify_totp", "hash_password", "apple_jwks"],
            "db": ["PhotoRepo::timeline", "AlbumRepo::set_cover", "claim_jobs", "purge_batch", "UserRepo::usage"],
            "storage": ["presign_get", "put_thumb", "ShareLink::new", "object_key"],
            "infra": [],
            "cli": ["cmd_push", "cmd_sync", "load_config", "walk_tree", "print_summary"],
            "dashboard": ["useLibraryQuery", "useAlbum", "formatBytes", "MapView", "Lightbox"],
            "billing": ["handle_invoice_paid", "apply_plan_change", "verify_signature", "map_appstore_notification"],
            "sync": ["encode_cursor", "merge_fields", "feed_since", "long_poll"],
        },
        "crates": {"uploader": "uploader", "thumbs": "thumbs", "auth": "auth", "db": "db", "storage": "storage",
                   "infra": "api", "cli": "cli", "dashboard": None, "billing": "billing", "sync": "sync"},
        "tests": {
            "uploader": ["upload::tests::resume_after_kill", "upload::tests::parallel_parts_order", "api::uploads::complete_twice"],
            "thumbs": ["thumbs::tests::golden_2048", "thumbs::tests::heic_depth_map", "thumbs::job::retries_then_dlq"],
            "auth": ["auth::tests::refresh_reuse_revokes_family", "auth::tests::totp_window", "auth::tests::apple_token_expired"],
            "db": ["db::tests::timeline_pagination", "db::tests::claim_jobs_skip_locked"],
            "storage": ["storage::tests::presign_expiry", "share::tests::expired_link_404"],
            "infra": ["api::tests::healthz", "api::tests::metrics_endpoint"],
            "cli": ["cli::tests::watch_debounce", "cli::tests::push_dry_run_output"],
            "dashboard": ["web/e2e/upload.spec.ts", "web/e2e/album.spec.ts", "web/e2e/login.spec.ts"],
            "billing": ["billing::tests::duplicate_event_skipped", "billing::tests::proration_upgrade"],
            "sync": ["sync::tests::cursor_roundtrip", "sync::tests::merge_interleavings", "sync::tests::long_poll_returns_on_change"],
        },
        "deps": [
            ("tokio", ["1.36.0", "1.37.0", "1.38.0", "1.38.1", "1.39.2", "1.40.0", "1.41.1", "1.42.0", "1.43.0"]),
            ("axum", ["0.7.4", "0.7.5", "0.7.7", "0.7.9", "0.8.1", "0.8.3"]),
            ("sqlx", ["0.7.3", "0.7.4", "0.8.0", "0.8.2", "0.8.3"]),
            ("serde", ["1.0.197", "1.0.203", "1.0.209", "1.0.214", "1.0.217"]),
            ("reqwest", ["0.12.2", "0.12.4", "0.12.7", "0.12.9", "0.12.12"]),
            ("aws-sdk-s3", ["1.21.0", "1.29.0", "1.38.0", "1.47.0", "1.60.0", "1.68.0"]),
            ("clap", ["4.5.1", "4.5.4", "4.5.9", "4.5.16", "4.5.23"]),
            ("hyper", ["1.2.0", "1.3.1", "1.4.1", "1.5.0", "1.5.2"]),
            ("rustls", ["0.23.4", "0.23.10", "0.23.13", "0.23.16", "0.23.20"]),
            ("uuid", ["1.8.0", "1.9.1", "1.10.0", "1.11.0"]),
            ("tracing-subscriber", ["0.3.18", "0.3.19"]),
            ("thiserror", ["1.0.58", "1.0.63", "2.0.3", "2.0.9"]),
            ("async-nats", ["0.33.0", "0.35.1", "0.37.0", "0.38.0"]),
            ("notify", ["6.1.1", "7.0.0", "8.0.0"]),
            ("indicatif", ["0.17.8", "0.17.9"]),
            ("chrono", ["0.4.35", "0.4.38", "0.4.39"]),
            ("opentelemetry", ["0.22.0", "0.24.0", "0.26.0", "0.27.1"]),
        ],
        "jsdeps": [
            ("react", ["18.2.0", "18.3.1", "19.0.0"]),
            ("vite", ["5.1.4", "5.2.8", "5.4.11", "6.0.7"]),
            ("typescript", ["5.4.2", "5.5.4", "5.6.3", "5.7.2"]),
            ("@tanstack/react-query", ["5.28.0", "5.51.1", "5.62.0"]),
            ("@playwright/test", ["1.42.1", "1.45.0", "1.49.1"]),
            ("maplibre-gl", ["4.1.2", "4.5.0", "4.7.1"]),
        ],
        "people": ["Maya", "Jonas", "Priya", "Tom", "Lena"],
    },
    "zh": {
        "files": {
            "order": ["crates/order/src/handler.rs", "crates/order/src/model.rs", "crates/order/src/lib.rs", "crates/order/src/dto.rs"],
            "inventory": ["crates/inventory/src/lib.rs", "crates/inventory/src/model.rs", "crates/inventory/src/query.rs"],
            "payment": ["crates/payment/src/lib.rs", "crates/payment/src/alipay/mod.rs", "crates/payment/src/error.rs"],
            "erp-sync": ["agent/src/main.rs", "agent/src/config.rs", "agent/src/push.rs", "agent/src/erp/mod.rs"],
            "wms": ["crates/wms/src/lib.rs", "crates/wms/src/inbound.rs", "crates/wms/src/outbound.rs"],
            "print": ["print-agent/src/main.rs", "print-agent/src/job.rs", "print-agent/src/config.rs"],
            "infra": ["deploy/helm/stockhub/values.yaml", "docker-compose.yml", "Dockerfile", "Makefile", "deploy/helm/stockhub/templates/deployment.yaml"],
            "admin": ["admin-web/src/views/sku/Edit.vue", "admin-web/src/api/request.ts", "admin-web/src/router/index.ts", "report/sql/weekly_sku.sql"],
            "gateway": ["crates/gateway/src/main.rs", "crates/gateway/src/routes.rs", "crates/gateway/src/proxy.rs"],
            "notify": ["crates/notify/src/lib.rs", "crates/notify/src/template.rs", "crates/notify/src/dingtalk.rs"],
        },
        "topics": {
            "order": ["订单超时取消", "下单幂等", "拆单", "合单发货", "订单状态机", "订单号生成", "淘宝订单同步", "优惠券核销"],
            "inventory": ["库存扣减", "预占库存", "安全库存", "组合商品库存", "调拨", "库存对账", "多条码", "库存缓存"],
            "payment": ["微信支付回调", "支付宝验签", "退款", "支付对账", "平台证书", "云闪付"],
            "erp-sync": ["金蝶同步", "用友 U8 同步", "旺店通对接", "agent 自更新", "断点续传", "agent 心跳", "增量游标"],
            "wms": ["波次拣货", "PDA 扫码", "盘点", "出库复核", "上架推荐", "退货质检", "库位编码"],
            "print": ["面单打印", "菜鸟云打印", "热敏打印机", "补打面单", "批量打印", "面单模板"],
            "infra": ["灰度发布", "Helm 部署", "CI 缓存", "Nacos 配置", "告警规则", "慢查询", "Redis 集群", "Kafka 分区"],
            "admin": ["日销售报表", "报表导出", "数据大屏", "订单列表页", "商品导入", "按钮权限", "GMV 口径"],
            "gateway": ["网关限流", "JWT 验签", "开放平台签名", "CORS", "网关超时", "请求链路追踪"],
            "notify": ["短信通道", "钉钉机器人", "企业微信通知", "小程序订阅消息", "验证码限频"],
        },
        "fns": {
            "order": ["create_order", "cancel_expired", "OrderState::transit", "split_order", "merge_parcels"],
            "inventory": ["deduct_stock", "reserve", "restore_stock", "combo_available", "StockCache::get"],
            "payment": ["verify_wechat_sign", "decrypt_resource", "handle_alipay_notify", "create_refund"],
            "erp-sync": ["pull_outbound_orders", "save_checkpoint", "login_kingdee", "self_update"],
            "wms": ["build_wave", "suggest_location", "finish_stocktake", "check_weight"],
            "print": ["submit_print_job", "render_pdf", "load_template"],
            "infra": [],
            "admin": ["useOrderList", "exportExcel", "formatMoney"],
            "gateway": ["rate_limit_layer", "verify_jwt", "verify_open_sign", "cors_layer"],
            "notify": ["send_sms", "send_dingtalk", "send_wecom", "render_template"],
        },
        "crates": {"order": "order", "inventory": "inventory", "payment": "payment", "erp-sync": "stockhub-agent",
                   "wms": "wms", "print": "print-agent", "infra": "order", "admin": None, "gateway": "gateway", "notify": "notify"},
        "tests": {
            "order": ["order::tests::cancel_expired_releases_stock", "order::tests::idempotent_create", "order::tests::split_by_warehouse"],
            "inventory": ["inventory::tests::deduct_concurrent", "inventory::tests::restore_after_refund", "inventory::tests::combo_min"],
            "payment": ["payment::tests::wechat_notify_v3", "payment::tests::alipay_sign", "payment::tests::duplicate_notify"],
            "erp-sync": ["agent::tests::checkpoint_after_crash", "agent::tests::kingdee_gbk_remark"],
            "wms": ["wms::tests::wave_threshold", "wms::tests::stocktake_snapshot"],
            "print": ["print_agent::tests::offline_queue", "print_agent::tests::tsc_dpi"],
            "infra": ["order::tests::healthz", "gateway::tests::metrics"],
            "admin": ["admin-web/tests/order-list.spec.ts", "admin-web/tests/login.spec.ts"],
            "gateway": ["gateway::tests::rate_limit_per_api", "gateway::tests::jwt_rs256"],
            "notify": ["notify::tests::sms_failover", "notify::tests::dingtalk_sign"],
        },
        "deps": [
            ("tokio", ["1.37.0", "1.38.1", "1.39.2", "1.40.0", "1.41.1", "1.42.0", "1.43.0"]),
            ("axum", ["0.7.5", "0.7.7", "0.7.9", "0.8.1"]),
            ("sqlx", ["0.7.4", "0.8.0", "0.8.2", "0.8.3"]),
            ("serde_json", ["1.0.114", "1.0.120", "1.0.128", "1.0.133"]),
            ("redis", ["0.25.2", "0.26.1", "0.27.5", "0.28.1"]),
            ("rdkafka", ["0.36.2", "0.37.0"]),
            ("reqwest", ["0.12.4", "0.12.7", "0.12.9", "0.12.12"]),
            ("governor", ["0.6.3", "0.7.0", "0.8.0"]),
            ("jsonwebtoken", ["9.2.0", "9.3.0"]),
            ("chrono", ["0.4.37", "0.4.38", "0.4.39"]),
            ("rust_xlsxwriter", ["0.64.0", "0.74.0", "0.79.4"]),
            ("moka", ["0.12.5", "0.12.8", "0.12.10"]),
            ("clickhouse", ["0.11.6", "0.12.2", "0.13.1"]),
            ("tracing", ["0.1.40", "0.1.41"]),
        ],
        "jsdeps": [
            ("vue", ["3.4.21", "3.4.38", "3.5.13"]),
            ("element-plus", ["2.6.1", "2.7.8", "2.9.1"]),
            ("vite", ["5.2.8", "5.4.11", "6.0.7"]),
            ("pinia", ["2.1.7", "2.2.6", "2.3.0"]),
        ],
        "people": ["小王", "老李", "阿杰", "婷婷", "张工"],
    },
}

FALLBACK_RS = {"en": "services/api/src/main.rs", "zh": "crates/order/src/lib.rs"}

EXACT_REPEATS = {
    "en": [("Reran the full suite after the rebase; all green.", "infra", 12),
           ("Rebased the branch onto main; no conflicts, `cargo test --workspace` passes.", "infra", 8),
           ("Fixed typos in doc comments; no behaviour change.", "infra", 7),
           ("CI green on main again after rerunning the flaky jobs.", "infra", 6),
           ("Regenerated `Cargo.lock` after the merge conflict; `cargo test --workspace` passes.", "infra", 5),
           ("Weekly Renovate batch merged after a green CI run; nothing needed by hand.", "infra", 9)],
    "zh": [("rebase 之后重新跑了一遍全量测试，全绿。", "infra", 12),
           ("把分支 rebase 到 main，没有冲突，`cargo test --workspace` 通过。", "infra", 8),
           ("修了几处注释里的错别字，没有行为变化。", "infra", 7),
           ("重跑了 CI 上失败的 job，main 重新变绿。", "infra", 6),
           ("合并冲突以后重新生成了 `Cargo.lock`，`cargo test --workspace` 通过。", "infra", 5),
           ("例行周会，过了一遍看板，没有写代码。", "infra", 9)],
}


def _pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def _bump(rng, deps):
    name, vers = _pick(rng, deps)
    i = rng.randrange(len(vers) - 1)
    return name, vers[i], vers[i + 1]


def noise_session_en(rng, V):
    area = _pick(rng, sorted(V["files"]))
    files, topics, fns, tests = V["files"][area], V["topics"][area], V["fns"][area], V["tests"][area]
    crate = V["crates"][area]
    testcmd = "`cargo test -p %s`" % crate if crate else "`pnpm test`"
    kind = rng.randrange(24)
    n = rng.randint(2, 14)
    pr = rng.randint(180, 980)
    rs = [f for f in files if f.endswith(".rs")] or None
    if kind in (5, 16) and not rs:
        kind = 4
    openv = nextv = None
    if kind == 0 or kind == 1:
        if area == "dashboard":
            dep, a, b = _bump(rng, V["jsdeps"])
            done = "Bumped `%s` from %s to %s in `web/package.json`; `pnpm test` and the Playwright suite pass." % (dep, a, b)
        else:
            dep, a, b = _bump(rng, V["deps"])
            tail = _pick(rng, ["; `cargo test --workspace` passes.", "; no code changes needed.",
                               ", which needed a one-line change in `%s`; tests pass." % _pick(rng, rs or [FALLBACK_RS[V["people"][0] == "Maya" and "en" or "zh"]]),
                               "; `cargo clippy --all-targets` is still clean."])
            done = "Bumped `%s` from %s to %s%s" % (dep, a, b, tail)
    elif kind == 2:
        deps = [_bump(rng, V["deps"]) for _ in range(3)]
        done = "Merged the weekly dependency batch: %s; CI green." % ", ".join("`%s` %s → %s" % x for x in deps)
    elif kind == 3:
        done = "Reran %s after rebasing onto main; all green." % testcmd
    elif kind == 4:
        what = _pick(rng, ["a doc comment", "an error message", "a log line", "a test name", "a comment"])
        done = "Fixed a typo in %s in `%s`." % (what, _pick(rng, files))
    elif kind == 5:
        done = "Cleaned up %d clippy warnings in `%s` after the toolchain update; `cargo clippy --all-targets -- -D warnings` is clean." % (n, _pick(rng, rs))
    elif kind == 6:
        done = "Ran `cargo fmt --all`; whitespace-only changes in %d files." % n
    elif kind == 7 and fns:
        case = _pick(rng, ["an empty input", "the error path", "a zero-byte file", "non-ASCII names", "a cancelled future", "a duplicate call", "a very large input"])
        done = "Added a unit test for `%s` covering %s; %s passes." % (_pick(rng, fns), case, testcmd)
    elif kind == 8:
        done = "Read through `%s` to get oriented before the next task; no code changes." % _pick(rng, files)
        nextv = "Pick up the next %s issue from the board." % area
    elif kind == 9:
        t = _pick(rng, topics)
        done = "Spent the session reading up on %s; notes only, no code." % t
        nextv = "Write up the options for %s." % t
    elif kind == 10:
        verdict = _pick(rng, ["requested changes", "approved after a second pass", "left comments, not merged yet"])
        done = "Reviewed PR #%d (%s: %s); %s." % (pr, area, _pick(rng, topics), verdict)
    elif kind == 11:
        reason = _pick(rng, ["runner timeout", "port already in use", "Docker Hub rate limit", "slow runner", "DNS hiccup on the runner"])
        t = _pick(rng, tests)
        done = "`%s` flaked once on CI (%s); reran and it passed. Could not reproduce locally." % (t, reason)
        if rng.random() < 0.5:
            openv = "`%s` is still flaky; watching it." % t
    elif kind == 12 and fns:
        done = "Split `%s` into smaller helpers; no behaviour change; %s passes." % (_pick(rng, fns), testcmd)
    elif kind == 13 and fns:
        done = "Added a `tracing` span around `%s`; no behaviour change." % _pick(rng, fns)
    elif kind == 14:
        t = _pick(rng, topics)
        done = "Planning session on %s with the team; no code." % t
        nextv = "Draft a short proposal on %s." % t
    elif kind == 15:
        a = rng.randint(1, 5)
        b = rng.randint(1, 6)
        done = ("Went through the open %s issues and triaged %d of them: closed %d as duplicates, labelled %d `needs-repro`, "
                "and moved the rest to the next milestone. Nothing urgent turned up, so no code changes today; main is still green "
                "and the nightly run passed." % (area, a + b + n, a, b))
    elif kind == 16:
        done = "Deleted dead code in `%s` (an unused helper); tests pass." % _pick(rng, rs)
    elif kind == 17:
        reason = _pick(rng, ["crates.io was slow", "the Actions cache had been evicted", "a runner image update", "Docker Hub rate limiting"])
        done = "Main was red for an hour because %s; fixed by rerunning." % reason
    elif kind == 18:
        done = "Rebuilt the local dev environment from scratch (`docker compose down -v`); everything came back up."
    elif kind == 19:
        done = "Paired with %s on %s; mostly walking through the code, nothing merged." % (_pick(rng, V["people"]), _pick(rng, topics))
    elif kind == 20:
        t = _pick(rng, topics)
        done = "Looked into a forum report about %s; could not reproduce with the steps given and asked for logs." % t
        openv = "Waiting for logs from the reporter."
    elif kind == 22:
        done = "Merged PR #%d." % pr
    elif kind == 23 and rng.random() < 0.35:
        ver = "0.%d.%d" % (rng.randint(3, 14), rng.randint(0, 6))
        area = "cli"
        done = ("Release day for CLI v%s: tagged it, waited for the release build to finish for all six targets, "
                "smoke-tested the macOS and static Linux binaries on clean VMs, bumped the Homebrew formula and the "
                "download page, and posted the changelog in the forum. No regressions reported in the first hour; "
                "two users confirmed the fixes they had been waiting for." % ver)
    else:
        done = "Updated `docs/%s.md` to match the current setup; no code." % area
    if openv is None and nextv is None and "/" not in done and rng.random() < 0.18:
        nextv = "Continue with %s." % _pick(rng, topics)
    return area, done, openv, nextv


def noise_session_zh(rng, V):
    area = _pick(rng, sorted(V["files"]))
    files, topics, fns, tests = V["files"][area], V["topics"][area], V["fns"][area], V["tests"][area]
    crate = V["crates"][area]
    testcmd = "`cargo test -p %s`" % crate if crate else "`pnpm test`"
    kind = rng.randrange(24)
    n = rng.randint(2, 14)
    mr = rng.randint(120, 860)
    rs = [f for f in files if f.endswith(".rs")] or None
    if kind in (5, 16) and not rs:
        kind = 4
    openv = nextv = None
    if kind == 0 or kind == 1:
        if area == "admin":
            dep, a, b = _bump(rng, V["jsdeps"])
            done = "`admin-web` 里把 `%s` 从 %s 升到 %s，`pnpm test` 通过，页面手点了一遍没问题。" % (dep, a, b)
        else:
            dep, a, b = _bump(rng, V["deps"])
            tail = _pick(rng, ["，`cargo test --workspace` 通过。", "，不需要改代码。",
                               "，`%s` 里改了一行适配，测试通过。" % _pick(rng, rs or [FALLBACK_RS[V["people"][0] == "Maya" and "en" or "zh"]]),
                               "，`cargo clippy --all-targets` 依然干净。"])
            done = "把 `%s` 从 %s 升到 %s%s" % (dep, a, b, tail)
    elif kind == 2:
        deps = [_bump(rng, V["deps"]) for _ in range(3)]
        done = "合了这周的依赖升级：%s；CI 全绿。" % "、".join("`%s` %s → %s" % x for x in deps)
    elif kind == 3:
        done = "rebase 到 main 以后重跑了 %s，全绿。" % testcmd
    elif kind == 4:
        what = _pick(rng, ["注释", "错误提示", "日志", "测试名", "文档注释"])
        done = "修了 `%s` 里%s的错别字。" % (_pick(rng, files), what)
    elif kind == 5:
        done = "工具链更新后清掉了 `%s` 里 %d 个 clippy 警告，`cargo clippy --all-targets -- -D warnings` 干净了。" % (_pick(rng, rs), n)
    elif kind == 6:
        done = "跑了一遍 `cargo fmt --all`，%d 个文件只有空白变化。" % n
    elif kind == 7 and fns:
        case = _pick(rng, ["空输入", "错误分支", "重复调用", "超时", "非法参数", "超大输入"])
        done = "给 `%s` 补了%s的单元测试，%s 通过。" % (_pick(rng, fns), case, testcmd)
    elif kind == 8:
        done = "通读了一遍 `%s`，熟悉一下代码，没有改动。" % _pick(rng, files)
        nextv = "从看板上接下一个 %s 的需求。" % area
    elif kind == 9:
        t = _pick(rng, topics)
        done = "这次主要在看%s相关的资料，只记了笔记，没写代码。" % t
        nextv = "把%s的几个方案整理成文档。" % t
    elif kind == 10:
        verdict = _pick(rng, ["提了修改意见", "第二轮看完后 approve 了", "留了评论，还没合"])
        done = "review 了 MR !%d（%s：%s），%s。" % (mr, area, _pick(rng, topics), verdict)
    elif kind == 11:
        reason = _pick(rng, ["runner 超时", "端口被占用", "拉镜像超时", "runner 太慢", "runner 上 DNS 抖动"])
        t = _pick(rng, tests)
        done = "`%s` 在 CI 上偶发失败（%s），重跑通过，本地复现不了。" % (t, reason)
        if rng.random() < 0.5:
            openv = "`%s` 还是偶尔会挂，先观察。" % t
    elif kind == 12 and fns:
        done = "把 `%s` 拆成了几个小函数，行为不变，%s 通过。" % (_pick(rng, fns), testcmd)
    elif kind == 13 and fns:
        done = "给 `%s` 加了 `tracing` span，行为不变。" % _pick(rng, fns)
    elif kind == 14:
        t = _pick(rng, topics)
        done = "和大家一起讨论了%s的排期，没写代码。" % t
        nextv = "出一个%s的简单方案。" % t
    elif kind == 15:
        a = rng.randint(1, 5)
        b = rng.randint(1, 6)
        done = ("过了一遍 %s 相关的 issue，一共 %d 个：%d 个重复的关掉了，%d 个打上 `需要复现` 标签，"
                "剩下的挪到下个迭代。没发现紧急的问题，今天没有改代码，main 是绿的，夜间任务也正常跑完了。" % (area, a + b + n, a, b))
    elif kind == 16:
        done = "删掉了 `%s` 里没人用的辅助函数，测试通过。" % _pick(rng, rs)
    elif kind == 17:
        reason = _pick(rng, ["crates.io 镜像太慢", "CI 缓存被清了", "runner 镜像更新", "ACR 拉镜像超时"])
        done = "main 红了一个小时，原因是%s，重跑就好了。" % reason
    elif kind == 18:
        done = "本地开发环境从头重建了一遍（`docker compose down -v`），都能正常起来。"
    elif kind == 19:
        done = "和%s一起过%s的代码，主要是讲解，没有合入。" % (_pick(rng, V["people"]), _pick(rng, topics))
    elif kind == 20:
        t = _pick(rng, topics)
        done = "客户反馈%s有问题，按描述的步骤复现不了，已经让对方发日志。" % t
        openv = "等客户发日志过来。"
    elif kind == 22:
        done = "合了 MR !%d。" % mr
    elif kind == 23 and rng.random() < 0.35:
        ver = "v1.%d.%d" % (rng.randint(2, 19), rng.randint(0, 9))
        area = "infra"
        done = ("发版日：打了 %s 的 tag，等流水线把各个服务的镜像都构建好，先在预发环境把下单、支付、发货、退款的主流程走了一遍，"
                "再按流程分批放量，盯着告警群和错误率都正常以后才全量；最后把这次的变更说明发到了客户群，"
                "提醒 ISV 注意两个接口字段的调整。" % ver)
    else:
        done = "更新了 `docs/%s.md`，和现在的实现对齐，没改代码。" % area
    if openv is None and nextv is None and "/" not in done and rng.random() < 0.18:
        nextv = "继续做%s。" % _pick(rng, topics)
    return area, done, openv, nextv


NOISE_DECISIONS = {
    "en": {
        "style": [
            ("infra", "Library crates use `thiserror` for errors; `anyhow` only in binaries.", "`anyhow` everywhere", "callers need to match on error variants"),
            ("db", "Store all timestamps as `timestamptz` in UTC.", "naive timestamps in server local time", "servers run in two regions with different time zones"),
            ("infra", "Log field names are snake_case and include `owner_id` whenever it is known.", "free-form log messages", "support greps logs by owner"),
            ("infra", "Feature branches are squash-merged into main.", "merge commits", "main's history should read as one commit per change"),
            ("infra", "Every public API change gets a line in `CHANGELOG.md`.", None, "the mobile teams read the changelog to plan releases"),
            ("db", "Integration tests get their own database per test via `#[sqlx::test]`.", "one shared test database", "tests interfered with each other when run in parallel"),
            ("infra", "No `unwrap()` outside tests; use `expect` with a reason.", "allowing `unwrap` where it seems safe", "two production panics came from 'safe' unwraps"),
            ("infra", "Services read configuration from env vars only; files are for the CLI.", "TOML files baked into images", "Kubernetes injects env vars and secrets uniformly"),
            ("uploader", "JSON field names in the public API are snake_case.", "camelCase", "the CLI and the server share serde types"),
            ("billing", "Money amounts are integer cents in every table and API.", "floating-point amounts", "rounding errors showed up on invoices"),
            ("sync", "Dates in the API are RFC 3339 strings with a `Z` suffix.", "Unix seconds", "humans read API logs"),
            ("dashboard", "Dashboard components are function components with hooks; no class components.", None, "one style is easier to review"),
            ("dashboard", "Dashboard styles use CSS modules; no CSS-in-JS.", "styled-components", "runtime styling cost showed up in profiles of the grid"),
            ("infra", "On-call rotates weekly, with handover on Mondays.", "two-week shifts", "two weeks of pages burned people out"),
            ("infra", "Secrets live in AWS Secrets Manager and reach pods through External Secrets.", "Kubernetes secrets committed encrypted with SOPS", "rotation should not need a commit"),
            ("db", "One `public` schema for all tables.", "a schema per service", "cross-service joins are common and the team is small"),
            ("cli", "CLI output is plain text by default; `--json` gives machine-readable output.", "JSON only", "people run the CLI by hand as often as from scripts"),
            ("auth", "Services answer 404, not 403, for resources the caller may not see.", "403", "403 confirms that a photo or album exists"),
            ("thumbs", "Worker binaries exit non-zero on unrecoverable config errors at startup.", "logging and limping on", "a misconfigured pod should crash-loop visibly"),
            ("storage", "Object keys are `<owner_id>/<photo_id>/<rendition>`.", "flat keys", "per-owner prefixes make deletion and auditing cheap"),
            ("infra", "Dashboards for every service live in the `grafana/` folder as JSON and are provisioned from git.", "hand-edited dashboards", "hand edits were lost when Grafana was rebuilt"),
            ("sync", "API versions are in the path (`/v1/`); breaking changes get `/v2/` routes.", "a version header", "CDN caching and logs key on the path"),
        ],
        "flags": [("the new album page", "album_v2"), ("face grouping", "faces_beta"), ("memories emails", "memories_email"),
                  ("shared albums", "shared_albums"), ("HLS video playback", "transcode_hls"), ("the storage usage chart", "usage_chart"),
                  ("bulk ZIP download", "bulk_zip"), ("the new onboarding", "onboarding_v3"), ("album comments", "album_comments"),
                  ("the trash page redesign", "trash_v2"), ("duplicate finder", "dupe_finder"), ("print orders", "print_orders")],
        "flag_why": ["we want to watch error rates for a while first", "support needs time to update the help articles",
                     "the mobile apps ship a week later", "the feature is expensive to run and we want real usage numbers"],
        "flag_over": ["turning it on for everyone at once", "a long-lived branch"],
        "endpoints": ["/v1/upload", "/v1/photos/list", "/v1/albums/{id}/photos?page=", "/v1/me/usage", "/v1/thumbs/{id}",
                      "/v1/auth/legacy-login", "/v1/sync/poll", "the `X-Snapvault-Client` header", "/v1/search/simple"],
        "owners": [("services/auth/", "someone from the auth rota"), ("services/billing/", "the billing owner"), ("migrations/", "a second backend reviewer"),
                   ("deploy/", "someone on the platform rota"), (".github/workflows/", "someone on the platform rota"), ("web/src/api/", "a backend reviewer"),
                   ("crates/upload-proto/", "both a CLI and an API reviewer")],
        "pin_break": ["changes a default we rely on", "raises its MSRV above ours", "renames builder methods we call in a dozen places",
                      "pulls in a second copy of `hyper`", "drops a feature flag we use"],
        "pin_why": ["the upgrade needs a coordinated change across several crates", "we are in the middle of a release",
                    "nobody has time to review the migration this sprint", "upstream has an open regression report"],
        "ideas": ["face grouping", "comments on shared albums", "a desktop app", "HLS transcoding for long videos", "a public partner API",
                  "end-to-end encrypted albums", "photo book printing", "a Windows tray app", "a duplicate photo finder", "AI captions",
                  "a WebDAV endpoint", "an Apple TV app", "family admin roles", "usage-based billing", "an Android TV app",
                  "a Lightroom plugin", "smart albums", "a 'memories' email digest", "offline mode in the dashboard", "SSO for business accounts",
                  "a Synology package", "Immich import", "iCloud Photos import", "watermarking of shared photos"],
        "idea_why": ["the team is busy with reliability work", "too few users asked for it so far", "it needs design work we don't have capacity for",
                     "the storage cost is unclear", "it depends on the mobile apps' next release"],
    },
    "zh": {
        "style": [
            ("infra", "库 crate 的错误类型用 `thiserror`，`anyhow` 只在二进制里用。", "全部用 `anyhow`", "调用方需要按错误类型分别处理"),
            ("infra", "时间字段统一存 `DATETIME(3)`，按 Asia/Shanghai 存储，接口返回带时区的 RFC 3339。", "各表自己决定", "前后端和报表对时间的理解要一致"),
            ("infra", "日志字段用 snake_case，能拿到就带上 `tenant_id` 和 `order_id`。", "随手写的日志", "客服排查问题要按订单号搜日志"),
            ("infra", "功能分支一律 squash 合入 main。", "保留 merge commit", "main 的历史一条改动一个提交"),
            ("gateway", "对外接口的任何变更都写进 `CHANGELOG.md`。", None, "ISV 靠 changelog 排期"),
            ("infra", "要连库的集成测试用 `#[sqlx::test]`，每个测试一个独立库。", "共用一个测试库", "并行跑时测试互相干扰"),
            ("infra", "测试以外不准 `unwrap()`，要用 `expect` 写清原因。", "觉得安全就 unwrap", "线上两次 panic 都来自「安全」的 unwrap"),
            ("gateway", "对外 API 的 JSON 字段用 snake_case。", "camelCase", "和 ISV 的既有约定一致"),
            ("admin", "管理后台组件统一用 `<script setup>` + 组合式 API。", "选项式 API", "一种写法方便 review"),
            ("admin", "管理后台 UI 统一用 Element Plus，不再引入第二套组件库。", "按页面各选各的", "打包体积和风格都不一致"),
            ("infra", "值班按周轮换，周一交接。", "两周一轮", "两周太累"),
            ("infra", "密钥统一放阿里云 KMS 凭据管家，通过环境变量注入。", "写在 Helm values 里", "轮换密钥不应该需要提交代码"),
            ("order", "接口里的金额都以字符串形式返回「分」。", "返回数字", "前端 JS 的大数精度问题"),
            ("gateway", "没权限访问的资源返回 404 而不是 403。", "403", "403 会暴露订单是否存在"),
            ("erp-sync", "agent 配置错误时启动直接退出，返回非 0。", "记日志后继续跑", "客户机房里没人盯日志，进程退出才会被发现"),
            ("infra", "Grafana 看板以 JSON 放在 `grafana/` 目录，从 git 自动导入。", "手工改看板", "重建 Grafana 时手改的看板丢了"),
            ("gateway", "接口版本放在路径里（`/api/v1/`），不兼容变更走 `/api/v2/`。", "用 header 区分版本", "网关路由和日志都按路径"),
            ("wms", "PDA 端所有操作必须能离线重放，服务端按操作 id 去重。", "PDA 只能在线操作", "仓库角落 Wi-Fi 信号很差"),
            ("notify", "通知模板统一放在数据库的 `notify_templates` 表里，不写死在代码中。", "模板写在代码里", "运营要自己改文案"),
            ("print", "打印代理只监听 127.0.0.1，不对局域网开放。", "监听 0.0.0.0", "仓库电脑所在网络不可信"),
            ("inventory", "库存变更必须写流水表 `stock_ledger`，禁止只改余额。", "只更新余额", "出了差异没法追溯"),
            ("order", "订单相关的枚举值只加不改，废弃的值保留。", "直接改枚举", "历史订单和报表依赖旧值"),
        ],
        "flags": [("新版订单详情页", "order_detail_v2"), ("智能合单", "smart_merge"), ("预售订单", "presale"), ("直播间下单", "live_order"),
                  ("批量改价", "bulk_price"), ("新版拣货单", "pick_list_v2"), ("自动补货建议", "replenish_hint"), ("电子发票", "e_invoice"),
                  ("跨境订单", "cross_border"), ("会员积分", "member_points"), ("库存预警推送", "stock_alert_push"), ("快递比价", "carrier_compare")],
        "flag_why": ["先观察一段时间错误率", "客服需要时间更新帮助文档", "需要先在几个试点商家跑一阵", "资源消耗不确定，要先看真实用量"],
        "flag_over": ["直接全量开放", "长期维护一个分支"],
        "endpoints": ["/api/v1/orders/list", "/api/v1/stock/query", "/api/v1/sku/batch", "/open/v1/trade/get", "/api/v1/print/legacy",
                      "/api/v1/report/export", "`X-Stockhub-Tenant` 请求头", "/api/v1/agents/register"],
        "owners": [("crates/payment/", "支付负责人"), ("crates/inventory/", "库存负责人"), ("migrations/", "另一位后端"), ("deploy/", "运维同学"),
                   (".gitlab-ci.yml", "运维同学"), ("agent/", "agent 负责人"), ("crates/gateway/", "网关负责人")],
        "pin_break": ["改了我们依赖的默认行为", "MSRV 比我们的工具链还高", "改了十几处在用的 builder 方法名", "会引入第二份 `hyper`", "去掉了我们在用的 feature"],
        "pin_why": ["升级要几个 crate 一起改", "正在发版窗口期", "这个迭代没人有空 review 迁移", "上游有一个未修的回归问题"],
        "ideas": ["抖音小店对接", "快手小店对接", "多语言管理后台", "海外仓", "自动分仓", "智能补货", "直播订单专用通道", "移动端管理后台",
                  "供应商门户", "电子签收", "冷链温控记录", "仓库机器人接入", "AI 客服", "会员体系", "SaaS 计费改版", "数据开放平台",
                  "钉钉审批流集成", "发票自动开具", "分销系统", "拼多多订单对接", "RFID 盘点", "微信视频号小店对接", "多币种结算", "库存预测"],
        "idea_why": ["团队在忙稳定性的事", "提这个需求的客户还不多", "需要产品设计，暂时排不开", "成本还算不清楚", "要等上游接口稳定"],
    },
}


def noise_decisions(rng, ws, V, count):
    N = NOISE_DECISIONS[ws]
    out = []
    for area, choice, over, because in N["style"]:
        out.append((area, choice, over, because))
    for feat, flag in N["flags"]:
        weeks = rng.randint(2, 6)
        if ws == "en":
            choice = "Ship %s behind the `%s` flag for %d weeks." % (feat, flag, weeks)
        else:
            choice = "%s先放在 `%s` 开关后面灰度 %d 周。" % (feat, flag, weeks)
        out.append((_pick(rng, sorted(V["files"])), choice, _pick(rng, N["flag_over"]), _pick(rng, N["flag_why"])))
    for ep in N["endpoints"]:
        ver = "v%d.%d" % (rng.randint(2, 4), rng.randint(0, 9))
        pct = rng.randint(3, 30)
        if ws == "en":
            choice = "Deprecate `%s` and remove it in API %s." % (ep.strip("`"), ver) if not ep.startswith("the") else "Deprecate %s and remove it in API %s." % (ep, ver)
            over = "removing it right away, which would break older CLI and app versions"
            because = "%d%% of its traffic still comes from clients older than a year" % pct
        else:
            choice = "`%s` 标记废弃，%s 版本删除。" % (ep.strip("`"), ver) if not ep.startswith("`X") else "%s 标记废弃，%s 版本删除。" % (ep, ver)
            over = "马上删除：老版本 agent 和 ISV 还在调用"
            because = "还有 %d%% 的调用来自一年前的客户端" % pct
        out.append((_pick(rng, sorted(V["files"])), choice, over, because))
    for path, who in N["owners"]:
        if ws == "en":
            out.append(("infra", "Changes under `%s` need a review from %s." % (path, who), "any single reviewer",
                        "mistakes there are expensive and hard to roll back"))
        else:
            out.append(("infra", "`%s` 下的改动必须由%s review。" % (path, who), "任何人 review 都行", "这里出错代价大，而且很难回滚"))
    pins = 0
    pairs = sum(len(v) - 1 for _, v in V["deps"])
    while len(out) < count and pins < min(26, pairs - 4):
        dep, vers = _pick(rng, V["deps"])
        i = rng.randrange(len(vers) - 1)
        if ws == "en":
            choice = "Pin `%s` at %s for now." % (dep, vers[i])
            over = "upgrading to %s right away, which %s" % (vers[i + 1], _pick(rng, N["pin_break"]))
        else:
            choice = "`%s` 暂时固定在 %s。" % (dep, vers[i])
            over = "马上升到 %s：%s" % (vers[i + 1], _pick(rng, N["pin_break"]))
        item = (_pick(rng, sorted(V["files"])), choice, over, _pick(rng, N["pin_why"]))
        if any(o[1] == choice for o in out):
            continue
        out.append(item)
        pins += 1
    used = set()
    while len(out) < count:
        idea = _pick(rng, N["ideas"])
        quarter = "Q%d %d" % (rng.randint(1, 4), rng.choice([2026, 2027]))
        if (idea, quarter) in used or sum(1 for u in used if u[0] == idea) >= 2:
            continue
        used.add((idea, quarter))
        if ws == "en":
            choice = "Postpone %s until %s." % (idea, quarter)
            over = "starting it this quarter"
        else:
            choice = "%s推迟到 %s 再做。" % (idea, quarter)
            over = "这个季度就开始做"
        out.append((_pick(rng, sorted(V["files"])), choice, over, _pick(rng, N["idea_why"])))
    rng.shuffle(out)
    return out[:count]


def add_noise(B, total_entries, n_decisions_target):
    ws, rng = B.ws, B.rng
    V = NOISE[ws]
    for text, area, n in EXACT_REPEATS[ws]:
        B.s(None, area, text, copies=n)
    have_dec = sum(1 for e in B.entries if e["type"] == "decision")
    for area, choice, over, because in noise_decisions(rng, ws, V, max(0, n_decisions_target - have_dec)):
        B.d(None, area, choice, over, because)
    gen = noise_session_en if ws == "en" else noise_session_zh
    seen = {}
    while len(B.entries) < total_entries:
        area, done, openv, nextv = gen(rng, V)
        # allow only a few accidental repeats of generated routine text
        seen[done] = seen.get(done, 0) + 1
        if seen[done] > 2:
            continue
        B.s(None, area, done, open=openv, next=nextv)


# ===========================================================================
# Assembly, checks, output
# ===========================================================================

TOTAL = {"en": 1660, "zh": 1650}
# Seed of the question order (and so of the ids and the hash split); chosen once
# so that every language x kind gets roughly 40% dev.
QUESTION_SEED = 3
DECISIONS = {"en": 148, "zh": 145}


def assign_dates_topo(B):
    """Date entries so that every `after` target is dated before its follower."""
    pending = [e for e in B.entries if e["type"] != "project"]
    done_labels = set()
    # labels whose every entry is dated
    while pending:
        progressed = False
        rest = []
        for e in pending:
            a = e["_after"]
            if a and any("date" not in x for x in B.labels[a]):
                rest.append(e)
                continue
            rest_holder = B.entries
            B.entries = [e]
            B.assign_dates_one(e)
            B.entries = rest_holder
            progressed = True
        if not progressed:
            raise ValueError("cycle in after constraints")
        pending = rest


def _assign_one(self, e):
    rng = self.rng
    if e["_date"]:
        off = offset_of(e["_date"])
    elif e["_after"]:
        base = max(offset_of(x["date"]) for x in self.labels[e["_after"]])
        off = min(SPAN, base + rng.randint(4, 110))
        if off <= base:
            raise ValueError("no room after " + e["_after"])
    elif e["_label"] in self._referenced:
        off = rng.randint(0, int(SPAN * 0.55))
    else:
        off = rng.randint(0, SPAN)
    e["date"] = day(off)


Builder.assign_dates_one = _assign_one


def build(ws):
    rng = random.Random("%s-%s" % (SEED, ws))
    B = Builder(ws, rng)
    (build_en if ws == "en" else build_zh)(B)
    add_noise(B, TOTAL[ws], DECISIONS[ws])
    B._referenced = {e["_after"] for e in B.entries if e["_after"]}
    assign_dates_topo(B)
    B.assign_keys()
    questions = B.resolve_questions()
    return B, questions


def text_of(e):
    if e["type"] == "session":
        return " ".join(e[k] for k in ("done", "open", "next") if k in e)
    if e["type"] == "decision":
        return " ".join(e[k] for k in ("choice", "over", "because") if k in e)
    return e["line"]


def check(ws, B, questions):
    ents = B.sorted_entries
    keys = [e["key"] for e in ents]
    assert len(keys) == len(set(keys)), "duplicate keys"
    assert len(ents) >= 1600, (ws, len(ents))
    areas = {e["area"] for e in ents if "area" in e}
    assert 6 <= len(areas) <= 10, (ws, sorted(areas))
    assert all(len(a) <= 20 and a == a.lower() for a in areas)
    for e in ents:
        if e["type"] != "project":
            assert "2025-01-01" <= e["date"] <= "2026-11-30", e
    secs = {e["section"] for e in ents if e["type"] == "project"}
    assert secs < set(SECTIONS[ws]) and len(SECTIONS[ws]) - len(secs) in (1, 2), secs
    keyset = set(keys)
    texts = {text_of(e).strip() for e in ents}
    texts |= {e[k].strip() for e in ents for k in ("done", "open", "next", "choice", "over", "because", "line") if k in e}
    for q in questions:
        for g in q["answers"]:
            assert g and all(k in keyset and k.startswith(ws + "-") for k in g), q
        if q["kind"] == "multi":
            assert 2 <= len(q["answers"]) <= 4, q["question"]
            flat = [k for g in q["answers"] for k in g]
            assert len(flat) == len(set(flat)), ("group overlap", q["question"])
        else:
            assert len(q["answers"]) == 1, q["question"]
        assert q["question"].strip() not in texts, q["question"]
    qs = [q["question"] for q in questions]
    assert len(qs) == len(set(qs)), "duplicate question text"
    assert len(questions) >= 260, (ws, len(questions))


def main():
    corpus_lines = []
    question_lines = []
    for ws in ("en", "zh"):
        B, questions = build(ws)
        check(ws, B, questions)
        for e in B.sorted_entries:
            corpus_lines.append(json.dumps(public(e, ws), ensure_ascii=False, sort_keys=True))
        order = list(range(len(questions)))
        random.Random("%s-%s-questions" % (QUESTION_SEED, ws)).shuffle(order)
        for n, i in enumerate(order, 1):
            q = questions[i]
            qid = "%s-q-%04d" % (ws, n)
            question_lines.append(json.dumps({
                "id": qid, "ws": ws, "lang": ws, "kind": q["kind"],
                "question": q["question"], "keywords": q["keywords"],
                "answers": q["answers"], "split": split_of(qid),
            }, ensure_ascii=False, sort_keys=True))
    with open(os.path.join(HERE, "corpus.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(corpus_lines) + "\n")
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(question_lines) + "\n")


if __name__ == "__main__":
    main()
