"""The official Python SDK's calls, sent through a Prism validating proxy by scripts/peer-check.

Env: PRISM_URL (the proxy's /v1 base URL), API_KEY. Prints one line per call; Prism's own log
holds the validation verdicts. Exit 1 when a call that must succeed fails.
"""

import io
import os
import struct
import sys
import time

from openai import OpenAI


def wav(seconds=1.0, rate=16000):
    frames = int(seconds * rate)
    data = b"\x00\x00" * frames
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt "
    header += struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
    return header + b"data" + struct.pack("<I", len(data)) + data


def png(width=8, height=8):
    """A small opaque RGB PNG."""
    import struct
    import zlib

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80\x40\x20" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def drain(stream):
    """Reads every event of an SDK stream; the number of events."""
    return sum(1 for _ in stream)


def main():
    client = OpenAI(base_url=os.environ["PRISM_URL"], api_key=os.environ["API_KEY"], max_retries=0)
    direct = OpenAI(base_url=os.environ["MOCK_URL"], api_key=os.environ["API_KEY"], max_retries=0)
    calls = [
        ("models.list", lambda: client.models.list()),
        ("models.retrieve", lambda: client.models.retrieve("whisper-1")),
        ("translations json", lambda: client.audio.translations.create(
            model="whisper-1", file=("a.wav", io.BytesIO(wav())))),
        ("transcriptions verbose_json", lambda: client.audio.transcriptions.create(
            model="whisper-1", file=("a.wav", io.BytesIO(wav())), response_format="verbose_json")),
        ("transcriptions vtt", lambda: client.audio.transcriptions.create(
            model="whisper-1", file=("a.wav", io.BytesIO(wav())), response_format="vtt")),
        ("transcriptions srt", lambda: client.audio.transcriptions.create(
            model="whisper-1", file=("a.wav", io.BytesIO(wav())), response_format="srt")),
        ("speech mp3", lambda: client.audio.speech.create(
            model="tts-1", voice="alloy", input="hello").read()),
        ("speech wav", lambda: client.audio.speech.create(
            model="gpt-4o-mini-tts", voice="verse", input="hello", response_format="wav").read()),
        ("images b64", lambda: client.images.generate(
            model="gpt-image-1", prompt="a lighthouse", size="1024x1024")),
        ("images url", lambda: client.images.generate(
            model="dall-e-3", prompt="a fox", size="1024x1024")),
        # Direct to the mock: Prism's proxy parses a body in memory and distorts binary
        # multipart parts (stoplightio/prism#1321), so the PNG would not reach it whole.
        ("images.edit (direct)", lambda: direct.images.edit(
            model="gpt-image-1", prompt="add a moon", image=("in.png", io.BytesIO(png()), "image/png"))),
        # The streams go direct too: Prism reads the `schema` of `text/event-stream` as the
        # whole body, where Schemathesis (which checks every event, ST108) reads it as one
        # event (OpenAPI before 3.2 has no `itemSchema`); see docs/openapi-exceptions.md.
        ("images stream (direct)", lambda: drain(direct.images.generate(
            model="gpt-image-1", prompt="a lighthouse", size="1024x1024", stream=True, partial_images=2))),
        ("transcriptions stream (direct)", lambda: drain(direct.audio.transcriptions.create(
            model="gpt-4o-mini-transcribe", file=("a.wav", io.BytesIO(wav())), stream=True))),
        ("speech sse (direct)", lambda: direct.audio.speech.with_streaming_response.create(
            model="gpt-4o-mini-tts", voice="alloy", input="hello", stream_format="sse").__enter__().read()),
    ]
    failed = 0
    for name, call in calls:
        try:
            call()
            print(f"  ok    {name}")
        except Exception as e:  # noqa: BLE001 - report every SDK failure
            failed += 1
            print(f"  FAIL  {name}: {type(e).__name__}: {e}")
    try:
        video = client.videos.create(model="sora-2", prompt="a calm lake", seconds="4", size="720x1280")
        print("  ok    videos.create")
        client.videos.list()
        print("  ok    videos.list")
        deadline = time.time() + 60
        while video.status not in ("completed", "failed", "error") and time.time() < deadline:
            time.sleep(1)
            video = client.videos.retrieve(video.id)
        print(f"  ok    videos.retrieve ({video.status})")
        client.videos.download_content(video.id).read()
        client.videos.download_content(video.id, variant="thumbnail").read()
        print("  ok    videos.download_content (video, thumbnail)")
        remix = client.videos.remix(video.id, prompt="the same lake at night")
        print(f"  ok    videos.remix ({remix.status})")
        client.videos.delete(video.id)
        print("  ok    videos.delete")
    except Exception as e:  # noqa: BLE001
        failed += 1
        print(f"  FAIL  videos: {type(e).__name__}: {e}")
    print(f"  {failed} SDK call(s) failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
