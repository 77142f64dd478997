#!/usr/bin/env python3
"""The official OpenAI Python SDK against `gatecheck serve` (run with `--clock virtual`).

Usage: test_sdk.py --base-url http://127.0.0.1:PORT [--api-key sk-...]

Every check uses the SDK unchanged, pointed at `<base-url>/v1`; the mock's control API
(`/__mock/*`) moves the virtual clock, installs faults and reads the request journal. Media
are checked by parsing them (PNG IHDR, MP3 frame sync, WAV header, MP4 boxes). Exits non-zero
on the first failure; prints one `ok` line per check.
"""

import argparse
import base64
import io
import json
import os
import struct
import sys
import tempfile
import threading
import time
import urllib.request
import wave

import openai
from openai import OpenAI


def control(base, method, path, body=None):
    """Calls the mock's control API; returns the decoded JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("content-type", "application/json")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read() or b"null")


def wav_bytes(seconds=1.5, rate=16000):
    """A mono 16-bit WAV of a 440 Hz square-ish tone."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        frames = bytearray()
        for i in range(int(seconds * rate)):
            frames += struct.pack("<h", 6000 if (i // 18) % 2 else -6000)
        w.writeframes(bytes(frames))
    return buf.getvalue()


def png_size(data):
    """(width, height) from a PNG's IHDR, after checking the signature."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG signature"
    assert data[12:16] == b"IHDR", "IHDR first"
    return struct.unpack(">II", data[16:24])


def mp4_duration(data):
    """Walks the top-level boxes (they must tile the file) and returns mvhd's duration, s."""
    at, kinds, duration = 0, [], None
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at : at + 8])
        assert size >= 8 and at + size <= len(data), "box sizes tile the file"
        kinds.append(kind)
        if kind == b"moov":
            inner = at + 8
            while inner < at + size:
                isize, ikind = struct.unpack(">I4s", data[inner : inner + 8])
                if ikind == b"mvhd":
                    scale, dur = struct.unpack(">II", data[inner + 20 : inner + 28])
                    duration = dur / scale
                inner += isize
        at += size
    assert kinds[0] == b"ftyp" and b"moov" in kinds and b"mdat" in kinds, kinds
    return duration


def journal(base):
    """The request journal's entries, oldest first."""
    return control(base, "GET", "/__mock/requests")["requests"]


def ok(name):
    print(f"ok   {name}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True, help="the mock's root URL")
    ap.add_argument("--api-key", default=None, help="defaults to the mock's key id 1")
    args = ap.parse_args()
    base = args.base_url.rstrip("/")
    key = args.api_key
    if key is None:
        keys = control(base, "GET", "/__mock/keys")
        key = "sk-" + next(k["key"] for k in keys if k["id"] == 1)
    client = OpenAI(base_url=base + "/v1", api_key=key, max_retries=2, timeout=30)

    # --- audio: translations in all five formats, transcriptions -------------------------
    audio = wav_bytes(1.5)
    for fmt in ["json", "text", "srt", "verbose_json", "vtt"]:
        r = client.audio.translations.create(
            model="whisper-1",
            file=("clip.wav", audio, "audio/wav"),
            response_format=fmt,
            temperature=0.2,
            prompt="A calm narrator.",
        )
        if fmt == "json":
            assert isinstance(r.text, str) and r.text, r
        elif fmt == "verbose_json":
            assert abs(r.duration - 1.5) < 1e-6, r.duration
            assert r.segments and r.segments[-1].end == 1.5, r.segments
            assert r.language == "english"
        elif fmt == "text":
            assert isinstance(r, str) and r.strip(), repr(r)
        elif fmt == "srt":
            assert isinstance(r, str) and r.startswith("1\n") and " --> " in r, repr(r)
        else:
            assert isinstance(r, str) and r.startswith("WEBVTT"), repr(r)
        ok(f"audio.translations.create response_format={fmt}")
    t = client.audio.transcriptions.create(
        model="gpt-4o-mini-transcribe", file=("clip.wav", audio, "audio/wav")
    )
    assert isinstance(t.text, str) and t.text, t
    ok("audio.transcriptions.create")

    # --- speech, written to a file ---------------------------------------------------------
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "speech.mp3")
        with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice="alloy", input="Hello from the mock.", response_format="mp3"
        ) as resp:
            assert resp.headers.get("content-type") == "audio/mpeg", resp.headers
            resp.stream_to_file(path)
        data = open(path, "rb").read()
        assert len(data) > 1000 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0, data[:4]
        ok("audio.speech.create mp3 -> file (MPEG frame sync)")
        wav = client.audio.speech.create(
            model="gpt-4o-mini-tts", voice="verse", input="Hello.", response_format="wav"
        ).content
        assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE", wav[:12]
        riff = struct.unpack("<I", wav[4:8])[0]
        assert riff == len(wav) - 8, (riff, len(wav))
        with wave.open(io.BytesIO(wav)) as w:
            assert w.getframerate() == 24000 and w.getnframes() > 0
        ok("audio.speech.create wav (consistent RIFF header)")

    # --- images: b64 and url modes -----------------------------------------------------------
    img = client.images.generate(model="gpt-image-1", prompt="a lighthouse", size="1024x1536")
    assert png_size(base64.b64decode(img.data[0].b64_json)) == (1024, 1536)
    assert img.usage.total_tokens == img.usage.input_tokens + img.usage.output_tokens
    assert img.size == "1024x1536" and img.output_format == "png"
    ok("images.generate b64_json (PNG IHDR matches size)")
    img = client.images.generate(model="dall-e-3", prompt="a red fox", size="1792x1024")
    url = img.data[0].url
    assert url and url.startswith(base), url
    with urllib.request.urlopen(url, timeout=10) as r:
        assert png_size(r.read()) == (1792, 1024)
    ok("images.generate url (served PNG matches size)")

    # --- image edits: b64 and url modes, one image and image[] (DECISIONS D-EDIT) -------------
    with urllib.request.urlopen(base + "/media/images/00000000000000ab_64x64.png", timeout=10) as r:
        source = r.read()
    edited = client.images.edit(
        model="gpt-image-1", image=("in.png", source, "image/png"), prompt="add a hat",
        size="1024x1024", n=2,
    )
    assert len(edited.data) == 2 and edited.size == "1024x1024", edited
    for item in edited.data:
        assert png_size(base64.b64decode(item.b64_json)) == (1024, 1024)
    ok("images.edit b64_json (2 edited PNGs of the asked size)")
    edited = client.images.edit(
        model="flux-schnell", image=[("a.png", source, "image/png"), ("b.png", source, "image/png")],
        mask=("mask.png", source, "image/png"), prompt="paint it blue", size="512x512",
        response_format="url",
    )
    url = edited.data[0].url
    assert url and url.startswith(base), url
    with urllib.request.urlopen(url, timeout=10) as r:
        assert png_size(r.read()) == (512, 512)
    ok("images.edit url with image[] and a mask (served PNG matches size)")

    # --- videos: create, poll (clock moved by a helper thread), retrieve, download ------------
    video = client.videos.create(model="sora-2", prompt="a calm lake", seconds="4", size="720x1280")
    assert video.status == "queued" and video.progress == 0 and video.id.startswith("task_"), video
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            control(base, "POST", "/__mock/clock/advance", {"seconds": 1})
            time.sleep(0.02)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        done = client.videos.poll(video.id, poll_interval_ms=50)
    finally:
        stop.set()
        ticker.join()
    assert done.status == "completed" and done.progress == 100, done
    ok("videos.create + videos.poll -> completed")
    second = client.videos.create(model="sora-2", prompt="waves", seconds="8")
    seen = []
    for _ in range(100):
        v = client.videos.retrieve(second.id)
        if not seen or seen[-1] != v.status:
            seen.append(v.status)
        if v.status in ("completed", "failed", "error"):
            break
        control(base, "POST", "/__mock/clock/advance", {"seconds": 2})
    assert seen == ["queued", "in_progress", "completed"], seen
    ok("videos.retrieve loop: queued -> in_progress -> completed")
    content = client.videos.download_content(video.id)
    data = content.read()
    assert abs(mp4_duration(data) - 4.0) < 1e-6
    ok("videos.download_content (MP4 boxes, 4 s)")

    # --- remix (DECISIONS D-TASK-4): a new task from a completed one --------------------------
    remix = client.videos.remix(video.id, prompt="the same lake at night")
    assert remix.id.startswith("task_") and remix.id != video.id, remix
    assert remix.remixed_from_video_id == video.id and remix.model == video.model, remix
    assert remix.status == "queued" and remix.progress == 0, remix
    for _ in range(100):
        v = client.videos.retrieve(remix.id)
        if v.status in ("completed", "failed", "error"):
            break
        control(base, "POST", "/__mock/clock/advance", {"seconds": 2})
    assert v.status == "completed" and v.remixed_from_video_id == video.id, v
    try:
        client.videos.remix("task_00000000000000000000000000000000", prompt="nothing")
        raise AssertionError("a remix of an unknown task was accepted")
    except openai.BadRequestError as e:
        assert e.status_code == 400 and e.body is not None, e
    ok("videos.remix -> queued task with remixed_from_video_id, completes; unknown -> 400")

    # --- streams (DECISIONS D-STREAM) ----------------------------------------------------------
    with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts", voice="alloy", input="Streaming speech, event by event.",
        stream_format="sse",
    ) as resp:
        assert resp.headers["content-type"].startswith("text/event-stream")
        audio, kinds = b"", []
        for line in resp.iter_lines():
            if line.startswith("data: "):
                event = json.loads(line[len("data: "):])
                kinds.append(event["type"])
                if event["type"] == "speech.audio.delta":
                    audio += base64.b64decode(event["audio"])
    assert kinds[-1] == "speech.audio.done" and kinds.count("speech.audio.done") == 1, kinds
    assert len(kinds) >= 3 and (audio[:3] == b"ID3" or audio[0] == 0xFF), audio[:4]
    ok("audio.speech.with_streaming_response.create(stream_format=sse): deltas then done, MP3")

    stream = client.audio.transcriptions.create(
        model="gpt-4o-mini-transcribe", file=("a.wav", wav_bytes(), "audio/wav"), stream=True,
    )
    deltas, done = "", []
    for event in stream:
        if event.type == "transcript.text.delta":
            assert not done, "delta after done"
            deltas += event.delta
        elif event.type == "transcript.text.done":
            done.append(event.text)
    assert done == [deltas] and deltas, (done, deltas)
    ok("audio.transcriptions.create(stream=True): deltas make the done text")

    stream = client.images.generate(
        model="gpt-image-1", prompt="a lighthouse", size="1024x1024", stream=True, partial_images=2,
    )
    events = list(stream)
    assert [e.type for e in events] == [
        "image_generation.partial_image", "image_generation.partial_image",
        "image_generation.completed",
    ], [e.type for e in events]
    for e in events:
        assert png_size(base64.b64decode(e.b64_json)) == (1024, 1024)
    ok("images.generate(stream=True, partial_images=2): 2 partial PNGs, then completed")

    # --- errors --------------------------------------------------------------------------------
    bad = OpenAI(base_url=base + "/v1", api_key="sk-wrong", max_retries=0)
    try:
        bad.images.generate(model="dall-e-3", prompt="x", size="1024x1024")
        raise AssertionError("a bad key was accepted")
    except openai.AuthenticationError:
        ok("bad key -> AuthenticationError")

    fault = {"route": "POST /v1/images/generations", "kind": "status", "status": 429, "times": 1}
    control(base, "POST", "/__mock/faults", fault)
    seq_before = max((e["seq"] for e in journal(base)), default=-1)
    img = client.images.generate(model="flux-schnell", prompt="retry me", size="512x512")
    assert img.data[0].url
    calls = [
        e
        for e in journal(base)
        if e["seq"] > seq_before and e["path"] == "/v1/images/generations"
    ]
    assert [e["status"] for e in calls] == [429, 200], calls
    ok("injected 429 retried by the SDK (journal: 429 then 200)")
    print("all SDK checks passed")


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # report the failing check clearly
        print(f"FAIL {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        raise
